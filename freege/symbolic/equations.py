"""Derived algebraic equations: Cauchy polynomials P(G, z) and ridge polynomials F(w, lam).

Every law of freege is algebraic: its S-transform ``S(w)`` is a root of a polynomial
relation ``E(S, w) = 0`` (SPEC §3, §4). Two birational changes of variables turn that
relation into the equations the numeric layer solves:

* Cauchy transform (SPEC §3, polynomial method): with ``psi(1/z) = z G(z) - 1`` and
  ``S(w) = chi(w) (1 + w) / w``, the pair ``w = z G - 1``, ``S = G / (z G - 1)``
  (inverse: ``G = S w``, ``z = (1 + w) / (S w)``) maps ``E(S, w) = 0`` onto ``P(G, z) = 0``.
* Ridge equation (SPEC §5): ``lam w = (1 - w) / S_nubar(-w)``, i.e. the pair
  ``(S, w) -> (w, lam) = (-w, (1 + w) / (-S w))`` maps the normalized relation onto
  ``F(w, lam) = 0``.

Both maps are birational, so the image of the irreducible factor of ``E`` that holds the
physical branch (``S(0) = 1/m1``) is irreducible once the factors of the exceptional
lines (``G``, ``z``, ``w``, ``lam``, ...) are divided out; the code still factors the
image and keeps the one factor that depends on both variables. All computations are
exact polynomial arithmetic over ``ZZ[parameters]`` (no square roots, no floating point).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from freege.symbolic.cache import cached
from freege.symbolic.symbols import G, S, gK, gO, h, lam, theta1, theta2, w, z


def _numerator(expr: sp.Expr) -> sp.Expr:
    """Numerator of ``expr`` after combining over a common denominator, expanded."""
    return sp.expand(sp.numer(sp.together(expr)))


def _curve_factor(expr: sp.Expr, x: sp.Symbol, y: sp.Symbol) -> sp.Poly:
    """The one irreducible factor of ``expr`` involving both ``x`` and ``y``, as Poly(x, y).

    Factors in a single variable are exceptional lines of the change of variables (or
    pure parameter factors), never the curve of a law. More than one genuine factor means
    the input relation was reducible: a ValueError says so (pick its physical factor first).
    """
    _, factors = sp.factor_list(sp.expand(expr), x, y)
    curves = [f for f, _ in factors if f.has(x) and f.has(y)]
    if len(curves) != 1:
        raise ValueError(
            f"expected one irreducible curve in ({x}, {y}), found {len(curves)}: "
            "reduce the relation to its physical factor first"
        )
    poly = sp.Poly(curves[0], x, y)
    # deterministic normalisation: primitive part with a positive leading coefficient
    _, poly = poly.primitive()
    if poly.LC().could_extract_minus_sign():
        poly = -poly
    return poly


def physical_relation_factor(relation: sp.Expr, mean: sp.Expr) -> sp.Expr:
    """The irreducible factor of an S-relation ``E(S, w)`` that holds the physical branch.

    SPEC §3: the S-transform is the branch with ``S(0) = 1/m1``. Factors are kept when they
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


def cauchy_from_s_relation(relation: sp.Expr) -> sp.Poly:
    """P(G, z) from an irreducible S-relation ``E(S, w)`` (SPEC §3, polynomial method).

    Substitutes ``w = z G - 1``, ``S = G / (z G - 1)``, clears denominators and removes the
    exceptional factors. Exact; the result is a Poly in gens ``(G, z)`` with coefficients
    in ``ZZ[parameters]``, primitive, positive leading coefficient.
    """
    image = _numerator(
        sp.sympify(relation).subs({S: G / (z * G - 1), w: z * G - 1}, simultaneous=True)
    )
    return _curve_factor(image, G, z)


def s_relation_from_cauchy(poly: sp.Poly | sp.Expr) -> sp.Expr:
    """The S-relation ``E(S, w)`` of an irreducible Cauchy polynomial (inverse map, SPEC §3).

    Substitutes ``G = S w``, ``z = (1 + w) / (S w)`` and clears denominators; returns the
    primitive irreducible factor in ``(S, w)`` as an expanded expression.
    """
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else sp.sympify(poly)
    image = _numerator(expr.subs({G: S * w, z: (1 + w) / (S * w)}, simultaneous=True))
    return _curve_factor(image, S, w).as_expr()


def cauchy_series_residual(poly: sp.Poly | sp.Expr, moments: Sequence[sp.Expr]) -> list[sp.Expr]:
    """Low-order coefficients of ``P(G(z), z)`` for the moment series of ``G`` (SPEC §3).

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


def ridge_from_s_relation(relation: sp.Expr) -> sp.Poly:
    """F(w, lam) from the S-relation of a normalized law (SPEC §5).

    ``lam w = (1 - w) / S(-w)``: substitutes ``S -> (1 - w) / (lam w)``, ``w -> -w`` into
    ``E(S, w)``, clears denominators and keeps the irreducible curve. Exact; a Poly in
    gens ``(w, lam)``.
    """
    image = _numerator(
        sp.sympify(relation).subs({S: (1 - w) / (lam * w), w: -w}, simultaneous=True)
    )
    return _curve_factor(image, w, lam)


@cached
def ridge_tied_explicit() -> sp.Poly:
    """The tied-MHA ridge relation of SPEC §5 built from the explicit formula.

    ``lam w = (1 - w)(h - w)(gO - w) / (gK m S_muKV(-w/h))``, ``m = gO (theta1 + h theta2/gK)``:
    ``S_muKV(-w/h)`` is put into the mu_KV relation (SPEC §4 tied jump law), denominators
    cleared, the curve factor kept. Equals :func:`ridge_polynomial` ``("mha-tied")`` up
    to a constant factor (tested).
    """
    from freege.symbolic.pushforward import tied_jump_relation

    mean = gO * (theta1 + h * theta2 / gK)
    s_mu = (1 - w) * (h - w) * (gO - w) / (gK * mean * lam * w)
    image = _numerator(tied_jump_relation().subs({S: s_mu, w: -w / h}, simultaneous=True))
    return _curve_factor(image, w, lam)
