"""Readout predictions of theory §5 from any law of :class:`freege.numeric.law_family.Law`.

All functions use the normalized law ``nubar`` (features ``F = MHA / sqrt(m)``): a raw law
is normalized first. They return float64 numbers for a float64 law and mpmath numbers at the
law's ``dps`` otherwise; ``lam``, ``sigma2``, ``t`` may be scalars or array-likes (then a numpy
array: float for a float64 law, object for a ``dps`` law, like ``scipy``). A Python float
input means its *decimal* value (``1e-4`` is ``Fraction(repr(1e-4))``, not the nearest
double), so a ``dps`` law answers for the number the user typed.

Methods and accuracy (``D`` = the law's ``dps``; float64 laws work at
:data:`INTERNAL_DPS` digits and round, so float64 results are correctly rounded up to an
ulp or two):

* :func:`dof` -- ``w(lam) = int x/(x + lam) dnubar``. theory §5: the ridge polynomial is
  quadratic in ``lam``, ``F = a2(w) lam^2 + a1(w) lam + a0(w)``, with exactly factored
  coefficients and discriminant ``D(w)`` (:func:`freege.numeric._symbolic.
  ridge_lambda_coefficients`). The physical branch is the larger root
  ``lam(w) = (-a1 + sqrt(D)) / (2 a2)`` (evaluated without cancellation): ``a2 > 0`` on
  ``(0, w_max)``, ``D > 0`` there (the two roots never cross), and as ``w -> 0+`` the
  larger root is the one that blows up like ``1/w``, as ``w(lam) ~ 1/lam`` requires; so
  ``lam(w)`` decreases from ``+inf`` to 0 on ``(0, w_max)``, ``w_max = 1 - atom`` the
  smallest positive root of ``a0`` (a ratio: 1, h, gV, gO, gK). ``w`` solves
  ``log lam(w) = log lam0`` by :func:`freege.numeric.solve.find_root` (verified bracket,
  Newton with the exact derivative ``dlam/dw``), in ``w`` on
  ``(0, w_max/2]`` and in ``u = w_max - w`` beyond (so tiny ``lam`` keeps ``w_max - w``
  to full relative precision: the precision is raised by the digits of ``w_max/u``). Same
  route for independent and tied cases; the solve raises
  :class:`freege.errors.ConvergenceError` if ``D < 0``, ``a2 <= 0`` or a non-monotone
  ``lam(w)`` is met on the path. Works at ``D + 10`` digits: every returned digit is right.
  The route above is a theory §4 law's (:mod:`freege.numeric.dof_point`); every law
  answers ``(w, w')`` itself (:meth:`freege.numeric.law_family.Law.dof_point`).
* Any other law (an expression of :mod:`freege.algebra`) must lie on ``[0, inf)`` (a Gram
  spectrum, :attr:`~freege.numeric.law_family.Law.nonnegative`; else a ValueError):
  ``w = 1 + lam G(-lam)`` and ``w' = G(-lam) - lam G'(-lam)`` with ``G' = -P_z/P_G`` from
  its Cauchy polynomial (:meth:`freege.numeric.algebraic_law.AlgebraicLaw.dof_point`,
  precision raised by the digits ``lam`` cancels); its :func:`ridge_error` takes the
  output ratio ``gO`` (:meth:`~freege.numeric.law_family.Law.output_ratio`); ``flow_loss``
  is unchanged.
* :func:`dof_derivative` -- ``w'(lam) = 1/lam'(w) = -F_lam/F_w`` (``F_lam = sqrt(D)`` on
  the physical branch), evaluated as the derivative of the stable root formula from the
  factored coefficients' and discriminant's derivatives (no cancellation even where
  ``w_max`` is a root of high multiplicity), at the same point and precision.
* :func:`ridge_error` -- ``E = 1 - w/gO + (lam/gO - sigma^2) w'(lam)``, same precision.
* :func:`flow_loss` -- ``L(t) = int exp(-2 t x) dnubar``. Float64 laws: quadrature of
  ``exp(-2 t x)`` against the density plus the atom (:meth:`Law.expect`, ~1e-15; the
  density at the quadrature nodes is cached per law, so further ``t`` cost one
  exponential per node). ``dps``
  laws: Gaver-Stehfest inversion of ``(1 - w(p))/p = -G(-p)`` at ``tau = 2t`` (the
  Stehfest weights at degree ``M``, working precision ``1.38 M`` digits) with the degree
  chosen by a two-degree agreement test: degrees ``M`` and ``M + dM`` must agree to
  ``10^-(D+2)`` relative, else ``M`` grows, and a :class:`ConvergenceError` after
  :data:`STEHFEST_TRIES` tries (``Law.expect`` at high ``dps`` has no guard digits and is
  ~30x slower, so it is the cross-check there; see :func:`estimate_flow_loss`).
* :func:`arrival_time` -- first ``t`` with ``L(t) = level``: ``L`` is strictly decreasing,
  so a bracket grown by 4 and :func:`find_root` with ``L'(t) = -2 int x exp(-2tx) dnubar``
  (same route as ``L``: quadrature in float64, the Stehfest values' transform
  ``p F(p) - 1`` in ``dps`` mode, both degrees checked) give the unique crossing,
  verified by a sign change. A level within ``10^-dps`` (float64: 1e-15) of the atom is
  refused (the atom is known to that precision; the time would be meaningless).
* :func:`crossover` -- the argument where two functions are equal, by :func:`find_root`.
* :func:`estimate_dof`, :func:`estimate_ridge_error`, :func:`estimate_flow_loss` -- the
  value and its disagreement with an *independent* route (quadrature of the integral
  forms against the density and atom, or Stehfest against quadrature) as an
  :class:`freege.numeric.law.Estimate` (theory §7: an honest accuracy estimate).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.law_family import Estimate, Law
from freege.numeric.solve import find_root
from freege.params import Number, check_dps, positive, to_mpf

#: digits used by float64 laws for the ridge solves (then rounded to float64)
INTERNAL_DPS = 30
#: guard digits added to a law's ``dps`` for every readout solve
GUARD_DIGITS = 10
#: digits the Stehfest degree test asks for behind a float64 value (estimates, checks)
LOSS_DIGITS_FLOAT64 = 17
#: attempts of the Stehfest two-degree test (the degree grows by 1.5x each time)
STEHFEST_TRIES = 4


# ---------------------------------------------------------------------------- inputs
def decimal_input(name: str, value: Any, allow_zero: bool = False) -> Number:
    """A validated positive (or, with ``allow_zero``, zero) input; a float becomes the
    decimal it prints as (``Fraction(repr(x))``), so ``lam=1e-4`` means 10^-4 exactly."""
    if allow_zero and not isinstance(value, bool | str) and value == 0:
        return Fraction(0)
    x = positive(name, value)
    return Fraction(repr(float(x))) if isinstance(x, float) else x


def _checked(law: Law) -> Law:
    """``law`` when it is a law on ``[0, inf)`` (theory §5 needs a Gram spectrum:
    ``x/(x + lam)`` is finite on its support for every ``lam > 0``), else a ValueError."""
    if not isinstance(law, Law):
        raise ValueError(f"law must be a freege.numeric.Law (got {type(law).__name__})")
    if not law.nonnegative:
        raise ValueError(f"law: readouts need a law on [0, inf) (a Gram spectrum); "
                         f"{law} is not")
    return law


def _normalized(law: Law) -> Law:
    return _checked(law).as_normalized()


def _work_dps(law: Law) -> int:
    return law.dps + GUARD_DIGITS if law.dps is not None else INTERNAL_DPS


def _out(law: Law, value: Any) -> Any:
    """Round a working-precision value to the law's output type."""
    if law.dps is None:
        return float(value)
    with mpmath.workdps(law.dps):
        return +value


def _vectorised(law: Law, fn: Callable[[Any], Any], x: Any) -> Any:
    """``fn`` elementwise over an array-like (numpy float array for a float64 law, object
    array for a ``dps`` law, same shape), or ``fn(x)`` for a scalar."""
    if isinstance(x, np.ndarray | list | tuple):
        arr = np.asarray(x, dtype=object)
        values = [fn(v) for v in arr.ravel()]
        out = np.empty(arr.shape, dtype=object if law.dps is not None else float)
        out.ravel()[:] = values
        return out
    return fn(x)


def _at_ridge_points(law: Law, lam: Any,
                     value: Callable[[Number, mpmath.mpf, mpmath.mpf], Any]) -> Any:
    """``value(lam, w(lam), w'(lam))`` (theory §5) at the law's working precision, for a
    scalar or array ``lam > 0``."""
    nbar = _normalized(law)

    def one(x: Any) -> Any:
        lam_in = decimal_input("lam", x)
        with mpmath.workdps(_work_dps(law)):
            w, w_prime = nbar.dof_point(lam_in)
            return _out(law, value(lam_in, w, w_prime))

    return _vectorised(law, one, lam)


def dof(law: Law, lam: Any) -> Any:
    """``w(lam) = int x/(x + lam) dnubar(x)`` (theory §5), ``lam > 0``; scalar or array."""
    return _at_ridge_points(law, lam, lambda _lam, w, _w_prime: w)


def dof_derivative(law: Law, lam: Any) -> Any:
    """``w'(lam) = -int x/(x + lam)^2 dnubar = -F_lam/F_w`` at ``(w(lam), lam)`` (theory §5);
    scalar or array."""
    return _at_ridge_points(law, lam, lambda _lam, _w, w_prime: w_prime)


def ridge_error(law: Law, lam: Any, sigma2: Any, gO: Any = None) -> Any:  # noqa: N803
    """Ridge coefficient error ``E(lam) = 1 - w/gO + (lam/gO - sigma^2) w'(lam)``
    (theory §5; isotropic teacher, noise variance ``sigma2 >= 0``); scalar or array ``lam``.
    Needs an MHA law (case ``mha`` or ``mha-tied``), whose ``gO`` enters the formula, or an
    expression law with the output ratio ``gO`` given."""
    ratio = _checked(law).output_ratio(gO)
    s2 = decimal_input("sigma2", sigma2, allow_zero=True)

    def error(lam_in: Number, w: mpmath.mpf, w_prime: mpmath.mpf) -> mpmath.mpf:
        g_o = to_mpf(ratio)
        return 1 - w / g_o + (to_mpf(lam_in) / g_o - to_mpf(s2)) * w_prime

    return _at_ridge_points(law, lam, error)


# ---------------------------------------------------------------------------- L(t)
@functools.lru_cache(maxsize=64)
def _stehfest_weights(degree: int, dps: int) -> tuple[mpmath.mpf, ...]:
    """Gaver-Stehfest weights ``V_k``, ``k = 1..degree`` (even), at ``dps`` digits:
    ``V_k = (-1)^(k + M/2) sum_j j^(M/2) (2j)! / ((M/2 - j)! j! (j - 1)! (k - j)!
    (2j - k)!)`` over ``(k + 1)//2 <= j <= min(k, M/2)`` (a pure function, kept)."""
    half = degree // 2
    fac = mpmath.factorial
    with mpmath.workdps(dps):
        return tuple(
            (-1) ** (k + half) * mpmath.fsum(
                mpmath.mpf(j) ** half * fac(2 * j)
                / (fac(half - j) * fac(j) * fac(j - 1) * fac(k - j) * fac(2 * j - k))
                for j in range((k + 1) // 2, min(k, half) + 1))
            for k in range(1, degree + 1))


def _stehfest(nbar: Law, tau: mpmath.mpf, degree: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Gaver-Stehfest at one ``degree``: ``L(tau) = ln2/tau sum_k V_k F(k ln2/tau)``
    (:func:`_stehfest_weights`), worked at ``1.38 degree`` digits (the weights cancel
    that much) in a local ``mpmath.workdps``: ``(L, dL/dtau)`` at ``tau``, from ``F(p) =
    -G(-p)`` and ``p F(p) - 1`` (the transform of ``dL/dtau``)."""
    dps = max(mpmath.mp.dps, math.ceil(1.38 * degree))
    weights = _stehfest_weights(degree, dps)
    with mpmath.workdps(dps):
        rate = mpmath.ln2 / tau
        ps = [k * rate for k in range(1, degree + 1)]
        values = [-g.real for g in nbar.stieltjes_batch([-p for p in ps])]
        slopes = [p * v - 1 for p, v in zip(ps, values, strict=True)]
        value = rate * mpmath.fdot(weights, values)
        slope = rate * mpmath.fdot(weights, slopes)
    return +value, +slope


def _stehfest_checked(nbar: Law, tau: mpmath.mpf, digits: int, slope: bool = False
                      ) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """``(L, dL/dtau, error)`` by :func:`_stehfest` at the degree passing the two-degree
    test: degrees ``M`` and ``M + dM`` agree to ``10^-digits`` relative (``L``, and its
    derivative if ``slope``), the higher one is returned with the disagreement as
    ``error``. Starts at ``M = 4.4 digits`` (the rule delivers about ``0.24 M`` digits on
    these transforms)."""
    degree = 2 * math.ceil(2.2 * digits)
    tol = mpmath.mpf(10) ** -digits
    for _ in range(STEHFEST_TRIES):
        step = 2 * math.ceil(degree / 16)
        low = _stehfest(nbar, tau, degree)
        high = _stehfest(nbar, tau, degree + step)
        error = abs(low[0] - high[0])
        if error <= tol * abs(high[0]) and (
                not slope or abs(low[1] - high[1]) <= tol * abs(high[1])):
            return high[0], high[1], error
        degree = 2 * math.ceil(0.75 * degree)
    raise ConvergenceError(
        "L(t) (Stehfest)", f"degrees up to {degree} do not agree to {digits} digits",
        {**nbar.describe, "t": tau / 2})


def _check_t(value: Any) -> Number:
    return decimal_input("t", value, allow_zero=True)


def _loss_quadrature(nbar: Law, t: Number) -> Any:
    """``int exp(-2 t x) dnubar`` by :meth:`Law.expect` (float or mpf at the law's dps)."""
    if nbar.dps is None:
        tf = float(t)
        return nbar.expect(lambda x: np.exp(-2 * tf * x))
    with mpmath.workdps(nbar.dps):
        tm = to_mpf(t)
    return nbar.expect(lambda x: mpmath.exp(-2 * tm * x))


def flow_loss(law: Law, t: Any) -> Any:
    """Gradient-flow loss ``L(t) = int exp(-2 t x) dnubar(x)`` (theory §5), ``t >= 0``;
    scalar or array. ``L(0) = 1``; ``L(inf)`` is the mass at 0. Float64: quadrature;
    ``dps``: degree-controlled Stehfest (module docstring)."""
    nbar = _normalized(law)

    def one(value: Any) -> Any:
        tv = _check_t(value)
        if tv == 0:
            return _out(law, mpmath.mpf(1))
        if law.dps is None:
            return float(_loss_quadrature(nbar, tv))
        with mpmath.workdps(_work_dps(law)):
            return _out(law, _stehfest_checked(nbar, 2 * to_mpf(tv), law.dps + 2)[0])

    return _vectorised(law, one, t)


def arrival_time(law: Law, level: Any) -> Any:
    """First ``t`` with ``L(t) = level`` (theory §5), for ``L(inf) < level < 1`` where
    ``L(inf)`` is the mass of ``nubar`` at 0. ``L`` is strictly decreasing (a mixture of
    decaying exponentials), so a bracket ``[T/4, T]`` (grown or shrunk by 4 from 1) and
    :func:`find_root` with the derivative ``L'`` give the unique crossing."""
    level = decimal_input("level", level)
    nbar = _normalized(law)
    with mpmath.workdps(_work_dps(law)):
        floor = nbar.atom_mass()
        target = to_mpf(level)
        # the atom is known to the output precision: a level within that of it is refused
        resolved = mpmath.mpf(10) ** -(law.dps or 15)
        if not floor + resolved < target < 1:
            raise ValueError(
                f"level must be in (L(inf) + {mpmath.nstr(resolved, 3)}, 1) with L(inf) = "
                f"{mpmath.nstr(floor, 15)} (the mass at 0 of the normalized law is never "
                f"trained away; a level closer to it than the output precision is not "
                f"resolved), got {mpmath.nstr(target, 15)}"
            )
    params = {**nbar.describe, "level": level}
    if law.dps is None:
        def excess(t: mpmath.mpf) -> mpmath.mpf:
            return mpmath.mpf(_loss_quadrature(nbar, float(t))) - target

        def slope(t: mpmath.mpf) -> mpmath.mpf:
            tf = float(t)
            return mpmath.mpf(nbar.expect(lambda x: -2 * x * np.exp(-2 * tf * x)))

        rtol = mpmath.mpf(2) ** -50
    else:
        digits = law.dps + 2

        @functools.lru_cache(maxsize=8)
        def loss_and_slope(t: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
            return _stehfest_checked(nbar, 2 * t, digits, slope=True)  # one set of values

        def excess(t: mpmath.mpf) -> mpmath.mpf:
            return loss_and_slope(t)[0] - target

        def slope(t: mpmath.mpf) -> mpmath.mpf:
            return 2 * loss_and_slope(t)[1]

        rtol = None
    with mpmath.workdps(_work_dps(law)):
        target = to_mpf(level)
        lo = hi = mpmath.mpf(1)
        for _ in range(200):
            if excess(hi) <= 0:
                break
            lo, hi = hi, hi * 4
        else:
            raise ConvergenceError("arrival time", "L(t) stays above the level", params)
        for _ in range(200):
            if excess(lo) >= 0:
                break
            lo, hi = lo / 4, lo
        else:
            raise ConvergenceError("arrival time", "L(t) stays below the level", params)
        t = find_root(excess, (lo, hi), df=slope, quantity="arrival time", params=params,
                      rtol=rtol)
        return _out(law, t)


# ---------------------------------------------------------------------------- crossover
def crossover(
    f: Callable[[Any], Any],
    lo: Any,
    hi: Any,
    g: Callable[[Any], Any] | None = None,
    dps: int | None = None,
) -> Any:
    """The ``x`` in ``[lo, hi]`` where ``f(x) = g(x)`` (``g = 0`` if omitted): e.g. the
    inverse temperature where two width allocations have equal ridge error (theory §6.3).

    Bracketed: ``f - g`` must change sign on ``[lo, hi]`` (a ValueError otherwise);
    :func:`freege.numeric.solve.find_root` (verified by a sign change). Float64
    (``dps=None``): ``f`` and ``g`` get Python floats, the root is returned to ~1e-15
    relative; with ``dps``: mpmath numbers at ``dps`` digits, root to ``dps`` digits.
    """
    dps = None if dps is None else check_dps(dps, maximum=None)

    def diff(x: mpmath.mpf) -> mpmath.mpf:
        arg = float(x) if dps is None else x
        value = f(arg) - (g(arg) if g is not None else 0)
        return mpmath.mpf(value)

    with mpmath.workdps(dps + 5 if dps is not None else 20):
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        fa, fb = diff(a), diff(b)
        if fa * fb > 0:
            raise ValueError(
                f"crossover needs a sign change of f - g on [lo, hi] = "
                f"[{mpmath.nstr(a, 15)}, {mpmath.nstr(b, 15)}] (got {mpmath.nstr(fa, 5)} and "
                f"{mpmath.nstr(fb, 5)})"
            )
        rtol = mpmath.mpf(10) ** -(dps + 1) if dps is not None else mpmath.mpf(2) ** -52
        root = find_root(diff, (a, b), quantity="crossover", rtol=rtol)
    if dps is None:
        return float(root)
    with mpmath.workdps(dps):
        return +root


# ---------------------------------------------------------------------------- estimates
def _estimate(law: Law, value: Any, other: Any) -> Estimate:
    with mpmath.workdps(_work_dps(law)):
        error = abs(mpmath.mpf(value) - mpmath.mpf(other))
    return Estimate(value, float(error))


def estimate_dof(law: Law, lam: Any) -> Estimate:
    """:func:`dof` (ridge polynomial) and its disagreement with quadrature of
    ``x/(x + lam)`` against the density and atom (:meth:`Law.expect`)."""
    lam_in = decimal_input("lam", lam)
    nbar = _normalized(law)
    value = dof(nbar, lam_in)
    if nbar.dps is None:
        lf = float(lam_in)
        other = nbar.expect(lambda x: x / (x + lf))
    else:
        with mpmath.workdps(nbar.dps):
            lm = to_mpf(lam_in)
        other = nbar.expect(lambda x: x / (x + lm))
    return _estimate(law, value, other)


def estimate_ridge_error(law: Law, lam: Any, sigma2: Any,
                         gO: Any = None) -> Estimate:  # noqa: N803
    """:func:`ridge_error` and its disagreement with theory §5's integral form
    ``1 - 1/gO + int (lam^2/gO + sigma^2 x)/(x + lam)^2 dnubar`` by quadrature."""
    ratio = _checked(law).output_ratio(gO)
    lam_in = decimal_input("lam", lam)
    s2 = decimal_input("sigma2", sigma2, allow_zero=True)
    nbar = _normalized(law)
    value = ridge_error(nbar, lam_in, s2, gO)
    with mpmath.workdps(nbar.dps or INTERNAL_DPS):
        lm, sm, go = to_mpf(lam_in), to_mpf(s2), to_mpf(ratio)
        if nbar.dps is None:
            lf, sf, gf = float(lm), float(sm), float(go)
            other = 1 - 1 / gf + nbar.expect(lambda x: (lf**2 / gf + sf * x) / (x + lf) ** 2)
        else:
            other = 1 - 1 / go + nbar.expect(lambda x: (lm**2 / go + sm * x) / (x + lm) ** 2)
    return _estimate(law, value, other)


def estimate_flow_loss(law: Law, t: Any) -> Estimate:
    """:func:`flow_loss` and its disagreement with the other route: degree-controlled
    Stehfest for a float64 law (quadrature value), quadrature for a ``dps`` law
    (Stehfest value)."""
    tv = _check_t(t)
    nbar = _normalized(law)
    value = flow_loss(nbar, tv)
    if tv == 0:
        return Estimate(value, 0.0)
    if nbar.dps is None:
        with mpmath.workdps(LOSS_DIGITS_FLOAT64 + 3):
            other = _stehfest_checked(nbar, 2 * to_mpf(tv), LOSS_DIGITS_FLOAT64)[0]
    else:
        other = _loss_quadrature(nbar, tv)
    return _estimate(law, value, other)


__all__ = [
    "arrival_time", "crossover", "decimal_input", "dof", "dof_derivative", "estimate_dof",
    "estimate_flow_loss", "estimate_ridge_error", "flow_loss", "ridge_error",
]
