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
* :func:`polynomial_image` ``phi_* mu`` for a polynomial ``phi`` of any degree ``d >= 2``:
  partial fractions give ``G(z) = sum_i g(x_i) / phi'(x_i)`` over the ``d`` roots of
  ``phi(x) = z`` (``g`` the Cauchy transform of ``mu``), eliminated exactly by power sums
  and traces (:func:`polynomial_eliminant`);
* :func:`quadratic_eliminant`, the two-resultant elimination of ``d = 2`` that
  :mod:`freege.symbolic.pushforward` does once in generic symbols for the tied jump law
  (an independent route to the same curve).

Every step is exact polynomial arithmetic (resultants, factorisation), never numeric.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from math import comb
from typing import Any

import sympy as sp

from freege.symbolic import series
from freege.symbolic.laws import FIELD, FreeLaw, pushforward, to_field
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


def polynomial_eliminant(base: sp.Poly, coeffs: Sequence[Any]) -> sp.Expr:
    """The Cauchy eliminant of the image of a law (Cauchy polynomial ``base``, gens
    ``(G, z)``, of degree ``n`` in ``G``) under ``phi(x) = sum_j coeffs[j] x^j`` of degree
    ``d >= 1``: a polynomial in ``(G, z)`` of degree ``N = n^d`` in ``G`` whose roots are
    every sum ``sum_i s_i`` with ``s_i`` one of the ``n`` roots of
    ``F(s, x_i) = base(s phi'(x_i), x_i)`` at each root ``x_i`` of ``phi(x) = z``
    (partial fractions: ``1/(z - phi(t)) = sum_i 1/(phi'(x_i) (x_i - t))``, so the
    physical ``G`` is the sum with each ``s_i = g(x_i)/phi'(x_i)``; theory §3).

    Exact and resultant-free, in the field ``K = Q(z)[x]/(phi(x) - z)`` (``x`` stands for
    a root ``x_i``; ``phi(x) - z`` is irreducible, being linear in ``z``): the power sums
    ``P_k`` of the ``n`` roots of ``F(., x)`` follow from its coefficients by Newton's
    identities (one inversion of the leading coefficient in ``K``), the "cumulants"
    ``k_k`` of ``log sum_j exp(t s_j) = log n + sum_k k_k t^k/k!`` from them, and since
    the exponential generating function of the power sums of a sum of independent
    choices is the product ``prod_i sum_j exp(t s_ij)``, the power sums of the ``N``
    roots have the cumulants ``Tr_K(k_k) = sum_i k_k(x_i)`` (the trace through the power
    sums of the roots of ``phi - z``). Newton's identities once more give the
    polynomial, its denominators cleared."""
    cs = [sp.sympify(c) for c in coeffs]
    params = sorted((base.free_symbols | set().union(*(c.free_symbols for c in cs)))
                    - {G, z}, key=str)
    field = sp.QQ.frac_field(z, *params)
    ring, x = sp.ring("x", field)
    phi = sum((ring(field.from_sympy(c)) * x**j for j, c in enumerate(cs)), ring.zero)
    modulus = phi - ring(field.from_sympy(z))
    d, n = modulus.degree(), base.degree(G)
    N = n**d

    def in_k(value: Any) -> Any:
        return value.rem(modulus)

    dphi = phi.diff(x)
    poly = sp.Poly(base.as_expr().subs(z, sp.Symbol("x")), G, sp.Symbol("x"))
    f = [ring.zero] * (n + 1)
    for (j, k), c in poly.terms():
        f[j] += ring(field.from_sympy(c)) * x**k
    f = [in_k(fj * dphi**j) for j, fj in enumerate(f)]
    inverse, _, gcd = f[n].gcdex(modulus)
    if gcd != ring.one:
        raise ArithmeticError("the leading coefficient is not invertible modulo phi - z")
    monic = [in_k(fj * inverse) for fj in f]
    power_sums = _power_sums([(-1) ** k * monic[n - k] for k in range(1, n + 1)], N,
                             lambda a, b: in_k(a * b), ring(n))
    cumulants = _cumulants([p * ring(field(sp.Rational(1, n))) for p in power_sums[1:]],
                           lambda a, b: in_k(a * b))
    dense = dict(modulus.terms())
    roots_of_phi = _power_sums([(-1) ** k * dense.get((d - k,), field.zero) / modulus.LC
                                for k in range(1, d + 1)], d - 1, lambda a, b: a * b,
                               field(d))
    traces = [sum((c * roots_of_phi[k] for (k,), c in kappa.terms()), field.zero)
              for kappa in cumulants]
    moments = _moments(traces)
    elementary = _elementary([N * m for m in moments], field.one)
    coefficients = [(-1) ** k * e for k, e in enumerate(elementary)]
    denominator = functools.reduce(lambda a, b: a.lcm(b), (c.denom for c in coefficients))
    return sp.Add(*[(c.numer * denominator.exquo(c.denom)).as_expr() * G ** (N - k)
                    for k, c in enumerate(coefficients)])


def _power_sums(elementary: Sequence[Any], order: int, mul: Callable[[Any, Any], Any],
                count: Any) -> list[Any]:
    """``[p_0 = count, p_1, ..., p_order]``: power sums of the roots whose elementary
    symmetric functions are ``elementary`` (``e_1, ..., e_count``), Newton's identities."""
    out = [count]
    for k in range(1, order + 1):
        acc = sum((mul((-1) ** (i - 1) * elementary[i - 1], out[k - i])
                   for i in range(1, min(k, len(elementary) + 1))), count * 0)
        if k <= len(elementary):
            acc += (-1) ** (k - 1) * k * elementary[k - 1]
        out.append(acc)
    return out


def _cumulants(moments: Sequence[Any], mul: Callable[[Any, Any], Any]) -> list[Any]:
    """``k_1..k_q`` from ``m_1..m_q`` (``m_0 = 1``):
    ``k_k = m_k - sum_{j<k} C(k-1, j-1) k_j m_{k-j}``."""
    out: list[Any] = []
    for k in range(1, len(moments) + 1):
        acc = moments[k - 1]
        for j in range(1, k):
            acc -= comb(k - 1, j - 1) * mul(out[j - 1], moments[k - j - 1])
        out.append(acc)
    return out


def _moments(cumulants: Sequence[Any]) -> list[Any]:
    """``m_1..m_q`` from ``k_1..k_q``: the inverse of :func:`_cumulants`."""
    out: list[Any] = []
    for k in range(1, len(cumulants) + 1):
        out.append(sum((comb(k - 1, j - 1) * cumulants[j - 1] * (out[k - j - 1] if k > j
                                                                 else 1)
                        for j in range(1, k + 1)), 0 * cumulants[0]))
    return out


def _elementary(power_sums: Sequence[Any], one: Any) -> list[Any]:
    """``[e_0 = one, e_1, ..., e_q]`` from ``p_1..p_q``: ``k e_k = sum_i (-1)^(i-1)
    e_(k-i) p_i``."""
    out = [one]
    for k in range(1, len(power_sums) + 1):
        out.append(sum(((-1) ** (i - 1) * out[k - i] * power_sums[i - 1]
                        for i in range(1, k + 1)), 0 * out[0]) / k)
    return out


def polynomial_image(law: FreeLaw, coeffs: Sequence[Any]) -> FreeLaw:
    """The image of ``law`` under ``phi(x) = sum_j coeffs[j] x^j`` (ascending, degree
    ``d >= 2``): moments from ``int phi^q dlaw`` (:func:`~freege.symbolic.laws.pushforward`),
    ``P(G, z)`` the factor of :func:`polynomial_eliminant` that carries the moment series
    (:func:`physical_cauchy_factor`)."""
    cs = [sp.sympify(c) for c in coeffs]
    if len(cs) < 3 or cs[-1] == 0:
        raise ValueError("polynomial_image needs degree >= 2 and a leading coefficient "
                         "other than 0 (use affine for degree 1)")
    image = pushforward(law, cs, cauchy_fn=lambda: physical_cauchy_factor(
        polynomial_eliminant(law.cauchy_polynomial, cs), image))
    return image
