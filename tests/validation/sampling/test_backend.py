"""The array backends (:mod:`freege.validation.sampling.backend`): selection, the seeded
generator, what each backend can do, the memory meter (the presets:
tests/validation/models/test_presets.py)."""

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


def test_backends_are_listed_by_their_classes():
    assert B.BACKENDS == ("auto", *(kind.name for kind in B.KINDS))
    assert set(B.AUTO) == set(B.KINDS) and set(B.PEAK_MEMORY_MEANS) == set(B.BACKENDS[1:])


def test_numpy_backend_computes_on_the_cpu_in_numpy_arrays():
    bk = B.get_backend("numpy", "float32")
    assert isinstance(bk, B.NumpyBackend) and bk.dtype == "float32"
    assert bk.on_cpu and bk.numpy_arrays and bk.free_device_memory() is None
    assert type(B.get_backend(bk, "float64")) is B.NumpyBackend
    a = np.ones(3)
    assert bk.to_numpy(a) is a


def test_cupy_backend_on_the_double_is_a_device(cupy_double):
    bk = B.get_backend("cupy")
    assert isinstance(bk, B.CupyBackend) and bk.xp is cupy_double
    assert not bk.on_cpu and not bk.numpy_arrays
    assert bk.free_device_memory() == 2**33  # the double's memGetInfo
    assert type(B.get_backend("auto")) is B.CupyBackend
    assert isinstance(bk.to_numpy(bk.normal(bk.generator(np.random.SeedSequence(1)), (4,))),
                      np.ndarray)
