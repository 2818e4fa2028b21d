"""Quantiles at working precision from a float64 guess (theory §7; ``Law.ppf`` with ``dps``).

The quantile ``x`` of a probability ``q`` solves ``cdf(x) = q``. A full cdf at working
precision integrates a whole panel (hundreds of density evaluations at ``dps`` digits), so
solving with it costs a dozen panels. Here the float64 quantile ``x0`` (accurate to about
1e-13) is the starting point and the cdf is written as

    cdf(x) = tail(x0) + int_{x0}^{x} pdf

with ``tail`` measured from the nearer end of the law: the mass below ``x0`` when ``q``
is in the lower half of the continuous part, else ``1 - q`` against the mass above ``x0``
(the law's total mass is 1, theory §3). The tail is one adaptive quadrature at working
precision (:meth:`freege.numeric.quadrature.Quadrature.expect_mp`); every later
evaluation integrates only the short piece between ``x0`` and ``x`` (a few dozen density
evaluations). The root is then found by :func:`freege.numeric.solve.find_root` on a
bracket around ``x0`` that is verified by a sign change (widened by factors of 1024,
within the support interval, until it holds; else :class:`ConvergenceError`), Newton
steps with the density as derivative, to ``2^(RTOL_BITS - prec)`` relative. The
float64 guess only places the bracket: the result is the verified root at working
precision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath

from freege.errors import ConvergenceError
from freege.numeric.quadrature import Quadrature
from freege.numeric.solve import find_root

#: the first half-width of the bracket around the float64 guess, relative to the interval
FIRST_BRACKET = 2.0**-30
#: the bracket's growth factor while it holds no sign change
WIDEN = 1024
#: the root's relative tolerance is ``2^(RTOL_BITS - prec)`` (the cdf's own is ``2^(4 - prec)``)
RTOL_BITS = 6


def ppf_mp(
    quadrature: Quadrature,
    below: mpmath.mpf,
    continuous: mpmath.mpf,
    guess: float,
    intervals: Sequence[tuple[mpmath.mpf, mpmath.mpf]],
    density: Callable[[mpmath.mpf], mpmath.mpf],
    quantity: str,
    describe: dict | None = None,
) -> mpmath.mpf:
    """The ``x`` where the continuous part's mass below ``x`` reaches ``below`` (in
    ``(0, continuous)``, ``continuous`` the continuous part's total mass, ``1 - atom``),
    at the ambient precision, from the float64 ``guess`` (see the module docstring).
    ``density`` is the pdf at one point (Newton's derivative)."""
    x0 = mpmath.mpf(guess)
    inside = [(a, b) for a, b in intervals if a <= x0 <= b]
    if not inside:
        raise ConvergenceError(quantity, f"the float64 guess {guess!r} is outside the "
                               "support", describe)
    a, b = inside[0]
    lower = below <= continuous / 2

    def one(_: Any) -> Any:
        return 1

    # g(x) = (mass below x) - below, increasing; written from the nearer end
    if lower:
        offset = quadrature.expect_mp(one, ub=x0) - below
    else:
        offset = (continuous - below) - quadrature.expect_mp(one, lb=x0)
    values: dict[Any, mpmath.mpf] = {}

    def g(x: mpmath.mpf) -> mpmath.mpf:
        if x not in values:
            if x == x0:
                values[x] = offset
            elif x > x0:
                values[x] = offset + quadrature.expect_mp(one, lb=x0, ub=x)
            else:
                values[x] = offset - quadrature.expect_mp(one, lb=x, ub=x0)
        return values[x]

    half = mpmath.mpf(FIRST_BRACKET) * (b - a)
    lo, hi = max(a, x0 - half), min(b, x0 + half)
    while g(lo) > 0 or g(hi) < 0:
        if (lo, hi) == (a, b):
            raise ConvergenceError(quantity, "no sign change on the support interval around "
                                   "the float64 quantile", describe)
        half *= WIDEN
        if g(lo) > 0:
            lo = max(a, x0 - half)
        if g(hi) < 0:
            hi = min(b, x0 + half)
    if g(lo) == 0:
        return lo
    if g(hi) == 0:
        return hi
    return find_root(g, (lo, hi), quantity=quantity, params=describe, df=density,
                     rtol=mpmath.ldexp(1, RTOL_BITS - mpmath.mp.prec))


__all__ = ["ppf_mp"]
