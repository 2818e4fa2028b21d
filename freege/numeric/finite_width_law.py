"""The finite-width law (theory §2.3, issue 39): the §4 law at the mean row coefficient,
free-multiplied by the law of the normalised row load.

At a finite per-head key width ``dK`` row ``i`` of head ``r`` carries its own load
``l(v_ri) = theta(beta^2 v_ri)`` with ``dK v_ri`` chi-square with ``dK`` degrees of
freedom (``theta = expm1`` at infinite ``n``; a finite-``n`` row coefficient
``theta_n`` with ``row="finite-n"``). Theory §2.3 (*the finite-width law as a
free product*) models the Gram as ``D X D`` with ``X`` left-rotation invariant (the GE at
``(theta1_bar, theta2)``) and ``D^2 = (1/h) sum_r l(v_ri) / E l`` (the head-averaged row
load), so

    nu_fw = tau_h ⊠ nu(theta1_bar, theta2),   tau_h = law of (1/h) sum_r l(v_r) / E l,

with ``theta1_bar = E l`` and ``theta2 = beta^2``. Its ``m1, m2`` are those of
:func:`freege.symbolic.finite_width.moments` (finite ``n``: of
``freege.validation.finite_width.finite_n_moments``) by construction of ``tau_h``'s mean
and variance; higher moments are a mean-field approximation (theory §2.3 says which parts
are exact).

**The profile** ``tau_h`` is a density operand
(:func:`freege.numeric.density_operand.density`):

* ``h = 1`` and ``theta = expm1``: the transformed chi-square in closed form,
  ``y = (e^{beta^2 v} - 1)/E l``, ``p(y) = p_v(v(y)) E l / (beta^2 (1 + E l y))``,
  ``v(y) = log1p(E l y)/beta^2``, written in mpmath (float64 values correctly rounded from
  30 digits: a float64 log-density has relative rounding noise of ``dK`` ulps, above the
  operand's interpolation tolerance);
* otherwise (several heads, or a tabulated ``theta_n``): the bin masses of the
  single-head load on a lattice of :data:`LATTICE` bins (chi-square CDF differences at the
  inverse images of the bin edges), convolved ``h`` times by FFT, re-binned to steps of
  ``std(tau_h)/`` :data:`PER_STD`, and smoothed by a Gaussian kernel of one step; the
  lattice is then mapped affinely about its mean so that the mixture has *exactly* mean 1
  and the variance ``Var l / (h (E l)^2)`` (the discretisation's and the kernel's variance
  are removed). Its shape error, W1 against the closed form at ``h = 1``, is
  6.5e-3 std(tau) at dK = 32 (tests/numeric/test_finite_width_law.py).

Both are cut where the chi-square tails fall below :data:`TAIL` (1e-17) of mass, at each
end; the cut mass is renormalised away (the law is the truncated law).

**The limit factor** ``nu(theta1_bar, theta2)`` is the §4 case law
(:func:`limit_law`) at the ``beta'`` with ``c(beta') = beta'^2/(e^{beta'^2} - 1) =
theta2/theta1_bar``, dilated by ``theta1_bar/(e^{beta'^2} - 1)`` (every §4 law is
homogeneous of degree one in ``(theta1, theta2)``; the dilation goes into the profile's
scale), as a :class:`freege.numeric.operands.LawOperand`: one ⊠ of the engine, whose
inner ``G`` is the case law's own root of ``P(G, z)``. Cases: ``attention``, ``value``,
``mha`` (independent, GQA and MQA sharing: the heads' queries are independent in all
three) and, with tied sharing, ``value-tied``/``mha-tied``, whose load has the extra
``kappa v`` term, ``kappa = beta^2 h/gK`` (theory §2.3): the profile is then the lattice
route, with the tied load's exact mean and variance.

**The row coefficient** (``row``): ``finite-n`` (default), ``theta_n`` of a row of ``n``
keys (:mod:`freege.numeric.row_coefficient`, tabulated in float64, so the law is float64
only), or ``infinite-n``, ``e^x - 1`` (float64 or ``dps``).

The law pickles by its recipe (constructor ``finite-width``: case, the dimensions, row,
scale, dps). Its ``G`` off and on the axis is one vectorised ⊠ solve (about 2,000 real
points in 20 s on a loaded 2-core machine); its mass-checked support (``intervals``,
``ppf``) takes minutes: ``benchmarks/finite_width_law.py`` integrates the density on a grid
instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from freege.numeric import law_recipe
from freege.numeric.data_law import DataLaw
from freege.numeric.density_operand import DensityOperand, density
from freege.numeric.law_family import Law
from freege.numeric.operands import LawOperand, exact
from freege.numeric.subordination import FreeMultNode
from freege.params import Dims, Ratios

#: the chi-square tail mass cut at each end of the profile
TAIL = 1e-17
#: bins of the single-head load's lattice
LATTICE = 4096
#: lattice steps per standard deviation of ``tau_h`` after re-binning (kernel width: one)
PER_STD = 24
#: Gaussian kernel half-width, in kernel widths
KERNEL_REACH = 12
#: the cases built here
CASES: tuple[str, ...] = ("attention", "value", "mha", "value-tied", "mha-tied")

Coefficient = Callable[[np.ndarray], np.ndarray]


# ---------------------------------------------------------------------- the row load
def _gamma_ends(dk: int) -> tuple[float, float]:
    """``v`` where the lower and upper tails of ``chi2_dK/dK`` have mass :data:`TAIL`."""
    from scipy import special  # the gamma law's quantiles (scipy.stats: a 3 s import)

    k = dk / 2
    return float(special.gammaincinv(k, TAIL) / k), float(special.gammainccinv(k, TAIL) / k)


def _v_grid(dk: int, points: int = 20001) -> tuple[np.ndarray, np.ndarray]:
    """A fine ``v`` grid over the cut support and the chi-square density on it
    (normalised on the grid by the trapezoid rule)."""
    lo, hi = _gamma_ends(dk)
    v = np.linspace(lo, hi, points)
    k = dk / 2
    logp = k * math.log(k) + (k - 1) * np.log(v) - k * v - math.lgamma(k)
    p = np.exp(logp)
    return v, p / np.trapezoid(p, v)


def load_moments(beta: float, dk: int, coefficient: Coefficient | None = None,
                 kappa: float = 0.0) -> tuple[float, float]:
    """``(E l, Var l)`` of the single-head row load ``l(v) = theta(beta^2 v) + kappa v``
    (``kappa = beta^2 h/gK`` tied, else 0): closed form for ``theta = expm1`` (chi-square
    MGF, theory §2.3, :func:`freege.symbolic.finite_width.row_load`), else the trapezoid
    rule on 20001 points of the cut support."""
    b2 = float(beta) ** 2
    if coefficient is None:
        if not dk > 4 * b2:
            raise ValueError(f"dK must be > 4 beta^2 = {4 * b2:g} (got {dk})")
        with mpmath.workdps(30):
            m = lambda t, k=0: (1 - 2 * mpmath.mpf(t) / dk) ** (-mpmath.mpf(dk) / 2 - k)  # noqa: E731
            kap = mpmath.mpf(kappa)
            mean = m(b2) - 1 + kap
            var = (m(2 * b2) - m(b2) ** 2 + 2 * kap * (m(b2, 1) - m(b2))
                   + 2 * kap * kap / dk)
            return float(mean), float(var)
    v, p = _v_grid(dk)
    ell = np.asarray(coefficient(b2 * v), dtype=float) + kappa * v
    mean = float(np.trapezoid(p * ell, v))
    var = float(np.trapezoid(p * (ell - mean) ** 2, v))
    return mean, var


def theta1_bar(beta: float, dk: int, coefficient: Coefficient | None = None) -> float:
    """``E theta(beta^2 v)``: the mean row coefficient (theory §2.3)."""
    return load_moments(beta, dk, coefficient)[0]


# ---------------------------------------------------------------------- the profile
def _closed_form_profile(beta: float, dk: int, scale: float = 1.0) -> DensityOperand:
    """``scale * tau_1`` for ``theta = expm1``: the transformed chi-square (module
    docstring)."""
    b2 = mpmath.mpf(float(beta)) ** 2
    mean = load_moments(beta, dk)[0]
    k = mpmath.mpf(dk) / 2
    with mpmath.workdps(30):
        e_l = mpmath.mpf(mean)
        log_c = k * mpmath.log(k) - mpmath.loggamma(k)
        s_mp = mpmath.mpf(scale)

    def pdf_mp(y: Any) -> Any:
        y = y / s_mp
        if y <= 0:
            return mpmath.mpf(0)
        v = mpmath.log1p(e_l * y) / b2
        # (k - 1) log v - k v = (k - 1)(log v - v + 1) - v - (k - 1): small near the mode
        log_p = log_c + (k - 1) * (mpmath.log(v) - v + 1) - v - (k - 1)
        return mpmath.exp(log_p) * e_l / (b2 * (1 + e_l * y))

    def f(y: Any) -> Any:
        if isinstance(y, np.ndarray):
            with mpmath.workdps(30):
                return np.array([float(pdf_mp(mpmath.mpf(float(t)))) for t in y.ravel()]
                                ).reshape(y.shape)
        if isinstance(y, mpmath.mpf):
            with mpmath.workdps(mpmath.mp.dps + 10):
                return +pdf_mp(y)
        with mpmath.workdps(30):
            return float(pdf_mp(mpmath.mpf(float(y))))

    v_lo, v_hi = _gamma_ends(dk)
    y_lo, y_hi = (scale * math.expm1(float(b2) * v) / mean for v in (v_lo, v_hi))
    return density(f, y_lo, y_hi, name=f"tau(beta={float(beta):g}, dK={dk}, h=1)")


def _lattice(beta: float, dk: int, h: int, coefficient: Coefficient | None,
             kappa: float = 0.0) -> tuple[np.ndarray, np.ndarray, float]:
    """``(locations, masses, step)`` of ``tau_h`` on a uniform lattice (module docstring),
    before the moment correction."""
    from scipy import special

    b2 = float(beta) ** 2
    mean, _ = load_moments(beta, dk, coefficient, kappa)
    v_lo, v_hi = _gamma_ends(dk)
    theta = np.expm1 if coefficient is None else coefficient
    v = np.linspace(v_lo, v_hi, 200001)
    y_of_v = (np.asarray(theta(b2 * v), dtype=float) + kappa * v) / mean
    if np.any(np.diff(y_of_v) <= 0):
        raise ValueError("finite-width law: the row coefficient must increase with x")
    edges = np.linspace(y_of_v[0], y_of_v[-1], LATTICE + 1)
    v_edges = np.interp(edges, y_of_v, v) if coefficient is not None or kappa else \
        np.log1p(edges * mean) / b2
    k = dk / 2  # chi2_dK/dK is gamma(k, scale 1/k): its cdf and sf
    cdf = special.gammainc(k, k * v_edges)
    sf = special.gammaincc(k, k * v_edges)
    mass = np.where(v_edges[1:] < 1, np.diff(cdf), -np.diff(sf))
    mass = np.maximum(mass, 0.0)
    mass /= mass.sum()
    step = edges[1] - edges[0]
    loc0 = (edges[0] + edges[1]) / 2
    pmf = mass
    if h > 1:
        size = h * (LATTICE - 1) + 1
        nfft = 1 << (size - 1).bit_length()
        pmf = np.fft.irfft(np.fft.rfft(mass, nfft) ** h, nfft)[:size]
        pmf = np.maximum(pmf, 0.0)
        pmf /= pmf.sum()
        step = step / h  # the average: locations / h
    return _rebin(loc0 + step * np.arange(pmf.size), pmf, step)


def _rebin(locs: np.ndarray, pmf: np.ndarray, step: float
           ) -> tuple[np.ndarray, np.ndarray, float]:
    """Lattice masses re-binned to :data:`PER_STD` uniform steps per standard deviation
    (mass at the bin centre) when that is coarser, the ends below :data:`TAIL` trimmed."""
    mu = float(np.dot(pmf, locs))
    sd = math.sqrt(float(np.dot(pmf, (locs - mu) ** 2)))
    coarse = sd / PER_STD
    if coarse > step:
        idx = np.floor((locs - locs[0]) / coarse + 0.5).astype(np.int64)
        pmf = np.bincount(idx, weights=pmf)
        locs = locs[0] + coarse * np.arange(pmf.size)
        step = coarse
    # trim the ends below the tail mass
    c = np.cumsum(pmf)
    lo = int(np.searchsorted(c, TAIL))
    hi = int(np.searchsorted(c, 1 - TAIL)) + 1
    locs, pmf = locs[lo:hi], pmf[lo:hi]
    return locs, pmf / pmf.sum(), step


class _MixtureOperand(DensityOperand):
    """A density operand of a Gaussian mixture whose moments are known exactly
    (``sum_k w_k E (c_k + s Z)^q``): the engine's moments need no panels at 30 digits."""

    def __init__(self, f: Any, a: float, b: float, name: str, centres: np.ndarray,
                 weights: np.ndarray, s: float) -> None:
        super().__init__(f, f, a, b, {"law": name})
        self._mix = (centres, weights, s)

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        centres, weights, s = self._mix
        with mpmath.workdps(mpmath.mp.dps + 10):
            cs = [mpmath.mpf(float(c)) for c in centres]
            ws = [mpmath.mpf(float(w)) for w in weights]
            total = mpmath.fsum(ws)
            sm = mpmath.mpf(s)
            out = []
            for p in range(1, q + 1):
                coef = [mpmath.binomial(p, j) * mpmath.fac2(j - 1) * sm**j
                        for j in range(0, p + 1, 2)]
                out.append(mpmath.fsum(w * mpmath.fsum(cf * c ** (p - j) for cf, j in
                                                      zip(coef, range(0, p + 1, 2),
                                                          strict=True))
                                       for c, w in zip(cs, ws, strict=True)) / total)
        return [+m for m in out]


def _lattice_profile(beta: float, dk: int, h: int, coefficient: Coefficient | None,
                     name: str, scale: float = 1.0, kappa: float = 0.0) -> DensityOperand:
    """``scale * tau_h`` as a Gaussian-kernel mixture on the lattice, moment-corrected."""
    mean, var = load_moments(beta, dk, coefficient, kappa)
    locs, pmf, step = _lattice(beta, dk, h, coefficient, kappa)
    return _mixture(locs, pmf, step, var / (h * mean * mean), name, scale)


def _mixture(locs: np.ndarray, pmf: np.ndarray, step: float, target: float, name: str,
             scale: float = 1.0) -> DensityOperand:
    """``scale`` times the Gaussian-kernel mixture of the lattice masses ``pmf`` at
    ``locs`` (kernel width one step), mapped affinely about its mean so that it has mean
    exactly 1 and variance ``target``."""
    mu = float(np.dot(pmf, locs))
    var_w = float(np.dot(pmf, (locs - mu) ** 2))
    a = math.sqrt(target / (var_w + step * step))
    centres = scale * (1 + a * (locs - mu))
    s = scale * a * step  # the kernel width: one (mapped) lattice step
    lo, hi = centres[0] - KERNEL_REACH * s, centres[-1] + KERNEL_REACH * s
    if lo <= 0:  # the kernel's lower tail at 0 is cut (e^-72 of a centre's mass)
        lo = float(centres[0]) / 2 if centres[0] > 0 else 1e-12
    weights = pmf / (s * math.sqrt(2 * math.pi))
    n_c = centres.size
    reach = KERNEL_REACH + 2
    c0, dc = float(centres[0]), s

    def f64(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        flat = x.ravel()
        i0 = np.rint((flat - c0) / dc).astype(np.int64)
        out = np.zeros_like(flat)
        for off in range(-reach, reach + 1):
            j = i0 + off
            ok = (j >= 0) & (j < n_c)
            jj = np.clip(j, 0, n_c - 1)
            t = (flat - centres[jj]) / s
            out += np.where(ok, weights[jj] * np.exp(-0.5 * t * t), 0.0)
        return out.reshape(x.shape)

    def mp(x: Any) -> Any:
        i0 = int(round((float(x) - c0) / dc))
        total = mpmath.mpf(0)
        for j in range(max(0, i0 - reach), min(n_c, i0 + reach + 1)):
            t = (x - mpmath.mpf(float(centres[j]))) / mpmath.mpf(s)
            total += mpmath.mpf(float(weights[j])) * mpmath.exp(-t * t / 2)
        return total

    def f(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            return f64(x)
        if isinstance(x, mpmath.mpf):
            return mp(x)
        return float(f64(np.array([float(x)]))[0])

    return _MixtureOperand(f, float(lo), float(hi), name, centres, pmf, s)


def profile(beta: float, dk: int, h: int = 1, coefficient: Coefficient | None = None,
            scale: float = 1.0, kappa: float = 0.0) -> DensityOperand:
    """``scale * tau_h``: the law of the head-averaged normalised row load (module
    docstring), dilated by ``scale``; ``kappa`` the tied load's ``kappa v`` term."""
    if isinstance(h, bool) or not isinstance(h, int) or h < 1:
        raise ValueError(f"h must be an integer >= 1 (got {h!r})")
    if isinstance(dk, bool) or not isinstance(dk, int) or dk < 2:
        raise ValueError(f"dK must be an integer >= 2 (got {dk!r})")
    if h == 1 and coefficient is None and not kappa:
        return _closed_form_profile(beta, dk, scale)
    name = (f"tau(beta={float(beta):g}, dK={dk}, h={h}{', theta_n' if coefficient else ''}"
            f"{f', kappa={kappa:g}' if kappa else ''})")
    return _lattice_profile(beta, dk, h, coefficient, name, scale, kappa)


# ---------------------------------------------------------------------- the column profile
#: the profiles of :func:`finite_width_law`: the row profile alone, or rows and columns
PROFILES: tuple[str, ...] = ("row", "row+column")
#: points of the grids on which the column factor's and the joint profile's densities are
#: found (after a coarse grid of COARSE_POINTS has located their support)
DENSITY_POINTS, COARSE_POINTS = 1000, 200
#: the mass left out at each end of those grids (renormalised away)
SUPPORT_TAIL = 1e-10
#: kernels of the single-head column profile that the free average's solve sees, at most
FREE_CENTRES = 400


def _on_support(pdf: Callable[[np.ndarray], np.ndarray], lo: float, hi: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(x, pdf(x))`` on :data:`DENSITY_POINTS` uniform points of the part of ``[lo, hi]``
    that holds all but :data:`SUPPORT_TAIL` of the mass at each end, as a coarse grid of
    :data:`COARSE_POINTS` graded toward ``lo`` (``lo + (hi - lo) t^3``: the profiles are
    skewed to the right) finds it by the trapezoid rule (widened by one coarse step)."""
    xs = lo + (hi - lo) * np.linspace(0.0, 1.0, COARSE_POINTS) ** 3
    d = pdf(xs)
    cdf = np.concatenate([[0.0], np.cumsum((d[1:] + d[:-1]) / 2 * np.diff(xs))])
    cdf /= cdf[-1]
    i = max(int(np.searchsorted(cdf, SUPPORT_TAIL)) - 1, 0)
    j = min(int(np.searchsorted(cdf, 1 - SUPPORT_TAIL)) + 1, COARSE_POINTS - 1)
    x = np.linspace(xs[i], xs[j], DENSITY_POINTS)
    return x, pdf(x)


def column_factor(beta: float, dk: int, n: int | None, h: int) -> tuple[DensityOperand,
                                                                         float]:
    """``(hat tau, Var hat tau)``: the free average of ``h`` heads' column profiles
    (:mod:`freege.numeric.column_profile`, theory §2.3), a moment-corrected mixture
    operand of mean 1 and variance ``Var l_c / (h (E l_c)^2)``; ``n = None``: the
    infinite-``n`` entry moments."""
    from scipy import special

    from freege.numeric import column_profile

    u, load = column_profile.column_load(beta, dk, n)
    mean, var = column_profile.load_moments(u, load, dk)
    y = load / mean
    if np.any(np.diff(y) <= 0):
        raise ValueError("finite-width law: the column load must increase with the key norm")
    edges = np.linspace(y[0], y[-1], LATTICE + 1)
    k = dk / 2
    u_edges = k * np.interp(edges, y, u)
    mass = np.where(u_edges[1:] < k, np.diff(special.gammainc(k, u_edges)),
                    -np.diff(special.gammaincc(k, u_edges)))
    mass = np.maximum(mass, 0.0)
    step = edges[1] - edges[0]
    locs, pmf, step = _rebin(edges[:-1] + step / 2, mass / mass.sum(), step)
    target = var / (mean * mean)
    name = f"column profile (beta={float(beta):g}, dK={dk}, n={n})"
    tau = _mixture(locs, pmf, step, target, name)
    if h == 1:
        return tau, target
    from freege.numeric.column_profile import free_average_density

    # the subordination solve sees tau through its Cauchy transform off the axis: at most
    # FREE_CENTRES kernels (wider ones; the result's moments are corrected below)
    centres, weights, s = tau._mix
    if centres.size > FREE_CENTRES:
        wide = (centres[-1] - centres[0]) / (FREE_CENTRES - 1)
        idx = np.floor((centres - centres[0]) / wide + 0.5).astype(np.int64)
        weights = np.bincount(idx, weights=weights)
        centres = centres[0] + wide * np.arange(weights.size)
        s = math.hypot(s, wide)
    lo, hi = tau.hull()
    x, d = _on_support(lambda t: free_average_density(centres, weights, s, h, t), lo, hi)
    dx = x[1] - x[0]
    return (_mixture(x, d / d.sum(), dx, target / h, f"free average of {h} {name}"),
            target / h)


def joint_profile(row: DensityOperand, row_var: float, column: DensityOperand,
                  column_var: float, scale: float = 1.0) -> DensityOperand:
    """``scale (tau_row ⊠ hat tau)`` as a moment-corrected mixture operand: its density
    from the engine's ⊠ (:class:`freege.numeric.subordination.FreeMultNode`, float64,
    verified) on a grid of its support, mean 1 and variance ``Var tau_row + Var hat tau``
    (exact for free mean-one factors)."""
    node = FreeMultNode(row, column)
    (a, b), (c, d) = row.hull(), column.hull()

    def pdf(x: np.ndarray) -> np.ndarray:
        return np.maximum(-node.cauchy_f64(x + 0j)[0].imag / math.pi, 0.0)

    x, dens = _on_support(pdf, a * c, b * d)
    return _mixture(x, dens / dens.sum(), x[1] - x[0], row_var + column_var,
                    f"({row.describe['law']}) ⊠ ({column.describe['law']})", scale)


# ---------------------------------------------------------------------- the limit factor
def shifted_beta2(theta2: float, theta1: float) -> float:
    """``beta'^2`` with ``beta'^2/(e^{beta'^2} - 1) = theta2/theta1`` (bisection on the
    log of the ratio, decreasing in ``beta'^2``, to a relative step of 1e-15)."""
    target = math.log(theta2 / theta1)
    lo, hi = 0.0, max(theta2, 1e-3)
    while math.log(hi / math.expm1(hi)) > target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1e-15 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.log(mid / math.expm1(mid)) > target else (lo, mid)
    return (lo + hi) / 2


def limit_law(case: str, ratios: Ratios, theta1: float) -> tuple[float, Law]:
    """``(s, law)`` with ``nu(theta1, theta2 = beta^2) = s * law``: ``law`` the theory §4
    case law (:class:`freege.numeric.case_law.CaseLaw`, the tying rule applied) at the
    ``beta'`` with ``c(beta') = theta2/theta1`` (:func:`shifted_beta2`; ``beta'`` is the
    float's exact binary fraction) and ``s = theta1/(e^{beta'^2} - 1)``: every §4 law is
    homogeneous of degree one in ``(theta1, theta2)`` (theory §2.3). Its Cauchy transform
    is the case law's own (roots of ``P(G, z)``), one ⊠ factor of the engine: the nested
    expression spec (four ⊠ nodes for MHA) costs a path solve inside every Newton step of
    the next node and did not finish a point in 40 s (docs/findings-finite-width.md)."""
    b2 = Fraction(ratios.beta) ** 2
    bp = Fraction(math.sqrt(shifted_beta2(float(b2), theta1)))
    # through the recipe (case_law.law builds finite-width laws: no import circle)
    law = law_recipe.rebuild(("law", (case, (bp, ratios.h, ratios.gK, ratios.gV, ratios.gO,
                                             ratios.sharing), False, None)))
    with mpmath.workdps(30):
        s = mpmath.mpf(theta1) / mpmath.expm1(exact(bp) ** 2)
    return float(s), law


# ---------------------------------------------------------------------- the law
#: the row coefficients of :func:`finite_width_law`
ROWS: tuple[str, ...] = ("finite-n", "infinite-n")


def row_coefficient(row: str, dims: Dims) -> Coefficient | None:
    """``theta`` of ``row``: None (``e^x - 1``) for ``infinite-n``; for ``finite-n`` the
    row coefficient ``theta_n`` of a row of ``dims.n`` keys
    (:func:`freege.numeric.row_coefficient.theta_n`, tabulated up to
    ``max(x_bound(beta, dK), 6 beta^2)``, past the profile's cut support)."""
    if row not in ROWS:
        raise ValueError(f"row must be one of {', '.join(ROWS)} (got {row!r})")
    if row == "infinite-n":
        return None
    from freege.numeric.row_coefficient import theta_n, x_bound

    beta, n = float(dims.beta), dims.n
    x_max = max(x_bound(beta, dims.dK), 6 * beta * beta)
    return lambda x: theta_n(x, n, x_max)


class FiniteWidthLaw(DataLaw):
    """``tau_h ⊠ nu(theta1_bar, theta2)`` (module docstring), a :class:`DataLaw` whose
    root is built here; it pickles by its recipe (constructor ``finite-width``)."""

    def __init__(self, case: str, dims: Dims, dps: int | None = None,
                 row: str = "finite-n", scale: Fraction = Fraction(1),
                 profile: str = "row") -> None:
        if case not in CASES:
            raise ValueError(f"finite-width law: case must be one of {', '.join(CASES)} "
                             f"(got {case!r})")
        if not isinstance(dims, Dims):
            raise ValueError("finite-width law: dims must be freege.params.Dims (a finite "
                             "configuration: n, dK, h)")
        coefficient = row_coefficient(row, dims)
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)} (got {profile!r})")
        if profile != "row" and dps is not None:
            raise ValueError("finite-width law: dps needs profile='row' (the column profile "
                             "is tabulated in float64)")
        if dps is not None and coefficient is not None:
            raise ValueError("finite-width law: dps needs row='infinite-n' (the finite-n "
                             "row coefficient is tabulated in float64)")
        self.case, self.dims, self.row = case, dims, row
        self.coefficient, self.scale = coefficient, Fraction(scale)
        beta = float(dims.beta)
        if not dims.dK > 4 * beta * beta:
            raise ValueError(f"finite-width law: dK must be > 4 beta^2 = {4 * beta * beta:g} "
                             f"(got {dims.dK})")
        r = dims.ratios
        resolved = law_recipe.rebuild(("law", (case, (r.beta, r.h, r.gK, r.gV, r.gO,
                                                      r.sharing), False, None))).case
        self.resolved = resolved
        if profile != "row" and resolved.endswith("-tied"):
            raise ValueError("finite-width law: profile='row+column' is not derived for tied "
                             "sharing (the values are the keys; theory §2.3)")
        self.profile = profile
        self.kappa = float(Fraction(r.beta) ** 2 * r.h / r.gK) if resolved.endswith(
            "-tied") else 0.0
        self.theta1_bar = load_moments(beta, dims.dK, coefficient)[0]
        if not self.theta1_bar > beta * beta:  # c(beta') = theta2/theta1 < 1 has no root
            raise ValueError(
                f"finite-width law: the mean row coefficient theta1 = {self.theta1_bar:.6g} "
                f"at n = {dims.n}, dK = {dims.dK} must exceed theta2 = beta^2 = "
                f"{beta * beta:g} (no shifted temperature exists; larger n or dK, or "
                "row='infinite-n')")
        self.load_mean, self.load_var = load_moments(beta, dims.dK, coefficient, self.kappa)
        self.spec = ("finite-width", case, _dims_tuple(dims), row, self.scale, profile)
        self.text = (f"finite-width {resolved} (n={dims.n}, h={dims.h}, dK={dims.dK}, "
                     f"beta={beta:g}, row {row}"
                     + (", columns)" if profile != "row" else ")")
                     + (f" x {float(self.scale):.8g}" if self.scale != 1 else ""))
        self.root = self._build_root()
        Law.__init__(self, dps, {"law": self.text,
                                 "spec": f"finite-width {case} {dims.n} {dims.dK} {row}"
                                         + (f" {profile}" if profile != "row" else "")})

    def _build_root(self) -> Any:
        s, limit = limit_law(self.case, self.dims.ratios, self.theta1_bar)
        beta, dk, h = float(self.dims.beta), self.dims.dK, self.dims.h
        if self.profile == "row":
            tau = profile(beta, dk, h, self.coefficient, s * float(self.scale), self.kappa)
            return FreeMultNode(tau, LawOperand(limit))
        rows = profile(beta, dk, h, self.coefficient)
        column, column_var = column_factor(
            beta, dk, None if self.coefficient is None else self.dims.n, h)
        self.column_var = column_var
        tau = joint_profile(rows, self.load_var / (h * self.load_mean ** 2), column,
                            column_var, s * float(self.scale))
        return FreeMultNode(tau, LawOperand(limit))

    def recipe(self) -> law_recipe.Recipe:
        return law_recipe.recipe("finite-width", self.case, _dims_tuple(self.dims), self.row,
                                 self.scale, self.dps, self.profile)

    def _identity(self) -> tuple[Any, ...]:
        return ("finite-width", self.spec, self.dps)

    def with_dps(self, dps: int | None) -> FiniteWidthLaw:
        return FiniteWidthLaw(self.case, self.dims, dps, self.row, self.scale, self.profile)

    def as_normalized(self) -> FiniteWidthLaw:
        with mpmath.workdps(40):
            m1 = self.root.moments_mp(1)[0]
            man, exp = (1 / m1).man_exp
            scale = Fraction(int(man)) * Fraction(2) ** int(exp)
        return FiniteWidthLaw(self.case, self.dims, self.dps, self.row, self.scale * scale,
                              self.profile)

    def output_ratio(self, g_o: Any) -> Any:
        """The MHA law's own ``gO`` (theory §5), as the case law's."""
        if g_o is not None:
            raise ValueError("gO: given only with an expression law (the finite-width law "
                             "has its own)")
        if self.resolved not in ("mha", "mha-tied"):
            raise ValueError(f"ridge_error needs an MHA law (case mha), got {self.case}")
        return self.dims.ratios.gO

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support from the real subordination functions
        (:func:`freege.numeric.mult_support.intervals`: the profile's cut tails are below
        any scan's reach), each piece of its complement checked against the engine's own
        solve there; kept per precision (a pure function of the law). No mass check: near
        0 an MHA law at ratio 1 has a density like ``x^(-3/4)``, whose mass down to
        ``1e-12`` the float64 limit factor cannot reach (theory §2.3, "Where the
        finite-width law lives")."""
        from freege.numeric import mult_support
        from freege.numeric.law_family import REFERENCE_DPS

        key = ("intervals", mpmath.mp.prec)
        if key not in self._cache:
            with mpmath.workdps(max(mpmath.mp.dps, REFERENCE_DPS)):
                self._cache[key] = mult_support.intervals(self.root, self.dps is None)
        return [(+a, +b) for a, b in self._cache[key]]

    def _independent_one(self, method: str, zv: Any) -> Any:
        """The estimate's independent route: a fresh root (a fresh profile operand and
        limit), solved in mpmath from far above (as :class:`DataLaw`)."""
        original = self.root
        try:
            self.root = self._build_root()
            return _data_independent(self, method, zv)
        finally:
            self.root = original


def _dims_tuple(dims: Dims) -> tuple[Any, ...]:
    """``(n, h, dK, dV, dO, beta, sharing, h_kv, d)``, plain (a recipe's)."""
    beta = dims.beta if isinstance(dims.beta, int) else Fraction(dims.beta)
    return (dims.n, dims.h, dims.dK, dims.dV, dims.dO, beta, dims.sharing, dims.h_kv, dims.d)


def from_recipe(case: str, dims: tuple[Any, ...], row: str, scale: Fraction,
                dps: int | None, profile: str = "row") -> FiniteWidthLaw:
    """The recipe constructor ``finite-width``: every argument range-checked (``Dims``,
    ``dps`` by :func:`freege.numeric.law_recipe.check_dps`) before building."""
    if not (isinstance(dims, tuple) and len(dims) == 9):
        raise ValueError("recipe dims must be (n, h, dK, dV, dO, beta, sharing, h_kv, d)")
    if not isinstance(scale, Fraction | int) or isinstance(scale, bool) or not scale > 0:
        raise ValueError(f"recipe scale must be a positive fraction (got {scale!r})")
    if not isinstance(case, str) or not isinstance(row, str) or not isinstance(profile, str):
        raise ValueError("recipe case, row and profile must be strings")
    return FiniteWidthLaw(case, Dims(*dims), law_recipe.check_dps(dps), row, Fraction(scale),
                          profile)


def _data_independent(law: FiniteWidthLaw, method: str, zv: Any) -> Any:
    from freege.numeric.law_family import REFERENCE_DPS
    from freege.numeric.subordination import Node

    dps = (law.dps or REFERENCE_DPS) + 20
    root = law.root
    with mpmath.workdps(dps):
        zv = mpmath.mpmathify(zv)
        if isinstance(root, Node):
            upper = mpmath.im(zv) >= 0
            w = zv if upper else mpmath.conj(zv)
            u = root.solve_mp(w, seed=None, fresh=True)
            _, jac, _, parts = root._system(u, w, False)
            g = root._value(u, w, jac, parts, False)[0]
            g = g if upper else mpmath.conj(g)
        else:
            g = root.cauchy_mp(zv)[0]
        if method == "pdf":
            inside = mpmath.im(zv) == 0 and any(a < zv < b for a, b in law._intervals_mp())
            return max(-mpmath.im(g) / mpmath.pi, mpmath.mpf(0)) if inside else mpmath.mpf(0)
        return +g


#: the largest gap between 1 and the mass :func:`grid_quantiles` finds on its grid
GRID_MASS_TOL = 1e-3
#: :func:`grid_quantiles`' points are ``lo + (top - lo) u^g`` for equispaced ``u``, ``g`` in
#: turn from GRADINGS until the mass is found: ``g = 3`` keeps the density in ``u`` bounded
#: at ``lo`` for a singularity up to ``x^(-2/3)``; ``g = 4`` reaches ``x^(-3/4)`` (MHA laws
#: at ratio 1), at about 5 times the cost
GRADINGS = (3, 4)


def support_bounds(law: FiniteWidthLaw) -> tuple[float, float]:
    """``(lo, hi)`` with the law's mass off its atom at 0 inside ``[lo, hi]``: for free
    positive ``X`` (the profile, on ``[a, A]``, ``a > 0``) and ``Y`` (the limit factor, on
    ``{0}`` and ``[b, B]``), ``Y^(1/2) X Y^(1/2) >= a Y >= a b P`` on the range ``P`` of
    ``Y`` and ``<= A B``, and ``X^(1/2) Y X^(1/2)`` has the same law off 0: so
    ``[lo, hi] = [a b, A B]`` (``b`` the lowest point of the limit factor's support or
    positive atoms, from its mass-checked support; ``lo = 0`` where that support reaches
    0), widened by ``1e-12`` relative."""
    tau, limit = law.root.children
    a, big_a = tau.hull()
    points = [(float(x), float(y)) for x, y in limit.intervals_mp()]
    points += [(float(x), float(x)) for x, _ in limit.atoms_mp() if x > 0]
    b = min(x for x, _ in points)
    big_b = max(y for _, y in points)
    return max(a * b * (1 - 1e-12), 0.0), big_a * big_b * (1 + 1e-12)


def grid_quantiles(law: FiniteWidthLaw, qs: Any, top: float, points: int = 2000
                   ) -> tuple[np.ndarray, float]:
    """Quantiles of ``law`` at the probabilities ``qs`` from its density
    ``-Im G(x + i0)/pi`` on ``points`` points of ``[lo, min(top, hi)]``
    (:func:`support_bounds`: the density is 0 off it, so no point is spent there, nor on
    the costly mpmath solves of the limit factor near 0 below a gap) graded toward ``lo``
    (one vectorised ⊠ solve per grading of :data:`GRADINGS`, the first that finds the
    mass) plus its atoms, integrated by the trapezoid rule in the grading variable and
    inverted by linear interpolation, and the mass found.
    Not the verified ``ppf`` (which needs the mass-checked support: minutes per law): good
    to the grid's spacing, for distances of sampled spectra to the law.
    :class:`freege.errors.ConvergenceError` when the mass found is not 1 within
    :data:`GRID_MASS_TOL` (``top`` too low, or a solve that failed)."""
    from freege.errors import ConvergenceError

    if not (top > 0 and math.isfinite(top)) or points < 16:
        raise ValueError(f"top must be > 0 and points >= 16 (got {top!r}, {points!r})")
    u = np.linspace(0.0, 1.0, points)
    atom = float(sum(law.atoms().values()))
    lo, hi = support_bounds(law)
    end = min(float(top), hi)
    if not end > lo:  # no point of the support below top: the atoms' mass only
        raise ConvergenceError("grid quantiles", f"[0, {top:.6g}] holds the atoms only "
                               f"(mass {atom:.6g}, not 1)", law.describe)
    for grading in GRADINGS:
        xs = lo + (end - lo) * u**grading
        p = np.maximum(-law.root.cauchy_f64(xs[1:] + 0j)[0].imag / np.pi, 0.0)
        # the density in u: p(x) dx/du, 0 at u = 0 (dx/du = 0 there)
        dens = np.concatenate([[0.0], p * grading * (end - lo) * u[1:] ** (grading - 1)])
        cdf = atom + np.concatenate([[0.0],
                                     np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(u))])
        mass = float(cdf[-1])
        if abs(mass - 1) <= GRID_MASS_TOL:
            xs = np.concatenate([[0.0], xs]) if lo > 0 else xs
            cdf = np.concatenate([[atom], cdf]) if lo > 0 else cdf
            return np.interp(np.asarray(qs, dtype=float) * mass, cdf, xs), mass
    raise ConvergenceError("grid quantiles", f"the density on [0, {top:.6g}] has mass "
                           f"{mass:.6g}, not 1", law.describe)


def finite_width_law(case: str, dims: Dims, dps: int | None = None, *,
                     row: str = "finite-n", profile: str = "row") -> FiniteWidthLaw:
    """The finite-width law of ``case`` at the finite configuration ``dims`` (module
    docstring); ``row``: ``finite-n`` (the row coefficient ``theta_n`` of ``dims.n`` keys,
    float64 only) or ``infinite-n`` (``e^x - 1``; float64 or ``dps`` digits);
    ``profile``: ``row`` (``tau_h``) or ``row+column`` (``tau_h ⊠ hat tau``, the column
    profile's free average too; float64, untied only; theory §2.3)."""
    return FiniteWidthLaw(case, dims, dps, row, profile=profile)


__all__ = ["CASES", "PROFILES", "ROWS", "FiniteWidthLaw", "column_factor", "finite_width_law",
           "from_recipe", "joint_profile", "grid_quantiles", "limit_law", "load_moments",
           "row_coefficient", "profile", "shifted_beta2", "support_bounds", "theta1_bar"]
