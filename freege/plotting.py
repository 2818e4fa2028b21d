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

House style: every figure is drawn and saved inside :func:`house_style` (the style sheet
``freege/freege.mplstyle`` shipped with the package: colour-blind-safe colours, text kept
as text in ``.svg``/``.pdf``), series differ by colour and marker (:func:`series`), axes
carry labels with symbols, legends name the quantity, reference lines are labelled.
``.svg`` and ``.pdf`` are vector output (``.png`` is 200 dpi).
"""

from __future__ import annotations

import functools
import math
import os
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from freege import safe_files

__all__ = ["plot_law", "density", "curves", "house_style", "save"]

#: file extensions a figure can be written to
FORMATS = (".png", ".svg", ".pdf")
#: characters per title line before wrapping (titles are never cut)
TITLE_WIDTH = 72
#: colour of atoms (spikes and their labels)
ATOM_COLOR = "C3"
#: the house style sheet (package data)
STYLE = Path(__file__).with_name("freege.mplstyle")
#: a curve of more points than this is drawn without markers (:func:`curves`)
DENSE = 30
#: markers of successive series (with the style's colours: distinguishable in grey too)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: the matrix of each theory §4 case, as figure text (mathtext)
CASE_LABELS: dict[str, str] = {
    "attention": r"$\sqrt{n/h}\,A^\perp$",
    "head-average": r"$\sqrt{nh}\,(\bar{A} - P)$",
    "head-average-shared-key": r"$\sqrt{nh}\,(\bar{A} - P)$, shared key",
    "value": r"$Z_V$",
    "mha": r"$\mathrm{MHA}^\perp$",
    "value-tied": r"$Z_{KV}$",
    "mha-tied": r"$\mathrm{MHA}^\perp$ ($V_r = K_r$)",
}

_F = TypeVar("_F", bound=Callable[..., Any])


@contextmanager
def house_style() -> Iterator[None]:
    """Draw and save inside this context: the rc settings of :data:`STYLE`, restored on
    exit (no pyplot, no global change)."""
    import matplotlib

    with matplotlib.rc_context(fname=str(STYLE)):
        yield


def styled(func: _F) -> _F:
    """Run a drawing function inside :func:`house_style`."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _figure_class()
        with house_style():
            return func(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def series_style(k: int) -> dict[str, str]:
    """Colour and marker of the ``k``-th series: ``{"color", "marker"}``."""
    return {"color": f"C{k % 8}", "marker": MARKERS[k % len(MARKERS)]}


def check_target(path: str) -> Path:
    """Validate a figure target before any work: a ``.png``, ``.svg`` or ``.pdf`` file name
    in an existing, writable folder, and matplotlib importable. Raises ValueError with one
    clear line otherwise."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise ValueError(f"--plot FILE must end in .png, .svg or .pdf (got {path!r})")
    _figure_class()
    folder = target.absolute().parent.resolve()  # a link at the file's name: not followed
    if not folder.is_dir():
        raise ValueError(f"--plot: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--plot: folder {str(folder)!r} is not writable")
    safe_files.check_folder(folder, "--plot")
    if target.is_dir():
        raise ValueError(f"--plot: {path!r} is a folder")
    return target


def _figure_class() -> Any:
    from freege.extras import require

    return require("matplotlib.figure", "plot", "--plot").Figure


def new_axes(ax: Any = None, figsize: tuple[float, float] = (6.4, 4.2)) -> Any:
    """``ax`` itself, or the axes of a new pyplot-free :class:`~matplotlib.figure.Figure`."""
    if ax is not None:
        return ax
    return _figure_class()(figsize=figsize).subplots()


def wrapped(title: str, width: int = TITLE_WIDTH) -> str:
    """``title`` wrapped to lines of at most ``width`` characters (existing line breaks
    kept), so no title is cut at the figure's edge; a line with mathtext (``$``) is kept
    whole (a break inside ``$...$`` would not render)."""
    return "\n".join(
        line if "$" in line else "\n".join(textwrap.wrap(line, width)) or line
        for line in title.splitlines()
    )


def save(fig: Any, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` (format from the extension) atomically through
    :func:`freege.safe_files.atomic`: a temporary file of a random name in the same folder
    (mode from the umask), then a rename, so a failure never leaves a half-written figure
    and a link planted at the name is never followed. Layout is tightened first, so long
    titles and labels are not cut."""
    target = check_target(os.fspath(path))
    fig.tight_layout()
    with house_style(), safe_files.atomic(target, "--plot") as handle:
        fig.savefig(handle, format=target.suffix.lower().lstrip("."))


def finish(ax: Any, path: str | None) -> Any:
    """Write the figure of ``ax`` to ``path`` when given (:func:`save`); return ``ax``."""
    if path is not None:
        save(ax.figure, path)
    return ax


#: labelled ticks a log axis gets at least (:func:`log_ticks`), when its range allows
LOG_TICKS_LEAST = 4
#: the mantissas tried per decade, sparsest first (:func:`log_tick_values`)
LOG_MANTISSAS = ((1,), (1, 2, 5), (1, 2, 3, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9))


def log_tick_values(low: float, high: float, least: int = LOG_TICKS_LEAST) -> list[float]:
    """Labelled tick values of a log axis over ``[low, high]`` (``0 < low < high``): the
    sparsest of ``1``, ``1, 2, 5``, ``1, 2, 3, 5`` and ``1..9`` per decade that puts at
    least ``least`` ticks in the range (every ``k``-th decade when even powers of ten alone
    are more than 8); a range too narrow for that (``64..72``) gets the ticks of a linear
    axis, 1, 2, 2.5 or 5 times a power of ten apart, at least ``least``."""
    if not 0 < low < high:
        raise ValueError(f"a log axis needs 0 < low < high (got {low!r}, {high!r})")
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if last - first > 8:
        step = math.ceil((last - first) / 8)
        return [10.0**e for e in range(first, last + 1, step) if low <= 10.0**e <= high]
    for mantissas in LOG_MANTISSAS:
        ticks = [m * 10.0**e for e in range(first, last + 1) for m in mantissas
                 if low <= m * 10.0**e <= high]
        if len(ticks) >= least:
            return ticks
    raw = (high - low) / least
    power = math.floor(math.log10(raw))
    spacing = max(f * 10.0**power for f in (1, 2, 2.5, 5) if f * 10.0**power <= raw)
    start = math.ceil(low / spacing)
    return [round(k * spacing, 3 - power)
            for k in range(start, math.floor(high / spacing * (1 + 1e-12)) + 1)]


def log_ticks(axis: Any, least: int = LOG_TICKS_LEAST) -> None:
    """Label enough ticks on the log-scaled matplotlib ``axis`` (an ``ax.xaxis`` or
    ``ax.yaxis``), whatever its range once drawn: :func:`log_tick_values` as plain numbers
    (``64``, ``0.5``, not ``6.4x10^1``), unlabelled minor ticks at 1..9 per decade."""
    from matplotlib.ticker import FuncFormatter, Locator, LogLocator, NullFormatter

    class Labelled(Locator):
        def __call__(self) -> list[float]:
            return self.tick_values(*self.axis.get_view_interval())

        def tick_values(self, vmin: float, vmax: float) -> list[float]:
            low, high = sorted((vmin, vmax))
            return log_tick_values(max(low, high * 1e-300), high, least) if high > 0 else []

    axis.set_major_locator(Labelled())
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:.6g}"))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(1, 10))))
    axis.set_minor_formatter(NullFormatter())


def mass_axis(ax: Any) -> Any:
    """The twin "atom mass" axis of ``ax`` (0 to 1.05, right-hand side), made on first
    use and shared by later calls (``ax._freege_mass_axis``)."""
    mass_ax = getattr(ax, "_freege_mass_axis", None)
    if mass_ax is None:
        mass_ax = ax.twinx()
        mass_ax.set_ylim(0, 1.05)
        mass_ax.set_ylabel("atom mass (spikes)")
        mass_ax.grid(False)
        ax._freege_mass_axis = mass_ax
    return mass_ax


def atom_spikes(ax: Any, atoms: Mapping[float, float], label: str = "atom: mass",
                color: str = ATOM_COLOR, offset: int = 0, *, annotate: bool = True) -> Any:
    """Draw each atom ``{location: mass}`` as a marked spike whose height is its mass, on a
    twin "atom mass" axis from 0 to 1 (shared by later calls on the same ``ax``), labelled
    ``"{label} M at x = X"``: beside the spike's top (``annotate``; ``offset`` points
    stack the labels of several spike sets, away from the x-axis, so a small mass never
    puts its label over the tick labels), or only in the legend (``annotate=False``:
    :func:`legend` collects it). Returns the mass axis."""
    mass_ax = mass_axis(ax)
    for at, mass in atoms.items():
        at, mass = float(at), float(mass)
        text = f"{label} {mass:.4g} at x = {at:g}"
        mass_ax.vlines(at, 0, mass, color=color, lw=2)
        mass_ax.plot([at], [mass], "v", color=color, ms=7, ls="none",
                     label=None if annotate else text)
        if annotate:
            # below the top of a tall spike, above the top of a short one: inside the axes
            up = mass < 0.5
            mass_ax.annotate(
                text, (at, mass), textcoords="offset points",
                xytext=(8, 6 + offset if up else -4 - offset), color=color, fontsize=8,
                va="bottom" if up else "top",
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
            )
    return mass_ax


def legend(ax: Any, **kwargs: Any) -> Any:
    """The legend of ``ax`` with the entries of its atom-mass axis (:func:`atom_spikes`)
    after its own, drawn above both."""
    handles, labels = ax.get_legend_handles_labels()
    mass_ax = getattr(ax, "_freege_mass_axis", None)
    if mass_ax is not None:
        more, names = mass_ax.get_legend_handles_labels()
        handles, labels = handles + more, labels + names
        mass_ax.set_zorder(ax.get_zorder() - 1)  # the legend of ax over the spikes
        ax.patch.set_visible(False)
    return ax.legend(handles, labels, **kwargs)


def density_limit(values: Sequence[float] | np.ndarray, xs: Sequence[float] | None = None,
                  edges: Sequence[tuple[float, float]] | None = None) -> float | None:
    """Upper y-limit that keeps a density readable: None (automatic) unless an integrable
    spike (a hard edge, ``pdf ~ x^(-1/2)``) would flatten the rest, in which case the
    limit is 1.5 times the 98th percentile of the positive values. With the grid ``xs``
    and the support ``edges``, only a maximum within 2% of the range from an edge counts
    as such a spike: an interior peak is never cut."""
    v = np.asarray(values, dtype=float)
    finite = np.isfinite(v) & (v > 0)
    if np.count_nonzero(finite) < 10:
        return None
    typical = float(np.quantile(v[finite], 0.98))
    if not np.max(v[finite]) > 3 * typical:
        return None
    if xs is not None and edges:
        x = np.asarray(xs, dtype=float)
        at = float(x[finite][np.argmax(v[finite])])
        near = 0.02 * (float(x.max()) - float(x.min()))
        if not any(min(abs(at - a), abs(at - b)) <= near for a, b in edges):
            return None
    return 1.5 * typical


def _mark_off_scale(ax: Any, xs: np.ndarray, pdf: np.ndarray, top: float,
                    name: str = r"$\rho$") -> None:
    """A marker at the top of the axes where the density ``name`` leaves it, labelled with
    its largest value on the grid."""
    k = int(np.nanargmax(np.where(np.isfinite(pdf), pdf, -np.inf)))
    ax.plot([xs[k]], [top], marker="^", color="C0", ms=7, clip_on=False, ls="none",
            label=rf"off scale: {name} up to {pdf[k]:.3g} at $x$ = {xs[k]:.3g}")


@styled
def density(
    path: str | None,
    xs: Sequence[float],
    pdf: Sequence[float],
    atoms: Mapping[float, float],
    title: str,
    *,
    ax: Any = None,
    edges: Sequence[tuple[float, float]] | None = None,
    xscale: str = "linear",
) -> Any:
    """Draw the density of the continuous part on ``xs`` (filled, so that a steep rise at a
    support edge reads as the start of a continuous part, not as an atom) and each atom
    as a marked spike labelled with its mass (:func:`atom_spikes`: its height is the mass,
    read on the right-hand axis, since an atom has no density). ``edges``: the support
    intervals, drawn as dotted lines. A peak cut by :func:`density_limit` is marked with
    its value. ``xscale``: ``linear`` draws ``rho(x)``; ``log`` draws ``x rho(x)``, the
    density per unit of ``ln x``, so that on the log axis too the area under the curve is
    probability (``rho`` itself would inflate the part at small ``x``). Written to
    ``path`` when given, drawn into ``ax`` when given; returns the axes."""
    if path is not None:
        check_target(path)
    if xscale not in ("linear", "log"):
        raise ValueError(f"xscale must be 'linear' or 'log' (got {xscale!r})")
    ax = new_axes(ax)
    x, y = np.asarray(xs, dtype=float), np.asarray(pdf, dtype=float)
    log = xscale == "log"
    if log:
        y = x * y
    name = r"$x\,\rho(x)$" if log else r"$\rho(x)$"
    ax.plot(x, y, color="C0", lw=1.5, label=(
        rf"{name} of the continuous part (per unit $\ln x$: area = probability)" if log
        else rf"density {name} of the continuous part"))
    ax.fill_between(x, y, color="C0", alpha=0.15, lw=0)
    for k, (a, b) in enumerate(edges or ()):
        label = "support edges" if k == 0 else None
        ax.axvline(a, color="0.4", lw=0.8, ls=":", label=label)
        ax.axvline(b, color="0.4", lw=0.8, ls=":")
    ax.set_xscale(xscale)
    if log:
        log_ticks(ax.xaxis)
    ax.set_xlabel(r"eigenvalue $x$" + (" (log scale)" if log else ""))
    ax.set_ylabel(rf"{name}, density in $\ln x$" if log else rf"density {name}")
    top = density_limit(y, x, edges) if edges else density_limit(y)
    ax.set_ylim(0, top)
    if top is not None:
        _mark_off_scale(ax, x, y, top, name)
    ax.set_title(wrapped(title))
    if atoms:
        atom_spikes(ax, atoms)
    legend(ax, loc="best")
    return finish(ax, path)


# ---------------------------------------------------------------------- a law's figure
#: points of a law's density curve (:func:`plot_law`), shared by its support intervals
LAW_POINTS = 800
#: the fewest points of one support interval
INTERVAL_POINTS = 48
#: the automatic x scale (:func:`auto_log_x`) takes a log axis when the continuous part
#: spans more than this ratio ...
LOG_SPAN = 30.0
#: ... and half its mass lies in the first this fraction of a linear axis, or the middle
#: half of its mass spreads over this factor more of a log axis than of a linear one (a
#: peak near the lower edge and a long tail: ``law --case mha-tied --beta 2 --h 4 --gK 2
#: --gO 0.5``, support [2.7, 263], peak at 5, gains 1.33; Marchenko-Pastur laws, 1.2 at
#: most, keep their linear axis)
LOG_MEDIAN_AT = 0.1
LOG_SPREAD_GAIN = 1.25
#: a legend entry's height and the legend's padding, in points (the band of
#: :func:`plot_law` above the density that holds the legend)
LEGEND_ENTRY = 14.0
LEGEND_PAD = 14.0
#: atoms labelled in the axes, above the density (more: their labels go to the legend)
LABELLED_ATOMS = 3
#: height of one atom label's row, in points
LABEL_ROW = 13.0
#: on a log axis, the part of the axes left of the density where an atom at x <= 0 stands
OFF_AXIS = 0.1


def auto_log_x(xs: np.ndarray, pdf: np.ndarray, lo: float, hi: float) -> bool:
    """A log x-axis is clearly better when the support ``[lo, hi]`` starts above 0, spans
    more than :data:`LOG_SPAN`, and either half its mass (trapezoidal on the grid ``xs``)
    lies in the first :data:`LOG_MEDIAN_AT` of the axis (a long tail squeezes the bulk)
    or the middle half of the mass covers :data:`LOG_SPREAD_GAIN` times more of a log
    axis than of a linear one (a peak squeezed against the lower edge)."""
    if not (lo > 0 and hi / lo > LOG_SPAN):
        return False
    y = np.where(np.isfinite(pdf), pdf, 0.0)
    mass = np.concatenate([[0.0], np.cumsum(np.diff(xs) * (y[1:] + y[:-1]) / 2)])
    if not mass[-1] > 0:
        return False
    q25, median, q75 = (float(v) for v in np.interp(np.array([0.25, 0.5, 0.75]) * mass[-1],
                                                      mass, xs))
    if median - lo < LOG_MEDIAN_AT * (hi - lo):
        return True
    # the middle half of the mass spread over more of a log axis than of a linear one
    return (math.log(q75 / q25) / math.log(hi / lo) > LOG_SPREAD_GAIN * (q75 - q25) / (hi - lo)
            if q25 > 0 else False)


@dataclass(frozen=True)
class LawGrid:
    """A law's float64 density on a grid over its support intervals (``edges``), its
    atoms ``{location: mass}`` and whether the x-axis is logarithmic."""

    xs: np.ndarray
    pdf: np.ndarray
    atoms: dict[float, float]
    edges: list[tuple[float, float]]
    log: bool


def _edge_grid(a: float, b: float, n: int, log: bool) -> np.ndarray:
    """``n`` points from ``a`` to ``b``, ends included, spaced as ``1 - cos``: the step
    near an end is ``(b - a) (pi/n)^2 / 4``, so a square-root edge or an integrable spike
    is resolved (in ``ln x`` on a log axis)."""
    t = (1 - np.cos(np.pi * np.linspace(0.0, 1.0, n))) / 2
    if log:
        return np.exp(math.log(a) + (math.log(b) - math.log(a)) * t)
    return a + (b - a) * t


def _support_grid(edges: list[tuple[float, float]], points: int, log: bool) -> np.ndarray:
    widths = [math.log(b / a) if log else b - a for a, b in edges]
    total = sum(widths) or 1.0
    return np.concatenate([_edge_grid(a, b, max(INTERVAL_POINTS, round(points * w / total)),
                                      log) for (a, b), w in zip(edges, widths, strict=True)])


def law_grid(law: Any, points: int = LAW_POINTS, log: bool | None = None) -> LawGrid:
    """The float64 density of ``law`` (any law of the family; a law at ``dps`` digits is
    drawn through its float64 twin) on about ``points`` points over its support
    intervals, finer near every edge (:func:`_edge_grid`); ``log``: True for a log
    x-axis (a ValueError unless the continuous part lies above 0), False for a linear
    one, None for :func:`auto_log_x`."""
    if int(points) < 2 * INTERVAL_POINTS:
        raise ValueError(f"points must be at least {2 * INTERVAL_POINTS} (got {points!r})")
    f64 = law if law.dps is None else law.with_dps(None)
    edges = [(float(a), float(b)) for a, b in f64.intervals() if float(b) > float(a)]
    atoms = {float(x): float(p) for x, p in f64.atoms().items()}
    if not edges:
        if log:
            raise ValueError("a log x-axis needs a continuous part (this law is atoms only)")
        return LawGrid(np.zeros(0), np.zeros(0), atoms, [], False)
    lo, hi = edges[0][0], edges[-1][1]
    if log and not lo > 0:
        raise ValueError(f"a log x-axis needs the continuous part above 0 (it starts at "
                         f"{lo:g})")
    if not log:
        xs = _support_grid(edges, int(points), False)
        pdf = np.asarray(f64.pdf(xs), dtype=float)
        if log is None and auto_log_x(xs, pdf, lo, hi):
            log = True
    if log:
        xs = _support_grid(edges, int(points), True)
        pdf = np.asarray(f64.pdf(xs), dtype=float)
    return LawGrid(xs, pdf, atoms, edges, bool(log))


def law_title(law: Any) -> str:
    """A figure title naming ``law``: a theory §4 case by its matrix (mathtext) and
    parameters, an expression or a law from data by its text."""
    d = dict(getattr(law, "describe", {}))
    if "case" in d:
        names = {"beta": r"$\beta$", "h": "$h$", "gK": r"$\gamma_K$", "gV": r"$\gamma_V$",
                 "gO": r"$\gamma_O$"}
        params = ", ".join(f"{names[k]} = {float(d[k]):.4g}" for k in names if k in d)
        norm = " (normalized)" if d.get("normalized") else ""
        return f"limiting law of {CASE_LABELS.get(d['case'], d['case'])}{norm}: {params}"
    return f"law of {d.get('expression', d.get('law', str(law)))}"


def _atom_labels(ax: Any, atoms: dict[float, float], log: bool, row: int) -> int:
    """Label the atoms above the density, one row each from row ``row`` down (in the band
    :func:`plot_law` keeps free of the density), at the atom's x (an atom left of a log
    axis at :data:`OFF_AXIS` / 2), on the side with room; past :data:`LABELLED_ATOMS`
    atoms the labels go to the legend. Returns the rows used; notes in ``ax``'s state
    whether a label reads leftwards from the right-hand part (the legend then goes left)."""
    if len(atoms) > LABELLED_ATOMS:
        mass_ax = mass_axis(ax)
        for at, mass in atoms.items():
            mass_ax.plot([], [], "v", color=ATOM_COLOR, ms=6, ls="none",
                         label=f"atom: mass {mass:.4g} at x = {at:g}")
        return 0
    x0, x1 = ax.get_xlim()
    right = False
    for k, (at, mass) in enumerate(sorted(atoms.items())):
        off = log and not at > 0
        if off:
            where, coords = OFF_AXIS / 2, ("axes fraction", "axes fraction")
        else:
            where = ((math.log(at / x0) / math.log(x1 / x0)) if log
                     else (at - x0) / (x1 - x0))
            coords = ("data", "axes fraction")
        left = where > 0.6
        right |= left
        ax.annotate(
            f"atom: mass {mass:.4g} at x = {at:g}" + (" (left of the log axis)" if off else ""),
            (OFF_AXIS / 2 if off else at, 1.0), xycoords=coords, textcoords="offset points",
            xytext=(-5 if left else 5, -4 - (row + k) * LABEL_ROW), ha="right" if left else "left",
            va="top", color=ATOM_COLOR, fontsize=8, annotation_clip=False,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.9})
    ax._freege_law["right"] = ax._freege_law.get("right", False) or right
    return len(atoms)


def _atom_stems(ax: Any, atoms: dict[float, float], log: bool) -> None:
    """Each atom a stem as high as its mass on the atom-mass axis (:func:`mass_axis`),
    with a marker at its top; on a log axis an atom at x <= 0 stands left of the density
    (at :data:`OFF_AXIS` / 2 of the axes)."""
    from matplotlib.transforms import blended_transform_factory

    mass_ax = mass_axis(ax)
    if log and any(not at > 0 for at in atoms):  # a "0" below the stem, a break mark
        ax.annotate("0", (OFF_AXIS / 2, 0), xycoords="axes fraction", xytext=(0, -3.5),
                    textcoords="offset points", ha="center", va="top",
                    fontsize=matplotlib_rc("xtick.labelsize"), annotation_clip=False)
        for dx in (0.0, 0.012):
            ax.plot([OFF_AXIS * 0.8 + dx - 0.005, OFF_AXIS * 0.8 + dx + 0.005],
                    [-0.02, 0.02], transform=ax.transAxes, color="0.2", lw=0.8,
                    clip_on=False)
    for at, mass in atoms.items():
        if log and not at > 0:
            edge = blended_transform_factory(mass_ax.transAxes, mass_ax.transData)
            mass_ax.vlines(OFF_AXIS / 2, 0, mass, color=ATOM_COLOR, lw=2, transform=edge)
            mass_ax.plot([OFF_AXIS / 2], [mass], "v", color=ATOM_COLOR, ms=7, ls="none",
                         transform=edge)
        else:
            mass_ax.vlines(at, 0, mass, color=ATOM_COLOR, lw=2)
            mass_ax.plot([at], [mass], "v", color=ATOM_COLOR, ms=7, ls="none")


def matplotlib_rc(name: str) -> Any:
    """The matplotlib setting ``name`` in force."""
    import matplotlib

    return matplotlib.rcParams[name]


def _x_range(grid: LawGrid, atoms: bool) -> tuple[float, float]:
    """The x-limits of a law's figure: the support and the atoms with a margin (on a log
    axis, :data:`OFF_AXIS` of the axes left of the density for atoms at x <= 0)."""
    if grid.log:
        lo, hi = grid.edges[0][0], grid.edges[-1][1]
        shown = [x for x in grid.atoms if x > 0] if atoms else []
        lo, hi = min([lo, *shown]) / 1.05, max([hi, *shown]) * 1.05
        if atoms and any(not x > 0 for x in grid.atoms):
            lo = math.exp((math.log(lo) - OFF_AXIS * math.log(hi)) / (1 - OFF_AXIS))
        return lo, hi
    points = [e for ab in grid.edges for e in ab] + (list(grid.atoms) if atoms else [])
    lo, hi = min(points), max(points)
    pad = 0.03 * (hi - lo) or 0.5
    return lo - pad, hi + pad


@styled
def plot_law(
    law: Any,
    ax: Any = None,
    *,
    points: int = LAW_POINTS,
    log: bool | None = None,
    atoms: bool = True,
    label: str | None = None,
    title: str | None = None,
    path: str | None = None,
    **kwargs: Any,
) -> Any:
    """Draw the law ``law`` (any law of :mod:`freege.numeric`, or an expression of
    :mod:`freege.algebra`, whose ``.law()`` is drawn) and return the matplotlib Axes.

    * The density of the continuous part on about ``points`` points over its support
      intervals, finer near each edge (:func:`law_grid`), filled; the support edges as
      dotted lines. An integrable spike at a hard edge that would flatten the rest is cut
      (:func:`density_limit`) and marked with its largest value.
    * ``log``: the x-axis; None (default) takes a log axis when the continuous part is
      skewed (:func:`auto_log_x`: above 0, spanning more than :data:`LOG_SPAN`, half its
      mass in the first :data:`LOG_MEDIAN_AT` of a linear axis). On a log axis the curve
      is ``x rho(x)``, the density per unit of ``ln x`` (its area is probability there),
      and an atom at ``x <= 0`` stands left of the density, labelled so.
    * ``atoms``: each atom as a stem whose height is its mass, read on the right-hand
      "atom mass" axis (an atom has no density), labelled with its mass and location in
      a band at the top of the axes that the density never enters (up to
      :data:`LABELLED_ATOMS` atoms; more are named in the legend).
    * ``label``: the curve's legend entry (default: what it is); ``title`` (default: the
      law's name when this call makes the figure); ``kwargs`` go to the curve's
      ``Axes.plot`` (``color``, ``lw``, ...); ``ax``: draw into these axes (several laws
      may share them); ``path``: also write the figure (``.png``, ``.svg``, ``.pdf``).

    matplotlib (the ``plot`` extra) is imported here only; no pyplot: with ``ax=None`` a
    new :class:`~matplotlib.figure.Figure` is made (``ax.figure`` shows it in Jupyter).
    """
    if path is not None:
        check_target(path)
    if not hasattr(law, "pdf") and hasattr(law, "law"):
        law = law.law()
    grid = law_grid(law, points, log)
    made = ax is None
    ax = new_axes(ax)
    state = ax.__dict__.setdefault("_freege_law", {"top": 0.0, "rows": 0, "x": None,
                                                   "edges": False, "drawn": []})
    name = r"$x\,\rho(x)$" if grid.log else r"$\rho(x)$"
    if grid.edges:
        x0, x1 = grid.edges[0][0], grid.edges[-1][1]
        xs = np.concatenate([[x0], grid.xs, [x1]])
        y = np.concatenate([[0.0], grid.xs * grid.pdf if grid.log else grid.pdf, [0.0]])
        y = np.where(np.isfinite(y), y, 0.0)
        default = (rf"{name} of the continuous part (per unit $\ln x$: area = probability)"
                   if grid.log else rf"density {name} of the continuous part")
        (line,) = ax.plot(xs, y, label=default if label is None else label, **kwargs)
        fill = ax.fill_between(xs, y, color=line.get_color(), alpha=0.15, lw=0)
        for a, b in grid.edges:
            for edge in (a, b):
                ax.axvline(edge, color="0.4", lw=0.8, ls=":",
                           label=None if state["edges"] else "support edges")
                state["edges"] = True
        cut = density_limit(y, xs, grid.edges)
        top = cut if cut is not None else (1.04 * float(y.max()) if y.max() > 0 else 1.0)
        if cut is not None:
            _mark_off_scale(ax, xs, y, cut, name)
        state["top"] = max(state["top"], top)
        drawn = [line, fill]
    else:
        drawn = []
        if label is not None:
            ax.plot([], [], color=ATOM_COLOR, label=label)
        state["top"] = state["top"] or 1.0
    ax.set_xscale("log" if grid.log else "linear")
    if grid.log:
        log_ticks(ax.xaxis)  # plain-number labels (the locators are set below)
    lo, hi = _x_range(grid, atoms and bool(grid.atoms))
    if state["x"] is not None:
        lo, hi = min(lo, state["x"][0]), max(hi, state["x"][1])
    state["x"] = (lo, hi)
    ax.set_xlim(lo, hi)
    if grid.log:  # ticks over the density only (an atom at x <= 0 stands left of it)
        from matplotlib.ticker import FixedLocator

        first = min([grid.edges[0][0], *(x for x in grid.atoms if x > 0)]) / 1.05
        ax.xaxis.set_major_locator(FixedLocator(log_tick_values(max(lo, first), hi)))
        ax.xaxis.set_minor_locator(FixedLocator(
            [m * 10.0**e for e in range(math.floor(math.log10(max(lo, first))),
                                        math.ceil(math.log10(hi)) + 1)
             for m in range(1, 10) if max(lo, first) <= m * 10.0**e <= hi]))
    if atoms and grid.atoms:
        _atom_stems(ax, grid.atoms, grid.log)
        state["rows"] += _atom_labels(ax, grid.atoms, grid.log, state["rows"])
    # the band at the top that the density never enters: the atoms' labels, then the
    # legend (sizes in points, 15% spare for the layout that saving tightens)
    height = ax.get_position().height * ax.figure.get_figheight() * 72
    entries = len(ax.get_legend_handles_labels()[0]) + len(
        mass_axis(ax).get_legend_handles_labels()[0] if hasattr(ax, "_freege_mass_axis")
        else [])
    labels = 1.15 * (state["rows"] * LABEL_ROW + 4) if state["rows"] else 0.0
    band = min(0.6, (labels + 1.15 * (entries * LEGEND_ENTRY + LEGEND_PAD)) / height)
    ax.set_ylim(0, state["top"] / (1 - band))
    from matplotlib.patches import Rectangle

    state["drawn"] += drawn
    below = Rectangle((0, 0), 1, 1 - band, transform=ax.transAxes, fill=False)
    for artist in state["drawn"]:
        artist.set_clip_path(below)
    ax.set_xlabel(r"eigenvalue $x$" + (" (log scale)" if grid.log else ""))
    ax.set_ylabel(rf"{name}, density in $\ln x$" if grid.log else rf"density {name}")
    if title is not None or made:
        ax.set_title(wrapped(law_title(law) if title is None else title))
    if entries:
        legend(ax, loc="upper left" if state.get("right") else "upper right",
               bbox_to_anchor=(0, 0, 1, 1 - labels / height))
    return finish(ax, path)


@styled
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
    hline_label: str | None = None,
    vline_label: str | None = None,
    points: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> Any:
    """Draw one line per entry of ``series`` (label -> (x, y); each its own colour and
    marker, no markers on a dense curve of more than :data:`DENSE` points), and the
    ``points`` (label -> (x, y)) as markers only, never joined by straight segments;
    optionally with a horizontal reference line (e.g. ratio 1) and a vertical marker
    (e.g. a crossover), labelled in the legend by ``hline_label`` / ``vline_label``.
    Written to ``path`` when given, drawn into ``ax`` when given; returns the axes."""
    if path is not None:
        check_target(path)
    ax = new_axes(ax)
    for k, (label, (x, y)) in enumerate(series.items()):
        style = series_style(k)
        if len(x) > DENSE:
            style["marker"] = "None"
        ax.plot(x, y, "-", lw=1.2, label=label, **style)
    for k, (label, (x, y)) in enumerate((points or {}).items(), len(series)):
        ax.plot(x, y, ls="none", label=label, **series_style(k))
    if hline is not None:
        ax.axhline(hline, color="gray", lw=0.8, ls="--", label=hline_label)
    if vline is not None:
        ax.axvline(vline, color=ATOM_COLOR, lw=0.8, ls=":", label=vline_label)
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(wrapped(title))
    ax.legend()
    return finish(ax, path)
