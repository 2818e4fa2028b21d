"""The exact data of a law for :mod:`freege.numeric.certify` (theory §1.2, §4, §7; the law
algebra, docs/algebra.md).

Holds the exact specialisations of a law's polynomials over QQ in everything but
``theta1`` (:class:`_LawData`, built by :func:`case_data` for a theory §4 case: its Cauchy
polynomial from the symbolic layer's term tables, first moment, hull ``[0, inf)``, edge
polynomial ``disc_G(P) lc_G(P)`` with FLINT's multivariate polynomials, the
rank-deficiency atom at 0) and of an expression of the law algebra
(:class:`_ExpressionData`, built by :func:`expression_data`: rational Cauchy polynomial,
exact moments and atoms, a dyadic enclosure of ``expr.bounds()``, the irreducible factors
of its edge polynomial), with the exact polynomial helpers they share (term tables,
specialisation, the lowest-order part of ``P(m/z, z)``).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import sympy as sp

from freege.numeric import _symbolic
from freege.numeric.certify_balls import (
    NeedPrecision,
    ThetaPoly,
    _real_roots,
    _theta_eval,
    arb,
    arf_fraction,
    exact,
    flint,
)
from freege.symbolic.symbols import theta1

#: the rank-deficiency ratios of each case (theory §4): the atom at 0 is 1 - min(1, ...)
_ATOM_RATIOS = {
    "attention": (), "head-average": (), "head-average-shared-key": (),
    "value": ("gV",), "mha": ("gV", "gO"), "value-tied": ("gK",), "mha-tied": ("gK", "gO"),
}



@functools.cache
def _term_table(kind: str, case: str, normalized: bool) -> tuple:
    """``((exponents in the gens), ((parameter exponents), coefficient), ...)`` of the
    Cauchy (``kind='cauchy'``) or ridge (``'ridge'``) polynomial, parameters in
    :data:`_symbolic.PARAMETERS` order, rational coefficients."""
    poly = (_symbolic.cauchy_polynomial(case, normalized) if kind == "cauchy"
            else _symbolic.ridge_polynomial(case))
    table = []
    for monom, coeff in poly.terms():
        inner = sp.Poly(coeff, *_symbolic.PARAMETERS, domain=sp.QQ)
        table.append((monom, tuple((m, Fraction(int(c.p), int(c.q)))
                                   for m, c in inner.terms())))
    return tuple(table)


def _parameter_fractions(ratios: Any) -> tuple[Fraction, ...]:
    """``(theta2, h, gK, gV, gO)`` exactly (``theta2 = beta^2``)."""
    beta = exact(ratios.beta)
    return (beta * beta, exact(ratios.h), exact(ratios.gK), exact(ratios.gV),
            exact(ratios.gO))


def _specialize(table: tuple, values: tuple[Fraction, ...]) -> ThetaPoly:
    """Substitute the exact parameter values, keeping theta1 (exponent 0 of the table)."""
    out: ThetaPoly = {}
    for monom, inner in table:
        row = out.setdefault(monom, {})
        for exps, coeff in inner:
            term = coeff
            for v, e in zip(values, exps[1:], strict=True):
                if e:
                    term *= v ** e
            row[exps[0]] = row.get(exps[0], Fraction(0)) + term
    return {m: {k: c for k, c in row.items() if c} for m, row in out.items()
            if any(row.values())}


def _edge_polynomial(spec: ThetaPoly) -> ThetaPoly:
    """Square-free part of ``disc_G(P) * lc_G(P)`` in ``QQ[z, theta1]`` (``P`` the Cauchy
    polynomial ``spec`` in ``(G, z)``), with the factors ``z`` removed (0 is always a
    candidate): its real roots are the edge candidates (theory §7.1). Exact, with FLINT's
    ``fmpq_mpoly`` (discriminant, square-free factorisation)."""
    ctx = flint.fmpq_mpoly_ctx.get(("G", "z", "t"), "lex")
    degree = max(i for i, _ in spec)

    def poly(rows: ThetaPoly) -> Any:
        return ctx.from_dict({(i, j, k): flint.fmpq(c.numerator, c.denominator)
                              for (i, j), row in rows.items() for k, c in row.items()})

    p = poly(spec)
    lc = poly({(0, j): row for (i, j), row in spec.items() if i == degree})
    _, factors = (p.discriminant("G") * lc).factor_squarefree()
    terms = functools.reduce(lambda a, b: a * b, (f for f, _ in factors), ctx.from_dict(
        {(0, 0, 0): 1})).to_dict()
    shift = min(e[1] for e in terms)  # the power of z dividing every term
    out: ThetaPoly = {}
    for (_, j, k), c in terms.items():
        out.setdefault((j - shift,), {})[k] = Fraction(int(c.numerator), int(c.denominator))
    return out


def _low_order_part(spec: ThetaPoly) -> dict[int, dict[int, Fraction]]:
    """Lowest-order part in ``z`` of ``P(m/z, z)`` as ``{power of m: theta1 poly}``: its
    roots are the possible masses ``lim_{z->0} z G(z)``."""
    low = min(j - i for i, j in spec)
    return {i: row for (i, j), row in spec.items() if j - i == low}


def _theta1(ratios: Any) -> Any:
    b = exact(ratios.beta)
    return arb(b * b).expm1()


# ---------------------------------------------------------------------- the law's data
class _LawData:
    """Exact specialisations of one law's polynomials (everything but theta1). A theory §4
    law lives on ``[0, inf)`` with its only atom at 0 (the rank deficiency)."""

    def __init__(self, case: str, ratios: Any, normalized: bool) -> None:
        self.case = case
        self.ratios = ratios
        self.normalized = normalized
        self.values = _parameter_fractions(self.ratios)
        self.cauchy = _specialize(_term_table("cauchy", self.case, self.normalized),
                                  self.values)
        self.degree = max(i for i, _ in self.cauchy)
        self._edges: dict[Any, Any] = {}

    def cauchy_rows(self, i: int) -> dict[int, dict[int, Fraction]]:
        """Coefficient of ``G^i`` in ``P``: ``{power of z: theta1 polynomial}``."""
        return {j: row for (k, j), row in self.cauchy.items() if k == i}

    def ridge_spec(self) -> ThetaPoly:
        """The normalized law's ridge polynomial ``F(w, lam)`` (theory §5), exact but for
        theta1."""
        return _specialize(_term_table("ridge", self.case, True), self.values)

    def mean_row(self) -> dict[int, Fraction]:
        """The first moment ``m1`` as an exact theta1 polynomial (theory §4)."""
        expr = _symbolic.moment_expressions(self.case, 1, self.normalized)[0]
        subs = dict(zip(_symbolic.PARAMETERS[1:], (sp.Rational(v.numerator, v.denominator)
                                                   for v in self.values), strict=True))
        poly = sp.Poly(sp.expand(expr.subs(subs)), theta1, domain=sp.QQ)
        return {m[0]: Fraction(int(c.p), int(c.q)) for m, c in poly.terms()}

    def hull(self) -> tuple[Fraction | None, Fraction | None]:
        """Exact rationals ``(lo, hi)`` (None: unbounded) with the support and the atoms
        in ``[lo, hi]``: ``[0, inf)`` (the laws are Gram spectra)."""
        return Fraction(0), None

    def zero_density(self, x: Fraction) -> bool:
        """Whether the density at ``x`` is 0 by the hull alone: ``x < 0``."""
        return x < 0

    def centre(self, x: Fraction) -> Fraction:
        """The point ``c`` of the tracked ``u = (z - c) G(z)`` for the density at ``x``:
        0, the atom's pole and the hard edge (module docstring)."""
        return Fraction(0)

    def spread(self, c: Fraction, t1: Any) -> Any:
        """A ball whose upper end bounds ``int |t - c| dnu(t)``: the mean, for ``c = 0``
        and a law on ``[0, inf)``."""
        return _theta_eval(self.mean_row(), t1)

    def edge_candidates(self, prec: int) -> list[Any]:
        """0 and the positive real roots of the edge polynomial, as balls, ascending."""
        rows = {m[0]: row for m, row in self.edge_polynomial.items()}
        with flint.ctx.workprec(prec):
            roots = _real_roots(rows, self.theta1(), prec)
        positive = []
        for r in roots:
            if r > 0:
                positive.append(r)
            elif not r < 0:
                raise NeedPrecision("an edge candidate is not separated from 0")
        return [flint.arb(0)] + positive

    @functools.cached_property
    def edge_polynomial(self) -> ThetaPoly:
        """:func:`_edge_polynomial` of the law (computed once)."""
        return _edge_polynomial(self.cauchy)

    def theta1(self) -> Any:
        """The ball of ``theta1 = expm1(beta^2)`` at the ambient precision."""
        return _theta1(self.ratios)

    def atom_mass(self) -> Fraction:
        names = _ATOM_RATIOS[self.case]
        r = self.ratios
        return 1 - min([Fraction(1)] + [exact(getattr(r, n)) for n in names])

    def atoms(self) -> list[tuple[Fraction, Fraction]]:
        """``[(location, exact mass), ...]`` to check against ``P``: the rank deficiency at
        0 (checked also when it is 0)."""
        return [(Fraction(0), self.atom_mass())]


def _sympy_fraction(value: Any, what: str, text: str) -> Fraction:
    value = sp.sympify(value)
    if not value.is_Rational:
        raise ValueError(f"certified mode needs rational numbers: {what} of {text} is "
                         f"{value}")
    return Fraction(int(value.p), int(value.q))


#: bits of the dyadic rationals that enclose an expression's support bounds
_HULL_BITS = 64


def _outer_dyadic(value: Any, up: bool) -> Fraction | None:
    """A dyadic rational strictly beyond the exact real ``value`` (above it when ``up``),
    within ``2^-63``; None for an infinite bound. sympy decides ``floor`` and ``ceiling``
    of an algebraic number exactly; one unit more keeps the bound strict."""
    value = sp.sympify(value)
    if not value.is_finite:
        return None
    scale = sp.Integer(2) ** _HULL_BITS
    n = int(sp.ceiling(value * scale)) + 1 if up else int(sp.floor(value * scale)) - 1
    return Fraction(n, 2**_HULL_BITS)


class _ExpressionData(_LawData):
    """Exact data of an expression of the law algebra (docs/algebra.md): its Cauchy
    polynomial with rational coefficients (no theta1: every row is a constant), the first
    two moments, the atoms with their exact locations and masses (the expression's
    Bercovici-Voiculescu rules), and a dyadic enclosure of the exact bounds
    ``expr.bounds()``. Supports anywhere on the line and atoms anywhere are certified
    (module docstring); irrational numbers are a ValueError naming the number."""

    def __init__(self, expr: Any) -> None:
        text = str(expr)
        self.text = text
        poly = expr.cauchy_polynomial()
        self.cauchy = {}
        for monom, coeff in poly.terms():
            self.cauchy[monom] = {0: _sympy_fraction(coeff, "a Cauchy coefficient", text)}
        self.degree = max(i for i, _ in self.cauchy)
        self._mean, self._second = (_sympy_fraction(m, f"the moment m{k}", text)
                                    for k, m in enumerate(expr.moments(2), start=1))
        self._atoms = [(_sympy_fraction(x, "an atom's location", text),
                        _sympy_fraction(p, "an atom's mass", text)) for x, p in expr.atoms()]
        lo, hi = expr.bounds()
        self._hull = (_outer_dyadic(lo, up=False), _outer_dyadic(hi, up=True))
        self._edges = {}

    def ridge_spec(self) -> ThetaPoly:
        """No ridge polynomial: ``w(lam)`` is certified for the theory §4 cases only."""
        raise ValueError("w(lam) is certified for the theory §4 cases only (not for an "
                         "expression of the law algebra)")

    def theta1(self) -> Any:
        """No theta1 in an expression's polynomial: the rows are constants."""
        return flint.arb(0)

    def mean_row(self) -> dict[int, Fraction]:
        return {0: self._mean} if self._mean else {}

    def hull(self) -> tuple[Fraction | None, Fraction | None]:
        """Dyadic rationals strictly outside the exact bounds ``expr.bounds()``."""
        return self._hull

    def zero_density(self, x: Fraction) -> bool:
        """Whether ``x`` is at or beyond an end of the hull (strictly outside the
        support)."""
        lo, hi = self._hull
        return (lo is not None and x <= lo) or (hi is not None and x >= hi)

    def centre(self, x: Fraction) -> Fraction:
        """The atom nearest ``x`` (``u`` stays bounded at its pole); without atoms the
        lower end of the hull (``u`` is then ``w G(w)`` of a law on ``[0, inf)`` in
        ``w = z - c``), or 0 (-1 at ``x = 0``) for an unbounded one. Never ``x``: an
        atom's location is refused before (the leading coefficient vanishes there)."""
        if self._atoms:
            return min((loc for loc, _ in self._atoms), key=lambda loc: abs(loc - x))
        lo = self._hull[0]
        if lo is not None:
            return lo
        return Fraction(-1) if x == 0 else Fraction(0)

    def spread(self, c: Fraction, t1: Any) -> Any:
        """``m1 - c`` when the law lies above ``c``, ``c - m1`` when below, else the
        Cauchy-Schwarz bound ``sqrt(m2 - 2 c m1 + c^2)``."""
        lo, hi = self._hull
        if lo is not None and c <= lo:
            return arb(self._mean - c)
        if hi is not None and c >= hi:
            return arb(c - self._mean)
        return arb(self._second - 2 * c * self._mean + c * c).sqrt()

    def edge_candidates(self, prec: int) -> list[Any]:
        """The real roots of the square-free part of ``disc_G(P) lc_G(P)`` (exactly
        univariate over QQ), ascending: its rational roots (linear factors over QQ, e.g. a
        hard edge at an atom) rounded to ``prec`` bits (exact at a dyadic point), isolated
        balls for the others."""
        roots = []
        with flint.ctx.workprec(prec):
            for factor in self.edge_factors:
                coeffs = [Fraction(int(c.p), int(c.q)) for c in factor.coeffs()]
                if len(coeffs) == 2:
                    roots.append(arb(-coeffs[0] / coeffs[1]))
                else:
                    roots += _real_roots({j: {0: c} for j, c in enumerate(coeffs) if c},
                                         flint.arb(0), prec)
        return sorted(roots, key=lambda b: arf_fraction(b.mid()))

    @functools.cached_property
    def edge_factors(self) -> tuple[Any, ...]:
        """The distinct irreducible factors over QQ (``fmpq_poly``) of
        ``disc_G(P) lc_G(P)`` (exact, FLINT)."""
        return _expression_edge_factors(self.cauchy)

    def atoms(self) -> list[tuple[Fraction, Fraction]]:
        """The expression's atoms, exact."""
        return list(self._atoms)


def _expression_edge_factors(spec: ThetaPoly) -> tuple[Any, ...]:
    """The distinct irreducible factors over QQ (``fmpq_poly``) of ``disc_G(P) lc_G(P)``
    for a Cauchy polynomial ``spec`` without theta1 (exact, FLINT)."""
    ctx = flint.fmpq_mpoly_ctx.get(("G", "z"), "lex")
    items = {m: row[0] for m, row in spec.items() if row.get(0)}
    p = ctx.from_dict({m: flint.fmpq(c.numerator, c.denominator) for m, c in items.items()})
    degree = max(i for i, _ in items)
    lc = ctx.from_dict({(0, j): flint.fmpq(c.numerator, c.denominator)
                        for (i, j), c in items.items() if i == degree})
    terms = (p.discriminant("G") * lc).to_dict()
    coeffs = [flint.fmpq(0)] * (max(j for _, j in terms) + 1)
    for (_, j), c in terms.items():
        coeffs[j] = c
    _, factors = flint.fmpq_poly(coeffs).factor()
    return tuple(f for f, _ in factors)


@functools.lru_cache(maxsize=32)
def case_data(case: str, ratios: Any, normalized: bool) -> _LawData:
    """The exact data of the theory §4 law ``(case, ratios, normalized)`` (cached)."""
    return _LawData(case, ratios, normalized)


@functools.lru_cache(maxsize=32)
def expression_data(the_law: Any) -> _ExpressionData:
    """The exact data of an expression law (``the_law.expr``; cached)."""
    return _ExpressionData(the_law.expr)
