"""freege.plotting.plot_law (issue 42): any law's density, its atoms as stems, the
automatic log axis; checked on matplotlib's Agg canvas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from freege import algebra, plotting  # noqa: E402
from freege.numeric import law  # noqa: E402
from freege.params import Ratios  # noqa: E402

#: support [2.7, 263], peak at 5, atom 1/2 at 0: the issue's skewed tied law
SKEWED = Ratios(beta=2, h=4, gK=2, gV=2, gO="1/2", sharing="tied")


def _stems(ax) -> list[tuple[float, float]]:
    """``(x, height)`` of the stems on the atom-mass axis."""
    mass_ax = ax._freege_mass_axis
    return [(float(seg[0, 0]), float(seg[1, 1])) for c in mass_ax.collections
            for seg in c.get_segments()]


def _curve(ax):
    (line,) = [ln for ln in ax.get_lines() if "continuous part" in ln.get_label()]
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def test_skewed_support_takes_a_log_axis():
    the_law = law("mha-tied", SKEWED)
    ax = plotting.plot_law(the_law)
    assert isinstance(ax, Axes)
    assert ax.get_xscale() == "log"
    x, y = _curve(ax)
    # x rho(x) on the log axis: its area over ln x is the continuous mass (1/2 here)
    area = float(np.sum(np.diff(np.log(x)) * (y[1:] + y[:-1]) / 2))
    assert area == pytest.approx(0.5, abs=2e-3)
    # the atom at 0 stands left of the density, its label says so
    texts = [t.get_text() for t in ax.texts]
    assert any("mass 0.5 at x = 0" in t and "left of the log axis" in t for t in texts)
    assert ax.get_xlim()[0] < the_law.intervals()[0][0]


def test_symmetric_support_keeps_a_linear_axis():
    ax = plotting.plot_law(algebra.parse("semicircle(1)").law())
    assert ax.get_xscale() == "linear"
    x, y = _curve(ax)
    assert x.min() == pytest.approx(-2) and x.max() == pytest.approx(2)
    assert np.max(y) == pytest.approx(1 / np.pi, rel=1e-3)
    # finer near the edges than in the middle
    steps = np.diff(x)
    assert steps[1] < 0.01 * steps[len(steps) // 2]
    assert not hasattr(ax, "_freege_mass_axis")  # no atom, no atom axis


def test_atoms_are_stems_at_their_locations():
    expr = algebra.parse("mp(2) * atoms((1, 3/4), (4, 1/4))")  # an expression: its .law()
    the_law = expr.law()
    atoms = the_law.atoms()
    ax = plotting.plot_law(expr, log=False)
    stems = _stems(ax)
    assert len(stems) == len(atoms)
    np.testing.assert_allclose(np.array(sorted(stems), dtype=float),
                               np.array(sorted(atoms.items()), dtype=float), rtol=1e-12)
    assert ax.get_xlim()[0] < min(atoms) < ax.get_xlim()[1]
    # three labelled atoms at most: a label each, in the axes
    labels = [t.get_text() for t in ax.texts]
    assert [f"atom: mass {m:.4g} at x = {x:g}" for x, m in atoms.items()] == labels


def test_atom_label_stays_above_the_density():
    """The label's box, once drawn, lies above every point of the curve under it."""
    ax = plotting.plot_law(algebra.parse("mp(2) * mp(1/2)").law())
    fig = ax.figure
    fig.tight_layout()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    (label,) = ax.texts
    box = label.get_window_extent(renderer)
    x, y = _curve(ax)
    pts = ax.transData.transform(np.column_stack([x, np.minimum(y, ax.get_ylim()[1])]))
    under = (pts[:, 0] >= box.x0) & (pts[:, 0] <= box.x1)
    assert under.any() and np.all(pts[under, 1] < box.y0)
    legend = ax.get_legend().get_window_extent(renderer)
    under = (pts[:, 0] >= legend.x0) & (pts[:, 0] <= legend.x1)
    assert np.all(pts[under, 1] < legend.y0)  # the legend too


def test_explicit_scales_and_overlay(tmp_path):
    skewed = law("mha-tied", SKEWED)
    ax = plotting.plot_law(skewed, log=False, label="tied")
    assert ax.get_xscale() == "linear"
    with pytest.raises(ValueError, match="above 0"):
        plotting.plot_law(algebra.parse("semicircle(1)").law(), log=True)
    # two laws on one axes, written to a file
    ax = plotting.plot_law(algebra.parse("mp(1/2)").law(), label="MP 1/2")
    plotting.plot_law(algebra.parse("mp(1/4)").law(), ax=ax, label="MP 1/4",
                      path=str(tmp_path / "two.png"))
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"MP 1/2", "MP 1/4", "support edges"} <= set(names)
    assert (tmp_path / "two.png").stat().st_size > 0
