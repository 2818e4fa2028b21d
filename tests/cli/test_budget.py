"""The preflight of ``validate`` and ``ladder`` (:mod:`freege.cli.budget`): refusals and
the announced estimate (the cost model it reads: tests/validation/sampling/test_cost.py)."""

from __future__ import annotations

import pytest

from freege.cli import budget
from freege.validation.sampling import cost
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.cost import Cost

NUMPY = get_backend("numpy")
SMALL = Cost(peak_bytes=2**20, matmul_flops=1e6, elementwise=1e4, eig_sizes=(16,))


def test_refuses_a_sample_larger_than_memory(monkeypatch, capsys):
    monkeypatch.setattr(cost, "available_memory", lambda _bk: 2**30)
    big = Cost(peak_bytes=3 * 2**30, matmul_flops=1.0, elementwise=1.0, eig_sizes=())
    with pytest.raises(ValueError, match=r"one draw needs about 3 GiB of memory and 1 GiB"):
        budget.preflight(big, 2, "draw", NUMPY, confirmed=True)
    assert capsys.readouterr().err == ""


def test_long_runs_need_confirmation(monkeypatch, capsys):
    monkeypatch.setattr(cost, "speeds", lambda _bk: cost.Speeds(1e9, 1e9, 1e-3))
    each = cost.seconds(SMALL, cost.speeds(NUMPY))
    count = int(budget.CONFIRM_SECONDS / each) + 1
    with pytest.raises(ValueError, match="pass --yes"):
        budget.preflight(SMALL, count, "trial", NUMPY, confirmed=False)
    assert capsys.readouterr().err == ""
    budget.preflight(SMALL, count, "trial", NUMPY, confirmed=True)
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and line.startswith(f"freege: estimate: {count} trials")


def test_quiet_announces_nothing_and_still_refuses(monkeypatch, capsys):
    """``quiet`` (``--quiet``) drops the estimate line, not the refusal of a long run."""
    monkeypatch.setattr(cost, "speeds", lambda _bk: cost.Speeds(1e9, 1e9, 1e-3))
    each = cost.seconds(SMALL, cost.speeds(NUMPY))
    count = int(budget.CONFIRM_SECONDS / each) + 1
    with pytest.raises(ValueError, match="pass --yes"):
        budget.preflight(SMALL, count, "trial", NUMPY, confirmed=False, quiet=True)
    assert budget.preflight(SMALL, 2, "trial", NUMPY, confirmed=True, quiet=True) == each
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("value", "text"), [(512, "512 B"), (3 * 2**30, "3 GiB"),
                                             (2.4e15, "2.13 PiB")])
def test_size_text(value, text):
    assert budget.size_text(value) == text


@pytest.mark.parametrize(("value", "text"), [(0.2, "0.2 s"), (90, "1.5 min"),
                                             (7200, "2 h"), (3 * 365.25 * 86400, "3 years")])
def test_duration_text(value, text):
    assert budget.duration_text(value) == text


def test_the_total_counts_what_was_spent_and_what_follows(monkeypatch, capsys):
    """The announced total is the whole run's CPU time: what the process spent before the
    estimate (measured), the samples and the modelled work after them."""
    monkeypatch.setattr(cost, "speeds", lambda _bk: cost.Speeds(1e9, 1e9, 1e-3))
    monkeypatch.setattr(budget.time, "process_time", lambda: 2.0)
    each = cost.seconds(SMALL, cost.speeds(NUMPY))
    budget.preflight(SMALL, 10, "draw", NUMPY, confirmed=True, after=3.0)
    line = capsys.readouterr().err
    total = budget.duration_text(2.0 + 10 * each + 3.0)
    assert f"; {total} of CPU time in all (2 s spent starting, 3 s after the draws);" in line
