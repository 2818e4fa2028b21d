"""scipy.stats' conventions at the edges of a law's methods (theory §7), and the methods
every law derives from its others (:class:`ScipyConventions`).

:class:`freege.numeric.law_family.Law` follows ``scipy.stats.rv_continuous`` wherever an
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


class ScipyConventions:
    """The methods a :class:`freege.numeric.law_family.Law` derives from its others, with
    scipy.stats' names and conventions: ``log`` versions, ``isf``, ``median``,
    ``interval``, and ``mean``/``var``/``std``/``stats`` from the exact moments (theory §3).
    They use the law's ``dps``, ``_ctx()``, ``_out()``, ``_moment_mp(q)``, ``moment``,
    ``pdf``, ``cdf``, ``sf`` and ``ppf``."""

    dps: int | None

    def logpdf(self, x: Any) -> Any:
        """``log pdf`` (``-inf`` outside the support), like ``scipy.stats``."""
        return log(self.pdf(x), self.dps)

    def logcdf(self, x: Any) -> Any:
        """``log cdf`` like ``scipy.stats`` (``-inf`` below the support)."""
        return log(self.cdf(x), self.dps)

    def logsf(self, x: Any) -> Any:
        """``log sf`` like ``scipy.stats`` (``-inf`` above the support)."""
        return log(self.sf(x), self.dps)

    def isf(self, q: Any) -> Any:
        """Inverse survival function, ``ppf(1 - q)`` (nan outside ``[0, 1]``)."""
        ppf = self.ppf
        if self.dps is None:
            return ppf(1.0 - np.asarray(q, dtype=float))
        with self._ctx():
            return ppf(map_batch(lambda vs: [1 - mpmath.mpf(v) for v in vs], q))

    def median(self) -> Any:
        """``ppf(1/2)``."""
        return self.ppf(0.5 if self.dps is None else mpmath.mpf(1) / 2)

    def interval(self, confidence: Any) -> tuple[Any, Any]:
        """The central interval with the given probability: ``(ppf((1 - c)/2),
        ppf((1 + c)/2))``, elementwise over an array of confidences like scipy.stats (nan
        gives nan; a confidence outside ``[0, 1]`` is a ValueError)."""
        ppf = self.ppf
        if self.dps is None:
            c = np.asarray(confidence, dtype=float)
            check_confidence(c)
            return ppf((1 - c) / 2), ppf((1 + c) / 2)
        with self._ctx():
            c = map_batch(lambda vs: [mpmath.mpf(v) for v in vs], confidence)
            check_confidence(c)
            return ppf((1 - c) / 2), ppf((1 + c) / 2)

    def mean(self) -> Any:
        """``m_1`` (1 for a normalized law)."""
        return self.moment(1)

    def var(self) -> Any:
        """``m_2 - m_1^2``."""
        with self._ctx():
            m1, m2 = (self._moment_mp(q) for q in (1, 2))
            return self._out(m2 - m1 ** 2)

    def std(self) -> Any:
        """``sqrt(var)``."""
        with self._ctx():
            m1, m2 = (self._moment_mp(q) for q in (1, 2))
            return self._out(mpmath.sqrt(m2 - m1 ** 2))

    def stats(self, moments: str = "mv") -> Any:
        """Like ``scipy.stats``: the requested of mean ``m``, variance ``v``, skewness
        ``s`` and excess kurtosis ``k`` (a tuple, or one value for one letter), from the
        exact moments (theory §3, §4)."""
        if not isinstance(moments, str) or not moments or set(moments) - set("mvsk"):
            raise ValueError(f"moments must be letters of 'mvsk' (got {moments!r})")
        with self._ctx():
            m1, m2, m3, m4 = (self._moment_mp(q) for q in (1, 2, 3, 4))
            var = m2 - m1**2
            mu3 = m3 - 3 * m1 * m2 + 2 * m1**3
            mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
            table = {"m": m1, "v": var, "s": mu3 / var**1.5, "k": mu4 / var**2 - 3}
            out = tuple(self._out(table[c]) for c in moments)
        return out[0] if len(out) == 1 else out


def log(values: Any, dps: int | None) -> Any:
    """Elementwise natural log, ``log 0 = -inf`` (scipy.stats' convention)."""
    if dps is None:
        with np.errstate(divide="ignore"):
            out = np.log(values)
        return out.item() if np.ndim(out) == 0 else out
    with mpmath.workdps(dps):
        one = lambda v: mpmath.log(v) if v != 0 else mpmath.mpf("-inf")  # noqa: E731
        if isinstance(values, np.ndarray):
            return np.vectorize(one, otypes=[object])(values)
        return one(values)


def shape_like(values: np.ndarray, like: np.ndarray) -> Any:
    """``values`` in the shape of ``like`` (a 0-d result as a Python scalar)."""
    out = values.reshape(np.shape(like))
    return out.item() if out.ndim == 0 else out


def map_batch(fn: Callable[[list[Any]], list[Any]], x: Any) -> Any:
    """Apply a list-to-list mpmath function to a scalar, or elementwise to a sequence /
    array (returned as a numpy object array of the same shape)."""
    if isinstance(x, np.ndarray | list | tuple):
        arr = np.asarray(x, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        out.ravel()[:] = fn(list(arr.ravel()))
        return out
    return fn([x])[0]


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
