"""The tied-K/V jump law mu_KV, derived exactly (theory §4 "Tied jump law").

``mu_KV`` is the pushforward of the free Poisson law ``pi_t``, ``t = gK/h`` (the
n-dimensional law of ``K_r K_r^T / n``: mean ``t``, atom ``1 - t`` at 0 when ``t < 1``),
under ``phi(x) = a x + b x^2`` with ``a = theta1 - theta2`` and ``b = (h/gK) theta2``;
``phi(0) = 0`` keeps the atom at 0.

* Moments (exact): ``m_q(mu_KV) = sum_i C(q, i) a^i b^(q-i) m_(2q-i)(pi_t)`` with the
  free Poisson moments ``m_k(pi_t) = sum_j N(k, j) t^j`` (Narayana numbers ``N``).
* Cauchy transform (exact elimination, no quadrature): with ``x1, x2`` the roots of
  ``phi(x) = z`` (``x1 + x2 = -a/b``, ``x1 x2 = -z/b``), partial fractions give
  ``G_mu(z) = (g(x1) - g(x2)) / (b (x1 - x2))`` where ``g = G_{pi_t}`` solves
  ``x g^2 - (x + 1 - t) g + 1 = 0``. Eliminating ``g(x2)`` and then ``x1`` with two
  resultants (``x2 = -a/b - x1``, ``g(x1) = g(x2) + G (2 b x1 + a)``, ``z = b x1^2 + a x1``)
  yields ``P_mu(G, z)`` times spurious factors (a power of ``b``, of the discriminant
  ``a^2 + 4 b z``, and the square from the symmetry ``x1 <-> x2``). The remaining
  quartic in ``G`` is the physical factor: it is selected because it annihilates the
  moment series ``G = sum m_k z^(-k-1)`` (checked to order 8 at derivation time).
* S-relation: the birational map ``G = S w``, ``z = (1 + w)/(S w)`` (theory §3) turns the
  quartic into a relation quadratic in ``S`` (see ``derivations/tied_kv.md``).
"""

from __future__ import annotations

import sympy as sp

from freege.params import positive_int
from freege.symbolic.additive import quadratic_eliminant
from freege.symbolic.cache import cached, cached_poly
from freege.symbolic.symbols import G, gK, h, theta1, theta2, z
from freege.symbolic.transforms import (
    cauchy_series_residual,
    s_relation_from_cauchy,
)

#: generic symbols of the elimination: phi(x) = a x + b x^2 pushed from pi_t
a, b, t = sp.symbols("a b t", positive=True)

#: order to which the selected Cauchy factor must annihilate the moment series
SELECTION_ORDER = 8


def tied_jump_map() -> dict[sp.Symbol, sp.Expr]:
    """``{a, b, t}`` of theory §4: ``theta1 - theta2``, ``h theta2/gK``, ``gK/h``."""
    return {a: theta1 - theta2, b: h * theta2 / gK, t: gK / h}


def free_poisson_moment(k: int, t: sp.Expr) -> sp.Expr:
    """``m_k(pi_t) = sum_{j=1}^k N(k, j) t^j``, Narayana ``N(k, j) = C(k,j) C(k,j-1)/k``
    (theory §3).

    Exact (``m_0 = 1``); ``pi_t`` has every free cumulant equal to ``t``, and the
    non-crossing partitions of ``k`` points with ``j`` blocks are counted by ``N(k, j)``.
    """
    if k == 0:
        return sp.Integer(1)
    return sp.expand(
        sum(sp.binomial(k, j) * sp.binomial(k, j - 1) / k * t**j for j in range(1, k + 1))
    )


def generic_moments(order: int) -> list[sp.Expr]:
    """``m_1..m_order`` of ``phi_* pi_t`` in the generic ``a, b, t`` (expanded polynomials):
    ``m_q = sum_i C(q, i) a^i b^(q-i) m_(2q-i)(pi_t)`` (binomial expansion of ``phi^q``)."""
    return [
        sp.expand(
            sum(
                sp.binomial(q, i) * a**i * b ** (q - i) * free_poisson_moment(2 * q - i, t)
                for i in range(q + 1)
            )
        )
        for q in range(1, order + 1)
    ]


@cached
def tied_jump_moments(order: int) -> tuple[sp.Expr, ...]:
    """``(m_1, ..., m_order)`` of ``mu_KV`` in ``theta1, theta2, h, gK`` (theory §4), exact.

    ``m_q = int phi(x)^q dpi_t(x) = sum_i C(q, i) a^i b^(q-i) m_(2q-i)(pi_t)``: binomial
    expansion of ``phi^q`` against the Narayana moments of ``pi_t``. Each moment is
    returned factored (a rational function of the parameters).
    """
    subs = tied_jump_map()
    return tuple(sp.factor(m.subs(subs)) for m in generic_moments(positive_int("order", order)))


@cached
def generic_elimination() -> list[tuple[sp.Expr, int]]:
    """Factors (with multiplicities) of the eliminant for ``phi_* pi_t``, generic ``a, b, t``.

    Two resultants (:func:`~freege.symbolic.additive.quadratic_eliminant`, no
    quadrature): ``g(x2)`` is eliminated between the free Poisson
    equations at ``x1`` and ``x2 = -a/b - x1`` (with ``g(x1) = g(x2) + G (2 b x1 + a)``,
    the partial-fraction identity ``b (x1 - x2) G = g(x1) - g(x2)``), then ``x1`` against
    ``b x1^2 + a x1 - z``. Returns ``sympy.factor_list`` of the result in ``(G, z)``
    (the numeric content first, as ``(content, 1)``), sorted deterministically.
    """
    free_poisson = sp.Poly(z * G**2 - (z + 1 - t) * G + 1, G, z)
    eliminated = quadratic_eliminant(free_poisson, a, b)
    content, factors = sp.factor_list(sp.expand(eliminated), G, z)
    ordered = sorted(factors, key=lambda fm: (sp.Poly(fm[0], G, z).total_degree(), str(fm[0])))
    return [(sp.sympify(content), 1), *ordered]


@cached_poly
def generic_cauchy_polynomial() -> sp.Poly:
    """The Cauchy polynomial of ``phi_* pi_t`` (``phi(x) = a x + b x^2``), generic ``a, b, t``.

    The factor of :func:`generic_elimination` whose moment-series residual
    (:func:`~freege.symbolic.transforms.cauchy_series_residual`) vanishes identically to
    order :data:`SELECTION_ORDER` against :func:`generic_moments`; exactly one does.
    """
    moments = generic_moments(SELECTION_ORDER)
    physical = [
        f
        for f, _ in generic_elimination()
        if f.has(G) and all(c == 0 for c in cauchy_series_residual(f, moments))
    ]
    if len(physical) != 1:  # pragma: no cover - a failed derivation, not user input
        raise RuntimeError(f"tied jump law: {len(physical)} factors carry the moment series")
    return sp.Poly(physical[0], G, z)


@cached
def generic_relation() -> sp.Expr:
    """The S-relation of ``phi_* pi_t`` in the generic ``a, b, t`` (quadratic in ``S``)."""
    return s_relation_from_cauchy(generic_cauchy_polynomial())


@cached_poly
def tied_jump_cauchy_polynomial() -> sp.Poly:
    """``P_mu(G, z)``: the Cauchy polynomial of ``mu_KV`` (theory §4), exact.

    Poly in gens ``(G, z)``, coefficients in ``ZZ[theta1, theta2, h, gK]``, degree 4 in
    ``G``; derived by resultant elimination (see the module docstring), primitive, with a
    positive leading coefficient.
    """
    expr = generic_cauchy_polynomial().as_expr().subs(tied_jump_map(), simultaneous=True)
    poly = sp.Poly(sp.expand(sp.numer(sp.together(expr))), G, z)
    _, poly = poly.primitive()
    return -poly if poly.LC().could_extract_minus_sign() else poly


@cached
def tied_jump_relation() -> sp.Expr:
    """``E_mu(S, w)``: the polynomial relation of ``S_{mu_KV}`` (theory §3, §4), exact.

    Image of :func:`tied_jump_cauchy_polynomial` under ``G = S w``, ``z = (1 + w)/(S w)``;
    quadratic in ``S``, in ``theta1, theta2, h, gK``. The physical root is the one with
    ``S(0) = 1/m1(mu_KV) = 1/(theta1 gK/h + theta2)`` (the other root has a pole at 0).
    """
    return s_relation_from_cauchy(tied_jump_cauchy_polynomial())
