"""What every panel's figure (:class:`freege.validation.paper.panel.Panel`'s ``draw``)
shares: measured points with their 95% intervals, integer axes, and one colour per path
of 2(b) and 2(c)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: the colour of each path of 2(b) and 2(c), one map for both panels (theory §6.4): a
#: path keeps its colour from the limiting map to the measured points
PATH_COLOURS: dict[str, str] = {"fixed output": "C0", "fixed budget": "C1"}


def errorbar(ax: Any, x: list[float], rows: list[dict[str, Any]], fmt: str = "o",
             **kw: Any) -> None:
    """The measured points of ``rows`` at ``x`` with their intervals ``[low, high]``
    (markers ``fmt``; ``kw`` to ``Axes.errorbar``).

    Every measured quantity of the paper's figures is positive (errors, losses, arrival
    times, their ratios), so its axis is too: when an interval reaches 0 or below (a
    Student-t interval of few draws), the y-axis turns logarithmic and that interval's
    lower bar ends in a downward arrow at a tenth of its estimate, which the legend
    explains; an interval is never drawn below 0."""
    y = np.array([r["measured"] for r in rows], dtype=float)
    lo = np.array([r["low"] for r in rows], dtype=float)
    hi = np.array([r["high"] for r in rows], dtype=float)
    open_below = ~(lo > 0)
    if not open_below.any():
        ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt=fmt, ms=4, capsize=3, **kw)
        return
    ax.set_yscale("log")
    bottom = np.where(open_below, y / 10, lo)
    ax.errorbar(x, y, yerr=[y - bottom, hi - y], fmt=fmt, ms=4, capsize=3, **kw)
    xs = np.asarray(x, dtype=float)[open_below]
    ax.plot(xs, bottom[open_below], ls="none", marker="v", ms=6, color=kw.get("color"),
            label="interval reaches 0 or below" if not _arrow_labelled(ax) else None)


#: legend groups by the start of an entry's label: the theory curves, the measured
#: points, then reference lines and notes (the note on open intervals last)
LEGEND_GROUPS = (("theory", "finite-width theory", "predicted", "limit"),
                 ("softmax", "freege", "sample", "paper"))


def _legend_rank(label: str) -> int:
    """The group of a legend entry (:data:`LEGEND_GROUPS`; then the rest, then the note
    on intervals reaching 0)."""
    if label.startswith("interval reaches 0"):
        return len(LEGEND_GROUPS) + 1
    return next((k for k, starts in enumerate(LEGEND_GROUPS) if label.startswith(starts)),
                len(LEGEND_GROUPS))


def legend(ax: Any, **kw: Any) -> Any:
    """``ax``'s legend (font size 7, ``kw`` to ``Axes.legend``), its entries ordered by
    :data:`LEGEND_GROUPS`, in drawing order within a group."""
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda k: (_legend_rank(labels[k]), k))
    return ax.legend([handles[k] for k in order], [labels[k] for k in order], fontsize=7,
                     **kw)


def _arrow_labelled(ax: Any) -> bool:
    return any(line.get_label() == "interval reaches 0 or below" for line in ax.lines)


def integer_ticks(ax: Any, values: list[int]) -> None:
    """A log-scaled integer x-axis labelled at its values (``8``, not ``8×10^0``)."""
    ax.set_xticks(values, [str(v) for v in values])
    ax.set_xticks([], minor=True)
