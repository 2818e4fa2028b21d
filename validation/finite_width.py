"""The finite-width study (theory §2.3): softmax MHA against the plain and the
finite-width Gaussian equivalents and limits, on the same draws.

Per draw (the theory §6.1 draw, :func:`freege.validation.sampling.sample.draw` with
``finite_width=True``) three spectra share the weights: the centred softmax, the GE of
theory §2 (``ge``) and the conditional GE of theory §2.3 (``ge_row``, the same noise with
per-row coefficients). Reported, each as mean ± Student-t 95% half-width over draws:

* relative W1 (over the plain limiting mean) and KS of the softmax against each GE
  (``ge``, ``ge_row``, ``ge_row_n`` with the finite-n row coefficient), and their paired
  differences; the diagnostic twin ``ge_realised`` (each row's theta1 read off the
  softmax row itself, theory §2.3) beside them;
* the same moments with the finite-n row coefficient (:func:`finite_n_moments`);
* the relative errors of the softmax's first two moments against the theory §4 limit and
  against the finite-width moments of theory §2.3 (:func:`moments`), and each GE's against
  the moments it should match;
* the exact conditional ridge error (theory §5) of each spectrum with the features
  normalised by the plain limiting mean, beside the plain limit and the limit with
  ``theta1`` replaced by its row mean (:func:`shifted_ridge_error`);
* the noise floor: the same distances between the GE (and the conditional GE) spectra of
  independent draws.

``benchmarks/finite_width.py`` runs it on the theory §6.1 presets and panel 2(c) of the
paper; docs/findings-finite-width.md reports what it found.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from freege.params import Dims, Ratios
from freege.validation.sampling import metrics
from freege.validation.sampling.sample import case_for, draw


@functools.lru_cache(maxsize=16)
def _moment_function(case: str) -> Any:
    """The sympy expressions of :func:`freege.symbolic.finite_width.moments` as one mpmath
    function of ``(beta, h, gK, gV, gO, dK)`` (no exact powers of large rationals)."""
    import sympy as sp

    from freege.symbolic import finite_width
    from freege.symbolic.symbols import beta, gK, gO, gV, h

    return sp.lambdify((beta, h, gK, gV, gO, finite_width.dK),
                       finite_width.moments(case), "mpmath")


def check_width(dims: Dims) -> None:
    """ValueError unless ``dK > 4 beta^2``: below it the variance of the row coefficient
    (a chi-square moment generating function at ``2 beta^2``) is infinite."""
    beta2 = float(dims.beta) ** 2
    if not dims.dK > 4 * beta2:
        raise ValueError(f"dK must be > 4 beta^2 = {4 * beta2:g} for the finite-width "
                         f"moments (got dK = {dims.dK})")


def theta1_mean(dims: Dims) -> float:
    """``theta1_bar = (1 - 2 beta^2/dK)^{-dK/2} - 1`` (theory §2.3), in float64."""
    beta2 = float(dims.beta) ** 2
    if not dims.dK > 2 * beta2:
        raise ValueError(f"dK must be > 2 beta^2 = {2 * beta2:g} (got dK = {dims.dK})")
    return math.expm1(-dims.dK / 2 * math.log1p(-2 * beta2 / dims.dK))


def moments(dims: Dims) -> list[float]:
    """``[m1, m2]`` of the finite-width law of ``dims``' MHA case (theory §2.3): the
    sympy expressions of :func:`freege.symbolic.finite_width.moments` at the exact ratios
    and ``dK``, evaluated at 30 digits."""
    import mpmath

    check_width(dims)
    r = dims.ratios
    with mpmath.workdps(30):
        args = [mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction)
                else mpmath.mpf(x) for x in (r.beta, r.h, r.gK, r.gV, r.gO, dims.dK)]
        return [float(m) for m in _moment_function(case_for(dims))(*args)]


@functools.lru_cache(maxsize=16)
def _limit_moment_function(case: str) -> Any:
    """The theory §4 ``[m1, m2]`` of ``case`` as an mpmath function of ``(theta1,
    theta2, h, gK, gV, gO)``."""
    import sympy as sp

    from freege.symbolic import moments as limit_moments
    from freege.symbolic.symbols import gK, gO, gV, h, theta1, theta2

    return sp.lambdify((theta1, theta2, h, gK, gV, gO), limit_moments(case, 2), "mpmath")


def finite_n_load(dims: Dims) -> tuple[float, float, float]:
    """``(theta1_bar_n, E l_n, Var l_n)``: the chi-square averages (theory §2.3) of the
    finite-n row coefficient ``theta_n(beta^2 v)`` of
    :mod:`freege.numeric.row_coefficient` and of the row load ``l_n(v) =
    theta_n(beta^2 v) (+ beta^2 h v / gK tied)``, by the trapezoid rule on 8001 points of
    ``v`` up to the table's bound (the density's integral there divides out)."""
    from freege.numeric.row_coefficient import theta_n, x_bound

    beta2, dk = float(dims.beta) ** 2, dims.dK
    if dk < 2:  # the chi-square density is unbounded at 0 for dK = 1
        raise ValueError(f"dK must be >= 2 for the finite-width moments (got dK = {dk})")
    x_max = x_bound(float(dims.beta), dk)
    v = np.linspace(0.0, x_max / beta2, 8001)[1:]
    half = dk / 2
    density = np.exp(half * math.log(half) + (half - 1) * np.log(v) - half * v
                     - math.lgamma(half))
    theta = theta_n(beta2 * v, dims.n, x_max)
    r = dims.ratios
    load = theta + (beta2 * float(r.h) / float(r.gK) * v if r.tied else 0.0)
    total = np.trapezoid(density, v)
    mean_theta = float(np.trapezoid(density * theta, v) / total)
    mean = float(np.trapezoid(density * load, v) / total)
    var = float(np.trapezoid(density * (load - mean) ** 2, v) / total)
    return mean_theta, mean, var


def finite_n_moments(dims: Dims) -> list[float]:
    """``[m1, m2]`` of the finite-width law of theory §2.3 with the finite-n row
    coefficient in place of ``e^{beta^2 v} - 1``: the theory §4 moments at
    ``(theta1_bar_n, theta2)``, ``m2`` plus ``m1^2 Var(l_n) / (h E[l_n]^2)``
    (:func:`finite_n_load`)."""
    import mpmath

    theta_bar, mean, var = finite_n_load(dims)
    r = dims.ratios
    with mpmath.workdps(30):
        args = [mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction)
                else mpmath.mpf(x) for x in (r.h, r.gK, r.gV, r.gO)]
        m1, m2 = (float(m) for m in _limit_moment_function(case_for(dims))(
            theta_bar, float(r.beta) ** 2, *args))
    return [m1, m2 + m1 * m1 * var / (float(r.h) * mean * mean)]


def shifted_beta(dims: Dims, theta1_bar: float | None = None) -> float:
    """The inverse temperature ``beta'`` whose ratio ``c = beta'^2/(e^{beta'^2} - 1)``
    equals ``theta2/theta1_bar`` (theory §2.3): every theory §4 law is homogeneous of
    degree one in ``(theta1, theta2)``, so the law at ``(theta1_bar, theta2)`` is the law
    at ``beta'`` dilated to its mean. Bisection on ``log c``, decreasing in ``beta'^2``,
    to a relative step of 1e-15. ``theta1_bar``: another mean coefficient (default
    :func:`theta1_mean`)."""
    beta2 = float(dims.beta) ** 2
    target = math.log(beta2 / (theta1_mean(dims) if theta1_bar is None else theta1_bar))
    lo, hi = beta2, 2 * beta2
    while math.log(hi / math.expm1(hi)) > target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1e-15 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.log(mid / math.expm1(mid)) > target else (lo, mid)
    mid = (lo + hi) / 2
    if abs(math.log(mid / math.expm1(mid)) - target) > 1e-12 * max(1.0, abs(target)):
        raise ArithmeticError(f"shifted beta: bisection residual too large at beta'^2 = "
                              f"{mid!r}")
    return math.sqrt(mid)


def shifted_ridge_error(dims: Dims, lam: float, sigma2: float, finite_n: bool = False
                        ) -> float:
    """Limiting ridge coefficient error (theory §5) of the features ``MHA / sqrt(m1)``
    (``m1`` the plain limiting mean) when ``theta1`` is replaced by ``theta1_bar``: the
    normalised law at :func:`shifted_beta` dilated by ``s = m1_bar / m1``; the error of a
    law dilated by ``s`` at ``(lam, sigma2)`` is the undilated one at
    ``(lam/s, sigma2/s)``. ``finite_n``: with ``theta1_bar_n`` of :func:`finite_n_load`
    instead."""
    from freege.numeric import readout
    from freege.numeric.case_law import mha_law

    if finite_n:
        s = finite_n_moments(dims)[0] / _plain_mean(dims)
        beta = shifted_beta(dims, finite_n_load(dims)[0])
    else:
        s, beta = moments(dims)[0] / _plain_mean(dims), shifted_beta(dims)
    r = dims.ratios
    shifted = Ratios(beta=repr(beta), h=r.h, gK=r.gK, gV=r.gV, gO=r.gO,
                     sharing="tied" if r.tied else "none")
    return float(readout.ridge_error(mha_law(shifted, normalized=True), lam / s, sigma2 / s))


def plain_ridge_error(dims: Dims, lam: float, sigma2: float) -> float:
    """Limiting ridge coefficient error of the normalised MHA law (theory §5)."""
    from freege.numeric import readout
    from freege.numeric.case_law import mha_law

    return float(readout.ridge_error(mha_law(dims, normalized=True), lam, sigma2))


def _plain_mean(dims: Dims) -> float:
    from freege.validation.sampling.limits import limiting_moments

    return limiting_moments(case_for(dims), dims, 1)[0]


def _pairs(spectra: list[np.ndarray], m1: float, tol: float) -> dict[str, list[float]]:
    pairs = [(spectra[i], spectra[i + 1]) for i in range(0, len(spectra) - 1, 2)]
    return {"rel_w1": [metrics.rel_w1(a, b, m1) for a, b in pairs],
            "ks": [metrics.ks(a, b, tol) for a, b in pairs]}


def _ci(values: list[float]) -> dict[str, float | None]:
    if len(values) < 2:
        return {"mean": float(values[0]), "ci95": None}
    mean, ci = metrics.mean_ci(values)
    return {"mean": mean, "ci95": ci}


def measure(dims: Dims, *, draws: int, seed: int = 0, lam: float = 1e-4,
            sigma2: float = 0.1, backend: str = "numpy") -> dict[str, Any]:
    """The study's statistics for ``dims`` over ``draws >= 2`` draws (seeds ``(seed, i)``,
    module docstring), as a JSON-able dict."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 2:
        raise ValueError(f"draws must be an integer >= 2 for a 95% CI (got {draws!r})")
    check_width(dims)
    from freege.validation.finite_readout import ridge_error
    from freege.validation.sampling.limits import limiting_moments

    case = case_for(dims)
    plain = limiting_moments(case, dims, 2)
    fw = moments(dims)
    fwn = finite_n_moments(dims)
    m1 = plain[0]
    g_o = dims.dO / dims.n
    tol = metrics.zero_tolerance("float64")
    per: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        per.setdefault(name, []).append(float(value))

    spectra: dict[str, list[np.ndarray]] = {"ge": [], "ge_row": []}
    seconds = 0.0
    for i in range(draws):
        d = draw(dims, seed=(seed, i), backend=backend, finite_width=True)
        seconds += d.seconds
        models = {"softmax": d.softmax, "ge": d.ge, "ge_row": d.ge_row,
                  "ge_row_n": d.ge_row_n, "ge_realised": d.ge_realised}
        spectra["ge"].append(d.ge)
        spectra["ge_row"].append(d.ge_row)
        for model in ("ge", "ge_row", "ge_row_n", "ge_realised"):
            add(f"rel_w1/{model}", metrics.rel_w1(d.softmax, models[model], m1))
            add(f"ks/{model}", metrics.ks(d.softmax, models[model], tol))
        add("rel_w1/ge-ge_row", per["rel_w1/ge"][-1] - per["rel_w1/ge_row"][-1])
        add("rel_w1/ge-ge_row_n", per["rel_w1/ge"][-1] - per["rel_w1/ge_row_n"][-1])
        add("rel_w1/ge-ge_realised", per["rel_w1/ge"][-1] - per["rel_w1/ge_realised"][-1])
        for model, eigs in models.items():
            for q, (p, f, fn) in enumerate(zip(plain, fw, fwn, strict=True), start=1):
                emp = metrics.empirical_moments(eigs, q)[-1]
                add(f"m{q}/{model}/plain", emp / p - 1)
                add(f"m{q}/{model}/fw", emp / f - 1)
                add(f"m{q}/{model}/fwn", emp / fn - 1)
            add(f"ridge/{model}", ridge_error(eigs / m1, g_o, [lam], sigma2)[0])
    floor = {model: {k: _ci(v) for k, v in _pairs(s, m1, tol).items()}
             for model, s in spectra.items()}
    return {
        "dims": {"n": dims.n, "h": dims.h, "h_kv": dims.h_kv, "dK": dims.dK, "dV": dims.dV,
                 "dO": dims.dO, "beta": float(dims.beta), "sharing": dims.sharing},
        "case": case, "draws": draws, "seed": seed, "lam": lam, "sigma2": sigma2,
        "theta1": math.expm1(float(dims.beta) ** 2), "theta1_bar": theta1_mean(dims),
        "theta1_bar_n": finite_n_load(dims)[0],
        "moments_plain": plain, "moments_fw": fw, "moments_fwn": fwn,
        "ridge_limit": {"plain": plain_ridge_error(dims, lam, sigma2),
                        "shifted": shifted_ridge_error(dims, lam, sigma2),
                        "shifted_n": shifted_ridge_error(dims, lam, sigma2, finite_n=True)},
        "stats": {k: _ci(v) for k, v in per.items()},
        "noise_floor": floor,
        "seconds_per_draw": seconds / draws,
    }
