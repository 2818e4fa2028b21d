"""``reproduce paper --measure``'s estimate (theory §6.4; issues 26, 29): draws too large
to run side by side are scheduled one at a time and the estimate says so, a draw larger
than the memory is refused, and on CuPy the draws' time is probed on the device (or
reads unknown, never demanding --yes)."""

from __future__ import annotations

import pytest

from freege.cli.budget import size_text
from freege.validation.paper import configs as paper_configs
from freege.validation.paper import panels as paper_panels
from freege.validation.paper import run as paper_run
from freege.validation.sampling import cost
from tests.cli.helpers import run_cli

ARGS = ("reproduce", "paper", "--measure", "--scale", "64", "--draws", "2", "--quiet")


def _peaks(panels):
    return {c["panel"]: paper_configs.peak_bytes(c)
            for c in sorted(paper_panels.configurations(panels, 64),
                            key=paper_configs.peak_bytes)}


def _stop_before_measuring(monkeypatch):
    def stop(*_args, **_kwargs):
        raise ValueError("stopped before measuring")

    monkeypatch.setattr(paper_run, "run", stop)


def test_big_draws_run_one_at_a_time_and_the_estimate_says_so(capsys, tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    peaks = _peaks(["2d", "3b"])
    monkeypatch.setattr(cost, "available_memory", lambda _bk: peaks["2d"] + 2 * peaks["3b"])
    _stop_before_measuring(monkeypatch)
    code, _, err = run_cli(capsys, *ARGS, "--panels", "2d,3b", "--workers", "2", "--out",
                           str(tmp_path / "run"))
    assert code == 2 and "stopped before measuring" in err  # not refused for memory
    lines = err.splitlines()
    assert "on 2 worker(s)" in lines[0]
    assert f"freege: 2d: run one at a time, memory {size_text(peaks['2d'])} each" in lines
    assert not any(line.startswith("freege: 3b:") for line in lines)  # two at a time


def test_a_draw_larger_than_the_memory_is_refused(capsys, tmp_path, monkeypatch):
    peaks = _peaks(["2d"])
    monkeypatch.setattr(cost, "available_memory", lambda _bk: peaks["2d"] - 1)
    code, _, err = run_cli(capsys, *ARGS, "--panels", "2d", "--out", str(tmp_path / "run"))
    assert code == 2 and err.count("\n") == 1
    assert f"a draw of panel 2d needs about {size_text(peaks['2d'])}" in err
    assert not (tmp_path / "run").exists()


@pytest.fixture
def probed(cupy_double, monkeypatch):
    """The CuPy double with fresh speed caches and the device's small-problem speeds
    given (the probe at the run's size is what is tested); yields the sizes the device
    was probed at."""
    cost.speeds.cache_clear()
    cost.device_speeds.cache_clear()
    monkeypatch.setattr(cost, "speeds", lambda _bk: cost.Speeds(1e9, 1e9, 1e-3))
    sizes = []
    probe = cost.device_speeds
    monkeypatch.setattr(cost, "device_speeds", lambda bk, n: sizes.append(n) or probe(bk, n))
    yield sizes
    probe.cache_clear()


def test_the_cupy_estimate_is_probed_on_the_device(probed, capsys, tmp_path, monkeypatch):
    from freege.cli import budget

    monkeypatch.setattr(budget, "CONFIRM_SECONDS", 0)  # refused right after the estimate
    code, _, err = run_cli(capsys, *ARGS, "--panels", "2d,3b", "--backend", "cupy", "--out",
                           str(tmp_path / "run"))
    largest = max(c["dims"]["n"] for c in paper_panels.configurations(["2d", "3b"], 64))
    assert code == 2 and probed == [largest]
    assert "measuring on cupy at its speed probed on the device" in err.splitlines()[0]
    assert "pass --yes" in err.splitlines()[-1]


def test_the_cupy_estimate_without_a_probe_reads_unknown(probed, cupy_double, capsys,
                                                         tmp_path, monkeypatch):
    from freege.cli import budget

    cupy_double.STATE.failing.add("eigvalsh")
    monkeypatch.setattr(budget, "CONFIRM_SECONDS", 0)  # an unknown time demands no --yes
    _stop_before_measuring(monkeypatch)
    code, _, err = run_cli(capsys, *ARGS, "--panels", "3b", "--backend", "cupy", "--out",
                           str(tmp_path / "run"))
    assert code == 2 and "stopped before measuring" in err
    first = err.splitlines()[0]
    assert "measuring time unknown (the device probe at n = " in first
    assert "failed (LinAlgError" in first


def test_estimate_prints_the_plan_and_writes_nothing(capsys, tmp_path, monkeypatch):
    """``--estimate``: the plan per panel on stdout, the estimate on stderr, exit 0, and
    neither a draw measured nor the --out folder made."""
    _stop_before_measuring(monkeypatch)
    out = tmp_path / "run"
    code, stdout, err = run_cli(capsys, "reproduce", "paper", "--estimate", "--scale", "64",
                                "--draws", "2", "--panels", "2a,3a", "--out", str(out))
    assert code == 0, err
    configs = paper_panels.configurations(["2a", "3a"], 64, 2)
    for panel in ("2a", "3a"):
        mine = [c for c in configs if c["panel"] == panel]
        draws = sum(c["draws"] for c in mine)
        assert f"{panel}: {len(mine)} configuration(s), {draws} draws, {draws} to measure" \
            in stdout
    assert "draws to measure" in err and "nothing measured or written" in stdout
    # both precisions' measuring times side by side (issue 41), from the same cost model
    both = next(line for line in err.splitlines() if "by --dtype:" in line)
    assert "float64 " in both and "float32 " in both and "float32/float64 = " in both
    assert not out.exists()
