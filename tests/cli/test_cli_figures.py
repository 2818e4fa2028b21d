"""Every figure the CLI writes follows the house style (freege/freege.mplstyle): each
panel has x and y labels, a legend whose entries name quantities (no store-name
suffixes), series told apart by colour and marker or line style, a one-line mathtext
title for ``law``, and vector output keeps its text as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from freege import plotting  # noqa: E402
from tests.cli.helpers import bad, run_cli  # noqa: E402
from tests.figure_checks import clear_of_the_x_axis  # noqa: E402
from tests.validation.stores import write_store  # noqa: E402

SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "2",
         "--backend", "numpy", "--quiet"]
LAW = ["--case", "mha", "--beta", "1", "--h", "12"]
#: name -> (command line before --plot, file suffix)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "law, long tail (log x)": (["law", *LAW, "--n", "512", "--dk", "64", "--dv", "64",
                                "--do", "768"], ".svg"),
    "law with an atom": (["law", *LAW, "--gK", "0.125", "--gV", "0.125", "--gO", "1.5"],
                         ".pdf"),
    "validate": (["validate", *SMALL], ".png"),
    "ladder": (["ladder", "--n", "40", "--trials", "1", "--backend", "numpy", "--quiet"],
               ".svg"),
    "reproduce temperature": (["reproduce", "temperature", "--betas", "0.5", "1", "--quiet"],
                              ".pdf"),
    "sweep-report": (["sweep-report", "STORE"], ".svg"),
    "chain, limit with an atom": (["chain", "--n", "64", "--h", "2", "--dk", "16", "--do", "64",
                                   "--draws", "2", "--quiet"], ".png"),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return write_store(tmp_path_factory.mktemp("fig") / "n-scaling.jsonl", draws=2)


def _render(capsys, monkeypatch, tmp_path: Path, argv: list[str], suffix: str
            ) -> tuple[Any, Path]:
    """Run the command with ``--plot``; the figure it saved and the file."""
    saved = []
    real = plotting.save

    def keep(fig: Any, path: Any) -> None:
        saved.append(fig)
        real(fig, path)

    monkeypatch.setattr(plotting, "save", keep)
    target = tmp_path / f"figure{suffix}"
    code, _out, err = run_cli(capsys, *argv, "--plot", str(target))
    assert code == 0, err
    (fig,) = saved
    return fig, target


@pytest.mark.parametrize("name", list(COMMANDS))
def test_cli_figure_follows_the_house_style(capsys, monkeypatch, tmp_path, store, name):
    argv, suffix = COMMANDS[name]
    argv = [str(store) if a == "STORE" else a for a in argv]
    fig, target = _render(capsys, monkeypatch, tmp_path, argv, suffix)
    twins = {getattr(ax, "_freege_mass_axis", None) for ax in fig.axes}  # atom mass axes
    panels = [ax for ax in fig.axes if ax not in twins]
    if argv[0] in ("chain", "ladder"):  # small multiples: a panel per step, one legend
        _check_step_panels(fig, 6)
        clear_of_the_x_axis(fig)
        return
    assert len(panels) == (3 if argv[0] == "sweep-report" else 1)
    for ax in panels:
        assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), (name, ax)
        legend = ax.get_legend()
        assert legend is not None, name
        texts = [t.get_text() for t in legend.get_texts()]
        assert texts and all(t.strip() for t in texts), texts
        assert not any(t.endswith(" sweep") or store.stem in t for t in texts), texts
        # series differ by colour and marker, or by colour and line style
        looks = [(line.get_color(), line.get_marker(), line.get_linestyle())
                 for line in ax.get_lines() if line.get_label() in texts]
        assert len(set(looks)) == len(looks), looks
    if argv[0] == "law":
        title = fig.axes[0].get_title()
        assert "\n" not in title and r"$\mathrm{MHA}^\perp$" in title
    if name == "law, long tail (log x)":  # support [0.013, 16], the bulk below 0.5
        ax = fig.axes[0]
        assert ax.get_xscale() == "log"
        (curve,) = [line for line in ax.get_lines() if "continuous part" in line.get_label()]
        assert ax.get_ylim()[1] >= curve.get_ydata().max()  # the interior peak is not cut
        # on the log axis the curve is x rho(x), the density in ln x: its area over ln x is
        # the probability of the continuous part (1: this law has no atom)
        import numpy as np

        assert r"$x\,\rho(x)$" in curve.get_label() and "area = probability" in curve.get_label()
        x, y = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
        area = float(np.sum(np.diff(np.log(x)) * (y[1:] + y[:-1]) / 2))
        assert area == pytest.approx(1.0, abs=2e-3)
        assert "density in" in ax.get_ylabel() and r"\ln x" in ax.get_ylabel()
    clear_of_the_x_axis(fig)
    data = target.read_bytes()
    if suffix == ".svg":  # text kept as text (svg.fonttype none), not outlines
        assert b"<text" in data
    elif suffix == ".pdf":
        assert data.startswith(b"%PDF")


def test_log_axis_only_when_clearly_better():
    """auto_log_x: a long tail squeezing the bulk at the lower edge (the README's mha law:
    support [0.013, 16]) takes a log axis; a compact support or one from 0 does not."""
    import numpy as np

    from freege.cli.law import auto_log_x

    xs = np.linspace(0.013, 16, 800)
    tail = 1 / (xs * (1 + xs))
    assert auto_log_x(xs, tail, 0.013, 16)
    assert not auto_log_x(xs, np.ones_like(xs), 0.013, 16)  # mass spread evenly
    ys = np.linspace(1, 3, 100)
    assert not auto_log_x(ys, np.ones_like(ys), 1, 3)  # spans less than LOG_SPAN
    assert not auto_log_x(xs - 0.013, tail, 0.0, 16)  # starts at 0


def test_a_cut_hard_edge_is_marked():
    """A density that diverges at a support edge is cut for readability, and the cut is
    marked in the legend with the largest value drawn."""
    import numpy as np

    xs = np.linspace(1e-6, 1, 400)
    ax = plotting.density(None, xs, 0.5 / np.sqrt(xs), {}, "edge", edges=[(0.0, 1.0)])
    assert ax.get_ylim()[1] < 0.1 * (0.5 / np.sqrt(1e-6))
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("off scale") for t in texts)
    # an interior peak is never cut
    bump = np.exp(-((xs - 0.5) / 0.005) ** 2)
    ax = plotting.density(None, xs, bump, {}, "peak", edges=[(0.0, 1.0)])
    assert ax.get_ylim()[1] >= bump.max()


def test_a_log_axis_cannot_show_an_atom(capsys, tmp_path):
    argv, _ = COMMANDS["law with an atom"]
    err = bad(capsys, *argv, "--plot", str(tmp_path / "x.png"), "--xscale", "log")
    assert "--xscale log needs a support above 0 and no atom" in err
    assert list(tmp_path.iterdir()) == []


def _check_step_panels(fig: Any, steps: int) -> list[str]:
    """A chain or ladder figure: ``steps`` panels on shared axes, each titled with its
    step's mathtext name and drawn in its own colour, one figure legend, axis labels;
    returns the panels' titles."""
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == steps
    titles = [ax.get_title() for ax in panels]
    assert all("$" in t for t in titles) and len(set(titles)) == steps, titles
    colours = [ax.patches[-1].get_edgecolor() for ax in panels]
    assert len({tuple(c) for c in colours}) == steps
    assert fig.legends and all(t.get_text().strip() for t in fig.legends[0].get_texts())
    assert fig._supxlabel.get_text() and fig._supylabel.get_text()
    return titles


def test_chain_figure_calls_atoms_what_the_theory_calls_atoms(capsys, monkeypatch, tmp_path):
    """``chain --plot`` at h dV = dO = n: the limit has no atom, while the centred steps
    have an eigenvalue at rounding level; it stays in the histogram, counted in its
    panel's title, with no atom named. At h dV = n / 2 the limit has an atom of mass 1/2,
    and every step's title gives the fraction of its zeros, 1/2."""
    fig, _ = _render(capsys, monkeypatch, tmp_path,
                     ["chain", "--n", "96", "--h", "4", "--dk", "24", "--do", "96",
                      "--draws", "2", "--quiet"], ".png")
    titles = _check_step_panels(fig, 6)
    assert titles[0].endswith("(1 of 96 ≈ 0, no atom)"), titles
    assert not any("fraction" in t for t in titles), titles
    clear_of_the_x_axis(fig)
    fig, _ = _render(capsys, monkeypatch, tmp_path, COMMANDS["chain, limit with an atom"][0],
                     ".png")
    titles = _check_step_panels(fig, 6)
    assert all(t.endswith("(fraction 0.5 at 0)") for t in titles), titles


def test_temperature_line_crosses_one_at_the_printed_crossover(capsys, monkeypatch, tmp_path):
    """On a coarse beta grid the figure's line is the theory on a fine grid (through the
    crossover), so it crosses ratio 1 where the crossover line stands, not where a straight
    segment between two table rows would; the table rows are markers, never joined."""
    import numpy as np

    argv = ["reproduce", "temperature", "--betas", "0.25", "0.75", "1.25", "--quiet"]
    fig, _ = _render(capsys, monkeypatch, tmp_path, argv, ".png")
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    (curve,) = [v for k, v in lines.items() if "theory §5" in k]
    (rows,) = [v for k, v in lines.items() if k.startswith("table rows")]
    (cross,) = [v for k, v in lines.items() if k.startswith("crossover")]
    beta_c = float(cross.get_xdata()[0])
    x, y = np.asarray(curve.get_xdata(), float), np.asarray(curve.get_ydata(), float)
    assert len(x) > 60 and np.all(np.diff(x) > 0) and np.max(np.diff(x)) <= 1.0 / 80 + 1e-12
    k = int(np.flatnonzero(np.diff(np.sign(y - 1)) != 0)[0])  # the segment crossing 1
    crossing = x[k] + (1 - y[k]) * (x[k + 1] - x[k]) / (y[k + 1] - y[k])
    assert abs(crossing - beta_c) < 1e-6, (crossing, beta_c)
    # a straight segment between the table rows 0.25 and 0.75 would cross far from it
    xr, yr = np.asarray(rows.get_xdata(), float), np.asarray(rows.get_ydata(), float)
    assert list(xr) == [0.25, 0.75, 1.25] and rows.get_linestyle() == "None"
    chord = xr[0] + (1 - yr[0]) * (xr[1] - xr[0]) / (yr[1] - yr[0])
    assert abs(chord - beta_c) > 0.05
    assert np.allclose(np.interp(xr, x, y), yr, rtol=1e-12)  # the rows lie on the line


def test_sweep_report_log_axes_label_enough_ticks(capsys, monkeypatch, tmp_path):
    """n = 64 ... 192 (less than a decade) on log axes: every axis of every panel labels at
    least 4 ticks inside its range, as plain numbers equal to their positions, and no two
    labels overlap (matplotlib's default labelled only 100 and 200)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    store = write_store(tmp_path / "s.jsonl", ns=(64, 96, 128, 192), draws=2)
    fig, _ = _render(capsys, monkeypatch, tmp_path, ["sweep-report", str(store)], ".png")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            assert axis.get_scale() == "log"
            lo, hi = sorted(limits)
            shown = [t for t in axis.get_major_ticks() if lo <= t.get_loc() <= hi]
            assert len(shown) >= 4, (ax.get_title(), [t.get_loc() for t in shown])
            for tick in shown:
                assert float(tick.label1.get_text()) == pytest.approx(tick.get_loc())
            boxes = [t.label1.get_window_extent(renderer) for t in shown]
            assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False))


def test_headcount_curve_is_drawn_on_a_fine_grid_through_the_table(capsys, monkeypatch,
                                                                    tmp_path):
    """Two tabulated times are not joined by a straight segment: the line is the learning
    curve on a fine log grid through them, the table's rows are points on it."""
    fig, _ = _render(capsys, monkeypatch, tmp_path,
                     ["reproduce", "headcount", "--curve-heads", "32", "--times", "1", "10",
                      "--heads", "16", "--quiet"], ".png")
    (ax,) = fig.axes
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == r"loss, $h$ = 32"]
    (table,) = [ln for ln in ax.get_lines() if ln.get_label() == r"table rows, $h$ = 32"]
    t, loss = line.get_xdata(), line.get_ydata()
    assert len(t) >= 80 and t[0] == 1 and t[-1] == 10
    assert list(table.get_xdata()) == [1, 10]
    assert list(table.get_ydata()) == [loss[0], loss[-1]]  # the same theory at those times
    assert len([tick for tick in ax.get_xticklabels() if tick.get_text()]) >= 4
