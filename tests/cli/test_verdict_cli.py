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


def test_sweep_report_prints_a_verdict_and_defines_its_columns(capsys, tmp_path):
    store = str(tmp_path / "s.jsonl")
    code, _, _ = run_cli(capsys, "sweep", "--n", "32", "48", "--h", "2", "--dk", "8", "--do",
                         "16", "--draws", "3", "--store", store, "--workers", "1", "--quiet")
    assert code == 0
    code, out, _ = run_cli(capsys, "sweep-report", store)
    assert code == 0
    _verdict(out)
    for term in ("floor rel_w1", "rel_w1: relative W1", "ks: KS", "limit_m1: ",
                 "verdict = decision", "n-scaling: "):
        assert term in out, term
    code, out, _ = run_cli(capsys, "sweep-report", store, "--format", "json")
    data = json.loads(out)
    decisions = [e["verdict"]["decision"] for e in data["points"]]
    assert all(d in ("consistent", "above_floor", "undecided") for d in decisions)
    assert data["verdict"].startswith("verdict: ")


def test_report_verdict_sums_up_the_points():
    from freege.validation.sweep.report import report_verdict

    def point(decision, n):
        comparisons = [{"metric": "ks", "difference": 0.02, "ci95": 0.01,
                        "decision": decision}]
        return {"n": n, "h": 2, "beta": 1.0, "draws": 5,
                "verdict": {"decision": decision, "comparisons": comparisons}}

    old = {"n": 96, "h": 2, "beta": 1.0, "draws": 5, "verdict": None}
    text = report_verdict([point("consistent", 32), point("above_floor", 64), old])
    assert text.startswith("verdict: softmax and GE differ above the noise floor at 1 of 2")
    assert "n=64 h=2 beta=1: ks +0.02 ± 0.01" in text and "1 point(s) have no noise floor" in text
    assert report_verdict([point("consistent", 32)]).startswith(
        "verdict: GE consistent with softmax at all 1 point(s)")


def test_moment_errors_are_flagged_when_their_interval_excludes_zero(capsys):
    code, out, _ = run_cli(capsys, "validate", *SMALL, "--draws", "4")
    assert code == 0
    code, js, _ = run_cli(capsys, "validate", *SMALL, "--draws", "4", "--format", "json")
    errors = json.loads(js)["moment_rel_error"]
    for q in ("m1", "m2"):
        row = next(line for line in out.splitlines()
                   if line.strip().startswith(f"{q} empirical / limit - 1:"))
        soft, ge = row.split(":", 1)[1].split(", GE ")
        for text, x in ((soft, errors["softmax"][q]), (ge, errors["ge"][q])):
            assert (" *" in text) == (abs(x["mean"]) > x["ci95"]), row
