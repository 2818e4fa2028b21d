"""A law answered through the law of an affine image of it that puts a singular edge at 0,
or that takes a far shift away (theory §7.1, docs/algebra.md "Numbers").

The near-0 routes of theory §7.1 -- no float64 seed within ``NEAR_ZERO R`` of 0, mpmath
continuation along the support, the hard-edge quadrature map ``x = L v^(m+1)`` and the
atom's pole -- serve a law whose singular point is 0. A law of the algebra can have a hard
edge elsewhere (``mp(1) + 2`` blows up like ``(x - 2)^(-1/2)``). When that edge ``c`` is an
end of the law, the law of ``X`` is the image of the law of ``Y = s (X - c)`` (``s = 1``
at a lower edge, ``-1`` at an upper one), a law on ``[0, inf)`` with its singular edge at
0, under ``y -> c + s y``; :class:`EdgeMove` holds ``c``, ``s`` and the law of ``Y`` and
maps points, transforms and integrals between the two:

* ``G_X(z) = s G_Y(s (z - c))``, written with ``z`` and ``c - conj(z)`` in the same half
  plane for ``s = -1`` (``G_X(z) = -conj(G_Y(c - conj(z)))``), so a real ``z`` keeps the
  ``z + i0`` convention;
* ``F_X(x) = F_Y(x - c)`` for ``s = 1``; ``F_X(x) = 1 - F_Y(c - x) + nu_X({x})`` for
  ``s = -1``;
* ``Q_X(q) = c + Q_Y(q)`` for ``s = 1``; ``c - Q_Y(1 - q)`` for ``s = -1``;
* ``int f dnu_X = int f(c + s y) dnu_Y(y)`` with the range mapped.

Differences ``x - c`` are formed at the working precision. In float64 a rounded ``x - c``
would cost a point next to another edge ``e`` the digits ``|x - c|/|x - e|``, so the
density there comes from the law's own route; near ``c`` the difference is exact
(Sterbenz), and a point ``1e-10`` from the edge keeps all its digits. Cdf, quantile and
integrals use the moved law throughout (an absolute error ``eps |x - c| pdf``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from freege.numeric.law_conventions import map_batch

#: a shift farther from 0 than this many widths of the unshifted law's enclosure is
#: answered through the unshifted law (:func:`find_shift_move`)
FAR_SHIFT = 4


@dataclass(frozen=True)
class EdgeMove:
    """``X = shift + sign Y``: ``inner`` is the numeric law of ``Y`` at the same
    precision (``dps``: None for float64)."""

    shift: Fraction
    sign: int
    inner: Any
    dps: int | None

    # ------------------------------------------------------------------ numbers
    def c_mp(self) -> mpmath.mpf:
        """The shift at the ambient precision."""
        return mpmath.mpf(self.shift.numerator) / self.shift.denominator

    def c_f64(self) -> float:
        return float(self.shift)

    def to_inner(self, x: Any) -> Any:
        """``s (x - c)`` elementwise (float64 arrays, or mpmath numbers at ``dps``)."""
        if self.dps is None:
            return self.sign * (np.asarray(x, dtype=float) - self.c_f64())
        with mpmath.workdps(self.dps):
            c = self.c_mp()
            return map_batch(lambda vs: [self.sign * (mpmath.mpf(v) - c) for v in vs], x)

    def from_inner(self, y: Any) -> Any:
        """``c + s y`` elementwise (a scalar stays a scalar)."""
        if self.dps is None:
            out = self.c_f64() + self.sign * np.asarray(y, dtype=float)
            return out.item() if out.ndim == 0 else out
        with mpmath.workdps(self.dps):
            c = self.c_mp()
            return map_batch(lambda vs: [c + self.sign * v for v in vs], y)

    # ------------------------------------------------------------------ Cauchy transform
    def z_inner_mp(self, z: Any) -> Any:
        """The inner point of ``z`` (ambient precision): ``z - c``, or ``c - conj(z)``."""
        return z - self.c_mp() if self.sign > 0 else self.c_mp() - mpmath.conj(z)

    def g_outer_mp(self, g: Any) -> Any:
        """``G_X`` from ``G_Y`` at the inner point: ``g``, or ``-conj(g)``."""
        return g if self.sign > 0 else -mpmath.conj(g)

    def stieltjes_f64(self, zs: np.ndarray, original: Callable[[np.ndarray], np.ndarray]
                      ) -> np.ndarray:
        """``G_X`` at complex ``zs`` (float64): from the inner law's float64 route where
        ``Re z - c`` is exact in float64 (:func:`exact_difference`: every point near the
        moved edge), else from ``original`` (the law's own route, accurate away from the
        edge), so that a point next to another edge keeps its distance to it."""
        c = self.c_f64()
        moved = exact_difference(zs.real, c)
        out = np.empty(zs.shape, dtype=complex)
        if moved.any():
            if self.sign > 0:
                out[moved] = self.inner._stieltjes_f64(zs[moved] - c)
            else:
                out[moved] = -np.conj(self.inner._stieltjes_f64(c - np.conj(zs[moved])))
        if not moved.all():
            out[~moved] = original(zs[~moved])
        return out

    def stieltjes_mp_batch(self, zs: list[Any], seeds: np.ndarray | None) -> list[Any]:
        """``G_X`` at the ambient precision from the inner law's working-precision route
        (``seeds``: float64 guesses of ``G_X``, mapped to ``G_Y``)."""
        if seeds is not None and self.sign < 0:
            seeds = -np.conj(seeds)
        inner = self.inner._stieltjes_mp_batch([self.z_inner_mp(v) for v in zs], seeds)
        return [self.g_outer_mp(g) for g in inner]

    def intervals(self, inner: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """The support intervals of ``X`` from those of ``Y`` (ambient precision)."""
        c = self.c_mp()
        return sorted((c + a, c + b) if self.sign > 0 else (c - b, c - a) for a, b in inner)

    # ------------------------------------------------------------------ integrals
    def cdf(self, x: Any, atom_at: Any) -> Any:
        """``F_X(x)``; ``atom_at(x)`` is ``nu_X({x})`` elementwise (used for ``s = -1``)."""
        y = self.to_inner(x)
        if self.sign > 0:
            return self.inner.cdf(y)
        return self._combine(self.inner.sf(y), atom_at(x), 1)

    def sf(self, x: Any, atom_at: Any) -> Any:
        """``1 - F_X(x)``: ``sf_Y(x - c)``, or ``F_Y(c - x) - nu_X({x})``."""
        y = self.to_inner(x)
        if self.sign > 0:
            return self.inner.sf(y)
        return self._combine(self.inner.cdf(y), atom_at(x), -1)

    def _combine(self, values: Any, atoms: Any, sign: int) -> Any:
        """``values + sign atoms`` clipped to ``[0, 1]`` (elementwise, nan kept)."""
        if self.dps is None:
            out = np.clip(np.asarray(values, dtype=float) + sign * np.asarray(atoms), 0.0, 1.0)
            return out.item() if out.ndim == 0 else out
        with mpmath.workdps(self.dps):
            def one(v: Any, a: Any) -> Any:
                return v if mpmath.isnan(v) else min(max(v + sign * a, mpmath.mpf(0)),
                                                     mpmath.mpf(1))
            if isinstance(values, np.ndarray):
                out = np.empty(values.shape, dtype=object)
                out.ravel()[:] = [one(v, a) for v, a in zip(values.ravel(),
                                                            np.ravel(atoms), strict=True)]
                return out
            return one(values, atoms)

    def ppf(self, q: Any) -> Any:
        """``Q_X(q)``: ``c + Q_Y(q)``, or ``c - Q_Y(1 - q)`` (``isf_Y(q)``)."""
        return self.from_inner(self.inner.ppf(q) if self.sign > 0 else self.inner.isf(q))

    def expect(self, fn: Any, lb: Any, ub: Any) -> Any:
        """``int_{[lb, ub]} fn dnu_X`` as an integral against ``nu_Y`` (None: no bound)."""
        s = self.sign
        if self.dps is None:
            c: Any = self.c_f64()
            lo, hi = (None if v is None else s * (float(v) - c) for v in (lb, ub))
        else:
            with mpmath.workdps(self.dps):
                c = self.c_mp()
                lo, hi = (None if v is None else s * (mpmath.mpf(v) - c) for v in (lb, ub))
        if s < 0:
            lo, hi = hi, lo
        return self.inner._expect(lambda y: fn(c + s * y), lo, hi)

    def rvs(self, size: Any, random_state: Any) -> Any:
        return self.c_f64() + self.sign * self.inner.rvs(size, random_state)


def find_edge_move(expr: Any, equation: Any, dps: int | None,
                   make_law: Callable[[Any, int | None], Any]) -> EdgeMove | None:
    """The move of a singular end of an expression's support to 0, or None. A real zero
    ``c != 0`` of the leading coefficient of ``P(G, z)`` in ``G`` (``equation``: where a
    root escapes to infinity, a hard edge or an atom's pole) that is an end of the
    expression's exact enclosure ``expr.bounds()`` is moved when the law of ``s (X - c)``
    (``s = 1`` at the lower end, ``-1`` at the upper; ``make_law(expression, dps)``) is
    provably on ``[0, inf)``, when 0 itself is no singular point of the law (the
    equation's ``zero_singular`` with 0 in the enclosure), and when the other end is no
    such zero (two singular ends, as of an arcsine law, stay where they are: moving one to
    0 would put the other at ``|hi - lo|``, where a float64 point keeps fewer digits of
    its distance to it). Exact data only."""
    import sympy as sp

    lo, hi = (sp.sympify(v) for v in expr.bounds())
    if equation.zero_singular and bool(lo <= 0) and bool(0 <= hi):
        return None

    def on(end: Any, c: Fraction) -> bool:  # exact, after a cheap float filter
        return (bool(end.is_finite) and abs(float(end) - float(c)) <= 1e-9 * (1 + abs(c))
                and sp.simplify(end - sp.Rational(c.numerator, c.denominator)) == 0)

    ends = [(c, sign) for c in equation.lead_real_roots() if c != 0
            for sign, end in ((1, lo), (-1, hi)) if on(end, c)]
    if len(ends) != 1:  # none, or both ends: moving one would take the other from 0
        return None
    (c, sign), = ends
    exact = sp.Rational(c.numerator, c.denominator)
    moved = expr - exact if sign > 0 else exact - expr
    if moved.is_positive is not True:
        return None
    return EdgeMove(c, sign, make_law(moved, dps), dps)


def find_shift_move(expr: Any, dps: int | None,
                    make_law: Callable[[Any, int | None], Any]) -> EdgeMove | None:
    """``X = Y + b`` answered through ``Y`` (``make_law(Y, dps)``) when the expression is an
    affine map whose rational shift ``b`` lies more than :data:`FAR_SHIFT` widths of
    ``Y``'s exact enclosure away from 0, else None. Far from 0 a float64 point keeps only
    ``eps |b|`` of absolute resolution and the quadrature's panels, placed in ``x``, need
    ever finer nodes (``mp(1/2) + 10^5``: a cdf in 68 s, 1e-13 off); through ``Y`` the
    difference ``x - b`` is exact near the support (Sterbenz) and ``Y``'s own panels serve.
    Exact data only."""
    shift = getattr(expr, "shift", 0)
    if shift == 0 or not shift.is_Rational:
        return None
    # Y itself, built as it is (its scale, were it below the scales' range, was admitted
    # for the normalized law X; docs/algebra.md, Limits)
    inner = expr.base if expr.scale == 1 else dataclasses.replace(expr, shift=0 * shift)
    lo, hi = inner.bounds()
    if not (lo.is_finite and hi.is_finite) or abs(shift) <= FAR_SHIFT * (hi - lo):
        return None
    return EdgeMove(Fraction(int(shift.p), int(shift.q)), 1, make_law(inner, dps), dps)


def exact_difference(x: np.ndarray, c: float) -> np.ndarray:
    """Where the float64 ``x - c`` is exact (Knuth's two-sum error is 0): always within a
    factor 2 of ``c`` (Sterbenz), so at every point near the edge ``c``."""
    with np.errstate(invalid="ignore"):
        s = x - c
        b = s - x
        err = (x - (s - b)) + (-c - b)
    return err == 0


__all__ = ["FAR_SHIFT", "EdgeMove", "exact_difference", "find_edge_move", "find_shift_move"]
