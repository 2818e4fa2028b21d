"""Paper figures (theory §6.4): integer axes labelled at their values, 3(a) against
h / h_KV, 2(a)'s y-axis over the plotted times."""

from __future__ import annotations

import numpy as np

from freege import plotting
from freege.validation.paper import plots, setups


def _row(**kw) -> dict:
    return {"measured": 2.0, "low": 1.0, "high": 3.0, "theory": 2.0, **kw}


def _axes():
    return plotting._figure_class()().add_subplot()


def test_3b_and_3a_label_integer_axes_at_their_values_and_3a_plots_h_over_h_kv():
    ax = _axes()
    plots._3b(ax, {"rows": [_row(h=h, scheme=s) for h in setups.SHARING_HEADS
                            for s in ("GQA", "tied")]})
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(h) for h in
                                                            setups.SHARING_HEADS]
    ax = _axes()
    plots._3a(ax, {"rows": [_row(path=p, h_kv=k) for k in setups.ARRIVAL_GROUPS
                            for p in ("fixed widths", "fixed N_par")]})
    ratios = sorted(setups.ARRIVAL_HEADS // k for k in setups.ARRIVAL_GROUPS)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(r) for r in ratios]
    assert sorted(ax.lines[0].get_xdata()) == ratios


def test_2a_y_axis_covers_the_plotted_times_not_the_theory_tail():
    t = np.geomspace(1e-2, 1e3, 61)
    loss = np.exp(-t / 2)  # ~1e-22 at t = 100, ~1e-217 at t = 1000
    rows = [{"h": 128, "t": 1.0, "measured": 0.6, "low": 0.5, "high": 0.7},
            {"h": 128, "t": 100.0, "measured": 2e-22, "low": 1e-22, "high": 3e-22}]
    ax = _axes()
    plots._2a(ax, {"curves": {"h = 128": {"t": list(t), "loss": list(loss)}}, "rows": rows})
    low, high = ax.get_ylim()
    assert np.exp(-100 / 2) / 10 < low < 1e-22 and high > 1
