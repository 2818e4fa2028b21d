"""Report wiring (theory §6.4): each panel's statistics are the paper_stats functions of
the records, beside the theory at the realised widths."""

from __future__ import annotations

import numpy as np
import pytest

from freege.validation.paper import panels as paper_panels
from freege.validation.paper import report as paper_report
from freege.validation.paper import stats as paper_stats
from freege.validation.paper import theory as paper_theory
from freege.validation.paper.panels import panel_2a, panel_2d, panel_3a, panel_3b

RNG = np.random.default_rng(11)


def fake(values: list) -> dict:
    return {i: {"draw": i, "status": "ok", "values": v} for i, v in enumerate(values)}


def test_2d_rows_are_fieller_intervals_of_the_paired_draws():
    configs = panel_2d.build(64)
    for c in configs:
        c["draws"] = 4
    errors = {c["key"]: RNG.uniform(1.0, 2.0, (4, 6)) for c in configs}
    recs = {c["key"]: fake([[{"error": e} for e in row] for row in errors[c["key"]]])
            for c in configs}
    panel = panel_2d.summarize(configs, recs, {})
    x, y = errors["2d/dK=128,dV=128"], errors["2d/dK=64,dV=192"]
    for k, row in enumerate(panel["rows"]):
        want = paper_stats.fieller(x[:, k], y[:, k])
        assert (row["measured"], row["low"], row["high"]) == (want.estimate, want.low,
                                                               want.high)
        assert row["theory"] == panel_2d.temperature_ratio(configs[0]["dims"],
                                                               configs[1]["dims"], row["beta"])
    assert panel["crossover"] == pytest.approx(0.559, abs=0.01)  # the limit's, at S = 64


def test_3a_rows_are_bootstrap_arrivals_of_the_mean_curve():
    configs = [c for c in panel_3a.build(64) if c["label"]["h_kv"] == 1]
    recs = {}
    for c in configs:
        c["draws"] = 3
        n = c["dims"]["n"]
        recs[c["key"]] = fake([[{"eigenvalues": list(RNG.exponential(1.0, n)),
                                    "weights": list(RNG.dirichlet(np.ones(n)))}]
                                  for _ in range(3)])
    panel = panel_3a.summarize(configs, recs, {"resamples": 200, "seed": 0})
    for c, row in zip(configs, panel["rows"], strict=True):
        lam = np.array([d["values"][0]["eigenvalues"] for d in recs[c["key"]].values()])
        w = np.array([d["values"][0]["weights"] for d in recs[c["key"]].values()])
        want = paper_stats.bootstrap_arrival(lam, w, resamples=200, seed=0)
        assert (row["measured"], row["low"], row["high"]) == (want.estimate, want.low,
                                                               want.high)
        assert row["paper"] in (39.11, 7.57)
    stats = {s["statistic"]: s for s in panel["statistics"]}
    assert stats["predicted, fixed widths, full sharing"]["freege"] == pytest.approx(
        41.22, abs=0.005)  # gK = gV = 1, gO = 2 at every scale; the paper prints 41.22


def _flow_records(configs: list[dict], draws: int = 3) -> dict:
    recs = {}
    for c in configs:
        c["draws"] = draws
        n = c["dims"]["n"]
        recs[c["key"]] = fake([[{"eigenvalues": list(RNG.exponential(1.0, n)),
                                    "weights": list(RNG.dirichlet(np.ones(n)))}]
                                  for _ in range(draws)])
    return recs


def test_2a_points_and_bars_run_over_the_papers_plotted_times():
    configs = panel_2a.build(64)
    panel = panel_2a.summarize(configs, _flow_records(configs), {})
    times = sorted({r["t"] for r in panel["rows"]})
    assert times == list(panel_2a.MEASURED_CURVE_TIMES) and max(times) == 100
    intervals = [paper_stats.Interval(r["measured"], r["low"], r["high"]) for r in panel["rows"]]
    stats = {s["statistic"]: s["freege"] for s in panel["statistics"]}
    assert stats["maximum error bar, relative %"] == pytest.approx(
        100 * paper_stats.largest_bars(intervals)["relative"], rel=1e-12)
    assert max(max(c["t"]) for c in panel["curves"].values()) > 100  # theory goes on


def test_3a_baseline_is_measured_once_and_shared_by_both_paths():
    configs = panel_3a.build(64)
    recs = _flow_records(configs, 2)
    panel = panel_3a.summarize(configs, recs, {"resamples": 100, "seed": 0, "scale": 64})
    base = [r for r in panel["rows"] if r["h_kv"] == 64]
    assert {r["path"] for r in base} == {"fixed widths", "fixed N_par"}
    assert base[0]["configuration"] == base[1]["configuration"] == "3a/h_kv=64"
    assert base[0]["measured"] == base[1]["measured"]
    for row in panel["rows"]:  # each row against the theory at its own realised widths
        config = next(c for c in configs if c["key"] == row["configuration"])
        assert row["theory"] == paper_theory.arrival(config["dims"])
    rounded = next(s for s in panel["statistics"] if "realised widths dK" in s["statistic"])
    assert rounded["paper"] is None  # the paper's 7.76 is a full-scale width's prediction
    # at S = 64 the integers cannot keep every h_kv apart: the report names those that share
    shared = [c["label"]["h_kv"] for c in configs if c["label"].get("same_widths_as")]
    said = next(s["freege"] for s in panel["statistics"] if "coincide" in s["statistic"])
    assert shared and said.startswith("h_kv = ")
    assert sorted(int(k) for k in said.split("(")[0][len("h_kv = "):].split(",")) == sorted(
        shared)


def test_2d_prints_the_theory_interpolated_like_the_measurement():
    configs = panel_2d.build(64)
    for c in configs:
        c["draws"] = 3
    recs = {c["key"]: fake([[{"error": e} for e in RNG.uniform(1.0, 2.0, 6)]
                            for _ in range(3)]) for c in configs}
    panel = panel_2d.summarize(configs, recs, {})
    stats = {s["statistic"]: s["freege"] for s in panel["statistics"]}
    same = next(v for k, v in stats.items() if "theory ratios, the same interpolation" in k)
    betas = [r["beta"] for r in panel["rows"]]
    k = next(i for i in range(5) if (panel["rows"][i]["theory"] - 1)
             * (panel["rows"][i + 1]["theory"] - 1) <= 0)
    lo, hi = panel["rows"][k]["theory"], panel["rows"][k + 1]["theory"]
    assert betas[k] <= same <= betas[k + 1]
    assert np.interp(same, betas[k:k + 2], [lo, hi]) == pytest.approx(1.0, abs=1e-12)
    exact = next(v for k_, v in stats.items() if "exact" in k_)
    assert exact == panel["crossover"] and exact != same


@pytest.mark.parametrize(("scale", "narrow"), [(4, False), (64, True)])
def test_each_panel_names_its_widths_and_the_finite_width_excess(scale, narrow):
    from scipy import integrate, stats

    configs = paper_panels.configurations(["3b"], scale, draws=2)
    meta = {"scale": scale, "seed": 0, "draws": 2, "resamples": 100, "backend": "numpy",
            "target_seed": 0}
    report = paper_report.build([panel_3b.PANEL], configs, {}, meta, {})
    fw = report["panels"]["3b"]["finite_width"]
    dks = {c["dims"]["dK"] for c in configs}
    assert fw["widths"] == [f"{k}x{k}" for k in sorted(dks)] and fw["narrow"] is narrow
    dk = min(dks)
    if dk <= 2:  # 2 beta^2 >= dK: the chi2 mean of exp(|q|^2 / dK) diverges
        assert fw["theta1_excess_percent"] == np.inf
    else:  # E exp(|q|^2 / dK) - 1 at beta = 1, |q|^2 ~ chi2_dK, by quadrature
        mean = integrate.quad(lambda x: np.exp(stats.chi2.logpdf(x, dk) + x / dk), 0,
                              np.inf)[0] - 1
        assert fw["theta1_excess_percent"] == pytest.approx(100 * (mean / np.expm1(1) - 1),
                                                            rel=1e-6)
    md = paper_report.to_markdown(report, [panel_3b.PANEL])
    assert f"Per-head widths dK x dV at this scale: {', '.join(fw['widths'])}" in md
    assert ("finite width dominates" in md) is narrow
    assert ("diverges" in md) is (dk <= 2)


def test_the_excess_diverges_where_the_chi2_mean_does():
    assert paper_theory.theta1_excess(2, 1.0) == np.inf
    assert 0 < paper_theory.theta1_excess(64, 1.0) < paper_theory.theta1_excess(16, 1.0)
