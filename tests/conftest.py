"""Test configuration: hypothesis runs derandomized (seeded) everywhere, so the suite
is reproducible; ``HYPOTHESIS_PROFILE=dev`` gives more, randomized examples locally."""

import os

# The suite works on small matrices, where BLAS threads only contend for the cores (and
# spin in the kernel); one thread per process keeps it fast and its timing stable.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def cupy_double(monkeypatch):
    """The CuPy test double (tests/cupy_double.py) as ``cupy`` and ``cupyx`` for this
    test only, reset to 7 random states (freege's fixed state count too: 2^18 emulated
    states would cost seconds per generator) and nothing failing; yields the module."""
    from freege.validation.sampling import backend
    from tests import cupy_double as double

    monkeypatch.setattr(backend, "GPU_RANDOM_STATES", 7)
    double.reset()
    monkeypatch.setitem(sys.modules, "cupy", double)
    monkeypatch.setitem(sys.modules, "cupyx", double.cupyx)
    monkeypatch.setitem(sys.modules, "cupy.cuda", double.cuda)
    monkeypatch.setitem(sys.modules, "cupy.linalg", double.linalg)
    monkeypatch.setitem(sys.modules, "cupy.random", double.random)
    return double
