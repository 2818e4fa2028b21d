"""Figures for the validation commands (theory §6.1, §6.2).

matplotlib is the optional extra ``plot`` and is imported only when drawing; figures are
:class:`matplotlib.figure.Figure` objects (no pyplot), so importing or using this module
never switches the global matplotlib backend. The plumbing (``.png/.svg/.pdf`` targets,
atomic writes, wrapped titles, atom spikes) is shared with :mod:`freege.plotting`.

Whether the numerical zeros of a sampled spectrum are an atom is decided by the theory,
not by the samples: when the limiting law has an atom at 0 (a rank-deficient case, theory
§7) each sample's numerical zeros are left out of the histogram
(:func:`freege.validation.sampling.metrics.split_zero_atom`) and drawn as a spike whose
fraction the legend gives, so the first bin does not dwarf the rest; the histogram of the
remaining eigenvalues is a sub-probability density (count / all eigenvalues / width), on
the same scale as the continuous part of the limiting law. When the limit has no atom, the
few eigenvalues at rounding level (a finite-n rank deficiency such as the direction
centring removes, or the smallest eigenvalues next to a hard edge at 0) stay in the first
bin, and the legend counts them without calling them an atom.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from freege import plotting
from freege.validation.sampling.metrics import ZERO_TOLERANCE, split_zero_atom


def require_matplotlib(path: str) -> None:
    """Fail early (before any sampling) when a plot to ``path`` cannot be written:
    matplotlib missing, an extension other than .png/.svg/.pdf, or the target folder absent
    or not writable (ValueError, one line)."""
    plotting.check_target(path)


#: line styles of successive histograms (with the colours: distinguishable in grey too)
LINESTYLES = ("-", "--", "-.", ":")


def _histogram(ax: Any, values: np.ndarray, edges: np.ndarray, total: int, label: str,
               linewidth: float, k: int) -> None:
    """Step histogram of ``values`` normalized by ``total`` (a sub-probability density),
    the ``k``-th series' colour and line style."""
    counts, _ = np.histogram(values, edges)
    heights = counts / (total * np.diff(edges))
    ax.stairs(heights, edges, linewidth=linewidth, label=label, color=f"C{k % 8}",
              linestyle=LINESTYLES[k % len(LINESTYLES)])


@plotting.styled
def spectrum_histogram(path: str | None, samples: dict[str, np.ndarray], title: str,
                       density: Callable[[np.ndarray], np.ndarray] | None = None,
                       mean: float | None = None, bins: int = 80, *,
                       atoms: Mapping[float, float] | None = None, ax: Any = None,
                       zero_tolerance: float = ZERO_TOLERANCE) -> Any:
    """Density histograms of the pooled eigenvalue ``samples`` (label -> values), with the
    limiting density ``density(x)`` (its continuous part) and the limiting ``atoms``
    ``{location: mass}`` overlaid when given. Only when ``atoms`` has mass at 0 are each
    sample's numerical zeros (``zero_tolerance``:
    :func:`freege.validation.sampling.metrics.zero_tolerance` of the samples' dtype) drawn
    as a spike instead of a histogram bar, their fraction in the legend; otherwise they
    stay in the histogram and the legend counts them, without calling them an atom.
    Written to ``path`` when given, drawn into ``ax`` when given; returns the axes."""
    if path is not None:
        plotting.check_target(path)
    ax = plotting.new_axes(ax, figsize=(7.0, 4.6))
    atom_at_zero = bool(atoms) and any(float(a) == 0 and float(m) > 0
                                       for a, m in atoms.items())
    split, finite_zeros = {}, {}
    for label, v in samples.items():
        values = np.asarray(v)
        rest, zeros = split_zero_atom(values, zero_tolerance)
        split[label] = (values, rest, zeros) if atom_at_zero else (values, values, 0.0)
        if not atom_at_zero and zeros > 0:
            finite_zeros[label] = (round(zeros * values.size), values.size)
    lo = min(float(rest.min()) for _, rest, _ in split.values())
    hi = max(float(np.quantile(rest, 0.999)) for _, rest, _ in split.values())
    edges = np.linspace(lo, hi, bins + 1)
    heights = []
    for k, (label, (values, rest, zeros)) in enumerate(split.items()):
        _histogram(ax, rest, edges, values.size, label, linewidth=1.5, k=k)
        heights.append(np.histogram(rest, edges)[0].max() / (values.size * (edges[1] - edges[0])))
        if zeros > 0:
            plotting.atom_spikes(ax, {0.0: zeros}, label=f"{label}: fraction",
                                 color=f"C{k % 8}", annotate=False)
    if density is not None:
        x = np.linspace(max(lo, 1e-9), hi, 600)
        ax.plot(x, density(x), "k-", linewidth=1.0,
                label=r"limiting density $\rho(\lambda)$ (theory §4)")
    if atom_at_zero:
        plotting.atom_spikes(ax, atoms, label="limit: mass", color="k", annotate=False)
    if mean is not None:
        ax.axvline(mean, color="grey", linestyle=":", label=f"limiting mean $m_1$ = {mean:.4g}")
    if finite_zeros:
        _finite_zeros_note(ax, finite_zeros, zero_tolerance, known=atoms is not None)
    ax.set_ylim(0, 1.15 * max(heights))
    _label(ax, r"eigenvalue $\lambda$", title, legend_size=8 if len(samples) < 3 else 7)
    return plotting.finish(ax, path)


def _finite_zeros_note(ax: Any, counts: Mapping[str, tuple[int, int]], tolerance: float,
                       known: bool) -> None:
    """One legend line (no mark) for numerical zeros (at most ``tolerance`` times the
    largest eigenvalue) that the limit does not call an atom (``known``; else no limiting
    atoms were given): ``{label: (zeros, eigenvalues)}``."""
    groups: dict[tuple[int, int], list[str]] = {}
    for label, key in counts.items():
        groups.setdefault(key, []).append(label)
    where = "; ".join(f"{k} of {total} in {' / '.join(labels)}"
                      for (k, total), labels in groups.items())
    why = "the limit has no atom" if known else "no limiting atom given"
    ax.plot([], [], ls="none", label=f"eigenvalues <= {tolerance:g} x the largest, kept in "
            f"the first bin ({why}):\n{where}")


#: the theory §6.2 ladder steps as figure text (mathtext)
LADDER_LABELS: dict[str, str] = {
    "sqrt(n) A": r"$\sqrt{n}\,A$", "sqrt(n) A^perp": r"$\sqrt{n}\,A^\perp$ (reference)",
    "Y": r"$Y$", "Y_f": r"$Y_f$", "Y_Q": r"$Y_Q$", "Y_Q_lin": r"$Y_{Q,\mathrm{lin}}$",
    "Y_f_lin": r"$Y_{f,\mathrm{lin}}$",
}


@plotting.styled
def ladder_histograms(path: str | None, spectra: dict[str, np.ndarray], reference: str,
                      title: str, bins: int = 80, *, ax: Any = None) -> Any:
    """Bulk eigenvalue histograms of the theory §6.2 ladder, one step per curve (the
    ``reference`` step drawn thicker). Written to ``path`` when given, drawn into ``ax``
    when given; returns the axes."""
    if path is not None:
        plotting.check_target(path)
    ax = plotting.new_axes(ax, figsize=(7.0, 4.6))
    values = list(spectra.values())
    lo = min(float(v.min()) for v in values)
    hi = max(float(np.quantile(v, 0.995)) for v in values)
    edges = np.linspace(lo, hi, bins + 1)
    for k, (label, v) in enumerate(spectra.items()):
        _histogram(ax, np.asarray(v), edges, len(v), LADDER_LABELS.get(label, label),
                   linewidth=2.2 if label == reference else 1.0, k=k)
    _label(ax, r"squared singular value $\sigma^2$ (bulk, top 3 removed)", title,
           legend_size=7)
    return plotting.finish(ax, path)


def _label(ax: Any, xlabel: str, title: str, legend_size: int) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density (count / all eigenvalues / bin width)")
    ax.set_title(plotting.wrapped(title))
    plotting.legend(ax, fontsize=legend_size, loc="upper right")
