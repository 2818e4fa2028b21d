"""Figures: a law's density with its atoms (theory §4, §7) and the curves of the theory §6.3
setups; also the shared figure plumbing of ``freege.validation.plots``.

matplotlib is the optional extra ``plot`` (``pip install 'freege[plot]'``); it is imported
only when a figure is drawn, and only :class:`matplotlib.figure.Figure` is used (no pyplot,
so the global backend of a notebook or script is never touched). Every drawing function
takes either a file ``path`` (``.png``, ``.svg`` or ``.pdf``; written atomically, so a
failure never leaves a partial file) or an existing matplotlib ``ax`` (from Python: the
figure is the caller's), or both.

Atoms are drawn as marked spikes, annotated with their mass, on a separate "atom mass"
axis (0 to 1) so that the continuous part keeps its own density scale.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: file extensions a figure can be written to
FORMATS = (".png", ".svg", ".pdf")
#: characters per title line before wrapping (titles are never cut)
TITLE_WIDTH = 72
#: colour of atoms (spikes and their labels)
ATOM_COLOR = "C3"


def check_target(path: str) -> Path:
    """Validate a figure target before any work: a ``.png``, ``.svg`` or ``.pdf`` file name
    in an existing, writable folder, and matplotlib importable. Raises ValueError with one
    clear line otherwise."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise ValueError(f"--plot FILE must end in .png, .svg or .pdf (got {path!r})")
    _figure_class()
    folder = target.resolve().parent
    if not folder.is_dir():
        raise ValueError(f"--plot: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--plot: folder {str(folder)!r} is not writable")
    if target.is_dir():
        raise ValueError(f"--plot: {path!r} is a folder")
    return target


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError(
            "--plot needs matplotlib, the optional extra 'plot': pip install 'freege[plot]'"
        ) from None
    return Figure


def new_axes(ax: Any = None, figsize: tuple[float, float] = (6.4, 4.2)) -> Any:
    """``ax`` itself, or the axes of a new pyplot-free :class:`~matplotlib.figure.Figure`."""
    if ax is not None:
        return ax
    return _figure_class()(figsize=figsize).subplots()


def wrapped(title: str, width: int = TITLE_WIDTH) -> str:
    """``title`` wrapped to lines of at most ``width`` characters (existing line breaks
    kept), so no title is cut at the figure's edge."""
    return "\n".join(
        "\n".join(textwrap.wrap(line, width)) or line for line in title.splitlines()
    )


def save(fig: Any, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` (format from the extension) atomically: a temporary file in
    the same folder, then a rename, so a failure never leaves a half-written figure.
    Layout is tightened first, so long titles and labels are not cut."""
    target = check_target(os.fspath(path))
    fig.tight_layout()
    fd, tmp = tempfile.mkstemp(dir=target.resolve().parent, suffix=target.suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, format=target.suffix.lower().lstrip("."), dpi=150)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def finish(ax: Any, path: str | None) -> Any:
    """Write the figure of ``ax`` to ``path`` when given (:func:`save`); return ``ax``."""
    if path is not None:
        save(ax.figure, path)
    return ax


def atom_spikes(ax: Any, atoms: Mapping[float, float], label: str = "atom: mass",
                color: str = ATOM_COLOR, offset: int = 0) -> Any:
    """Draw each atom ``{location: mass}`` as a marked spike whose height is its mass, on a
    twin "atom mass" axis from 0 to 1 (shared by later calls on the same ``ax``), labelled
    ``"{label} M at x = X"``. ``offset`` (points) moves the label down, to stack the labels
    of several spike sets. Returns the mass axis."""
    mass_ax = getattr(ax, "_freege_mass_axis", None)
    if mass_ax is None:
        mass_ax = ax.twinx()
        mass_ax.set_ylim(0, 1.05)
        mass_ax.set_ylabel("atom mass (spikes)")
        ax._freege_mass_axis = mass_ax
    for at, mass in atoms.items():
        at, mass = float(at), float(mass)
        mass_ax.vlines(at, 0, mass, color=color, lw=2)
        mass_ax.plot([at], [mass], "v", color=color, ms=7)
        mass_ax.annotate(
            f"{label} {mass:.4g} at x = {at:g}", (at, mass), textcoords="offset points",
            xytext=(8, -4 - offset), color=color, fontsize=8, va="top",
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
        )
    return mass_ax


def density_limit(values: Sequence[float] | np.ndarray) -> float | None:
    """Upper y-limit that keeps a density readable: None (automatic) unless an integrable
    spike (a hard edge, ``pdf ~ x^(-1/2)``) would flatten the rest, in which case the
    limit is 1.5 times the 98th percentile of the positive values."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size < 10:
        return None
    typical = float(np.quantile(v, 0.98))
    return 1.5 * typical if v.max() > 3 * typical else None


def density(
    path: str | None,
    xs: Sequence[float],
    pdf: Sequence[float],
    atoms: Mapping[float, float],
    title: str,
    *,
    ax: Any = None,
) -> Any:
    """Draw the density of the continuous part on ``xs`` and each atom as a marked spike
    labelled with its mass (:func:`atom_spikes`: its height is the mass, read on the
    right-hand axis, since an atom has no density). Written to ``path`` when given, drawn
    into ``ax`` when given; returns the axes."""
    if path is not None:
        check_target(path)
    ax = new_axes(ax)
    ax.plot(xs, pdf, color="C0", lw=1.5, label="density (continuous part)")
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    ax.set_ylim(0, density_limit(pdf))
    ax.set_title(wrapped(title), fontsize=9)
    if atoms:
        atom_spikes(ax, atoms)
    return finish(ax, path)


def curves(
    path: str | None,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    xlabel: str,
    ylabel: str,
    title: str,
    logx: bool = False,
    logy: bool = False,
    hline: float | None = None,
    vline: float | None = None,
    *,
    ax: Any = None,
) -> Any:
    """Draw one line per entry of ``series`` (label -> (x, y)), optionally with a
    horizontal reference line (e.g. ratio 1) and a vertical marker (e.g. a crossover).
    Written to ``path`` when given, drawn into ``ax`` when given; returns the axes."""
    if path is not None:
        check_target(path)
    ax = new_axes(ax)
    for label, (x, y) in series.items():
        ax.plot(x, y, "o-", ms=3, lw=1.2, label=label)
    if hline is not None:
        ax.axhline(hline, color="gray", lw=0.8, ls="--")
    if vline is not None:
        ax.axvline(vline, color=ATOM_COLOR, lw=0.8, ls=":")
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(wrapped(title), fontsize=9)
    if len(series) > 1:
        ax.legend(fontsize=8)
    return finish(ax, path)
