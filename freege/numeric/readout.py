"""Readout predictions of SPEC §5 from a :class:`freege.numeric.law.Law`.

All functions use the normalized law ``nubar`` (features ``F = MHA / sqrt(m)``): a raw
law is normalized first. They return float64 numbers for a float64 law and mpmath numbers
at the law's ``dps`` otherwise (internally float64 laws work at 30 digits where a
high-precision method is needed, e.g. Stehfest).

* :func:`dof` -- ``w(lam) = int x/(x + lam) dnubar``. Independent cases: bracketed solve of
  the ridge polynomial ``F(w, lam) = 0`` in ``w`` on ``(0, 1 - atom)``, where SPEC §5 makes
  ``lam(w)`` explicit and monotone (``1 - atom = min(1, h, gV, gO)`` for MHA), so no branch
  choice is needed; tied cases: ``w = 1 + lam G(-lam)`` on the tracked physical branch of
  the Cauchy polynomial (``G`` is real on ``(-inf, 0)``), Newton-polished on ``F``.
* :func:`dof_derivative` -- ``w'(lam) = -F_lam / F_w`` (implicit derivative).
* :func:`ridge_error` -- ``E = 1 - w/gO + (lam/gO - sigma^2) w'(lam)``.
* :func:`flow_loss` -- ``L(t) = int exp(-2 t x) dnubar``, the Gaver-Stehfest inverse
  Laplace transform (mpmath's ``Stehfest`` rule, the one ``mpmath.invertlaplace(...,
  method="stehfest")`` runs: degree ``M = 2.93 dps``, working precision raised to ``M``
  digits, the ``M`` Laplace-space values batched) of ``(1 - w(p))/p = -G(-p)`` at
  ``tau = 2t``. Delivered accuracy is tested against quadrature of the density.
* :func:`arrival_time` -- first ``t`` with ``L(t) = level`` (bracketed).
* :func:`crossover` -- the argument where two functions (e.g. two configurations' errors)
  are equal (bracketed root).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath.calculus.inverselaplace import Stehfest

from freege.numeric import _symbolic
from freege.numeric.law import Law, check_dps
from freege.params import positive, to_mpf
from freege.symbolic.cases import TIED_CASES
from freege.symbolic.symbols import lam as LAM
from freege.symbolic.symbols import w as W

#: digits used internally by float64 laws for high-precision steps
INTERNAL_DPS = 30
#: digits of the Stehfest evaluation behind a float64 loss (degree 58, ~1e-16 delivered)
LOSS_DPS_FLOAT64 = 20


@functools.lru_cache(maxsize=32)
def _ridge_functions(case: str) -> tuple[Callable[..., Any], ...]:
    """``F``, ``F_w``, ``F_lam`` lambdified (mpmath) in ``(w, lam, *parameters)``."""
    exprs = (_symbolic.ridge_polynomial(case), *_symbolic.ridge_derivatives(case))
    args = (W, LAM, *_symbolic.PARAMETERS)
    return tuple(sp.lambdify(args, e.as_expr(), modules="mpmath") for e in exprs)


def _normalized(law: Law) -> Law:
    if not isinstance(law, Law):
        raise ValueError(f"law must be a freege.numeric.law.Law (got {type(law).__name__})")
    return law.as_normalized()


def _dps(law: Law) -> int:
    return law.dps if law.dps is not None else INTERNAL_DPS


def _out(law: Law, value: Any) -> Any:
    return +value if law.dps is not None else float(value)


def _w_mp(nbar: Law, lam: mpmath.mpf) -> mpmath.mpf:
    """``w(lam)`` at the ambient precision (see the module docstring)."""
    F, F_w, _ = _ridge_functions(nbar.case)
    params = nbar.parameter_values()
    if nbar.case in TIED_CASES:
        w = 1 + lam * nbar.stieltjes_batch([-lam])[0].real
    else:
        w_max = 1 - nbar.atom_mass()
        w = mpmath.findroot(lambda v: F(v, lam, *params), (mpmath.mpf(0), w_max),
                            solver="anderson", verify=False)
    for _ in range(6):  # Newton polish on F at full precision (quadratic from here)
        step = F(w, lam, *params) / F_w(w, lam, *params)
        w -= step
        if abs(step) <= mpmath.eps * 16:
            break
    return w


def _check_lam(lam: Any) -> Any:
    return positive("lam", lam)


def dof(law: Law, lam: Any) -> Any:
    """``w(lam) = int x/(x + lam) dnubar(x)`` (SPEC §5), ``lam > 0``."""
    lam = _check_lam(lam)
    nbar = _normalized(law)
    with mpmath.workdps(_dps(law) + 10):
        return _out(law, _w_mp(nbar, to_mpf(lam)))


def dof_derivative(law: Law, lam: Any) -> Any:
    """``w'(lam) = -int x/(x + lam)^2 dnubar = -F_lam/F_w`` at ``(w(lam), lam)`` (SPEC §5)."""
    lam = _check_lam(lam)
    nbar = _normalized(law)
    with mpmath.workdps(_dps(law) + 10):
        return _out(law, _w_prime(nbar, to_mpf(lam), _w_mp(nbar, to_mpf(lam))))


def _w_prime(nbar: Law, lam: mpmath.mpf, w: mpmath.mpf) -> mpmath.mpf:
    _, F_w, F_lam = _ridge_functions(nbar.case)
    params = nbar.parameter_values()
    return -F_lam(w, lam, *params) / F_w(w, lam, *params)


def ridge_error(law: Law, lam: Any, sigma2: Any) -> Any:
    """Ridge coefficient error ``E(lam) = 1 - w/gO + (lam/gO - sigma^2) w'(lam)``
    (SPEC §5; isotropic teacher, noise variance ``sigma2 >= 0``). Needs an MHA law
    (case ``mha`` or ``mha-tied``), whose ``gO`` enters the formula."""
    lam = _check_lam(lam)
    if law.case not in ("mha", "mha-tied"):
        raise ValueError(f"ridge_error needs an MHA law (case mha or mha-tied), got {law.case}")
    sigma2 = 0 if sigma2 == 0 else positive("sigma2", sigma2)
    nbar = _normalized(law)
    with mpmath.workdps(_dps(law) + 10):
        lam_mp, g_o = to_mpf(lam), to_mpf(law.ratios.gO)
        w = _w_mp(nbar, lam_mp)
        error = 1 - w / g_o + (lam_mp / g_o - to_mpf(sigma2)) * _w_prime(nbar, lam_mp, w)
        return _out(law, error)


def _laplace_batch(nbar: Law, ps: list[mpmath.mpf]) -> list[mpmath.mpf]:
    """``(1 - w(p))/p = -G(-p)`` at the ambient precision, one tracked batch."""
    return [-g.real for g in nbar.stieltjes_batch([-p for p in ps])]


def _loss_mp(nbar: Law, tau: mpmath.mpf) -> mpmath.mpf:
    """Gaver-Stehfest at the ambient precision (the rule raises it to ~2.93 dps)."""
    rule = Stehfest(mpmath.mp)
    rule.calc_laplace_parameter(tau)  # sets mp.dps to the rule's working precision
    try:
        values = _laplace_batch(nbar, list(rule.p))
    except BaseException:
        mpmath.mp.dps = rule.dps_orig
        raise
    return rule.calc_time_domain_solution(values, tau)  # restores mp.dps


def flow_loss(law: Law, t: Any) -> Any:
    """Gradient-flow loss ``L(t) = int exp(-2 t x) dnubar(x)`` (SPEC §5), ``t >= 0``;
    scalar or array. ``L(0) = 1``; ``L(inf)`` is the mass at 0."""
    nbar = _normalized(law)

    def one(tv: Any) -> Any:
        if tv != 0:
            tv = positive("t", tv)
        else:
            return _out(law, mpmath.mpf(1))
        with mpmath.workdps(law.dps or LOSS_DPS_FLOAT64):
            return _out(law, _loss_mp(nbar, 2 * to_mpf(tv)))

    if isinstance(t, np.ndarray | list | tuple):
        values = [one(v) for v in np.asarray(t).ravel()]
        dtype = float if law.dps is None else object
        return np.array(values, dtype=dtype).reshape(np.shape(t))
    return one(t)


def arrival_time(law: Law, level: Any) -> Any:
    """First ``t`` with ``L(t) = level`` (SPEC §5), for ``L(inf) < level < 1`` where
    ``L(inf)`` is the mass of ``nubar`` at 0. ``L`` is strictly decreasing (a mixture of
    decaying exponentials), so a bracket ``[T/4, T]`` (grown or shrunk by 4 from 1)
    and the Anderson-Bjorck bracketed solver find the unique crossing."""
    level = positive("level", level)
    nbar = _normalized(law)
    floor = nbar.atoms().get(0.0 if law.dps is None else mpmath.mpf(0), 0)
    if not floor < level < 1:
        raise ValueError(
            f"level must be in (L(inf) = {float(floor)}, 1) (the mass at 0 of the normalized "
            f"law is never trained away), got {level}"
        )
    with mpmath.workdps(law.dps or LOSS_DPS_FLOAT64):
        target = to_mpf(level)

        def excess(t: mpmath.mpf) -> mpmath.mpf:
            return _loss_mp(nbar, 2 * t) - target

        lo = hi = mpmath.mpf(1)
        while excess(hi) > 0:
            lo, hi = hi, hi * 4
        while excess(lo) < 0:
            lo, hi = lo / 4, lo
        t = mpmath.findroot(excess, (lo, hi), solver="anderson", verify=False)
        return _out(law, t)


def crossover(
    f: Callable[[Any], Any],
    lo: Any,
    hi: Any,
    g: Callable[[Any], Any] | None = None,
    dps: int | None = None,
) -> Any:
    """The ``x`` in ``[lo, hi]`` where ``f(x) = g(x)`` (``g = 0`` if omitted): e.g. the
    inverse temperature where two width allocations have equal ridge error (SPEC §6.3).

    Bracketed: ``f - g`` must change sign on ``[lo, hi]`` (a ValueError otherwise).
    Float64 (``dps=None``): Brent's method to ~1e-14 relative; with ``dps``: mpmath's
    Anderson-Bjorck solver at that precision.
    """
    dps = check_dps(dps)

    def diff(x: Any) -> Any:
        return f(x) - (g(x) if g is not None else 0)

    if dps is None:
        from scipy.optimize import brentq

        a, b = float(lo), float(hi)
        fa, fb = float(diff(a)), float(diff(b))
        if fa == 0:
            return a
        if fb == 0:
            return b
        if np.sign(fa) == np.sign(fb):
            raise ValueError(
                f"crossover needs a sign change of f - g on [lo, hi] = [{a}, {b}] "
                f"(got {fa} and {fb})"
            )
        return brentq(lambda x: float(diff(x)), a, b, xtol=1e-15 * max(abs(a), abs(b)),
                      rtol=4 * np.finfo(float).eps)
    with mpmath.workdps(dps):
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        fa, fb = diff(a), diff(b)
        if fa * fb > 0:
            raise ValueError(
                f"crossover needs a sign change of f - g on [lo, hi] = [{a}, {b}] "
                f"(got {fa} and {fb})"
            )
        return +mpmath.findroot(diff, (a, b), solver="anderson", verify=False)
