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


#: the theory §2.2 chain steps as figure text (mathtext)
CHAIN_LABELS: dict[str, str] = {
    "sqrt(n) A^perp": r"$\sqrt{n}\,A^\perp$", "Y^f": r"$Y^f$", "Y^f_c": r"$Y^f_c$",
    "Y^G[Sigma_f]": r"$Y^G[\Sigma_f]$", "Y^G[Sigma_G]": r"$Y^G[\Sigma_G]$", "Y^G": r"$Y^G$",
}


@plotting.styled
def step_panels(path: str | None, spectra: dict[str, np.ndarray], title: str, *,
                labels: Mapping[str, str], reference: str | None = None,
                density: Callable[[np.ndarray], np.ndarray] | None = None,
                atoms: Mapping[float, float] | None = None, bins: int = 60,
                zero_tolerance: float = ZERO_TOLERANCE) -> Any:
    """Small multiples of a chain or ladder of spectra (theory §2.2, §6.2): one panel per
    step (``labels``: its mathtext name), on shared axes, each drawn over what it is
    compared with -- the ``reference`` step's histogram (grey) and, when given, the
    limiting ``density`` (black) -- so that steps which overlap on one axes can be told
    apart. Where the limiting ``atoms`` put mass at 0, each step's numerical zeros are
    left out of its histogram and their fraction goes into its panel's title. Written
    to ``path`` when given; returns the figure."""
    if path is not None:
        plotting.check_target(path)
    atom_at_zero = bool(atoms) and any(float(a) == 0 and float(m) > 0
                                       for a, m in atoms.items())
    parts = {}
    for name, v in spectra.items():
        values = np.asarray(v)
        rest, zeros = split_zero_atom(values, zero_tolerance) if atom_at_zero else (values,
                                                                                   0.0)
        parts[name] = (values, rest, zeros)
    pooled = np.concatenate([rest for _, rest, _ in parts.values()])
    lo, hi = float(pooled.min()), max(float(np.quantile(rest, 0.995))
                                      for _, rest, _ in parts.values())
    # a skewed spectrum (half of it in the first tenth of the axis, over decades) gets a
    # log axis, as a law's density does (freege.plotting.auto_log_x)
    low = float(np.quantile(pooled[pooled > 0], 0.005)) if np.any(pooled > 0) else 0.0
    log_x = (low > 0 and hi / low > plotting.LOG_SPAN
             and float(np.median(pooled)) - lo < plotting.LOG_MEDIAN_AT * (hi - lo))
    edges = np.geomspace(low, hi, bins + 1) if log_x else np.linspace(lo, hi, bins + 1)
    shown = [name for name in spectra if name != reference]
    cols = min(3, len(shown))
    rows = -(-len(shown) // cols)
    fig = plotting._figure_class()(figsize=(3.1 * cols + 0.6, 2.3 * rows + 0.9))
    axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).ravel()
    x = np.geomspace(low, hi, 600) if log_x else np.linspace(max(lo, 1e-9), hi, 600)
    # on a log axis, densities per unit of ln(lambda): lambda rho(lambda) and counts over
    # log widths, so that equal areas are equal masses on either axis
    widths = np.diff(np.log(edges)) if log_x else np.diff(edges)

    def heights(part: tuple[np.ndarray, np.ndarray, float]) -> np.ndarray:
        values, rest, _ = part
        return np.histogram(rest, edges)[0] / (values.size * widths)

    top = 0.0
    for k, (ax, name) in enumerate(zip(axes, shown, strict=False)):
        if reference is not None:
            ax.stairs(heights(parts[reference]), edges, fill=True, color="0.8",
                      label=labels.get(reference, reference))
        if density is not None:
            ax.plot(x, x * density(x) if log_x else density(x), "k-", lw=0.9,
                    label=r"limit $\lambda\rho(\lambda)$" if log_x
                    else r"limit $\rho(\lambda)$")
        ax.stairs(heights(parts[name]), edges, linewidth=1.4, color=f"C{k % 8}",
                  linestyle=LINESTYLES[k % len(LINESTYLES)], label=labels.get(name, name))
        values, _, zeros = parts[name]
        if not atom_at_zero:  # rounding-level eigenvalues the limit calls no atom: counted
            rounding = round(split_zero_atom(values, zero_tolerance)[1] * values.size)
            note = (f" ({rounding} of {values.size} ≈ 0, no atom)"
                    if rounding and density is not None else "")
        top = max([top, *(float(np.max(heights(parts[key])))
                          for key in (name, reference) if key is not None)])
        if zeros > 0:
            note = f" (fraction {zeros:.2g} at 0)"
        elif atom_at_zero:
            note = ""
        ax.set_title(f"{labels.get(name, name)}{note}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    axes[0].set_ylim(0, 1.2 * top)  # the histograms fill the panels (a density's pole may not)
    if log_x:
        axes[0].set_xscale("log")
    handles = [h for h, lab in zip(*axes[0].get_legend_handles_labels(), strict=True)
               if lab != labels.get(shown[0], shown[0])]
    if handles:
        fig.legend(handles=handles, loc="upper right", fontsize=8, frameon=False)
    fig.suptitle(plotting.wrapped(title), fontsize=10)
    fig.supxlabel(r"eigenvalue $\lambda$" + (" (log axis)" if log_x else ""), fontsize=9)
    fig.supylabel("density per unit of ln λ (count / all eigenvalues / log width)" if log_x
                  else "density (count / all eigenvalues / bin width)", fontsize=9)
    if path is not None:
        plotting.save(fig, path)
    return fig

