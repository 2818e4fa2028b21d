"""What every panel's figure (:class:`freege.validation.paper.panel.Panel`'s ``draw``)
shares: measured points with their 95% intervals, integer axes, and one colour per path
of 2(b) and 2(c)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: the colour of each path of 2(b) and 2(c), one map for both panels (theory §6.4): a
#: path keeps its colour from the limiting map to the measured points
PATH_COLOURS: dict[str, str] = {"fixed output": "C0", "fixed budget": "C1"}


def errorbar(ax: Any, x: list[float], rows: list[dict[str, Any]], **kw: Any) -> None:
    """The measured points of ``rows`` at ``x`` with their intervals ``[low, high]``."""
    y = np.array([r["measured"] for r in rows])
    lo = np.array([r["low"] for r in rows])
    hi = np.array([r["high"] for r in rows])
    ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o", ms=4, capsize=3, **kw)


def integer_ticks(ax: Any, values: list[int]) -> None:
    """A log-scaled integer x-axis labelled at its values (``8``, not ``8×10^0``)."""
    ax.set_xticks(values, [str(v) for v in values])
    ax.set_xticks([], minor=True)
