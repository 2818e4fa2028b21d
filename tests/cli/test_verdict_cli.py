"""Every comparison command prints a ``verdict:`` line computed from its intervals, and
defines every column it prints (issue 30): ``validate``, ``ladder``, ``chain`` and
``sweep-report``, at small sizes."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import run_cli

SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--backend", "numpy",
         "--quiet"]


def _verdict(out: str) -> str:
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("verdict:")]
    assert len(lines) == 1, out
    return lines[0]


def test_validate_prints_the_decision_of_its_json(capsys):
    code, out, _ = run_cli(capsys, "validate", *SMALL, "--draws", "3")
    assert code == 0
    text = _verdict(out)
    code, out, _ = run_cli(capsys, "validate", *SMALL, "--draws", "3", "--format", "json")
    data = json.loads(out)
    v = data["verdict"]
    assert text == v["line"]  # the same computed line, not a fixed string
    opening = {"consistent": "verdict: GE consistent with softmax at this size",
               "above_floor": "verdict: softmax and GE differ above the noise floor",
               "undecided": "verdict: undecided"}[v["decision"]]
    assert text.startswith(opening)
    # the decision follows from the paired intervals it reports
    above = [c["difference"] - c["ci95"] > 0 for c in v["comparisons"]]
    assert (v["decision"] == "above_floor") == any(above)


def test_validate_defines_its_rows(capsys):
    code, out, _ = run_cli(capsys, "validate", *SMALL, "--draws", "2")
    assert code == 0
    for term in ("relative W1 =", "KS =", "noise floor =", "verdict =", "m_q error =",
                 "same weights and fresh noise"):
        assert term in out, term


def test_validate_plot_defines_the_density_row(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, _ = run_cli(capsys, "validate", *SMALL, "--draws", "2", "--plot",
                           str(tmp_path / "s.png"))
    assert code == 0
    assert "histogram vs limiting density:" in out
    assert "histogram vs limiting density = L1 distance" in out


def test_ladder_defines_its_columns_and_decides(capsys):
    code, out, _ = run_cli(capsys, "ladder", "--n", "24", "--trials", "3", "--backend",
                           "numpy", "--quiet")
    assert code == 0
    for term in ("W1 = Wasserstein-1", "L1 hist = ", "top 3 squared singular values =",
                 "noise floor =", "verdict ="):
        assert term in out, term
    assert "noise floor " in out
    _verdict(out)
    code, out, _ = run_cli(capsys, "ladder", "--n", "24", "--trials", "1", "--backend",
                           "numpy", "--quiet")
    assert _verdict(out) == "verdict: undecided (one draw gives no interval); rerun with " \
                            "--trials 3 or more"
