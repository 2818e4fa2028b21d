"""The CuPy path (theory §7: one code path, compared with NumPy statistically). Skipped
cleanly without CuPy or a usable GPU."""

import numpy as np
import pytest

from freege.params import Dims
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import cupy_problem

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _needs_gpu():
    pytest.importorskip("cupy")
    problem = cupy_problem()
    if problem is not None:
        pytest.skip(problem)


def _welch_ok(a, b, level=0.9999):
    """Equal means by Welch's t test (6 draws per backend: a t quantile, not a normal one)."""
    return metrics.welch(a, b, level).agree


@pytest.mark.parametrize("case", ["attention", "mha", "mha-tied"])
def test_case_moments_agree_across_backends(case):
    from freege.validation.sampling.sample import case_eigenvalues

    dims = Dims(n=128, h=4, dK=32, dV=32, dO=128)
    for model in ("softmax", "ge"):
        gpu = [case_eigenvalues(case, dims, seed=s, model=model, backend="cupy")
               for s in range(6)]
        cpu = [case_eigenvalues(case, dims, seed=s, model=model, backend="numpy")
               for s in range(6)]
        assert all(e.dtype == np.float64 and isinstance(e, np.ndarray) for e in gpu)
        for q in (1, 2):
            assert _welch_ok([np.mean(e**q) for e in gpu], [np.mean(e**q) for e in cpu])


def test_validate_and_ladder_run_on_cupy():
    from freege.validation import ladder
    from freege.validation.runner import validate

    res = validate(Dims(n=96, h=3, dK=16, dV=16, dO=96), draws=2, backend="cupy")
    assert res.backend == "cupy" and res.summary()["peak_memory_bytes"] > 0
    summary, last = ladder.run(64, trials=1, backend="cupy")
    assert summary["backend"] == "cupy" and last.spectra["Y_f_lin"].shape == (64,)
