"""Paper figures (theory §6.4): integer axes labelled at their values, 3(a) against
h / h_KV, 2(a)'s y-axis over the plotted times."""

from __future__ import annotations

import numpy as np
import pytest

from freege import plotting
from freege.validation.paper import drawing, plots, setups
from freege.validation.paper.panels import (
    panel_2a,
    panel_2b,
    panel_2c,
    panel_3a,
    panel_3b,
    panel_table2,
)


def _row(**kw) -> dict:
    return {"measured": 2.0, "low": 1.0, "high": 3.0, "theory": 2.0, **kw}


def _axes():
    return plotting._figure_class()().add_subplot()


def test_3b_and_3a_label_integer_axes_at_their_values_and_3a_plots_h_over_h_kv():
    ax = _axes()
    panel_3b.draw(ax, {"rows": [_row(h=h, scheme=s) for h in setups.SHARING_HEADS
                            for s in ("GQA", "tied")]})
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(h) for h in
                                                            setups.SHARING_HEADS]
    ax = _axes()
    panel_3a.draw(ax, {"rows": [_row(path=p, h_kv=k) for k in setups.ARRIVAL_GROUPS
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
    panel_2a.draw(ax, {"curves": {"h = 128": {"t": list(t), "loss": list(loss)}}, "rows": rows})
    low, high = ax.get_ylim()
    assert np.exp(-100 / 2) / 10 < low < 1e-22 and high > 1


def test_2b_and_2c_draw_each_path_in_one_shared_colour():
    paths = {name: {"h": [40.0, 80.0], "gO": [0.5, 0.5]} for name in drawing.PATH_COLOURS}
    grid = {"n": 4096, "dK": 64, "heads": [10.0, 60.0, 120.0], "gO": [0.2, 1.0, 5.0],
            "error": [[0.1, 0.2, 0.3]] * 3}
    ax = _axes()
    panel_2b.draw(ax, {"map": grid, "paths": paths})
    on_map = {line.get_label(): line.get_color() for line in ax.lines}
    ax = _axes()
    curves = {name: {"h": [40.0, 80.0], "error": [0.1, 0.2]} for name in drawing.PATH_COLOURS}
    panel_2c.draw(ax, {"curves": curves, "rows": [], "boundaries": {}})
    on_curves = {line.get_label(): line.get_color() for line in ax.lines}
    for name, colour in drawing.PATH_COLOURS.items():
        assert on_map[f"{name} path"] == on_curves[f"theory, {name}"] == colour
    assert len(set(drawing.PATH_COLOURS.values())) == len(drawing.PATH_COLOURS)


def test_table2_figure_sets_the_papers_values_beside_the_measured(tmp_path):
    """Rendered: the paper's Table 2 points (panel_table2.TABLE2) are drawn, in their own
    colour, beside freege's for every preset the paper lists."""
    from matplotlib import colors, image

    from freege.validation.paper.panels.panel_table2 import TABLE2

    configs = panel_table2.build(64)
    recs = {c["key"]: {i: {"draw": i, "rel_w1": 0.01 * (1 + i), "ks": 0.02 + 0.01 * i}
                       for i in range(3)} for c in configs}
    panel = panel_table2.summarize(configs, recs, {})
    fig = plotting._figure_class()(figsize=(12, 4.5))
    panel_table2.draw(fig, panel)
    w1_axis, ks_axis = fig.axes
    listed = [r["preset"] for r in panel["rows"] if r["preset"] in TABLE2]
    assert listed and len(listed) < len(panel["rows"])  # one preset the paper omits
    for ax, column in ((w1_axis, 0), (ks_axis, 2)):
        paper = next(c for c in ax.containers if c.get_label() == "paper (Table 2)")
        assert list(paper.lines[0].get_ydata()) == [TABLE2[p][column] for p in listed]
        ours = next(c for c in ax.containers if c.get_label() != "paper (Table 2)")
        assert colors.to_rgb(ours.lines[0].get_color()) != colors.to_rgb(
            paper.lines[0].get_color())
    with plotting.house_style():  # the colour the saved figure resolves "Cn" to
        paper_colour = np.array(colors.to_rgb(paper.lines[0].get_color()))
    png = plots.figure(panel_table2.PANEL, panel, tmp_path)[1]
    pixels = image.imread(png)[..., :3]
    assert np.sum(np.all(np.abs(pixels - paper_colour) < 0.02, axis=-1)) > 100


def test_table2_figure_draws_ge_row_n_beside_the_ge_with_finite_width():
    """With ``--finite-width`` rows (theory §2.3) each facet gains the ge-row-n points."""
    from freege.validation.paper import panels

    configs = panels.configurations(["table2"], 32, 3, finite_width=True)
    recs = {c["key"]: {i: {"draw": i, "rel_w1": 0.01 * (1 + i), "ks": 0.02 + 0.01 * i,
                           "ge_row_n": {"rel_w1": 0.005 * (1 + i), "ks": 0.01 + 0.01 * i}}
                       for i in range(3)} for c in configs}
    panel = panel_table2.summarize(configs, recs, {})
    fig = plotting._figure_class()(figsize=(12, 4.5))
    panel_table2.draw(fig, panel)
    for ax, stat in zip(fig.axes, ("row_n_rel_w1_percent", "row_n_ks"), strict=True):
        row_n = next(c for c in ax.containers
                     if c.get_label() == "freege (softmax vs ge-row-n)")
        assert list(row_n.lines[0].get_ydata()) == [r[stat] for r in panel["rows"]]


def test_intervals_of_positive_quantities_stay_positive():
    """A Student-t interval reaching below 0 (two draws) turns the axis logarithmic and
    ends its lower bar in an arrow above 0; intervals above 0 are drawn as they are."""
    ax = _axes()
    drawing.errorbar(ax, [1, 2], [_row(), _row(low=0.5)], color="C0")
    assert ax.get_yscale() == "linear"
    assert not [line for line in ax.lines if line.get_marker() == "v"]
    ax = _axes()
    drawing.errorbar(ax, [1, 2], [_row(low=-18.0), _row(low=0.5)], color="C0")
    assert ax.get_yscale() == "log"
    segments = np.concatenate([c.get_segments() for c in ax.collections], axis=0)
    assert segments[:, :, 1].min() == pytest.approx(0.2)  # a tenth of the estimate 2.0
    arrows = [line for line in ax.lines if line.get_marker() == "v"]
    assert len(arrows) == 1 and list(arrows[0].get_xdata()) == [1]
    assert arrows[0].get_label() == "interval reaches 0 or below"


def test_a_measured_panels_title_names_the_scale_and_the_draws(tmp_path, monkeypatch):
    part = {"rows": [_row(h=h, scheme=s) for h in setups.SHARING_HEADS
                     for s in ("GQA", "tied")]}
    saved = []
    monkeypatch.setattr(plotting, "save", lambda fig, path: saved.append((fig, path)))
    plots.figure(panel_3b.PANEL, part, tmp_path, "S = 64, 2 draws")
    assert [p.name for _, p in saved] == ["panel_3b.pdf", "panel_3b.png"]
    title = saved[0][0].axes[0].get_title()
    assert title.startswith("3(b)") and title.endswith("\nS = 64, 2 draws")


def test_table2_intervals_stay_positive_and_legends_list_theory_then_measured():
    """Table 2's distances are positive: a half-width above the mean (two draws) turns
    that facet logarithmic with its bar above 0; legends list theory curves, then
    measured points, then reference lines, then the note on open intervals."""
    fig = plotting._figure_class()(figsize=(12, 4.5))
    rows = [{"preset": "a", "rel_w1_percent": 2.0, "rel_w1_half_width": 5.0, "ks": 0.1,
             "ks_half_width": 0.05}]
    panel_table2.draw(fig, {"rows": rows})
    w1_axis, ks_axis = fig.axes
    assert w1_axis.get_yscale() == "log" and ks_axis.get_yscale() == "linear"
    segments = np.concatenate([c.get_segments() for c in w1_axis.collections], axis=0)
    assert segments[:, :, 1].min() == pytest.approx(0.2)  # a tenth of the mean, not -3
    ax = _axes()
    ax.axhline(1.0, label="unit ratio")
    drawing.errorbar(ax, [1], [_row(low=-1.0)], color="C1", label="softmax")
    ax.plot([1, 2], [1, 2], label="theory")
    labels = [t.get_text() for t in drawing.legend(ax).get_texts()]
    assert labels == ["theory", "softmax", "unit ratio", "interval reaches 0 or below"]
