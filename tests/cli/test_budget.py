"""The preflight of ``validate`` and ``ladder`` (:mod:`freege.cli.budget`): refusals and
the announced estimate."""

from __future__ import annotations

import time

import pytest

from freege.cli import budget
from freege.params import Dims
from freege.validation import ladder
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.sample import Cost, draw, draw_cost

NUMPY = get_backend("numpy")
SMALL = Cost(peak_bytes=2**20, matmul_flops=1e6, elementwise=1e4, eig_sizes=(16,))


def test_available_memory_is_read():
    free = budget.available_memory(NUMPY)
    assert free is not None and free > 2**20


def test_refuses_a_sample_larger_than_memory(monkeypatch, capsys):
    monkeypatch.setattr(budget, "available_memory", lambda _bk: 2**30)
    big = Cost(peak_bytes=3 * 2**30, matmul_flops=1.0, elementwise=1.0, eig_sizes=())
    with pytest.raises(ValueError, match=r"one draw needs about 3 GiB of memory and 1 GiB"):
        budget.preflight(big, 2, "draw", NUMPY, confirmed=True)
    assert capsys.readouterr().err == ""


def test_long_runs_need_confirmation(monkeypatch, capsys):
    monkeypatch.setattr(budget, "speeds", lambda _bk: budget.Speeds(1e9, 1e9, 1e-3))
    each = budget.seconds(SMALL, budget.speeds(NUMPY))
    count = int(budget.CONFIRM_SECONDS / each) + 1
    with pytest.raises(ValueError, match="pass --yes"):
        budget.preflight(SMALL, count, "trial", NUMPY, confirmed=False)
    assert capsys.readouterr().err == ""
    budget.preflight(SMALL, count, "trial", NUMPY, confirmed=True)
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(f"freege: estimate: {count} trials")


def test_seconds_adds_the_parts():
    speed = budget.Speeds(matmul=1e9, elementwise=1e8, eig_seconds=0.5)
    cost = Cost(peak_bytes=0, matmul_flops=2e9, elementwise=3e8,
                eig_sizes=(budget.CALIBRATION_SIZE, 2 * budget.CALIBRATION_SIZE))
    assert budget.seconds(cost, speed) == pytest.approx(2 + 3 + 0.5 * (1 + 8))


def test_measured_speeds_are_positive():
    s = budget.speeds(NUMPY)
    assert s.matmul > 0 and s.elementwise > 0 and s.eig_seconds > 0


@pytest.mark.parametrize(("value", "text"), [(512, "512 B"), (3 * 2**30, "3 GiB"),
                                             (2.4e15, "2.13 PiB")])
def test_size_text(value, text):
    assert budget.size_text(value) == text


@pytest.mark.parametrize(("value", "text"), [(0.2, "0.2 s"), (90, "1.5 min"),
                                             (7200, "2 h"), (3 * 365.25 * 86400, "3 years")])
def test_duration_text(value, text):
    assert budget.duration_text(value) == text


def _cpu_seconds(run) -> float:  # noqa: ANN001
    start = time.process_time()
    run()
    return time.process_time() - start


@pytest.mark.parametrize("dims", [Dims(n=96, h=4, dK=24, dV=24, dO=96),
                                  Dims(n=160, h=8, dK=20, dV=20, dO=160)], ids=str)
def test_draw_estimate_is_near_the_measured_time(dims):
    """The per-draw estimate (one core's CPU time) against the CPU time of three draws,
    within 5x either way (the benchmark prints the full table from n = 64 to 4096)."""
    estimate = budget.seconds(draw_cost(dims), budget.speeds(NUMPY))
    measured = min(_cpu_seconds(lambda i=i: draw(dims, seed=(0, i))) for i in range(3))
    assert measured / 5 <= estimate <= 5 * measured


def test_ladder_estimate_is_near_the_measured_time():
    estimate = budget.seconds(ladder.trial_cost(64), budget.speeds(NUMPY))
    measured = min(_cpu_seconds(lambda i=i: ladder.trial(64, seed=i)) for i in range(3))
    assert measured / 5 <= estimate <= 5 * measured
