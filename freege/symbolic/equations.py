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

import functools
from collections.abc import Callable, Sequence

import sympy as sp

from freege.params import positive_int
from freege.symbolic.cache import cached
from freege.symbolic.symbols import G, S, gK, gO, h, lam, theta1, theta2, w, z


def cached_poly(func: Callable[..., sp.Poly]) -> Callable[..., sp.Poly]:
    """:func:`~freege.symbolic.cache.cached` for functions returning a ``sympy.Poly``.

    The disk cache keeps the expression and generators; the Poly is rebuilt without
    re-expanding (``expand=False``, several times faster than parsing a Poly's srepr), and
    memoised in memory.
    """

    @cached
    @functools.wraps(func)
    def parts(*args: object, **kwargs: object) -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
        poly = func(*args, **kwargs)
        return poly.as_expr(), tuple(poly.gens)

    memory: dict[str, sp.Poly] = {}

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> sp.Poly:
        key = repr((args, sorted(kwargs.items())))
        if key not in memory:
            expr, gens = parts(*args, **kwargs)
            memory[key] = sp.Poly(expr, *gens, expand=False)
        return memory[key]

    return wrapper


def _image(
    expr: sp.Expr,
    subs: dict[sp.Symbol, sp.Expr],
    gens: tuple[sp.Symbol, sp.Symbol],
    lines: tuple[sp.Expr, ...],
) -> sp.Poly:
    """The curve ``expr(subs) = 0`` in ``gens``: numerator, exceptional lines removed.

    The changes of variables of this module are birational, so the image of an
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


def cauchy_from_s_relation(relation: sp.Expr, mean: sp.Expr | None = None) -> sp.Poly:
    """P(G, z) from an S-relation ``E(S, w)`` (SPEC §3, polynomial method).

    Substitutes ``w = z G - 1``, ``S = G / (z G - 1)``, clears denominators and removes the
    exceptional factors. ``relation`` must be irreducible, or ``mean`` (``m1``) given to
    select its physical factor first (:func:`physical_relation_factor`). Exact; the result
    is a Poly in gens ``(G, z)`` with coefficients in ``ZZ[parameters]``, primitive,
    positive leading coefficient.
    """
    if mean is not None:
        relation = physical_relation_factor(relation, mean)
    return _image(relation, {S: G / (z * G - 1), w: z * G - 1}, (G, z), (G, z, z * G - 1))


def s_relation_from_cauchy(poly: sp.Poly | sp.Expr) -> sp.Expr:
    """The S-relation ``E(S, w)`` of an irreducible Cauchy polynomial (inverse map, SPEC §3).

    Substitutes ``G = S w``, ``z = (1 + w) / (S w)`` and clears denominators; returns the
    primitive irreducible factor in ``(S, w)`` as an expanded expression.
    """
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else sp.sympify(poly)
    return _image(expr, {G: S * w, z: (1 + w) / (S * w)}, (S, w), (S, w, 1 + w)).as_expr()


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


def ridge_from_s_relation(relation: sp.Expr, mean: sp.Expr | None = None) -> sp.Poly:
    """F(w, lam) from the S-relation of a normalized law (SPEC §5).

    ``lam w = (1 - w) / S(-w)``: substitutes ``S -> (1 - w) / (lam w)``, ``w -> -w`` into
    ``E(S, w)``, clears denominators and removes the exceptional factors ``w``, ``lam``,
    ``1 - w``. ``relation`` must be irreducible, or ``mean`` given (as in
    :func:`cauchy_from_s_relation`; 1 for a normalized law). Exact; a Poly in gens
    ``(w, lam)`` whose ``lam^2 w`` term is positive, as in SPEC §5.
    """
    if mean is not None:
        relation = physical_relation_factor(relation, mean)
    return _orient(_image(relation, {S: (1 - w) / (lam * w), w: -w}, (w, lam), (w, lam, 1 - w)))


def _orient(ridge: sp.Poly) -> sp.Poly:
    """``ridge`` with the sign that makes its ``lam^2 w^k`` term of lowest ``k`` positive
    (the SPEC §5 form starts ``lam^2 w - ...``)."""
    top = sp.Poly(ridge.as_expr(), lam).LC()
    lowest = sp.Poly(top, w).terms()[-1][1]
    return -ridge if lowest.could_extract_minus_sign() else ridge


@cached_poly
def tied_ridge_relation() -> sp.Poly:
    """The tied-MHA ridge relation of SPEC §5 built from the explicit formula.

    ``lam w = (1 - w)(h - w)(gO - w) / (gK m S_muKV(-w/h))``, ``m = gO (theta1 + h theta2/gK)``:
    ``S_muKV(-w/h)`` is put into the mu_KV relation (SPEC §4 tied jump law), denominators
    cleared, the curve factor kept. Equals :func:`ridge_polynomial` ``("mha-tied")`` up
    to a constant factor (tested).
    """
    from freege.symbolic.pushforward import tied_jump_relation

    mean = gO * (theta1 + h * theta2 / gK)
    s_mu = (1 - w) * (h - w) * (gO - w) / (gK * mean * lam * w)
    return _orient(_image(tied_jump_relation(), {S: s_mu, w: -w / h}, (w, lam), (w, lam, 1 - w)))


def _case_relation(case: str, normalized: bool) -> sp.Expr:
    """The physical irreducible factor of the S-relation of a SPEC §4 case."""
    from freege.symbolic.cases import case_law, check_case
    from freege.symbolic.closed_forms import s_relation

    law = case_law(check_case(case), normalized)
    return physical_relation_factor(s_relation(case, normalized), law.mean)


@cached_poly
def cauchy_polynomial(case: str, normalized: bool = False) -> sp.Poly:
    """``P(G, z)``, the Cauchy polynomial of the SPEC §4 law of ``case`` (of ``nubar``
    when ``normalized``), exact.

    The S-relation of the case (SPEC §4 compositions; tied cases from the resultant
    elimination of ``mu_KV``) is reduced to its physical factor and mapped by
    :func:`cauchy_from_s_relation`. Poly in gens ``(G, z)`` over
    ``ZZ[theta1, theta2, h, gK, gV, gO]`` (only the parameters the case uses); irreducible,
    with the branch ``G ~ 1/z`` at infinity. Degree in ``G``: 4 (attention, head
    averages), 6 (value, value-tied), 8 (mha, mha-tied).
    """
    return cauchy_from_s_relation(_case_relation(case, normalized))


@cached_poly
def ridge_polynomial(case: str) -> sp.Poly:
    """``F(w, lam)``: the ridge equation of SPEC §5 for the normalized law of ``case``.

    ``lam w = (1 - w) / S_nubar(-w)`` with ``S_nubar`` eliminated through its relation
    (:func:`ridge_from_s_relation`); Poly in gens ``(w, lam)``, degree 2 in ``lam``. For
    the independent cases it is the SPEC §5 form
    ``lam^2 w - lam (1 - c w/g) Pi - (c (1 - c)/g) Pi^2`` (``g = gK``, or ``gK/h`` with one
    shared key) up to a nonzero factor; for ``mha-tied`` it is the tied relation of
    :func:`tied_ridge_relation`. The physical root is ``w(lam) = 1/lam + O(lam^-2)``.
    """
    return ridge_from_s_relation(_case_relation(case, True))


@functools.cache
def ridge_derivatives(case: str) -> tuple[sp.Poly, sp.Poly]:
    """``(dF/dw, dF/dlam)`` of :func:`ridge_polynomial` (SPEC §5), for the implicit
    derivative ``w'(lam) = -F_lam / F_w`` (exact polynomial derivatives)."""
    ridge = ridge_polynomial(case)
    return ridge.diff(w), ridge.diff(lam)


@cached
def ridge_lambda_coefficients(case: str) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """``(a0, a1, a2, D)``: :func:`ridge_polynomial` as a quadratic in ``lam`` (SPEC §5),
    ``F = a2(w) lam^2 + a1(w) lam + a0(w)``, and its discriminant ``D = a1^2 - 4 a0 a2``,
    each fully factored over ``ZZ[w, parameters]`` (``sympy.factor``).

    The factored forms are what the numeric layer evaluates: near ``w_max`` the expanded
    ``F`` has factors of high multiplicity (``(w - g)^2`` for every ratio ``g``) whose
    expanded coefficients cancel catastrophically, while a product of factors keeps full
    relative precision. Every SPEC §4 case has degree exactly 2 in ``lam`` (a ValueError
    otherwise); the physical branch is ``lam(w) = (-a1 + sqrt(D)) / (2 a2)`` (see
    :mod:`freege.numeric.readout`).
    """
    quadratic = sp.Poly(ridge_polynomial(case).as_expr(), lam)
    if quadratic.degree() != 2:
        raise ValueError(f"{case}: the ridge polynomial has degree {quadratic.degree()} in lam")
    a2, a1, a0 = quadratic.all_coeffs()
    disc = sp.expand(a1**2 - 4 * a0 * a2)
    return sp.factor(a0), sp.factor(a1), sp.factor(a2), sp.factor(disc)


@cached
def ridge_series(case: str, order: int) -> list[sp.Expr]:
    """``[c_1, ..., c_order]`` with ``w(lam) = sum_k c_k lam^-k``, solved from F (SPEC §5).

    The physical root of :func:`ridge_polynomial` at large ``lam``: with ``eps = 1/lam``,
    ``eps^2 F(w, 1/eps)`` is a polynomial in ``eps`` and ``w``; writing ``w = sum c_k eps^k``,
    the ``eps^k`` coefficient is ``a c_k + (terms in c_1..c_{k-1})`` with ``a`` the
    coefficient of ``w lam^2`` in F, so the ``c_k`` follow one by one (exact, truncated
    power-series arithmetic over the parameters' fraction field). SPEC §5 states
    ``c_k = (-1)^(k+1) mbar_k``, which the tests check against the law algebra.
    """
    order = positive_int("order", order)
    ridge = ridge_polynomial(case)
    field, *_ = sp.field(sorted(ridge.free_symbols - {w, lam}, key=str), sp.QQ)
    zero = field.zero
    # eps^2 F(w, 1/eps) = sum_i w^i q_i(eps), q_i = sum_j f_ij eps^(2 - j): lists by power
    by_power: dict[int, list] = {}
    for (i, j), coeff in ridge.terms():
        q = by_power.setdefault(i, [zero] * 3)
        q[2 - j] += field.from_expr(coeff)
    lead = by_power[1][0]  # the w lam^2 coefficient
    if lead == 0 or by_power.get(0, [zero])[0] != 0:
        raise ArithmeticError(f"{case}: F has no root w ~ 1/lam at large lam")
    series = [zero] * (order + 1)  # w = sum series[k] eps^k
    for k in range(1, order + 1):
        residual, power = [zero] * (k + 1), [field.one] + [zero] * k
        for i in range(max(by_power) + 1):
            for m, q in enumerate(by_power.get(i, ())):
                for n in range(k + 1 - m):
                    residual[m + n] += q * power[n]
            power = _series_product(power, series, k)
        series[k] = -residual[k] / lead
    # numerator expanded over a factored denominator (factoring numerators costs seconds)
    return [c.numer.as_expr() / sp.factor(c.denom.as_expr()) for c in series[1:]]


def _series_product(a: list, b: list, order: int) -> list:
    """Truncated product of two power series given as coefficient lists (up to ``order``)."""
    return [sum((a[n] * b[k - n] for n in range(k + 1)), a[0] * 0) for k in range(order + 1)]
