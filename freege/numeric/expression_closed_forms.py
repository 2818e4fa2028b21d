"""Closed-form densities of the algebra's laws that have one (theory §3; issue 41): the
Marchenko-Pastur law, the semicircle, the free Poisson law ``pi_t`` and ``pi(delta_s,
t)`` (a point jump), and their affine images.

Each is ``f(x) = sqrt(B - x) sqrt(x - A) / (C (x - P))`` on ``(A, B)`` (``P`` a pole
outside, or no pole: ``f = sqrt(B - x) sqrt(x - A) / C``):

* ``MP_c``: ``A, B = (1 -+ sqrt c)^2``, ``C = 2 pi c``, ``P = 0``;
* ``sigma_v``: ``A, B = -+2 sqrt v``, ``C = 2 pi v``, no pole;
* ``pi_t``: ``A, B = (sqrt t -+ 1)^2``, ``C = 2 pi``, ``P = 0``; ``pi(delta_s, t)`` is
  ``pi_t`` dilated by ``s``;
* ``a X + b``: the ends and the pole mapped, ``C`` times ``a`` (with a pole: ``x - P``
  changes sign with ``a``) or ``a^2`` (without).

The parameters are computed from the exact numbers at 40 more digits than asked and
rounded; in float64, ``A``, ``B`` and ``P`` are kept as two doubles (``hi + lo``), so
``B - x = (B_hi - x) + B_lo`` is exact to one rounding near the edge (Sterbenz: ``B_hi -
x`` is exact for ``x`` in ``[B_hi/2, 2 B_hi]``), and the density is within a few units in
the last place of the exact one everywhere inside, edges included (the square roots are
taken apart, never of the product). ``tests/numeric/test_expression_law_closed_forms.py``
checks it against the Cauchy polynomial's route at 50 digits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from freege.symbolic import expressions as ex

#: extra digits of the parameters over the working precision
GUARD_DPS = 40


def _rational(x: Any) -> mpmath.mpf:
    return mpmath.mpf(int(x.p)) / int(x.q)


@dataclass(frozen=True)
class ClosedForm:
    """``f(x) = sqrt(B - x) sqrt(x - A) / (C (x - P))`` (``P`` None: no pole) at the
    ambient precision (module docstring)."""

    A: mpmath.mpf
    B: mpmath.mpf
    C: mpmath.mpf
    P: mpmath.mpf | None

    def affine(self, a: mpmath.mpf, b: mpmath.mpf) -> ClosedForm:
        """The density of ``a X + b`` (``a != 0``)."""
        lo, hi = sorted((a * self.A + b, a * self.B + b))
        if self.P is None:
            return ClosedForm(lo, hi, self.C * a * a, None)
        return ClosedForm(lo, hi, self.C * a, a * self.P + b)  # x - P changes sign with a


def _leaf(expr: ex.LawExpr) -> ClosedForm | None:
    if isinstance(expr, ex.MarchenkoPastur):
        c = _rational(expr.ratio)
        r = mpmath.sqrt(c)
        return ClosedForm((1 - r) ** 2, (1 + r) ** 2, 2 * mpmath.pi * c, mpmath.mpf(0))
    if isinstance(expr, ex.Semicircle):
        v = _rational(expr.variance)
        r = 2 * mpmath.sqrt(v)
        return ClosedForm(-r, r, 2 * mpmath.pi * v, None)
    if isinstance(expr, ex.FreePoisson) and isinstance(expr.jump, ex.Atomic) and len(
            expr.jump.points) == 1:
        r = mpmath.sqrt(_rational(expr.rate))
        poisson = ClosedForm((r - 1) ** 2, (r + 1) ** 2, 2 * mpmath.pi, mpmath.mpf(0))
        s = _rational(expr.jump.points[0][0])
        return poisson if s == 1 else poisson.affine(s, mpmath.mpf(0))
    return None


def closed_form(expr: ex.LawExpr, dps: int) -> ClosedForm | None:
    """The closed form of ``expr`` (module docstring) with parameters to ``dps`` digits
    (computed at ``dps +`` :data:`GUARD_DPS`), or None: a law without one, or numbers
    that are not rational."""
    scale, shift = mpmath.mpf(1), mpmath.mpf(0)
    with mpmath.workdps(dps + GUARD_DPS):
        try:
            while isinstance(expr, ex.Affine):
                a, b = _rational(expr.scale), _rational(expr.shift)
                scale, shift = scale * a, scale * b + shift
                expr = expr.base
            form = _leaf(expr)
        except (AttributeError, TypeError):  # a number that is not rational
            return None
        if form is None or form.B <= form.A:
            return None
        return form.affine(scale, shift) if (scale, shift) != (1, 0) else form


def _split(x: mpmath.mpf) -> tuple[float, float]:
    hi = float(x)
    return hi, float(x - hi)


class Float64Density:
    """A :class:`ClosedForm` in float64 (module docstring): ``A``, ``B``, ``P`` as
    ``hi + lo`` pairs, ``C`` rounded once."""

    def __init__(self, form: ClosedForm) -> None:
        with mpmath.workdps(30 + GUARD_DPS):
            self.A, self.B = _split(form.A), _split(form.B)
            self.P = None if form.P is None else _split(form.P)
            self.C = float(form.C)
            self.ends = (self.A[0], self.B[0])

    def __call__(self, xs: np.ndarray) -> np.ndarray:
        """The density at real ``xs`` (0 outside ``(A, B)`` as rounded, nan at nan)."""
        out = np.zeros(xs.shape)
        inside = (xs > self.A[0]) & (xs < self.B[0])
        x = xs[inside]
        right = (self.B[0] - x) + self.B[1]
        left = (x - self.A[0]) - self.A[1]
        num = np.sqrt(np.maximum(right, 0.0)) * np.sqrt(np.maximum(left, 0.0))
        if self.P is None:
            out[inside] = num / self.C
        else:
            out[inside] = num / (self.C * ((x - self.P[0]) - self.P[1]))
        out[np.isnan(xs)] = np.nan
        return out


def density_mp(form: ClosedForm, x: mpmath.mpf) -> mpmath.mpf:
    """The density at ``x`` at the ambient precision (``form`` computed at more digits:
    :func:`closed_form`); 0 outside ``(A, B)``, nan at nan."""
    if mpmath.isnan(x):
        return mpmath.mpf("nan")
    prec = mpmath.mp.prec
    with mpmath.workprec(prec + 20):
        if not form.A < x < form.B:
            return mpmath.mpf(0)
        num = mpmath.sqrt(form.B - x) * mpmath.sqrt(x - form.A)
        value = num / form.C if form.P is None else num / (form.C * (x - form.P))
    with mpmath.workprec(prec):
        return +value


__all__ = ["GUARD_DPS", "ClosedForm", "Float64Density", "closed_form", "density_mp"]
