"""The predicted law of a model's own weights (docs/weights.md, theory §2): the
eigenvalue law of ``MHA^perp (MHA^perp)^T`` for given value matrices ``V_r`` and output
``W^O`` with Gaussian queries and keys.

It is the compound free Poisson law ``pi(mu_Omega, gamma_O)``, ``gamma_O = dO / n``, whose
jump law ``mu_Omega`` is the spectrum of the dO x dO matrix Omega of
:mod:`freege.weights`, taken at ``key_draws`` independent draws of Gaussian keys and
pooled (its fluctuation across key draws is O(1/dO)); a
:class:`freege.numeric.data_law.DataLaw` through the subordination engine. Omega's
deterministic equivalent (a matrix fixed point over the keys) is not computed.

This module lives in the numeric layer because the law is a ``DataLaw``; the file format
and Omega are in :mod:`freege.weights` (layer 1, numpy only).
"""

from __future__ import annotations

from typing import Any

from freege.numeric.data_law import DataLaw
from freege.weights import KEY_DRAWS, check_weights, weights_spec


def weights_law(V: Any, WO: Any, beta: float, dK: int, key_draws: int = KEY_DRAWS,
                seed: int = 0, dps: int | None = None) -> DataLaw:
    """The predicted law of the eigenvalues of ``MHA^perp (MHA^perp)^T`` (theory §1's
    centred MHA; the n x n Gram, its atom at 0 of mass ``1 - dO/n`` included when
    dO < n) for values ``V`` of shape ``(h, n, dV)`` and output ``WO`` of shape
    ``(h dV, dO)`` (layout: :mod:`freege.weights`), inverse temperature ``beta`` and key
    width ``dK``, with Gaussian queries and keys (independent per head). Omega's spectrum
    is pooled over ``key_draws`` seeded key draws; ``dps``: working precision (None:
    float64)."""
    v, wo = check_weights(V, WO)
    h, n, dv = v.shape
    text = (f"weights law (h={h}, n={n}, dV={dv}, dO={wo.shape[1]}, dK={dK}, "
            f"beta={float(beta):g}, {key_draws} key draws)")
    return DataLaw(weights_spec(v, wo, beta, dK, key_draws, seed), dps, text)


__all__ = ["weights_law"]
