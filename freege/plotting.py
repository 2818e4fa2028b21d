"""Figures for the CLI's ``--plot FILE``: a law's density with its atoms (SPEC §4, §7) and
the curves of the SPEC §6.3 setups.

matplotlib is the optional extra ``plot`` (``pip install 'freege[plot]'``); it is imported
only when a figure is drawn. Figures are built on :class:`matplotlib.figure.Figure`
directly (no pyplot state); the format follows the file extension, PNG or SVG.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

FORMATS = (".png", ".svg")


def check_target(path: str) -> Path:
    """Validate a ``--plot`` target before any work: a .png or .svg file name, and
    matplotlib importable. Raises ValueError with one clear line otherwise."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise ValueError(f"--plot FILE must end in .png or .svg (got {path!r})")
    _figure_class()
    return target


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError(
            "--plot needs matplotlib, the optional extra 'plot': pip install 'freege[plot]'"
        ) from None
    return Figure


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, format=path.suffix.lower().lstrip("."), dpi=150)


def density(
    path: str,
    xs: Sequence[float],
    pdf: Sequence[float],
    atoms: Mapping[float, float],
    title: str,
) -> None:
    """Draw the density of the continuous part on ``xs`` and mark each atom as a stem at
    its location labelled with its mass (the stem's height is the mass, read on the
    right-hand axis, since an atom has no density)."""
    target = check_target(path)
    fig = _figure_class()(figsize=(6.4, 4.0))
    ax = fig.subplots()
    ax.plot(xs, pdf, color="C0", lw=1.5, label="density")
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    ax.set_ylim(bottom=0)
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    if atoms:
        mass_ax = ax.twinx()
        for at, mass in atoms.items():
            mass_ax.vlines(at, 0, mass, color="C3", lw=2)
            mass_ax.plot([at], [mass], "o", color="C3")
            mass_ax.annotate(
                f"atom: mass {mass:.4g} at x = {at:g}", (at, mass),
                textcoords="offset points", xytext=(6, -4), color="C3", fontsize=8,
            )
        mass_ax.set_ylim(0, 1.05)
        mass_ax.set_ylabel("atom mass", color="C3")
    _save(fig, target)


def curves(
    path: str,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    xlabel: str,
    ylabel: str,
    title: str,
    logx: bool = False,
    logy: bool = False,
    hline: float | None = None,
    vline: float | None = None,
) -> None:
    """Draw one line per entry of ``series`` (label -> (x, y)), optionally with a
    horizontal reference line (e.g. ratio 1) and a vertical marker (e.g. a crossover)."""
    target = check_target(path)
    fig = _figure_class()(figsize=(6.4, 4.0))
    ax = fig.subplots()
    for label, (x, y) in series.items():
        ax.plot(x, y, "o-", ms=3, lw=1.2, label=label)
    if hline is not None:
        ax.axhline(hline, color="gray", lw=0.8, ls="--")
    if vline is not None:
        ax.axvline(vline, color="C3", lw=0.8, ls=":")
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    if len(series) > 1:
        ax.legend(fontsize=8)
    _save(fig, target)
