"""Verified one-dimensional solves at the ambient mpmath precision (docs: theory §7).

Every iterative solve in :mod:`freege.numeric` goes through one of two functions, and
each either returns a value that passed its tests *at working precision* or raises
:class:`freege.errors.ConvergenceError` naming the quantity and its parameters:

* :func:`find_root` -- a real root on a bracket ``[a, b]`` where ``f`` changes sign:
  safeguarded Newton (when a derivative is given) or Illinois-secant steps, falling
  back to bisection whenever a step leaves the bracket or fails to shrink it. It returns
  ``x`` only once a *sign change* of ``f`` has been seen across ``[x - d, x + d]`` with
  ``d <= rtol |x| + atol`` (so a root provably lies within ``d``, up to the sign of
  ``f`` being resolved: values whose size is below ``noise(x)`` do not count).
* :func:`polish_root` -- Newton from a seed for a (real or complex) simple root with no
  bracket (e.g. the Cauchy-transform root on the physical branch): it returns ``x`` once
  the last step satisfies ``|step| <= rtol |x| + atol`` *and* the residual is at the
  rounding level ``|f(x)| <= noise(x)`` (when a noise estimate is given).

Defaults: ``rtol = 2^(16 - prec)`` (about ``dps - 5`` digits; callers that promise
``dps`` digits work with guard digits); :func:`find_root` stops after
``100 + 3 prec`` iterations (bisection at least every third step guarantees the
bracket is small long before that). Only
mpmath's public API is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath

from freege.errors import ConvergenceError

Function = Callable[[Any], Any]


def _default_rtol() -> mpmath.mpf:
    return mpmath.ldexp(1, 16 - mpmath.mp.prec)


def _short(x: Any) -> str:
    return mpmath.nstr(x, 8) if isinstance(x, mpmath.mpf | mpmath.mpc) else repr(x)


def find_root(
    f: Function,
    bracket: tuple[Any, Any],
    *,
    quantity: str,
    params: dict[str, Any] | None = None,
    df: Function | None = None,
    noise: Function | None = None,
    rtol: Any = None,
    atol: Any = None,
    maxiter: int | None = None,
) -> mpmath.mpf:
    """The root of ``f`` in ``bracket = (a, b)``, verified by a sign change (see the module
    docstring). ``f(a)`` and ``f(b)`` must have opposite signs (a
    :class:`ConvergenceError` otherwise: the bracket does not hold a simple root).

    ``df`` (optional) is ``f'``; ``atol`` defaults to ``2^-prec rtol (b - a)`` (so a
    root at 0 is reached too); ``noise(x)`` (optional) bounds the rounding error of
    ``f(x)``, so that signs below it are not trusted. Raises :class:`ConvergenceError`
    after ``maxiter`` iterations or when the sign of ``f`` cannot be resolved near the
    root at this precision (an ill-conditioned root: raise the precision).
    """
    rtol = _default_rtol() if rtol is None else mpmath.mpf(rtol)
    maxiter = 100 + 3 * mpmath.mp.prec if maxiter is None else int(maxiter)
    a, b = mpmath.mpf(bracket[0]), mpmath.mpf(bracket[1])
    if a > b:
        a, b = b, a
    if atol is None:  # a root at 0 is still reached: 2^-prec of the bracket, times rtol
        atol = mpmath.ldexp(rtol * (b - a), -mpmath.mp.prec)
    atol = mpmath.mpf(atol)

    def fail(reason: str) -> ConvergenceError:
        return ConvergenceError(quantity, reason, params)

    def sign(x: mpmath.mpf) -> tuple[int, mpmath.mpf]:
        v = mpmath.mpf(f(x))
        if not mpmath.isfinite(v):
            raise fail(f"non-finite value {v} at {_short(x)}")
        if noise is not None and abs(v) <= noise(x):
            return 0, v
        return (v > 0) - (v < 0), v

    sa, fa = sign(a)
    sb, fb = sign(b)
    for end, s_end, f_end in ((a, sa, fa), (b, sb, fb)):
        if s_end == 0:
            if f_end == 0:
                return end
            raise fail(f"the sign at the bracket end {_short(end)} is below the rounding "
                       f"level at {mpmath.mp.dps} digits")
    if sa == sb:
        raise fail(f"no sign change on the bracket [{_short(a)}, {_short(b)}]")
    x, fx = (a, fa) if abs(fa) < abs(fb) else (b, fb)
    illinois_side = 0
    widths = [b - a] * 3  # the bracket (or the step) must halve every three steps
    steps = [b - a] * 3
    for _ in range(maxiter):
        width = b - a
        tol = rtol * max(abs(a), abs(b)) + atol
        if width <= 2 * tol:
            return (a + b) / 2
        # candidate step: Newton from x, else an Illinois-secant step, else bisection
        cand, newton = None, False
        if df is not None:
            d = mpmath.mpf(df(x))
            if d != 0 and mpmath.isfinite(d):
                cand, newton = x - fx / d, True
        if cand is None and fb != fa:
            cand = (a * fb - b * fa) / (fb - fa)
        # a one-sided Newton sequence may keep a wide bracket while its steps shrink
        stalled = width > widths[-3] / 2 and not (
            newton and cand is not None and abs(cand - x) <= steps[-3] / 2)
        if cand is None or not (a < cand < b) or stalled:
            cand = (a + b) / 2
        widths.append(width)
        steps.append(abs(cand - x))
        # keep away from the ends by at least tol, so the bracket always shrinks
        cand = min(max(cand, a + tol), b - tol)
        small = abs(cand - x) <= 2 * tol
        sc, fc = sign(cand)
        if sc == 0:  # |f| at the rounding level: verify by a sign change around it
            d = 2 * tol
            lo, hi = max(a, cand - d), min(b, cand + d)
            slo = sign(lo)[0] if lo > a else sa
            shi = sign(hi)[0] if hi < b else sb
            if slo * shi < 0:
                return cand
            raise fail(
                f"ill-conditioned at working precision ({mpmath.mp.dps} digits): the sign "
                f"of the function is not resolved near {_short(cand)}"
            )
        if sc == sa:
            a, fa = cand, fc
            if illinois_side == -1:
                fb /= 2
            illinois_side = -1
        else:
            b, fb = cand, fc
            if illinois_side == 1:
                fa /= 2
            illinois_side = 1
        x, fx = cand, fc
        if small:  # converged from one side: probe just across to close the bracket
            probe = x + 2 * tol if x == a else x - 2 * tol
            if a < probe < b:
                sp_, fp = sign(probe)
                if sp_ == sa:
                    a, fa = probe, fp
                elif sp_ == sb:
                    b, fb = probe, fp
    raise fail(f"no convergence in {maxiter} iterations (bracket [{_short(a)}, {_short(b)}])")


def polish_root(
    f: Function,
    df: Function,
    x0: Any,
    *,
    quantity: str,
    params: dict[str, Any] | None = None,
    noise: Function | None = None,
    rtol: Any = None,
    atol: Any = 0,
    maxiter: int | None = None,
) -> Any:
    """Newton's method from ``x0`` for a simple root of ``f`` (real or complex), verified
    by the step and residual tests of the module docstring; raises
    :class:`ConvergenceError` otherwise (no convergence, a vanishing or non-finite
    derivative)."""
    rtol = _default_rtol() if rtol is None else mpmath.mpf(rtol)
    atol = mpmath.mpf(atol)
    maxiter = 20 + mpmath.mp.prec.bit_length() * 2 if maxiter is None else int(maxiter)
    x = mpmath.mpmathify(x0)
    for _ in range(maxiter):
        fx = f(x)
        d = df(x)
        if d == 0 or not (mpmath.isfinite(fx) and mpmath.isfinite(d)):
            raise ConvergenceError(quantity, f"derivative vanished or not finite near "
                                   f"{_short(x)}", params)
        step = fx / d
        x = x - step
        if abs(step) <= rtol * abs(x) + atol:
            if noise is None or abs(f(x)) <= noise(x):
                return x
    raise ConvergenceError(quantity, f"Newton did not converge in {maxiter} steps from "
                           f"{_short(x0)} (last {_short(x)})", params)


__all__ = ["find_root", "polish_root"]
