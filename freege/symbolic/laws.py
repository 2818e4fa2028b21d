"""The law algebra of theory §3: symbolic laws that know their moments and S-transform.

A :class:`FreeLaw` carries

* its moments ``m_1, m_2, ...`` to any order, exact, as elements of
  :data:`~freege.symbolic.series.FIELD` (rational functions of ``theta1, theta2, h, gK,
  gV, gO``), computed on demand from the way the law was built;
* its S-relation ``E(S, w)``: a polynomial in the shared symbols ``S`` and ``w`` whose
  root with ``S(0) = 1/m_1`` is the S-transform (theory §3), and, when that root can be
  written down (degree <= 2 in ``S``), the explicit ``S(w)`` on that branch.

Constructors: :func:`marchenko_pastur`, :func:`free_poisson`,
:func:`affine`, :func:`dilation`, :func:`pushforward` (polynomial image),
:func:`free_mult_conv` (``⊠``) and :func:`compound_free_poisson`.
All results are exact; relations are derived by substitution (``⊠`` with rational
S-transforms, dilation, affine maps, compound Poisson) or by resultants (``⊠`` of two
algebraic S-transforms), never numerically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from freege.params import positive_int
from freege.symbolic import series
from freege.symbolic.series import FIELD
from freege.symbolic.symbols import G, S, w, z
from freege.symbolic.transforms import (
    cauchy_from_s_relation,
    curve_image,
    s_relation_from_cauchy,
)

MomentsFn = Callable[[int], list[Any]]


def to_field(value: Any) -> Any:
    """``value`` (a sympy expression in the theory's parameters, or a number) as a FIELD element."""
    return FIELD.from_expr(sp.sympify(value))


def field_to_expr(value: Any) -> sp.Expr:
    """A FIELD element as a readable sympy expression: the monomial and integer content of
    the numerator pulled out, the (small) denominator factored. Exact and deterministic;
    far cheaper than ``sympy.factor`` of the whole rational function at high order."""
    if not value:
        return sp.Integer(0)
    content, numer = value.numer.primitive()
    terms = numer.terms()
    shared = [min(monom[i] for monom, _ in terms) for i in range(len(FIELD.symbols))]
    monomial = sp.Mul(*[s**e for s, e in zip(FIELD.symbols, shared, strict=True)])
    rest = sp.Add(*[
        sp.sympify(coeff) * sp.Mul(*[s ** (e - g) for s, e, g in
                                     zip(FIELD.symbols, monom, shared, strict=True)])
        for monom, coeff in terms
    ])
    return sp.sympify(content) * monomial * rest / sp.factor(value.denom.as_expr())


def clear_relation(expr: sp.Expr) -> sp.Expr:
    """The numerator of ``expr`` as a polynomial in ``S`` and ``w`` with polynomial
    coefficients, made canonical (expanded, content and sign removed)."""
    numer = sp.numer(sp.together(sp.expand(expr)))
    poly = sp.Poly(numer, S, w)
    _, prim = poly.primitive()
    if prim.LC().could_extract_minus_sign():
        prim = -prim
    return sp.collect(sp.expand(prim.as_expr()), [S, w])


def explicit_branch(relation: sp.Expr, m1: sp.Expr) -> sp.Expr | None:
    """The root ``S(w)`` of ``relation`` with ``S(0) = 1/m1`` when the relation has degree
    1 or 2 in ``S`` (theory §3), else None. A quadratic ``A S^2 + B S + C`` is solved in the
    form ``S = -2C / (B ± sqrt(B^2 - 4AC))``, finite where ``A`` vanishes, and the sign is
    the one whose value at ``w = 0`` equals ``1/m1`` provably (None when neither is)."""
    poly = sp.Poly(relation, S)
    if poly.degree() == 1:
        b, c = poly.all_coeffs()
        return sp.factor(-c / b)
    if poly.degree() != 2:
        return None
    a, b, c = (sp.factor(x) for x in poly.all_coeffs())
    outside, radical = _sqrt_pulling_squares(b**2 - 4 * a * c)
    root = outside * radical
    for sign in (1, -1):
        candidate = sp.factor(-2 * c / (b + sign * root)).replace(
            lambda e: e.is_Add and e.has(radical), lambda e: sp.collect(e, radical)
        )
        at_zero = candidate.subs(w, 0).replace(
            lambda e: e.is_Pow and e.exp == sp.S.Half, lambda e: sp.sqrt(sp.factor(e.base))
        )
        if at_zero.is_finite is not False and sp.simplify(at_zero - 1 / m1) == 0:
            return candidate
    return None


def _sqrt_pulling_squares(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """A square root of ``expr`` as ``(outside, sqrt(inside))``, the squared polynomial
    factors taken outside. The sign this fixes is immaterial: :func:`explicit_branch`
    tries both signs of the root."""
    content, factors = sp.factor_list(expr)
    outside, inside = sp.Integer(1), sp.sympify(content)
    for factor, mult in factors:
        outside *= factor ** (mult // 2)
        inside *= factor ** (mult % 2)
    return outside, sp.sqrt(inside)


class FreeLaw:
    """A symbolic law of theory §3: moments to any order and an S-relation ``E(S, w)``.

    The exact object of the law algebra (named for free probability); the numbers of a
    law -- density, cdf, readouts -- are :class:`freege.numeric.law.Law`, built from the
    equations this one derives.

    Build laws with the module's constructors rather than directly. ``moments_fn(order)``
    returns ``m_1..m_order`` as FIELD elements; ``relation_fn()`` returns the S-relation
    and ``cauchy_fn()`` the Cauchy polynomial ``P(G, z)`` (each computed lazily, once).
    Either may be None: the S-relation then comes from the Cauchy polynomial and the
    Cauchy polynomial from the S-relation (the birational map of theory §3,
    :mod:`freege.symbolic.transforms`). A law of mean 0 (a semicircle, ``⊞`` of centred
    laws) has no S-transform: it is given by its Cauchy polynomial, and asking for its
    S-relation raises a ValueError.
    """

    def __init__(
        self,
        name: str,
        moments_fn: MomentsFn,
        relation_fn: Callable[[], sp.Expr] | None,
        inverse_linear_s: tuple[Any, Any] | None = None,
        cauchy_fn: Callable[[], sp.Poly] | None = None,
    ) -> None:
        if relation_fn is None and cauchy_fn is None:
            raise ValueError("a FreeLaw needs an S-relation or a Cauchy polynomial")
        self.name = name
        #: ``(a, b)`` (FIELD elements) when ``S(w) = 1/(a + b w)`` (MP, free Poisson)
        self.inverse_linear_s = inverse_linear_s
        self._moments_fn = moments_fn
        self._relation_fn = relation_fn
        self._cauchy_fn = cauchy_fn
        self._moments: list[Any] = []
        self._relation: sp.Expr | None = None
        self._cauchy: sp.Poly | None = None
        self._explicit: tuple[sp.Expr | None] | None = None

    def __repr__(self) -> str:
        return f"FreeLaw({self.name})"

    def field_moments(self, order: int) -> list[Any]:
        """``m_1..m_order`` as FIELD elements (exact; memoised to the longest order asked)."""
        order = positive_int("order", order)
        if order > len(self._moments):
            self._moments = list(self._moments_fn(order))
        return self._moments[:order]

    def moments(self, order: int) -> list[sp.Expr]:
        """``m_1..m_order`` as simplified sympy expressions (see :func:`field_to_expr`)."""
        return [field_to_expr(m) for m in self.field_moments(order)]

    def field_cumulants(self, order: int) -> list[Any]:
        return series.moments_to_cumulants(self.field_moments(order))

    def cumulants(self, order: int) -> list[sp.Expr]:
        """Free cumulants ``kappa_1..kappa_order`` (theory §3), simplified."""
        return [field_to_expr(k) for k in self.field_cumulants(order)]

    @property
    def mean(self) -> sp.Expr:
        """``m_1``."""
        return self.moments(1)[0]

    @property
    def s_relation(self) -> sp.Expr:
        """``E(S, w)``, polynomial in ``S`` and ``w``; the S-transform is its root with
        ``S(0) = 1/m_1`` (theory §3)."""
        if self._relation is None:
            if self.field_moments(1)[0] == 0:
                raise ValueError(f"{self.name} has mean 0: it has no S-transform (theory §3)")
            if self._relation_fn is not None:
                self._relation = self._relation_fn()
            else:
                self._relation = s_relation_from_cauchy(self.cauchy_polynomial)
        return self._relation

    @property
    def cauchy_polynomial(self) -> sp.Poly:
        """``P(G, z)`` (gens ``(G, z)``), the irreducible polynomial whose root ``G ~ 1/z``
        at infinity is the Cauchy transform (theory §3 polynomial method); from the
        physical factor of the S-relation unless the law was built from ``P``."""
        if self._cauchy is None:
            if self._cauchy_fn is not None:
                self._cauchy = self._cauchy_fn()
            else:
                self._cauchy = cauchy_from_s_relation(self.s_relation, self.mean)
        return self._cauchy

    @property
    def s_explicit(self) -> sp.Expr | None:
        """The S-transform ``S(w)`` on the branch ``S(0) = 1/m_1`` when it has a closed
        form (relation of degree <= 2 in ``S``), else None."""
        if self._explicit is None:
            self._explicit = (explicit_branch(self.s_relation, self.mean),)
        return self._explicit[0]


def _narayana_moments(t: Any, scale: Any, order: int) -> list[Any]:
    """``m_q = scale^q sum_k N(q, k) t^k`` with the Narayana numbers
    ``N(q, k) = C(q, k) C(q, k-1) / q``: the moments of ``D_scale pi_t`` (theory §3)."""
    return [
        scale**q * sum(
            (sp.binomial(q, k) * sp.binomial(q, k - 1) / q) * t**k for k in range(1, q + 1)
        )
        for q in range(1, order + 1)
    ]


def free_poisson(t: Any) -> FreeLaw:
    """``pi_t``: all free cumulants ``t``, mean ``t``, ``S(w) = 1/(t + w)`` (theory §3)."""
    tf = to_field(t)
    return FreeLaw(
        f"pi[{t}]",
        lambda n: _narayana_moments(tf, FIELD.one, n),
        lambda: clear_relation(S * (t + w) - 1),
        inverse_linear_s=(tf, FIELD.one),
    )


def marchenko_pastur(s: Any) -> FreeLaw:
    """``MP_s``: mean 1, variance ``s``, free cumulants ``s^(q-1)``, ``S(w) = 1/(1 + s w)``
    (theory §3); it is ``D_s pi_{1/s}``, whose moments are Narayana polynomials."""
    sf = to_field(s)
    return FreeLaw(
        f"MP[{s}]",
        lambda n: _narayana_moments(1 / sf, sf, n),
        lambda: clear_relation(S * (1 + s * w) - 1),
        inverse_linear_s=(FIELD.one, sf),
    )


def _poly_image_moments(law: FreeLaw, coeffs: Sequence[Any], order: int) -> list[Any]:
    """``m_q(phi_* law) = sum_j [x^j] phi(x)^q m_j(law)`` for the polynomial
    ``phi(x) = sum_j coeffs[j] x^j`` (exact; needs ``deg(phi) q`` moments of ``law``)."""
    degree = len(coeffs) - 1
    base = [FIELD.one, *law.field_moments(degree * order)]
    out, phi_q = [], [FIELD.one]
    for q in range(1, order + 1):
        phi_q = series.mul(phi_q, coeffs, degree * q + 1)
        out.append(sum((c * m for c, m in zip(phi_q, base, strict=False)), FIELD.zero))
    return out


def pushforward(
    law: FreeLaw, coeffs: Sequence[Any], relation_fn: Callable[[], sp.Expr] | None = None,
    cauchy_fn: Callable[[], sp.Poly] | None = None,
) -> FreeLaw:
    """The image of ``law`` under ``phi(x) = sum_j coeffs[j] x^j`` (theory §4, tied jump
    law). Moments exact from the definition ``m_q = int phi(x)^q d law``. The S-relation
    of a nonlinear image is an elimination, not a substitution: ``relation_fn`` supplies
    it (for ``mu_KV``, :func:`freege.symbolic.pushforward.tied_jump_relation`), or
    ``cauchy_fn`` the Cauchy polynomial (:func:`freege.symbolic.additive.polynomial_image`);
    without either, asking for the relation raises NotImplementedError."""
    cf = [to_field(c) for c in coeffs]

    def no_relation() -> sp.Expr:
        raise NotImplementedError("the S-relation of a polynomial image needs relation_fn")

    return FreeLaw(
        f"phi[{', '.join(map(str, coeffs))}]_*{law.name}",
        lambda n: _poly_image_moments(law, cf, n),
        relation_fn if relation_fn is not None or cauchy_fn is not None else no_relation,
        cauchy_fn=cauchy_fn,
    )


def affine(law: FreeLaw, a: Any, b: Any) -> FreeLaw:
    """The law of ``a X + b`` (``a != 0``). Moments by the binomial expansion; since
    ``R_{aX+b}(z) = a R_X(a z) + b`` and ``S R(w S) = 1`` (theory §3), the S-relation is
    ``E(a S / (1 - b S), w (1 - b S))`` with the denominators cleared."""
    a, b = sp.sympify(a), sp.sympify(b)
    if a == 0:
        raise ValueError("affine map needs a != 0")
    cf = [to_field(b), to_field(a)]

    def relation() -> sp.Expr:
        if law.field_moments(1)[0] == 0:  # no S-relation to map: go through P(G, z)
            return s_relation_from_cauchy(cauchy())
        return clear_relation(law.s_relation.subs({S: a * S / (1 - b * S), w: w * (1 - b * S)},
                                                  simultaneous=True))

    def cauchy() -> sp.Poly:
        # G_{aX+b}(z) = G_X((z - b)/a) / a
        return curve_image(law.cauchy_polynomial.as_expr(), {G: a * G, z: (z - b) / a},
                           (G, z), (G,))

    return FreeLaw(
        f"({a}*{law.name}+{b})",
        lambda n: _poly_image_moments(law, cf, n),
        relation,
        cauchy_fn=cauchy,
    )


def dilation(law: FreeLaw, a: Any) -> FreeLaw:
    """``D_a law``, the law of ``a X`` (``a != 0``): ``m_q -> a^q m_q``, S divided by ``a``
    (theory §3)."""
    return affine(law, a, 0)


def _rational_s(law: FreeLaw) -> sp.Expr | None:
    """The S-transform of ``law`` when it is a rational function of ``w``, else None."""
    explicit = law.s_explicit
    if explicit is not None and explicit.is_rational_function(w):
        return explicit
    return None


def _product_relation(laws: Sequence[FreeLaw]) -> sp.Expr:
    """S-relation of ``⊠ laws`` (theory §3, S-transforms multiply): substitute
    ``S -> S / prod(rational S)`` into the one non-rational factor's relation; with several
    algebraic factors, eliminate by resultants and keep the factor through
    ``(S, w) = (1/m_1, 0)``."""
    rational = [_rational_s(law) for law in laws]
    others = [law for law, r in zip(laws, rational, strict=True) if r is None]
    known = sp.Mul(*[r for r in rational if r is not None])
    if not others:
        return clear_relation(S - known)
    relation = others[0].s_relation.subs(S, S / known)
    if len(others) == 1:
        return clear_relation(relation)
    for other in others[1:]:
        relation = _resultant_product(clear_relation(relation), other.s_relation)
    m1 = sp.Mul(*[law.mean for law in laws])
    return _factor_through(clear_relation(relation), 1 / m1)


def _resultant_product(e1: sp.Expr, e2: sp.Expr) -> sp.Expr:
    """Relation of ``S = S1 S2`` from ``e1(S1, w) = 0`` and ``e2(S2, w) = 0``:
    ``Res_{S1}(e1(S1, w), S1^{deg} e2(S/S1, w))``."""
    s1 = sp.Dummy("s1")
    degree = sp.Poly(e2, S).degree()
    second = sp.expand(s1**degree * e2.subs(S, S / s1))
    return sp.resultant(e1.subs(S, s1), second, s1)


def _factor_through(relation: sp.Expr, s0: sp.Expr) -> sp.Expr:
    """The irreducible factor of ``relation`` that vanishes at ``(S, w) = (s0, 0)``."""
    _, factors = sp.factor_list(relation, S, w)
    if len(factors) == 1:
        return relation
    for factor, _mult in factors:
        if factor.has(S) and sp.simplify(factor.subs({S: s0, w: 0})) == 0:
            return clear_relation(factor)
    raise ArithmeticError("no factor of the S-relation passes through S(0) = 1/m1")


def _product_moments(laws: Sequence[FreeLaw], order: int) -> list[Any]:
    """Moments of ``⊠ laws``: the general factors by multiplying S-series, then each factor
    with ``S = 1/(a + b w)`` by the division-free Lagrange formula of
    :func:`~freege.symbolic.series.conv_inverse_linear_moments` (exact either way)."""
    simple = [law for law in laws if law.inverse_linear_s is not None]
    general = [law for law in laws if law.inverse_linear_s is None]
    if not general:
        general = [simple.pop(0)]
    if len(general) == 1:
        moments = general[0].field_moments(order)
    else:
        moments = series.s_product_moments([law.field_moments(order) for law in general])
    for law in simple:
        moments = series.conv_inverse_linear_moments(moments, *law.inverse_linear_s)
    return moments


def free_mult_conv(*laws: FreeLaw) -> FreeLaw:
    """``laws[0] ⊠ laws[1] ⊠ ...`` (theory §3): S-transforms multiply. Moments exact at every
    order (S-series products by Lagrange inversion; see :func:`_product_moments`)."""
    if len(laws) < 2:
        raise ValueError("free_mult_conv needs at least two laws")
    return FreeLaw(
        " ⊠ ".join(law.name for law in laws),
        lambda n: _product_moments(laws, n),
        lambda: _product_relation(laws),
    )


def compound_free_poisson(mu: FreeLaw, t: Any) -> FreeLaw:
    """``pi(mu, t)`` (theory §3): free cumulants ``t m_q(mu)``;
    ``S(w) = S_mu(w / t) / (t + w)``. Its Cauchy polynomial comes from ``mu``'s by the
    R-transform ``R(u) = t int x / (1 - x u) dmu(x)``, so a jump law of mean 0 is allowed."""
    tf = to_field(t)

    def cauchy() -> sp.Poly:
        # R(u) = t int x/(1 - x u) dmu = (t/u) (G_mu(1/u)/u - 1), and z = R(G) + 1/G
        return curve_image(mu.cauchy_polynomial.as_expr(),
                           {G: G + G * (z * G - 1) / t, z: 1 / G}, (G, z), (G,))

    return FreeLaw(
        f"pi({mu.name}, {t})",
        lambda n: series.cumulants_to_moments([tf * m for m in mu.field_moments(n)]),
        lambda: clear_relation(mu.s_relation.subs({S: S * (t + w), w: w / t}, simultaneous=True)),
        cauchy_fn=cauchy,
    )
