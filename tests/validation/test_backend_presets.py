"""Backend selection (the presets: tests/validation/models/test_presets.py)."""

import numpy as np
import pytest

from freege.validation.sampling import backend as B


def test_numpy_backend_and_seeded_generator():
    bk = B.get_backend("numpy")
    assert bk.name == "numpy" and bk.xp is np
    seq = np.random.SeedSequence(5)
    a = bk.normal(bk.generator(seq), (3, 2))
    b = bk.normal(bk.generator(np.random.SeedSequence(5)), (3, 2))
    assert a.dtype == np.float64 and np.array_equal(a, b)


def test_auto_and_cupy_follow_usability():
    problem = B.cupy_problem()
    if problem is None:
        assert B.get_backend("auto").name == "cupy"
    else:
        assert B.get_backend("auto").name == "numpy"
        with pytest.raises(ValueError, match="backend cupy is unusable"):
            B.get_backend("cupy")


def test_unknown_backend():
    with pytest.raises(ValueError, match="auto, numpy, cupy"):
        B.get_backend("jax")


def test_memory_meter_sees_numpy_buffers():
    bk = B.get_backend("numpy")
    with bk.memory() as meter:
        big = np.ones((1000, 1000))
        del big
    assert meter.peak_bytes >= 8 * 10**6

