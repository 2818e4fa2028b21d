"""Report wiring (theory §6.4): each panel's statistics are the paper_stats functions of
the records, beside the theory at the realised widths."""

from __future__ import annotations

import numpy as np
import pytest

from freege.validation.paper import panels as paper_panels
from freege.validation.paper import report as paper_report
from freege.validation.paper import stats as paper_stats
from freege.validation.paper import theory as paper_theory

RNG = np.random.default_rng(11)


def fake(values: list) -> dict:
    return {i: {"draw": i, "status": "ok", "values": v} for i, v in enumerate(values)}


def test_2d_rows_are_fieller_intervals_of_the_paired_draws():
    configs = paper_panels.panel_2d(64)
    for c in configs:
        c["draws"] = 4
    errors = {c["key"]: RNG.uniform(1.0, 2.0, (4, 6)) for c in configs}
    recs = {c["key"]: fake([[{"error": e} for e in row] for row in errors[c["key"]]])
            for c in configs}
    panel = paper_report.panel_2d(configs, recs, {})
    x, y = errors["2d/dK=128,dV=128"], errors["2d/dK=64,dV=192"]
    for k, row in enumerate(panel["rows"]):
        want = paper_stats.fieller(x[:, k], y[:, k])
        assert (row["measured"], row["low"], row["high"]) == (want.estimate, want.low,
                                                               want.high)
        assert row["theory"] == paper_theory.temperature_ratio(configs[0]["dims"],
                                                               configs[1]["dims"], row["beta"])
    assert panel["crossover"] == pytest.approx(0.559, abs=0.01)  # the limit's, at S = 64


def test_3a_rows_are_bootstrap_arrivals_of_the_mean_curve():
    configs = [c for c in paper_panels.panel_3a(64) if c["label"]["h_kv"] == 1]
    recs = {}
    for c in configs:
        c["draws"] = 3
        n = c["dims"]["n"]
        recs[c["key"]] = fake([[{"eigenvalues": list(RNG.exponential(1.0, n)),
                                    "weights": list(RNG.dirichlet(np.ones(n)))}]
                                  for _ in range(3)])
    panel = paper_report.panel_3a(configs, recs, {"resamples": 200, "seed": 0})
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
