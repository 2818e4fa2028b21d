"""The memory estimates of a draw and a ladder trial (freege.validation.sampling.sample.draw_cost,
freege.validation.ladder.trial_cost) bound the measured peak from above, and not loosely."""

from __future__ import annotations

import tracemalloc

import pytest

from freege.params import Dims
from freege.validation import ladder
from freege.validation.sampling.sample import COST_OVERHEAD_BYTES, draw, draw_cost

CONFIGS = [
    Dims(n=256, h=4, dK=16, dV=16, dO=64),
    Dims(n=128, h=2, dK=64, dV=200, dO=300),  # dV > n: the QR branch of the GE noise
    Dims(n=200, h=8, dK=8, dV=8, dO=500, sharing="tied"),
    Dims(n=100, h=12, dK=64, dV=64, dO=768, sharing="gqa", h_kv=3),  # several W^O blocks
    Dims(n=40, h=30, dK=4, dV=4, dO=2000),
]


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """First calls allocate once-only caches; measure steady-state draws."""
    draw(Dims(n=16, h=2, dK=2, dV=2, dO=2), seed=0)
    ladder.trial(8, seed=0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dims", CONFIGS, ids=str)
def test_draw_memory_estimate_bounds_the_peak(dims, dtype):
    measured = draw(dims, seed=0, dtype=dtype).peak_bytes  # tracemalloc: NumPy's buffers
    estimate = draw_cost(dims, dtype).peak_bytes
    assert measured <= estimate <= 2 * measured + COST_OVERHEAD_BYTES


@pytest.mark.parametrize("n", [100, 300])
def test_trial_memory_estimate_bounds_the_peak(n):
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        ladder.trial(n, seed=0)
        measured = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    estimate = ladder.trial_cost(n).peak_bytes
    assert measured <= estimate <= 2 * measured + COST_OVERHEAD_BYTES
