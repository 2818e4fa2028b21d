"""Laws given by their Cauchy polynomial, and free additive convolution (theory §3).

The S-transform of :class:`~freege.symbolic.laws.FreeLaw` needs a mean other than 0; the
laws here are written through ``P(G, z)`` instead (the S-relation, when it exists, then
follows by the birational map of :mod:`freege.symbolic.transforms`):

* :func:`semicircle` ``sigma_v``: free cumulants ``(0, v, 0, ...)``, ``v G^2 - z G + 1 = 0``;
* :func:`atomic` ``sum_i p_i delta_{a_i}`` (:func:`point_mass` for one atom):
  ``G prod_i (z - a_i) - sum_i p_i prod_{j != i} (z - a_j) = 0``;
* :func:`free_add_conv` ``⊞``: free cumulants add, so R-transforms add. With
  ``z = R(G) + 1/G``, a root ``r_1 = R_1(G)`` solves ``P_1(G, r_1 + 1/G) = 0`` and
  ``R_2(G) = z - 1/G - r_1`` solves ``P_2(G, z - r_1) = 0``; the resultant in ``r_1``
  eliminates it, and the physical factor is the one that annihilates the moment series;
* :func:`quadratic_image` ``phi_* mu`` for ``phi(x) = c_0 + a x + b x^2``: the two-resultant
  elimination of the tied jump law (:mod:`freege.symbolic.pushforward`) with any
  algebraic ``mu`` in place of ``pi_t``.

Every step is exact polynomial arithmetic (resultants, factorisation), never numeric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from freege.symbolic import series
from freege.symbolic.laws import FIELD, FreeLaw, affine, pushforward, to_field
from freege.symbolic.symbols import G, z
from freege.symbolic.transforms import cauchy_series_residual, curve_image

#: moment-series orders at which the physical factor of an eliminant is looked for
SELECTION_ORDERS = (8, 16, 32)


def physical_cauchy_factor(poly: sp.Poly | sp.Expr, law: FreeLaw) -> sp.Poly:
    """The irreducible factor of ``poly`` (gens ``(G, z)``) that annihilates the moment
    series ``G = sum_k m_k z^(-k-1)`` of ``law`` (theory §3), checked to the first order of
    :data:`SELECTION_ORDERS` at which no more than one factor is left. Primitive, positive
    leading coefficient. An ArithmeticError when no factor (or more than one) does."""
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else sp.sympify(poly)
    _, factors = sp.factor_list(sp.expand(expr), G, z)
    candidates = [f for f, _ in factors if f.has(G)]
    for order in SELECTION_ORDERS:
        moments = law.moments(order)
        candidates = [f for f in candidates
                      if all(sp.cancel(c) == 0 for c in cauchy_series_residual(f, moments))]
        if len(candidates) <= 1:
            break
    if len(candidates) != 1:
        raise ArithmeticError(f"{law.name}: {len(candidates)} factors of the Cauchy "
                              "eliminant carry the moment series")
    return curve_image(candidates[0], {}, (G, z), ())


def semicircle(v: Any) -> FreeLaw:
    """``sigma_v``, the semicircle law of variance ``v`` (mean 0, support
    ``[-2 sqrt(v), 2 sqrt(v)]``): free cumulants ``(0, v, 0, ...)``, so ``m_2k = C_k v^k``
    (Catalan numbers) and ``R(u) = v u``; ``v G^2 - z G + 1 = 0``."""
    vf = to_field(v)
    return FreeLaw(
        f"sigma[{v}]",
        lambda n: series.cumulants_to_moments([FIELD.zero, vf, *[FIELD.zero] * (n - 2)][:n]),
        None,
        cauchy_fn=lambda: sp.Poly(v * G**2 - z * G + 1, G, z),
    )


def atomic(atoms: Sequence[tuple[Any, Any]]) -> FreeLaw:
    """``sum_i p_i delta_{a_i}`` for ``atoms = ((a_1, p_1), ...)`` with distinct locations
    and masses summing to 1 (the caller checks): ``m_q = sum_i p_i a_i^q`` and
    ``G(z) = sum_i p_i / (z - a_i)``. One atom ``(a, 1)`` has ``S(w) = 1/a``."""
    pairs = [(sp.sympify(a), sp.sympify(p)) for a, p in atoms]
    fields = [(to_field(a), to_field(p)) for a, p in pairs]
    denominator = sp.Mul(*[z - a for a, _ in pairs])
    numerator = sp.Add(*[p * sp.cancel(denominator / (z - a)) for a, p in pairs])
    single = (fields[0][0], FIELD.zero) if len(fields) == 1 and fields[0][0] != 0 else None
    return FreeLaw(
        "atoms[" + ", ".join(f"{a}:{p}" for a, p in pairs) + "]",
        lambda n: [sum((p * a**q for a, p in fields), FIELD.zero) for q in range(1, n + 1)],
        None,
        inverse_linear_s=single,
        cauchy_fn=lambda: curve_image(G * denominator - numerator, {}, (G, z), ()),
    )


def point_mass(a: Any) -> FreeLaw:
    """``delta_a``: ``m_q = a^q``, ``(z - a) G - 1 = 0``; ``S(w) = 1/a`` when ``a != 0``."""
    return atomic([(a, 1)])


def _sum_eliminant(first: sp.Poly, second: sp.Poly) -> sp.Expr:
    """``Res_r(P_1(G, r + 1/G) G^k, P_2(G, z - r))``: the Cauchy eliminant of ``⊞``."""
    r = sp.Dummy("r")
    shifted = sp.numer(sp.together(first.as_expr().subs(z, r + 1 / G)))
    return sp.resultant(sp.Poly(sp.expand(shifted), r),
                        sp.Poly(sp.expand(second.as_expr().subs(z, z - r)), r)).as_expr()


def _sum_moments(laws: Sequence[FreeLaw], order: int) -> list[Any]:
    """Moments of ``⊞ laws``: free cumulants add (theory §3)."""
    kappas = [law.field_cumulants(order) for law in laws]
    return series.cumulants_to_moments([sum(ks, FIELD.zero) for ks in zip(*kappas, strict=True)])


def free_add_conv(*laws: FreeLaw) -> FreeLaw:
    """``laws[0] ⊞ laws[1] ⊞ ...`` (left to right): R-transforms add. Moments from the
    summed free cumulants; ``P(G, z)`` by one resultant per ``⊞`` (module docstring)."""
    if len(laws) < 2:
        raise ValueError("free_add_conv needs at least two laws")
    first = laws[0] if len(laws) == 2 else free_add_conv(*laws[:-1])
    second = laws[-1]
    result = FreeLaw(
        f"{first.name} ⊞ {second.name}",
        lambda n: _sum_moments((first, second), n),
        None,
        cauchy_fn=lambda: physical_cauchy_factor(
            _sum_eliminant(first.cauchy_polynomial, second.cauchy_polynomial), result),
    )
    return result


def quadratic_eliminant(base: sp.Poly, a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """The Cauchy eliminant of the image of a law under ``psi(x) = a x + b x^2`` (``b != 0``).

    With ``x_1, x_2`` the roots of ``psi(x) = z`` (``x_1 + x_2 = -a/b``), partial fractions
    give ``b (x_1 - x_2) G = g(x_1) - g(x_2)``, ``g`` the base law's Cauchy transform: the
    base equation at ``x_1`` (with ``g(x_1) = g_2 + G (2 b x_1 + a)``) and at
    ``x_2 = -a/b - x_1`` lose ``g_2`` to one resultant and ``x_1`` to a second one against
    ``b x_1^2 + a x_1 - z``."""
    x1, g2 = sp.Dummy("x1"), sp.Dummy("g2")
    expr = base.as_expr()
    at_x1 = sp.expand(expr.subs({G: g2 + G * (2 * b * x1 + a), z: x1}, simultaneous=True))
    at_x2 = sp.numer(sp.together(expr.subs({G: g2, z: -a / b - x1}, simultaneous=True)))
    no_g = sp.resultant(sp.Poly(at_x1, g2), sp.Poly(sp.expand(at_x2), g2)).as_expr()
    return sp.resultant(sp.Poly(sp.expand(no_g), x1),
                        sp.Poly(b * x1**2 + a * x1 - z, x1)).as_expr()


def quadratic_image(law: FreeLaw, coeffs: Sequence[Any]) -> FreeLaw:
    """The image of ``law`` under ``phi(x) = c_0 + c_1 x + c_2 x^2`` (``coeffs`` in
    ascending order, ``c_2 != 0``): moments from ``int phi^q dlaw``
    (:func:`~freege.symbolic.laws.pushforward`), ``P(G, z)`` by the elimination of
    :func:`quadratic_eliminant` followed by the shift ``c_0``."""
    c0, a, b = (sp.sympify(c) for c in coeffs)
    if b == 0:
        raise ValueError("quadratic_image needs c_2 != 0 (use affine for degree 1)")
    centred = pushforward(law, [0, a, b], cauchy_fn=lambda: physical_cauchy_factor(
        quadratic_eliminant(law.cauchy_polynomial, a, b), centred))
    return centred if c0 == 0 else affine(centred, 1, c0)
