"""Distances between spectra, confidence intervals and Welch's two-sample test
(theory §6.1, §6.2).

All inputs are 1-D float64 NumPy arrays of eigenvalues. Two spectra of equal size are
compared exactly (no binning) where the metric allows it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np


def _spectrum(name: str, a: Sequence[float] | np.ndarray) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64).ravel()
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be a non-empty array of finite numbers")
    return x


def w1(a: np.ndarray, b: np.ndarray) -> float:
    """Wasserstein-1 distance between the empirical laws of two equal-size samples:
    the mean absolute difference of the sorted values (exact)."""
    x, y = np.sort(_spectrum("a", a)), np.sort(_spectrum("b", b))
    if x.size != y.size:
        raise ValueError(f"w1 needs equal sample sizes (got {x.size} and {y.size})")
    return float(np.mean(np.abs(x - y)))


def rel_w1(a: np.ndarray, b: np.ndarray, mean: float) -> float:
    """Relative W1 of theory §6.1: :func:`w1` divided by the limiting mean ``mean`` (§4)."""
    if not (math.isfinite(mean) and mean > 0):
        raise ValueError(f"mean must be a finite number > 0 (got {mean!r})")
    return w1(a, b) / mean


def ks(a: np.ndarray, b: np.ndarray, tolerance: float | None = None) -> float:
    """Kolmogorov-Smirnov distance of theory §6.1: the largest gap between the two
    empirical CDFs, evaluated exactly at every sample point. With ``tolerance``, each
    sample's numerical zeros (:func:`split_zero_atom`'s rule) count as exact zeros: the
    atom at 0 of a rank-deficient Gram is then compared as an atom, not by the order of
    rounding errors (which moved KS by up to 3/n between float32 and float64 runs of the
    same weights, and by 1/n within float64)."""
    a, b = _spectrum("a", a), _spectrum("b", b)
    if tolerance is not None:
        a = np.where(np.abs(a) <= tolerance * np.max(np.abs(a)), 0.0, a)
        b = np.where(np.abs(b) <= tolerance * np.max(np.abs(b)), 0.0, b)
    x, y = np.sort(a), np.sort(b)
    grid = np.concatenate([x, y])
    fx = np.searchsorted(x, grid, side="right") / x.size
    fy = np.searchsorted(y, grid, side="right") / y.size
    return float(np.max(np.abs(fx - fy)))


def hist_l1(a: np.ndarray, b: np.ndarray, bins: int = 100) -> float:
    """L1 distance between density histograms of ``a`` and ``b`` on common equal-width
    bins spanning both samples (theory §6.2); in [0, 2]."""
    x, y = _spectrum("a", a), _spectrum("b", b)
    if bins < 1:
        raise ValueError(f"bins must be an integer >= 1 (got {bins})")
    lo, hi = min(x.min(), y.min()), max(x.max(), y.max())
    if hi == lo:
        return 0.0
    edges = np.linspace(lo, hi, bins + 1)
    px, _ = np.histogram(x, edges, density=True)
    py, _ = np.histogram(y, edges, density=True)
    return float(np.sum(np.abs(px - py)) * (edges[1] - edges[0]))


def t_critical(dof: float, level: float = 0.95) -> float:
    """The two-sided Student-t critical value ``t_{dof, (1+level)/2}`` (theory §6.1, §6.4):
    the one quantile route of every Student-t interval and test (:func:`mean_ci`,
    :func:`welch`, the sweep report's log-log fits, the paper's Fieller ratios). ``dof``
    may be fractional (Welch-Satterthwaite)."""
    if not dof > 0:
        raise ValueError(f"dof must be a number > 0 (got {dof})")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1) (got {level})")
    # scipy.special's Student-t quantile (the one scipy.stats.t.ppf calls): 0.4-0.6 s to
    # import against 0.9-1.1 s for scipy.stats (fresh interpreters, interleaved, shared
    # 2-core machine)
    from scipy.special import stdtrit

    return float(stdtrit(dof, 0.5 + level / 2))


def mean_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Mean and Student-t half-width ``t_{(1+level)/2, k-1} s / sqrt(k)`` over ``k >= 2``
    finite values (theory §6.1): the one Student-t interval of the validation, the sweep
    report and the paper statistics."""
    v = _spectrum("values", values)
    if v.size < 2:
        raise ValueError(f"a confidence interval needs at least 2 draws (got {v.size})")
    half = t_critical(v.size - 1, level) * v.std(ddof=1) / math.sqrt(v.size)
    return float(v.mean()), float(half)


class Welch(NamedTuple):
    """Welch's two-sample t test of equal means (unequal variances): the statistic, its
    Welch-Satterthwaite degrees of freedom, the two-sided p-value and the two-sided
    Student-t critical value at the requested level."""

    statistic: float
    dof: float
    pvalue: float
    critical: float

    @property
    def agree(self) -> bool:
        """True when the means are compatible at the level: ``|statistic| <= critical``."""
        return abs(self.statistic) <= self.critical


def welch(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
          level: float = 0.999) -> Welch:
    """Compare the means of two small samples (e.g. a metric over 2-10 draws on two
    backends, theory §6.1, §7) with Welch's t test (``scipy.stats.ttest_ind``,
    ``equal_var=False``): ``t = (mean a - mean b) / sqrt(s_a^2/k_a + s_b^2/k_b)`` against the
    Student-t quantile with Welch-Satterthwaite degrees of freedom. With a handful of
    draws the normal cutoff (e.g. 3.29 at 99.9%) is far too tight; the t quantile at
    1-2 degrees of freedom is tens to hundreds.

    Each sample needs at least 2 values. A sample whose spread is at rounding level
    (:func:`constant`) has variance 0: when one sample is, the test is the one-sample t
    test of the other against its mean (``scipy.stats.ttest_1samp``, the Welch formulas
    with that variance 0); when both are the test degenerates: equal means agree
    (statistic 0), different means disagree (infinite statistic).
    """
    from scipy import stats  # 1 s to import: loaded only when a comparison is asked for

    x, y = _spectrum("a", a), _spectrum("b", b)
    if x.size < 2 or y.size < 2:
        raise ValueError(f"a Welch test needs at least 2 values per sample "
                         f"(got {x.size} and {y.size})")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1) (got {level})")
    if constant(x) and constant(y):
        diff = float(x.mean() - y.mean())
        stat = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        dof = float(x.size + y.size - 2)
        return Welch(stat, dof, 1.0 if diff == 0 else 0.0, t_critical(dof, level))
    if constant(x) or constant(y):  # ttest_ind would lose its precision (and warn)
        varying, fixed, sign = (y, x, -1.0) if constant(x) else (x, y, 1.0)
        res = stats.ttest_1samp(varying, float(fixed.mean()))
        statistic = sign * float(res.statistic)
    else:
        res = stats.ttest_ind(x, y, equal_var=False)
        statistic = float(res.statistic)
    dof = float(res.df)
    return Welch(statistic, dof, float(res.pvalue), t_critical(dof, level))


def constant(x: np.ndarray) -> bool:
    """True when ``x`` varies by at most rounding (10 ulps of its mean, scipy's
    catastrophic-cancellation threshold): its sample variance is then noise, taken as 0."""
    mean = float(x.mean())
    return float(np.max(np.abs(x - mean))) <= 10 * np.finfo(np.float64).eps * abs(mean)


def empirical_moments(eigs: np.ndarray, order: int) -> list[float]:
    """``[m_1, ..., m_order]`` of the empirical law of ``eigs`` (theory §3)."""
    x = _spectrum("eigs", eigs)
    return [float(np.mean(x**q)) for q in range(1, order + 1)]


def moment_errors(eigs: np.ndarray, limits: Sequence[float]) -> list[float]:
    """Relative errors ``m_q(empirical) / m_q(limit) - 1`` for q = 1..len(limits)
    (theory §4 moments)."""
    emp = empirical_moments(eigs, len(limits))
    return [e / float(m) - 1.0 for e, m in zip(emp, limits, strict=True)]


#: per working precision, eigenvalues at most this fraction of the largest (in size) are
#: numerical zeros. A Gram matrix of rank r < n has n - r eigenvalues at rounding level:
#: measured at most 3e-16 (float64) and 5e-8 (float32) of the largest for n = 256-1024,
#: while genuine eigenvalues went down to 2e-6 of it (n = 512, dO = 128), so 1e-6 leaves
#: a factor 20 above the float32 zeros (tests/validation/test_draws_dtype.py)
ZERO_TOLERANCES: dict[str, float] = {"float64": 1e-9, "float32": 1e-6}
ZERO_TOLERANCE = ZERO_TOLERANCES["float64"]


def zero_tolerance(dtype: str) -> float:
    """:data:`ZERO_TOLERANCES` of the working precision ``dtype`` the eigenvalues were
    computed in (``float64`` or ``float32``)."""
    if dtype not in ZERO_TOLERANCES:
        raise ValueError(f"dtype must be one of {', '.join(ZERO_TOLERANCES)} (got {dtype!r})")
    return ZERO_TOLERANCES[dtype]


def split_zero_atom(eigs: np.ndarray, tolerance: float = ZERO_TOLERANCE
                    ) -> tuple[np.ndarray, float]:
    """``(the eigenvalues that are not numerical zeros, fraction that are)``: the sample
    side of the atom at 0 of a rank-deficient law (theory §7). A value is a numerical zero
    when its size is at most ``tolerance`` (:func:`zero_tolerance` of the dtype the
    eigenvalues were computed in; default float64's) times the largest."""
    x = _spectrum("eigs", eigs)
    zero = np.abs(x) <= tolerance * np.max(np.abs(x))
    return x[~zero], float(np.mean(zero))


def density_l1(eigs: np.ndarray, pdf: Callable[[np.ndarray], np.ndarray],
               bins: int = 60, tolerance: float = ZERO_TOLERANCE) -> float:
    """L1 distance between the histogram of ``eigs`` and the absolutely continuous part
    ``pdf`` (vectorised) of a limiting law, on the sample range:
    ``sum_k |hist_k - mean_k(pdf)| width``, the bin mean of ``pdf`` by 3-point
    Gauss-Legendre quadrature. Values at numerical zero (:func:`split_zero_atom` with
    ``tolerance``; the atom
    at 0 of rank-deficient cases, theory §7) are left out; the rest
    is a sub-probability histogram (count / total), so atoms do not count as error."""
    x = _spectrum("eigs", eigs)
    keep, _ = split_zero_atom(x, tolerance)
    if keep.size < 2 or keep.max() == keep.min():
        raise ValueError("eigs must have at least two distinct non-zero values")
    edges = np.linspace(float(keep.min()), float(keep.max()), bins + 1)
    counts, _ = np.histogram(keep, edges)
    width = edges[1] - edges[0]
    hist = counts / (x.size * width)
    nodes, weights = np.polynomial.legendre.leggauss(3)
    mid = (edges[1:] + edges[:-1]) / 2
    points = mid[:, None] + (width / 2) * nodes[None, :]
    means = np.asarray(pdf(points.ravel()), dtype=np.float64).reshape(points.shape) @ weights / 2
    return float(np.sum(np.abs(hist - means)) * width)
