"""The paper reproduction's verdicts (theory §6.4) on synthetic statistics: a panel whose
measurements scatter about the limit agrees, one shifted off it differs and says by how
much; the paper's own values are compared only at S = 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper import verdict
from freege.validation.paper.panels import panel_3b


def test_allowed_misses_is_the_binomial_tail_at_the_family_level():
    from scipy.stats import binom

    for n in (1, 2, 6, 15, 40):
        m = verdict.allowed_misses(n)
        assert binom.sf(m, n, 0.05) <= verdict.FAMILY_LEVEL * (1 + 1e-9)
        assert m == 0 or binom.sf(m - 1, n, 0.05) > verdict.FAMILY_LEVEL
    with pytest.raises(ValueError, match="checks must be >= 0"):
        verdict.allowed_misses(-1)


def _part(shift: float, rows: int = 20, draws: int = 5, seed: int = 1) -> dict:
    """A panel part: ``rows`` limits, each measured by ``draws`` draws of spread 0.1 about
    ``limit + shift``, with Student-t intervals (seeded)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(rows):
        limit = 1.0 + k / rows
        iv = st.student(limit + shift + 0.1 * rng.standard_normal(draws))
        out.append({"h": k, **sm.interval_row(iv, limit)})
    worst = max(abs(r["relative_difference"]) for r in out)
    return {"rows": out, "columns": ["h"], "statistics": [
        sm.stat("largest relative difference, %", 100 * worst, 1.5)]}


def test_measurements_about_the_limit_agree():
    v = verdict.panel(_part(0.0), 64, measured=True)
    assert v["verdict"] == verdict.AGREES and v["checks"] == 20
    assert v["misses"] <= v["allowed"] == verdict.allowed_misses(20)
    assert v["line"].startswith("agrees with the paper within the intervals")
    assert "(paper: 1.5)" in v["line"]


def test_measurements_off_the_limit_differ_and_say_by_how_much():
    part = _part(0.5)  # five spreads: far outside every 95% interval of five draws
    v = verdict.panel(part, 64, measured=True)
    assert v["verdict"] == verdict.DIFFERS and v["misses"] > v["allowed"]
    worst = max(part["rows"], key=lambda r: abs(r["measured"] - r["theory"])
                / (r["measured"] - r["low"]))
    assert v["worst"]["label"] == f"h = {worst['h']}"
    gap = (worst["measured"] - worst["theory"]) / (worst["measured"] - worst["low"])
    assert v["worst"]["gap"] == pytest.approx(gap) and gap > 1
    assert f"{100 * worst['relative_difference']:+.3g} %" in v["line"]
    assert v["line"].startswith("differs from the paper")


def test_a_row_listed_twice_counts_once():
    part = _part(0.0, rows=3)
    part["rows"].append(dict(part["rows"][0]))
    assert verdict.panel(part, 64, measured=True)["checks"] == 3


def _table2(rel_w1: list[float], paper: tuple[float, float]) -> dict:
    iv = st.student(rel_w1)
    return {"columns": ["preset"], "statistics": [], "rows": [
        {"preset": "bert-base", "paper_checks": [sm.paper_check("rel W1 %", iv, *paper)]}]}


def test_the_papers_values_are_compared_only_at_scale_one():
    near = _table2([1.60, 1.70, 1.65, 1.68], (1.66, 0.23))
    far = _table2([2.60, 2.70, 2.65, 2.68], (1.66, 0.23))
    v = verdict.panel(near, 64, measured=True)
    assert v["verdict"] == verdict.NONE and "at S = 1" in v["line"]
    assert verdict.panel(near, 1, measured=True)["verdict"] == verdict.AGREES
    v = verdict.panel(far, 1, measured=True)
    assert v["verdict"] == verdict.DIFFERS and "the paper 1.66" in v["line"]
    # the difference's half-width combines both: sqrt(h_freege^2 + h_paper^2)
    half = math.hypot(st.student([2.60, 2.70, 2.65, 2.68]).bar, 0.23)
    assert v["worst"]["gap"] == pytest.approx(abs(2.6575 - 1.66) / half)


def test_panels_without_checks_have_no_verdict_and_the_overall_line_names_them():
    theory_only = verdict.panel({"rows": []}, 1, measured=False)
    one_draw = verdict.panel({"rows": [{"theory": 0.2, "measured": 0.21, "low": None,
                                        "high": None}]}, 1, measured=True)
    assert "theory only" in theory_only["line"] and "one draw" in one_draw["line"]
    good, bad = (verdict.panel(_part(s), 64, measured=True) for s in (0.0, 0.5))
    line = verdict.overall({"2a": good, "2b": theory_only, "3b": bad, "d1": one_draw}, 64)
    assert line.startswith("overall: differs from the paper in 1 of 2 panels with a verdict "
                           "(3b); no verdict: 2b, d1")
    assert verdict.panel(_part(0.5, rows=1), 1, measured=True)["verdict"] == verdict.DIFFERS
    assert verdict.overall({"2a": good}, 1) == ("overall: agrees with the paper in the one "
                                                "panel with a verdict")


@pytest.mark.parametrize(("bias", "want"), [(1.0, verdict.AGREES), (1.2, verdict.DIFFERS)])
def test_panel_3b_on_synthetic_draws(bias, want):
    """3(b)'s own summary of draws scattered (0.5 %) about ``bias`` times the limit."""
    rng = np.random.default_rng(7)
    configs = panel_3b.build(64)
    recs = {}
    for c in configs:
        c["draws"] = 4
        limit = th.ridge(c["dims"])
        errors = bias * limit * (1 + 0.005 * rng.standard_normal(4))
        recs[c["key"]] = {i: {"draw": i, "status": "ok", "values": [{"error": e}]}
                          for i, e in enumerate(errors)}
    part = panel_3b.summarize(configs, recs, {})
    v = verdict.panel(part, 64, measured=True)
    assert v["verdict"] == want and v["checks"] == len(part["rows"])
