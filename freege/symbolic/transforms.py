"""The generic maps between an S-relation, a Cauchy polynomial and a ridge polynomial.

Every law of freege is algebraic: its S-transform ``S(w)`` is a root of a polynomial
relation ``E(S, w) = 0`` (theory §3, §4). Two birational changes of variables turn that
relation into the equations the numeric layer solves:

* Cauchy transform (theory §3, polynomial method): with ``psi(1/z) = z G(z) - 1`` and
  ``S(w) = chi(w) (1 + w) / w``, the pair ``w = z G - 1``, ``S = G / (z G - 1)``
  (inverse: ``G = S w``, ``z = (1 + w) / (S w)``) maps ``E(S, w) = 0`` onto ``P(G, z) = 0``.
* Ridge equation (theory §5): ``lam w = (1 - w) / S_nubar(-w)``, i.e. the pair
  ``(S, w) -> (w, lam) = (-w, (1 + w) / (-S w))`` maps the normalized relation onto
  ``F(w, lam) = 0``.

Both maps are birational, so the image of the irreducible factor of ``E`` that holds the
physical branch (``S(0) = 1/m1``) is irreducible once the factors of the exceptional
lines (``G``, ``z``, ``w``, ``lam``, ...) are divided out; the code still factors the
image and keeps the one factor that depends on both variables. All computations are
exact polynomial arithmetic over ``ZZ[parameters]`` (no square roots, no floating point).

This module knows no law: it maps any relation. The theory §4 cases go through these maps
in :mod:`freege.symbolic.equations`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from freege.symbolic.symbols import G, S, lam, w, z


def curve_image(
    expr: sp.Expr,
    subs: dict[sp.Symbol, sp.Expr],
    gens: tuple[sp.Symbol, sp.Symbol],
    lines: tuple[sp.Expr, ...],
) -> sp.Poly:
    """The curve ``expr(subs) = 0`` in ``gens``: numerator, exceptional lines removed.

    The changes of variables passed here are birational, so the image of an
    irreducible curve is irreducible up to factors that are powers of the exceptional
    lines ``lines`` of the map (``G``, ``z``, ``z G - 1`` for the Cauchy map, ...). Those
    are divided out exactly and the content in the parameters is removed: no multivariate
    factorization is needed. Normalised deterministically (primitive, positive leading
    coefficient).
    """
    numerator = sp.numer(sp.together(sp.sympify(expr).subs(subs, simultaneous=True)))
    poly = sp.Poly(sp.expand(numerator), *gens)
    for line in lines:
        divisor = sp.Poly(line, *gens)
        while True:
            quotient, remainder = poly.div(divisor)
            if not remainder.is_zero or quotient.is_zero:
                break
            poly = quotient
    _, poly = poly.primitive()
    return -poly if poly.LC().could_extract_minus_sign() else poly


def physical_relation_factor(relation: sp.Expr, mean: sp.Expr) -> sp.Expr:
    """The irreducible factor of an S-relation ``E(S, w)`` that holds the physical branch.

    theory §3: the S-transform is the branch with ``S(0) = 1/m1``. Factors are kept when they
    vanish at ``(S, w) = (1/mean, 0)`` identically in the parameters; exactly one must
    remain (a ValueError otherwise, e.g. when ``mean`` is wrong).
    """
    _, factors = sp.factor_list(sp.expand(relation), S, w)
    keep = [f for f, _ in factors if f.has(S) and sp.simplify(f.subs({w: 0, S: 1 / mean})) == 0]
    if len(keep) != 1:
        raise ValueError(
            f"{len(keep)} factors of the S relation pass through S(0) = 1/m1 = {1 / mean}"
        )
    return keep[0]


def cauchy_from_s_relation(relation: sp.Expr, mean: sp.Expr | None = None) -> sp.Poly:
    """P(G, z) from an S-relation ``E(S, w)`` (theory §3, polynomial method).

    Substitutes ``w = z G - 1``, ``S = G / (z G - 1)``, clears denominators and removes the
    exceptional factors. ``relation`` must be irreducible, or ``mean`` (``m1``) given to
    select its physical factor first (:func:`physical_relation_factor`). Exact; the result
    is a Poly in gens ``(G, z)`` with coefficients in ``ZZ[parameters]``, primitive,
    positive leading coefficient.
    """
    if mean is not None:
        relation = physical_relation_factor(relation, mean)
    return curve_image(relation, {S: G / (z * G - 1), w: z * G - 1}, (G, z), (G, z, z * G - 1))


def s_relation_from_cauchy(poly: sp.Poly | sp.Expr) -> sp.Expr:
    """The S-relation ``E(S, w)`` of an irreducible Cauchy polynomial (inverse map, theory §3).

    Substitutes ``G = S w``, ``z = (1 + w) / (S w)`` and clears denominators; returns the
    primitive irreducible factor in ``(S, w)`` as an expanded expression.
    """
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else sp.sympify(poly)
    return curve_image(expr, {G: S * w, z: (1 + w) / (S * w)}, (S, w), (S, w, 1 + w)).as_expr()


def cauchy_series_residual(poly: sp.Poly | sp.Expr, moments: Sequence[sp.Expr]) -> list[sp.Expr]:
    """Low-order coefficients of ``P(G(z), z)`` for the moment series of ``G`` (theory §3).

    With ``y = 1/z`` and ``G = sum_{k=0}^{N} m_k y^(k+1)`` (``m_0 = 1``, ``moments`` =
    ``(m_1, ..., m_N)``), ``y^D P(G, 1/y)`` is a power series in ``y`` whose first ``N + 1``
    coefficients depend on ``m_0..m_N`` only. They all vanish iff ``P`` annihilates the
    branch ``G ~ 1/z`` with these moments to that order. Returned expanded.
    """
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else sp.sympify(poly)
    order = len(moments)
    y = sp.Dummy("y")
    # G = y U(y), z = 1/y: the term c_ij G^i z^j becomes c_ij y^(i - j) U^i
    unit = sp.Poly([*reversed(moments), 1], y)
    terms = sp.Poly(expr, G, z).terms()
    shift = max(j - i for (i, j), _ in terms)
    powers = [sp.Poly(1, y)]
    for _ in range(max(i for (i, _), _ in terms)):
        powers.append(_truncate(powers[-1] * unit, order))
    total = sp.Poly(0, y)
    for (i, j), coeff in terms:
        k = i - j + shift
        if k <= order:
            total += _truncate(powers[i] * sp.Poly(coeff * y**k, y), order)
    return [sp.expand(total.coeff_monomial(y**k)) for k in range(order + 1)]


def _truncate(poly: sp.Poly, order: int) -> sp.Poly:
    """``poly`` (one generator) without its terms of degree above ``order``."""
    kept = [(monom, c) for monom, c in poly.terms() if monom[0] <= order]
    return (
        sp.Poly.from_dict(dict(kept), poly.gens, domain=poly.domain)
        if kept
        else sp.Poly(0, *poly.gens)
    )


def ridge_from_s_relation(relation: sp.Expr, mean: sp.Expr | None = None) -> sp.Poly:
    """F(w, lam) from the S-relation of a normalized law (theory §5).

    ``lam w = (1 - w) / S(-w)``: substitutes ``S -> (1 - w) / (lam w)``, ``w -> -w`` into
    ``E(S, w)``, clears denominators and removes the exceptional factors ``w``, ``lam``,
    ``1 - w``. ``relation`` must be irreducible, or ``mean`` given (as in
    :func:`cauchy_from_s_relation`; 1 for a normalized law). Exact; a Poly in gens
    ``(w, lam)`` whose ``lam^2 w`` term is positive, as in theory §5.
    """
    if mean is not None:
        relation = physical_relation_factor(relation, mean)
    image = curve_image(relation, {S: (1 - w) / (lam * w), w: -w}, (w, lam), (w, lam, 1 - w))
    return orient_ridge(image)


def orient_ridge(ridge: sp.Poly) -> sp.Poly:
    """``ridge`` with the sign that makes its ``lam^2 w^k`` term of lowest ``k`` positive
    (the theory §5 form starts ``lam^2 w - ...``)."""
    top = sp.Poly(ridge.as_expr(), lam).LC()
    lowest = sp.Poly(top, w).terms()[-1][1]
    return -ridge if lowest.could_extract_minus_sign() else ridge
