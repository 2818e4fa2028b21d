"""Figures for the validation commands (matplotlib, imported lazily: optional extra)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _figure() -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, plt.subplots(figsize=(7, 4.5))


def _save(fig: Any, path: str) -> None:
    """Write ``fig`` to ``path`` atomically: a temporary file in the same folder, then a
    rename, so a failure never leaves a half-written figure."""
    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1] or ".png"
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120, format=suffix.lstrip("."))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _finish(plt: Any, fig: Any, ax: Any, path: str, xlabel: str, title: str,
            legend_size: int) -> None:
    """Label a density figure, write it to ``path`` (atomically) and close it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def spectrum_histogram(path: str, samples: dict[str, np.ndarray], title: str,
                       density: Callable[[np.ndarray], np.ndarray] | None = None,
                       mean: float | None = None, bins: int = 80) -> None:
    """Density histograms of the pooled eigenvalue ``samples`` (label -> values), with
    the limiting density ``density(x)`` overlaid when given; written to ``path``."""
    plt, (fig, ax) = _figure()
    lo = min(float(v.min()) for v in samples.values())
    hi = max(float(np.quantile(v, 0.999)) for v in samples.values())
    edges = np.linspace(lo, hi, bins + 1)
    for label, values in samples.items():
        ax.hist(values, bins=edges, density=True, histtype="step", linewidth=1.5,
                label=label)
    if density is not None:
        x = np.linspace(max(lo, 1e-9), hi, 600)
        ax.plot(x, density(x), "k-", linewidth=1.0, label="limiting density (SPEC §4)")
    if mean is not None:
        ax.axvline(mean, color="grey", linestyle=":", label=f"limiting mean {mean:.4g}")
    _finish(plt, fig, ax, path, "eigenvalue", title, legend_size=8)


def ladder_histograms(path: str, spectra: dict[str, np.ndarray], reference: str,
                      title: str, bins: int = 80) -> None:
    """Bulk eigenvalue histograms of the SPEC §6.2 ladder, one step per curve."""
    plt, (fig, ax) = _figure()
    values: Sequence[np.ndarray] = list(spectra.values())
    lo = min(float(v.min()) for v in values)
    hi = max(float(np.quantile(v, 0.995)) for v in values)
    edges = np.linspace(lo, hi, bins + 1)
    for label, v in spectra.items():
        ax.hist(v, bins=edges, density=True, histtype="step",
                linewidth=2.2 if label == reference else 1.0, label=label)
    _finish(plt, fig, ax, path, "squared singular value (bulk)", title, legend_size=7)
