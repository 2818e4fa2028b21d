"""The cost model of the sampler (:mod:`freege.validation.sampling.cost`): the memory
estimates of a draw and a ladder trial (``draw_cost``,
:func:`freege.validation.ladder.trial_cost`) bound the measured peak from above, and not
loosely; the time estimates at the measured speeds are near the measured CPU time; the
available memory is read."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from freege.params import Dims
from freege.validation import ladder
from freege.validation.sampling import cost
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.cost import COST_OVERHEAD_BYTES, Cost, draw_cost
from freege.validation.sampling.sample import draw

NUMPY = get_backend("numpy")
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


@pytest.mark.parametrize("floor", [False, True], ids=["two models", "with floor"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dims", CONFIGS, ids=str)
def test_draw_memory_estimate_bounds_the_peak(dims, dtype, floor):
    measured = draw(dims, seed=0, dtype=dtype, floor=floor).peak_bytes  # NumPy's buffers
    estimate = draw_cost(dims, dtype, floor).peak_bytes
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


@pytest.mark.parametrize("dims", [Dims(n=64, h=4, dK=16, dV=16, dO=64, sharing="mqa"),
                                  Dims(n=160, h=3, dK=40, dV=24, dO=96)], ids=str)
def test_chain_draw_estimates(dims):
    """The chain's draw cost bounds its measured peak and is near its CPU time."""
    from freege.validation import chain

    chain.draw(dims, seed=0)
    # CPU time (not wall: a busy machine does not move it), outside tracemalloc, which
    # slows every allocation
    start = time.process_time()
    chain.draw(dims, seed=1)
    seconds = time.process_time() - start
    tracemalloc.start()
    try:
        chain.draw(dims, seed=1)
        measured = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = chain.draw_cost(dims)
    assert measured <= estimate.peak_bytes <= 4 * measured + COST_OVERHEAD_BYTES
    assert seconds / 5 <= cost.seconds(estimate, cost.speeds(NUMPY)) <= 5 * seconds


def test_available_memory_is_read():
    free = cost.available_memory(NUMPY)
    assert free is not None and free > 2**20


def test_seconds_adds_the_parts():
    speed = cost.Speeds(matmul=1e9, elementwise=1e8, eig_seconds=0.5)
    sample = Cost(peak_bytes=0, matmul_flops=2e9, elementwise=3e8,
                  eig_sizes=(cost.CALIBRATION_SIZE, 2 * cost.CALIBRATION_SIZE))
    assert cost.seconds(sample, speed) == pytest.approx(2 + 3 + 0.5 * (1 + 8))


def test_measured_speeds_are_positive():
    s = cost.speeds(NUMPY)
    assert s.matmul > 0 and s.elementwise > 0 and s.eig_seconds > 0


def _cpu_seconds(run) -> float:  # noqa: ANN001
    start = time.process_time()
    run()
    return time.process_time() - start


@pytest.mark.parametrize("dims", [Dims(n=96, h=4, dK=24, dV=24, dO=96),
                                  Dims(n=160, h=8, dK=20, dV=20, dO=160)], ids=str)
def test_draw_estimate_is_near_the_measured_time(dims):
    """The per-draw estimate (one core's CPU time) against the CPU time of three draws,
    within 5x either way (the benchmark prints the full table from n = 64 to 4096)."""
    estimate = cost.seconds(draw_cost(dims), cost.speeds(NUMPY))
    measured = min(_cpu_seconds(lambda i=i: draw(dims, seed=(0, i))) for i in range(3))
    assert measured / 5 <= estimate <= 5 * measured


def test_ladder_estimate_is_near_the_measured_time():
    estimate = cost.seconds(ladder.trial_cost(64), cost.speeds(NUMPY))
    measured = min(_cpu_seconds(lambda i=i: ladder.trial(64, seed=i)) for i in range(3))
    assert measured / 5 <= estimate <= 5 * measured
