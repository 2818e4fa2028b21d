"""scipy.stats' conventions at the edges of a law's methods (theory §7).

:class:`freege.numeric.law.Law` follows ``scipy.stats.rv_continuous`` wherever an
argument leaves the ordinary range, elementwise (an array in gives an array out):

* ``ppf``/``isf``: a probability outside ``[0, 1]`` (or nan) gives nan; ``ppf(0)`` is the
  lower end of the support, ``ppf(1)`` the upper end;
* ``cdf``/``sf``: exactly 0 or 1 at ``-inf``/``+inf`` (no work is done for them) and beyond
  the support (below everything, or at and above the upper edge); nan gives nan; the
  ``log`` versions follow (``log 0 = -inf``, ``log 1 = 0``);
* ``interval``: broadcasts over an array of confidences; nan gives nan, a confidence
  outside ``[0, 1]`` is a ValueError (scipy raises for the whole call too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np


def probabilities_f64(q: Any) -> np.ndarray:
    """``q`` as a float array, nan where it is not a probability in ``[0, 1]``."""
    qs = np.array(q, dtype=float)
    with np.errstate(invalid="ignore"):
        qs[(qs < 0) | (qs > 1)] = np.nan
    return qs


def probability_mp(q: Any) -> mpmath.mpf:
    """``q`` as an mpmath number at the ambient precision, nan unless in ``[0, 1]``."""
    q = mpmath.mpf(q)
    return q if 0 <= q <= 1 else mpmath.mpf("nan")


def cdf_outside_f64(
    x: np.ndarray, hull: Callable[[], tuple[float, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """``(values, todo)`` for a flat float array ``x``: nan at nan, exactly 0/1 at ``-inf``/
    ``+inf`` and beyond ``hull() = (lower, upper)`` (cdf 0 below ``lower``, 1 from
    ``upper`` on); ``todo`` marks the points left to integrate. ``hull`` is called only
    when some point is finite."""
    out = np.where(x > 0, 1.0, 0.0)
    out[np.isnan(x)] = np.nan
    todo = np.isfinite(x)
    if todo.any():
        lower, upper = hull()
        out[todo & (x >= upper)] = 1.0
        out[todo & (x < lower)] = 0.0  # a finite point below a positive support too
        todo &= (x >= lower) & (x < upper)
    return out, todo


def cdf_outside_mp(
    x: mpmath.mpf, hull: Callable[[], tuple[mpmath.mpf, mpmath.mpf]]
) -> mpmath.mpf | None:
    """The cdf at ``x`` when a convention fixes it (see :func:`cdf_outside_f64`), else
    None."""
    if mpmath.isnan(x):
        return x
    if mpmath.isinf(x):
        return mpmath.mpf(1) if x > 0 else mpmath.mpf(0)
    lower, upper = hull()
    if x >= upper:
        return mpmath.mpf(1)
    if x < lower:
        return mpmath.mpf(0)
    return None


def check_confidence(values: Any) -> None:
    """ValueError naming ``confidence`` unless every entry is in ``[0, 1]`` or nan."""
    arr = np.asarray(values, dtype=object).ravel()
    for v in arr:
        if not (v != v or 0 <= v <= 1):  # nan passes: nan in, nan out
            raise ValueError(f"confidence must be in [0, 1] (got {v})")
