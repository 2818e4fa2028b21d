"""Figures (freege.plotting, freege.validation.plots): no global backend switch, .png/.svg/.pdf,
drawing into a caller's ``ax``, atoms as spikes beside a readable histogram, titles not
cut, and bad targets rejected before anything is written."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from freege import plotting  # noqa: E402
from freege.validation import plots  # noqa: E402
from tests.figure_checks import clear_of_the_x_axis  # noqa: E402
from tests.planted import OTHER, hand_over  # noqa: E402

MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".svg": b"<?xml", ".pdf": b"%PDF"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _atom_spectrum(rng: np.random.Generator, n: int = 400, zeros: float = 0.6) -> np.ndarray:
    """A spectrum with an atom at 0 (rounding-level values, as eigvalsh gives) and a
    continuous part on [1, 3]."""
    k = int(zeros * n)
    return np.concatenate([rng.uniform(-1e-14, 1e-14, k), rng.uniform(1, 3, n - k)])


def test_importing_and_drawing_keeps_the_global_backend():
    """In a fresh interpreter with a non-default backend (``MPLBACKEND=pdf``), importing both
    modules and writing figures leaves ``matplotlib.get_backend()`` unchanged and never
    imports pyplot (the old code called ``matplotlib.use("Agg")``)."""
    script = textwrap.dedent("""
        import sys, tempfile, os
        import numpy as np
        import matplotlib
        before = matplotlib.get_backend()
        import freege.plotting, freege.validation.plots
        folder = tempfile.mkdtemp()
        freege.plotting.density(os.path.join(folder, "d.png"), [1, 2, 3], [0.1, 0.3, 0.1],
                                {0.0: 0.5}, "t")
        freege.validation.plots.spectrum_histogram(os.path.join(folder, "h.png"),
                                            {"a": np.linspace(0, 1, 50)}, "t")
        print(before, matplotlib.get_backend(), "matplotlib.pyplot" in sys.modules)
    """)
    env = {**os.environ, "MPLBACKEND": "pdf"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == ["pdf", "pdf", "False"]


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_every_format_is_written(tmp_path, suffix):
    rng = np.random.default_rng(0)
    law_file, hist_file, curve_file = (tmp_path / f"{k}{suffix}" for k in ("law", "h", "c"))
    plotting.density(str(law_file), [1.0, 2.0, 3.0], [0.2, 0.3, 0.2], {0.0: 0.25}, "law")
    plots.spectrum_histogram(str(hist_file), {"a": _atom_spectrum(rng)}, "hist",
                             density=lambda x: np.full_like(x, 0.2), mean=0.8,
                             atoms={0.0: 0.6})
    plotting.curves(str(curve_file), {"a": ([1, 2], [3, 4])}, "x", "y", "c")
    for target in (law_file, hist_file, curve_file):
        assert target.read_bytes().startswith(MAGIC[suffix])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (law_file, hist_file, curve_file))  # no temporary files left


def test_drawing_into_a_callers_axes(tmp_path):
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plotting.density(None, [1, 2, 3], [0.1, 0.2, 0.1], {}, "law", ax=left) is left
    assert plots.ladder_histograms(None, {"a": np.arange(10.0), "b": np.arange(10.0) + 1},
                                   "a", "ladder", ax=right) is right
    assert len(left.lines) == 1 and len(right.patches) == 2
    assert list(tmp_path.iterdir()) == []
    plotting.save(fig, tmp_path / "both.pdf")  # the caller may save it through freege too
    assert (tmp_path / "both.pdf").read_bytes().startswith(b"%PDF")


def test_histogram_leaves_the_atom_out_and_shows_its_fraction():
    """60% of the eigenvalues at 0: they are not a histogram bar (which would dwarf the
    rest) but a spike of height 0.6; the histogram of the rest integrates to 0.4 (count /
    all eigenvalues; the range stops at the 99.9% quantile), the scale of the limiting
    law's continuous part."""
    rng = np.random.default_rng(1)
    eigs = _atom_spectrum(rng)
    ax = plots.spectrum_histogram(None, {"softmax": eigs}, "t", atoms={0.0: 0.6})
    (stairs,) = ax.patches
    heights, edges, _ = stairs.get_data()
    assert edges[0] >= 1.0 - 1e-12  # starts at the continuous part, not at 0
    shown = np.count_nonzero((eigs >= edges[0]) & (eigs <= edges[-1])) / eigs.size
    assert float(np.sum(heights * np.diff(edges))) == pytest.approx(shown, rel=1e-12)
    assert 0.4 - 2 / eigs.size <= shown <= 0.4  # all but the top 0.1% of the bulk
    assert ax.get_ylim()[1] < 2 * heights.max()  # the continuous part fills the axis
    mass_ax = ax._freege_mass_axis
    spikes = [seg for coll in mass_ax.collections for seg in coll.get_segments()]
    assert [tuple(map(float, s[:, 1])) for s in spikes] == [(0.0, 0.6), (0.0, 0.6)]
    assert len(mass_ax.texts) == 0  # labelled in the legend, never beside the spike
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-2:] == ["softmax: fraction 0.6 at x = 0", "limit: mass 0.6 at x = 0"]


def test_a_few_zeros_are_no_atom_unless_the_limit_has_one():
    """One eigenvalue at rounding level in 256 (the direction centring removes): with a
    limit that has no atom it stays in the histogram and the legend counts it, with no
    spike and no atom label; with a limit that has an atom at 0 the zeros are a spike,
    labelled in the legend, never over the tick labels or the axis label."""
    rng = np.random.default_rng(2)
    eigs = {"step 1": np.concatenate([[1e-15], rng.uniform(1, 3, 255)]),
            "step 2": rng.uniform(1, 3, 256)}
    ax = plots.spectrum_histogram(None, eigs, "t", density=lambda x: np.full_like(x, 0.5),
                                  atoms={})
    assert getattr(ax, "_freege_mass_axis", None) is None and len(ax.texts) == 0
    heights, edges, _ = ax.patches[0].get_data()
    assert edges[0] <= 1e-15 and heights[0] * (edges[1] - edges[0]) == pytest.approx(1 / 256)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert not any("fraction" in t or "mass" in t for t in labels), labels
    (note,) = [t for t in labels if "kept in the first bin" in t]
    assert "the limit has no atom" in note and "1 of 256 in step 1" in note
    clear_of_the_x_axis(ax.figure)
    # the same spectrum against a limit with an atom of mass 1/2: now spikes, no text
    half = {k: np.concatenate([np.full(128, 1e-16), v[-128:]]) for k, v in eigs.items()}
    ax = plots.spectrum_histogram(None, half, "t", atoms={0.0: 0.5})
    assert len(ax._freege_mass_axis.texts) == 0 and len(ax.texts) == 0
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [t for t in labels if "0.5 at x = 0" in t] == [
        "step 1: fraction 0.5 at x = 0", "step 2: fraction 0.5 at x = 0",
        "limit: mass 0.5 at x = 0"]
    clear_of_the_x_axis(ax.figure)


@pytest.mark.parametrize("mass", [0.002, 0.25, 0.9])
def test_an_atom_label_stays_inside_the_axes(mass):
    """``freege law --plot``'s atom label: above a short spike, below a tall one, never
    over the x tick labels or the axis label."""
    ax = plotting.density(None, [1.0, 2.0, 3.0], [0.2, 0.3, 0.2], {0.0: mass}, "law")
    (label,) = ax._freege_mass_axis.texts
    assert label.get_text() == f"atom: mass {mass:g} at x = 0"
    clear_of_the_x_axis(ax.figure)


def test_density_keeps_a_hard_edge_from_flattening_the_rest():
    xs = np.linspace(1e-6, 1, 400)
    pdf = 0.5 / np.sqrt(xs)  # integrable spike at 0
    ax = plotting.density(None, xs, pdf, {}, "edge")
    assert ax.get_ylim()[1] < 0.1 * pdf.max()
    assert plotting.density_limit(np.full(50, 1.0)) is None


def test_long_titles_are_wrapped_and_inside_the_figure(tmp_path):
    title = "explicit configuration " + ", ".join(f"parameter{k}={k}" for k in range(20))
    ax = plotting.curves(None, {"a": ([1, 2], [1, 2])}, "x", "y", title)
    fig = ax.figure
    lines = ax.get_title().splitlines()
    assert len(lines) > 1 and all(len(line) <= plotting.TITLE_WIDTH for line in lines)
    assert " ".join(lines) == title
    plotting.save(fig, tmp_path / "t.png")  # tight layout
    renderer = FigureCanvasAgg(fig).get_renderer()
    box, frame = ax.title.get_window_extent(renderer), fig.bbox
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1


@pytest.mark.parametrize(("name", "message"), [
    ("figure.jpg", ".png, .svg or .pdf"),
    ("missing/figure.png", "does not exist"),
])
def test_bad_targets_fail_before_drawing(tmp_path, name, message):
    target = tmp_path / name
    with pytest.raises(ValueError, match=message):
        plotting.density(str(target), [1, 2], [1, 1], {}, "t")
    with pytest.raises(ValueError, match=message):
        plots.require_matplotlib(str(target))
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    ax = plotting.curves(None, {"a": ([1, 2], [1, 2])}, "x", "y", "t")

    def broken(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(ax.figure, "savefig", broken)
    with pytest.raises(OSError):
        plotting.save(ax.figure, tmp_path / "x.svg")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("low", "high"), [(60.0, 205.0), (0.35, 4.7), (64.0, 72.0),
                                           (0.0113, 0.0141), (1e-3, 5.0), (1e-30, 1.0)])
def test_log_tick_values_label_enough_of_any_range(low, high):
    """At least 4 labelled ticks inside the range (n = 64 ... 192 got only 100 and 200),
    at values of at most 3 significant digits; a very wide range gets at most 9."""
    ticks = plotting.log_tick_values(low, high)
    assert 4 <= len(ticks) <= 9 and all(low <= t <= high for t in ticks), ticks
    assert ticks == sorted(set(ticks))
    assert all(len(f"{t:.6g}".lstrip("0.").replace(".", "").split("e")[0]) <= 3
               for t in ticks), ticks  # 1-2-5-like values: at most 3 significant digits


# issue 40: a figure is written through freege.safe_files


def _link(link, target):
    """A symbolic link ``link -> target`` planted by uid 65534 (when root)."""
    os.symlink(target, link)
    if os.geteuid() == 0:
        os.lchown(link, OTHER, OTHER)


def test_a_link_planted_at_the_figure_name_is_replaced_not_followed(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # a sticky folder of yours is accepted
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    _link(shared / "law.png", victim)
    _link(shared / "curve.pdf", tmp_path / "chosen.pdf")
    plotting.density(str(shared / "law.png"), [1.0, 2.0], [0.2, 0.3], {}, "law")
    plotting.curves(str(shared / "curve.pdf"), {"a": ([1, 2], [3, 4])}, "x", "y", "c")
    assert victim.read_text() == "precious\n" and not (tmp_path / "chosen.pdf").exists()
    assert (shared / "law.png").read_bytes().startswith(MAGIC[".png"])
    assert (shared / "curve.pdf").read_bytes().startswith(MAGIC[".pdf"])
    assert sorted(p.name for p in shared.iterdir()) == ["curve.pdf", "law.png"]


@pytest.mark.parametrize("owner", ["others may write", "another user's"])
def test_a_shared_or_foreign_folder_is_refused_before_drawing(tmp_path, owner):
    folder = tmp_path / "shared"
    folder.mkdir()
    why = hand_over(folder, owner)
    with pytest.raises(ValueError) as err:
        plotting.density(str(folder / "law.png"), [1, 2], [1, 1], {}, "t")
    assert str(err.value) == f"--plot folder {folder} {why}: refused"
    assert list(folder.iterdir()) == []


def test_step_panels_draw_each_step_in_its_own_panel_over_the_reference():
    """Small multiples of a ladder: one panel per step but the reference (grey in each),
    named in mathtext, on shared axes; a spectrum skewed over decades gets a log axis with
    densities per unit of ln(lambda), whose areas are the steps' masses."""
    rng = np.random.default_rng(3)
    spectra = {name: rng.lognormal(0.0, 2.0, 400) for name in ("sqrt(n) A", "sqrt(n) A^perp",
                                                               "Y")}
    fig = plots.step_panels(None, spectra, "ladder", labels=plots.LADDER_LABELS,
                            reference="sqrt(n) A^perp")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == [r"$\sqrt{n}\,A$", r"$Y$"]
    assert all(ax.get_xscale() == "log" for ax in shown)
    for ax in shown:
        reference, step = ax.patches
        for stairs in (reference, step):
            heights, edges, _ = stairs.get_data()
            mass = float(np.sum(heights * np.diff(np.log(edges))))
            assert 0.95 < mass <= 1.0 + 1e-12  # all but what lies past the 99.5% quantile
    linear = plots.step_panels(None, {"a": rng.uniform(1, 2, 300), "b": rng.uniform(1, 2, 300)},
                               "t", labels={})
    assert linear.axes[0].get_xscale() == "linear"
    assert [ax.get_title() for ax in linear.axes] == ["a", "b"]  # no reference: every step
