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
        (curve,) = [line for line in ax.get_lines() if "density" in line.get_label()]
        assert ax.get_ylim()[1] >= curve.get_ydata().max()  # the interior peak is not cut
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


def test_chain_figure_calls_atoms_what_the_theory_calls_atoms(capsys, monkeypatch, tmp_path):
    """``chain --plot`` at h dV = dO = n: the limit has no atom, while the centred steps
    have an eigenvalue at rounding level; it stays in the histogram, counted in the legend,
    with no atom spike or label. At h dV = n / 2 the limit has an atom of mass 1/2, and
    every step's zeros are a spike of that height, labelled in the legend only."""
    fig, _ = _render(capsys, monkeypatch, tmp_path,
                     ["chain", "--n", "96", "--h", "4", "--dk", "24", "--do", "96",
                      "--draws", "2", "--quiet"], ".png")
    (ax,) = fig.axes
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    (note,) = [t for t in texts if "kept in the first bin" in t]
    assert "the limit has no atom" in note and " of 96 in 1 sqrt(n) A^perp" in note
    assert not any("fraction" in t or "mass" in t for t in texts), texts
    assert sum(len(a.texts) for a in fig.axes) == 0
    clear_of_the_x_axis(fig)
    fig, _ = _render(capsys, monkeypatch, tmp_path, COMMANDS["chain, limit with an atom"][0],
                     ".png")
    ax = next(a for a in fig.axes if hasattr(a, "_freege_mass_axis"))
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    spikes = [t for t in texts if t.endswith("at x = 0")]
    assert len(spikes) == 7 and spikes[-1] == "limit: mass 0.5 at x = 0", spikes
    heights = [float(seg[1, 1]) for c in ax._freege_mass_axis.collections
               for seg in c.get_segments()]
    assert heights == [0.5] * 7  # h dV = 32 of 64: rank n/2 at every step
    assert len(ax._freege_mass_axis.texts) == 0
