"""The statistics of the paper-reproduction protocol (theory §6.4): Student-t means,
paired differences, the Fieller interval of a ratio of paired means, measured arrival
times (root of the mean learning curve) with bootstrap percentile intervals, and error-bar
sizes.

Everything here works on plain NumPy arrays of per-draw measurements; scipy is imported
inside the functions that need it (``scipy.stats`` costs about a second to import).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from freege.validation.sampling import metrics

#: confidence level of every interval (theory §6.4)
LEVEL = 0.95
#: relative tolerance of a measured arrival time (theory §6.4)
ARRIVAL_RTOL = 1e-12
#: bootstrap resamples of an arrival time (theory §6.4)
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    """An estimate with the endpoints of its 95% interval."""

    estimate: float
    low: float
    high: float

    @property
    def bar(self) -> float:
        """The error bar's size: the largest distance from the estimate to an endpoint."""
        return max(abs(self.estimate - self.low), abs(self.high - self.estimate))

    @property
    def relative_bar(self) -> float:
        """:attr:`bar` over ``|estimate|`` (inf for a zero estimate)."""
        return self.bar / abs(self.estimate) if self.estimate else math.inf

    def as_dict(self) -> dict[str, float]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high,
                "bar": self.bar}


def student(values: Sequence[float] | np.ndarray) -> Interval:
    """Mean ± Student-t 95% half-width ``t_{k-1,0.975} s / sqrt(k)`` over ``k`` draws
    (:func:`freege.validation.sampling.metrics.mean_ci`)."""
    mean, half = metrics.mean_ci(values, LEVEL)
    return Interval(mean, mean - half, mean + half)


def paired_difference(a: Sequence[float] | np.ndarray,
                      b: Sequence[float] | np.ndarray) -> Interval:
    """Mean of the per-draw differences ``a_i - b_i`` with its Student-t interval."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples need equal sizes (got {a.size} and {b.size})")
    return student(a - b)


def fieller(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> Interval:
    """Ratio ``Ybar / Xbar`` of paired means with its Fieller 95% interval
    ``{r : |Ybar - r Xbar| <= t s_{Y - rX} / sqrt(k)}`` (theory §6.4): squaring gives
    ``a r^2 - 2 b r + c <= 0`` with ``a = Xbar^2 - q s_xx``, ``b = Xbar Ybar - q s_xy``,
    ``c = Ybar^2 - q s_yy``, ``q = t^2 / k``. The set is a bounded interval exactly when
    ``a > 0`` (the denominator's mean differs significantly from 0); otherwise a
    ValueError says it is unbounded."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired samples need equal sizes (got {x.size} and {y.size})")
    k = x.size
    if k < 2:
        raise ValueError(f"an interval needs at least 2 draws (got {k})")
    q = metrics.t_critical(k - 1, LEVEL) ** 2 / k
    cov = np.cov(np.vstack([x, y]), ddof=1)
    xbar, ybar = float(x.mean()), float(y.mean())
    a = xbar * xbar - q * cov[0, 0]
    b = xbar * ybar - q * cov[0, 1]
    c = ybar * ybar - q * cov[1, 1]
    disc = b * b - a * c
    if not a > 0 or disc < 0:
        raise ValueError("the Fieller interval is unbounded: the mean of the denominator "
                         "is not significantly different from 0")
    root = math.sqrt(disc)
    return Interval(ybar / xbar, (b - root) / a, (b + root) / a)


def mean_curve(eigenvalues: np.ndarray, weights: np.ndarray, t: float) -> float:
    """``(1/k) sum_i sum_j w_ij exp(-2 t l_ij)``: the mean over ``k`` draws (rows) of the
    learning curves ``L_i(t) = sum_j w_ij exp(-2 t l_ij)`` (theory §5)."""
    return float(np.mean(np.sum(weights * np.exp(-2.0 * t * eigenvalues), axis=1)))


def arrival(eigenvalues: np.ndarray, weights: np.ndarray, level: float = 0.1) -> float:
    """The root of the mean learning curve at ``level`` (theory §6.4), relative tolerance
    :data:`ARRIVAL_RTOL`: a bracket ``[T/4, T]`` grown from 1, then Brent's method
    (``scipy.optimize.brentq``, which raises when it does not converge), the residual
    checked. ValueError when the curve's floor (its mass at eigenvalue 0) does not lie
    below ``level``."""
    from scipy.optimize import brentq

    lam = np.clip(np.asarray(eigenvalues, dtype=float), 0.0, None)
    w = np.asarray(weights, dtype=float)

    def f(t: float) -> float:
        return mean_curve(lam, w, t) - level

    lo, hi = 1.0, 1.0
    while f(lo) < 0:
        lo /= 4.0
        if lo < 1e-12:
            raise ValueError(f"the mean learning curve starts below level {level}")
    while f(hi) > 0:
        hi *= 4.0
        if hi > 1e15:
            raise ValueError(f"the mean learning curve does not reach level {level}")
    root, info = brentq(f, lo, hi, xtol=1e-300, rtol=ARRIVAL_RTOL, full_output=True)
    if not info.converged:  # pragma: no cover - brentq raises first
        raise ArithmeticError(f"arrival time did not converge: {info.flag}")
    slope = -2.0 * float(np.mean(np.sum(w * lam * np.exp(-2.0 * root * lam), axis=1)))
    if abs(f(root)) > 10 * ARRIVAL_RTOL * root * abs(slope) + 1e-15:
        raise ArithmeticError(f"arrival time residual {f(root):.3g} too large at t = {root}")
    return float(root)


def arrivals(eigenvalues: np.ndarray, weights: np.ndarray, counts: np.ndarray,
             level: float = 0.1, chunk: int = 64) -> np.ndarray:
    """Arrival times of many reweighted mean curves at once: resample ``r`` has curve
    ``sum_i counts[r, i] L_i(t) / sum_i counts[r, i]`` (a bootstrap resample of the draws
    is such a count vector). Safeguarded Newton in ``t`` inside a bracket per resample
    (a step leaving the bracket is replaced by bisection), started from the full
    sample's root, to relative step :data:`ARRIVAL_RTOL`; ArithmeticError when it does
    not converge in 200 steps."""
    lam = np.clip(np.asarray(eigenvalues, dtype=float), 0.0, None)
    w = np.asarray(weights, dtype=float)
    c = np.asarray(counts, dtype=float)
    c = c / c.sum(axis=1, keepdims=True)
    start = arrival(lam, w, level)
    out = np.empty(c.shape[0])
    for lo_r in range(0, c.shape[0], chunk):
        out[lo_r:lo_r + chunk] = _newton(lam, w, c[lo_r:lo_r + chunk], level, start)
    return out


def _curve_and_slope(lam: np.ndarray, w: np.ndarray, c: np.ndarray, t: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    e = w[None] * np.exp(-2.0 * t[:, None, None] * lam[None])  # (r, draws, n)
    per_draw = e.sum(axis=2)
    slope = -2.0 * (e * lam[None]).sum(axis=2)
    return (c * per_draw).sum(axis=1), (c * slope).sum(axis=1)


def _newton(lam: np.ndarray, w: np.ndarray, c: np.ndarray, level: float, start: float
            ) -> np.ndarray:
    lo, hi = np.full(c.shape[0], start), np.full(c.shape[0], start)
    for _ in range(60):  # grow each bracket by 4 until the curve crosses the level
        low_side, _ = _curve_and_slope(lam, w, c, lo)
        high_side, _ = _curve_and_slope(lam, w, c, hi)
        if (low_side >= level).all() and (high_side <= level).all():
            break
        lo = np.where(low_side < level, lo / 4, lo)
        hi = np.where(high_side > level, hi * 4, hi)
    else:
        raise ValueError(f"a resampled mean curve does not cross level {level}")
    t = np.full(c.shape[0], start)
    for _ in range(200):
        value, slope = _curve_and_slope(lam, w, c, t)
        f = value - level
        lo, hi = np.where(f >= 0, t, lo), np.where(f <= 0, t, hi)
        step = -f / np.where(slope < 0, slope, -np.inf)
        if (np.abs(step) <= ARRIVAL_RTOL * t).all():
            return t + step
        new = t + step
        bad = ~((new >= lo) & (new <= hi)) | (slope >= 0)
        t = np.where(bad, np.sqrt(lo * hi), new)
    raise ArithmeticError("bootstrap arrival times did not converge in 200 Newton steps")


def bootstrap_arrival(eigenvalues: np.ndarray, weights: np.ndarray, level: float = 0.1,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> Interval:
    """Measured arrival time (:func:`arrival`) with the 2.5 and 97.5 percentiles of
    ``resamples`` bootstrap resamples of the draws (rows; the target is fixed): each
    resample's arrival time is that of its mean curve (``scipy.stats.bootstrap``,
    percentile method, seeded; resamples solved together by :func:`arrivals`)."""
    from scipy import stats

    lam, w = np.asarray(eigenvalues, dtype=float), np.asarray(weights, dtype=float)
    if lam.ndim != 2 or lam.shape[0] < 2:
        raise ValueError("bootstrap needs at least 2 draws (rows)")
    k = lam.shape[0]

    def statistic(index: np.ndarray, axis: int = -1) -> np.ndarray:
        idx = np.moveaxis(np.asarray(index), axis, -1).astype(int)
        flat = idx.reshape(-1, k)
        counts = np.zeros((flat.shape[0], k))
        np.add.at(counts, (np.arange(flat.shape[0])[:, None], flat), 1.0)
        return arrivals(lam, w, counts, level).reshape(idx.shape[:-1])

    result = stats.bootstrap(
        (np.arange(k, dtype=float),), statistic, n_resamples=resamples,
        confidence_level=LEVEL, method="percentile", vectorized=True,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(arrival(lam, w, level), float(ci.low), float(ci.high))


def largest_bars(intervals: Sequence[Interval]) -> dict[str, float]:
    """A panel's maximum error bar: the largest absolute and the largest relative size
    (theory §6.4); each maximum is taken on its own."""
    if not intervals:
        return {"absolute": math.nan, "relative": math.nan}
    return {"absolute": max(i.bar for i in intervals),
            "relative": max(i.relative_bar for i in intervals)}
