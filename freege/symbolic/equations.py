"""The derived equations of the theory §4 cases: Cauchy polynomials P(G, z) and ridge
polynomials F(w, lam), exact.

Each case's S-relation (:mod:`freege.symbolic.closed_forms`, built by the law algebra of
:mod:`freege.symbolic.cases`) is reduced to its physical factor and sent through the
generic maps of :mod:`freege.symbolic.transforms` (theory §3 polynomial method, theory §5
ridge equation). The inverse map :func:`s_relation_from_cauchy` is re-exported, so that
this module is the one place the numeric layer (:mod:`freege.numeric._symbolic`) reads
equations from.
"""

from __future__ import annotations

import functools

import sympy as sp

from freege.params import positive_int
from freege.symbolic.cache import cached, cached_poly
from freege.symbolic.cases import case_law, check_case
from freege.symbolic.closed_forms import s_relation
from freege.symbolic.pushforward import tied_jump_relation
from freege.symbolic.symbols import S, gK, gO, h, lam, theta1, theta2, w
from freege.symbolic.transforms import (
    cauchy_from_s_relation,
    curve_image,
    orient_ridge,
    physical_relation_factor,
    ridge_from_s_relation,
    s_relation_from_cauchy,
)

__all__ = [
    "cauchy_polynomial",
    "ridge_derivatives",
    "ridge_lambda_coefficients",
    "ridge_polynomial",
    "ridge_series",
    "s_relation_from_cauchy",  # re-exported for freege.numeric._symbolic
    "tied_ridge_relation",
]


@cached_poly
def tied_ridge_relation() -> sp.Poly:
    """The tied-MHA ridge relation of theory §5 built from the explicit formula.

    ``lam w = (1 - w)(h - w)(gO - w) / (gK m S_muKV(-w/h))``, ``m = gO (theta1 + h theta2/gK)``:
    ``S_muKV(-w/h)`` is put into the mu_KV relation (theory §4 tied jump law), denominators
    cleared, the curve factor kept. Equals :func:`ridge_polynomial` ``("mha-tied")`` up
    to a constant factor (tested).
    """
    mean = gO * (theta1 + h * theta2 / gK)
    s_mu = (1 - w) * (h - w) * (gO - w) / (gK * mean * lam * w)
    image = curve_image(tied_jump_relation(), {S: s_mu, w: -w / h}, (w, lam), (w, lam, 1 - w))
    return orient_ridge(image)


def _case_relation(case: str, normalized: bool) -> sp.Expr:
    """The physical irreducible factor of the S-relation of a theory §4 case."""
    law = case_law(check_case(case), normalized)
    return physical_relation_factor(s_relation(case, normalized), law.mean)


@cached_poly
def cauchy_polynomial(case: str, normalized: bool = False) -> sp.Poly:
    """``P(G, z)``, the Cauchy polynomial of the theory §4 law of ``case`` (of ``nubar``
    when ``normalized``), exact.

    The S-relation of the case (theory §4 compositions; tied cases from the resultant
    elimination of ``mu_KV``) is reduced to its physical factor and mapped by
    :func:`cauchy_from_s_relation`. Poly in gens ``(G, z)`` over
    ``ZZ[theta1, theta2, h, gK, gV, gO]`` (only the parameters the case uses); irreducible,
    with the branch ``G ~ 1/z`` at infinity. Degree in ``G``: 4 (attention, head
    averages), 6 (value, value-tied), 8 (mha, mha-tied).
    """
    return cauchy_from_s_relation(_case_relation(case, normalized))


@cached_poly
def ridge_polynomial(case: str) -> sp.Poly:
    """``F(w, lam)``: the ridge equation of theory §5 for the normalized law of ``case``.

    ``lam w = (1 - w) / S_nubar(-w)`` with ``S_nubar`` eliminated through its relation
    (:func:`ridge_from_s_relation`); Poly in gens ``(w, lam)``, degree 2 in ``lam``. For
    the independent cases it is the theory §5 form
    ``lam^2 w - lam (1 - c w/g) Pi - (c (1 - c)/g) Pi^2`` (``g = gK``, or ``gK/h`` with one
    shared key) up to a nonzero factor; for ``mha-tied`` it is the tied relation of
    :func:`tied_ridge_relation`. The physical root is ``w(lam) = 1/lam + O(lam^-2)``.
    """
    return ridge_from_s_relation(_case_relation(case, True))


@functools.cache
def ridge_derivatives(case: str) -> tuple[sp.Poly, sp.Poly]:
    """``(dF/dw, dF/dlam)`` of :func:`ridge_polynomial` (theory §5), for the implicit
    derivative ``w'(lam) = -F_lam / F_w`` (exact polynomial derivatives)."""
    ridge = ridge_polynomial(case)
    return ridge.diff(w), ridge.diff(lam)


@cached
def ridge_lambda_coefficients(case: str) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """``(a0, a1, a2, D)``: :func:`ridge_polynomial` as a quadratic in ``lam`` (theory §5),
    ``F = a2(w) lam^2 + a1(w) lam + a0(w)``, and its discriminant ``D = a1^2 - 4 a0 a2``,
    each fully factored over ``ZZ[w, parameters]`` (``sympy.factor``).

    The factored forms are what the numeric layer evaluates: near ``w_max`` the expanded
    ``F`` has factors of high multiplicity (``(w - g)^2`` for every ratio ``g``) whose
    expanded coefficients cancel catastrophically, while a product of factors keeps full
    relative precision. Every theory §4 case has degree exactly 2 in ``lam`` (a ValueError
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
    """``[c_1, ..., c_order]`` with ``w(lam) = sum_k c_k lam^-k``, solved from F (theory §5).

    The physical root of :func:`ridge_polynomial` at large ``lam``: with ``eps = 1/lam``,
    ``eps^2 F(w, 1/eps)`` is a polynomial in ``eps`` and ``w``; writing ``w = sum c_k eps^k``,
    the ``eps^k`` coefficient is ``a c_k + (terms in c_1..c_{k-1})`` with ``a`` the
    coefficient of ``w lam^2`` in F, so the ``c_k`` follow one by one (exact, truncated
    power-series arithmetic over the parameters' fraction field). theory §5 states
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
