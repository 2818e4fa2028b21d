"""The expressions of the law algebra (docs/algebra.md; theory §3), published as
:mod:`freege.algebra`.

An expression is an immutable tree of frozen dataclasses: equal when structurally equal,
hashable, picklable, printed (``str``) in the grammar of :mod:`freege.algebra.grammar`,
which reads the text back to an equal expression. Its mathematics is that of
:mod:`freege.symbolic` -- the tree only names the construction:

=====================  ==========================================  ==========================
node                   law                                         exact object
=====================  ==========================================  ==========================
``MarchenkoPastur``    ``MP_c``: mean 1, variance ``c``             ``laws.marchenko_pastur``
``Semicircle``         ``sigma_v``: mean 0, variance ``v``          ``additive.semicircle``
``Atomic``             ``sum_i p_i delta_{a_i}``                    ``additive.atomic``
``FreePoisson``        ``pi(mu, t)`` (``mu = delta_1``: ``pi_t``)   ``laws.compound_free_poisson``
``Affine``             law of ``a X + b``                           ``laws.affine``
``FreeMult``           ``⊠`` of laws on ``[0, inf)``                ``laws.free_mult_conv``
``FreeAdd``            ``⊞``                                        ``additive.free_add_conv``
``Pushforward``        law of ``phi(X)``, ``2 <= deg phi <= 4``     ``additive.polynomial_image``
=====================  ==========================================  ==========================

Parameters are exact: a number (int, ``Fraction``, sympy Rational, a decimal or ratio
string such as ``"0.5"`` or ``"1/2"``, or a float, read as its shortest decimal: ``0.1``
is ``1/10``, the one rule of :func:`freege.params.parse_number`), an exact constant
(``E``, ``pi``, ``exp(q)``, ``sqrt(q)``: :mod:`freege.symbolic.open_field`) or a sympy
expression in freege's parameter symbols (``theta1 theta2 h gK gV gO``, the coefficient
field of the exact layer) and your own (positive, :func:`open_field.user_symbol`).
Atoms (:meth:`LawExpr.atoms`) follow exactly from the construction
(Bercovici-Voiculescu for ``⊞`` and ``⊠``) and need numeric parameters.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from freege.params import Domain, parse_number
from freege.symbolic import additive, laws, open_field
from freege.symbolic.laws import FreeLaw
from freege.symbolic.series import FIELD
from freege.symbolic.transforms import ridge_from_s_relation

#: the symbols a parameter may contain, by name (the exact layer's coefficient field)
SYMBOLS: dict[str, sp.Symbol] = {s.name: s for s in FIELD.symbols}

# ---------------------------------------------------------------------- the budget
# What an expression may ask for, checked before any derivation (docs/algebra.md,
# Limits): every limit below was set from costs measured on a shared, busy 2-core machine.

#: largest size of a number, in bits of its numerator and of its denominator (about 154
#: decimal digits; a 30-digit theta1 of a theory §4 case takes 100)
MAX_BITS = 512
#: ratios, variances and rates lie in [1/SCALE_MAX, SCALE_MAX]: measured, every numeric law
#: of mp, semicircle and poisson there answers in about a second, while mp(1e-12) does not
#: answer in two minutes and mp(1e308) overflows float64
SCALE_MAX = 10**4
#: locations, shifts, scales and polynomial coefficients lie in [-REAL_MAX, REAL_MAX] (and a
#: scale is at least 1/REAL_MAX in size): far inside float64, whose squares and fourth powers
#: the numeric law takes
REAL_MAX = 10**6
#: the highest bound on the degree of the Cauchy polynomial ``P(G, z)``
#: (:func:`cauchy_degree_bound`) that is derived exactly (``cauchy_polynomial``,
#: ``s_relation``, ``ridge_polynomial``), and the measured cost that set it
MAX_CAUCHY_DEGREE = 25
DEGREE_COST = "measured: one elimination to degree 25 takes up to 58 s"
#: the highest :func:`cauchy_degree_bound` read from the expression alone, checked
#: before anything is derived (the bound is loose: 5184 for a law of degree 25)
MAX_DEGREE_BOUND = 8192
BOUND_COST = "x^4 of x^4 of MP, bound 65536, grew past 900 MB in three minutes"
#: the most terms of the Cauchy polynomial ``P(G, z)`` whose numeric law is built
#: (:meth:`LawExpr.law`): the numeric law's support comes from the exact discriminant of
#: ``P`` in ``G`` and its verified real roots, whose cost grows with ``P``'s density
MAX_NUMERIC_TERMS = 128
TERMS_COST = ("measured: P of 165 terms, a discriminant in 23 s and its real roots over "
              "5 min; 247 terms, the discriminant alone over 10 min; 52 terms, 1 s")
#: the highest estimate of the terms of ``P(G, z)`` at a pushforward or a ``⊞``
#: (:func:`terms_estimate`, from its operands' polynomials) before that elimination is
#: started for a numeric law (:func:`check_numeric_cost`): the laws of the two refused
#: pushforwards above estimate 374 and 546, every numeric law of the tests and docs at
#: most MAX_NUMERIC_COST
MAX_NUMERIC_COST = 300
COST_COST = ("measured: pushforwards estimated at 374 and 546 took 23 s and 64 s to P (165 "
             "and 247 terms), then refused")
#: the most operations from the root of an expression to a leaf, and the most nodes
MAX_TREE_DEPTH = 60
MAX_NODES = 250
#: the most atoms of one atomic law (k atoms: a Cauchy polynomial of degree k in z; 24
#: atoms take 38 s to a numeric law and its median, 50 atoms took 59 s)
MAX_ATOMS = 24

POSITIVE = Domain(Fraction(1, SCALE_MAX), SCALE_MAX,
                  why="measured: the float64 law of mp(1e-12) takes minutes, mp(1e308) "
                  "overflows; docs/algebra.md, Limits")
REAL_WHY = "the float64 law works with its fourth power; docs/algebra.md, Limits"
REAL = Domain(-REAL_MAX, REAL_MAX, why=REAL_WHY)
MASS = Domain(0, 1, low_open=True)

Number = sp.Expr
#: what :meth:`LawExpr._subs` puts into every number: a dict of replacements (symbols,
#: constants) or a function of the whole number (:func:`_put`)
NumberMap = dict[sp.Expr, sp.Expr] | Callable[[sp.Expr], sp.Expr]
Atoms = tuple[tuple[sp.Expr, sp.Expr], ...]


def parameter(name: str, value: Any, domain: Domain = REAL, sized: bool = True) -> sp.Expr:
    """``value`` as an exact sympy number in ``domain`` of at most :data:`MAX_BITS` bits
    (unless not ``sized``: the caller checks it), an exact constant in ``domain``
    (:func:`open_field.check_constant`), or a sympy expression in :data:`SYMBOLS` and
    your symbols (:func:`open_field.user_symbol`); else a ValueError naming ``name``
    (module docstring)."""
    if isinstance(value, sp.Basic):
        if not isinstance(value, sp.Expr):
            raise ValueError(f"{name} must be a number or an expression (got {value})")
        free = value.free_symbols
        if free:
            renamed = {s: SYMBOLS.get(s.name) or open_field.user_symbol(s.name) for s in free}
            value = value.xreplace(renamed)
        if free or not value.is_Rational:
            open_field.check_constant(name, value, MAX_BITS)
            if not free and not (value.is_real and _in_domain(value, domain)):
                raise ValueError(f"{name} must be {domain.describe()} (got {value})")
            return value
        value = Fraction(int(value.p), int(value.q))
    x = parse_number(name, value, domain)
    out = sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else sp.Integer(x)
    return _sized(name, out) if sized else out


def _in_domain(value: sp.Expr, domain: Domain) -> bool:
    """Whether the real constant ``value`` lies in ``domain`` (decided by sympy)."""
    def rational(x: Any) -> sp.Expr:
        return sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x

    low, high = rational(domain.low), rational(domain.high)
    if low is not None and bool(value <= low if domain.low_open else value < low):
        return False
    return high is None or not bool(value >= high if domain.high_open else value > high)


def _sized(name: str, x: sp.Expr) -> sp.Expr:
    """``x`` when its numerator and denominator have at most :data:`MAX_BITS` bits (a
    number of the exact layer: its size enters every derivation), else a ValueError."""
    if x.is_Rational:
        bits = max(int(x.p).bit_length(), int(x.q).bit_length())
        if bits > MAX_BITS:
            raise ValueError(f"{name} has {bits} bits; the limit is {MAX_BITS} bits (about "
                             f"{int(MAX_BITS * 0.30103)} digits) of numerator and of "
                             "denominator (docs/algebra.md, Limits)")
    return x


def is_number(x: sp.Expr) -> bool:
    return not x.free_symbols


def _nonneg(x: sp.Expr) -> bool:
    """Provably ``x >= 0``."""
    return sp.sympify(x).is_nonnegative is True


def number_text(x: sp.Expr, bare: bool = False) -> str:
    """A parameter in the grammar: ``3``, ``-1/2``, ``h``, ``(theta1 - theta2)`` (without
    the parentheses when ``bare``: a function's argument)."""
    text = sp.sstr(x).replace("**", "^")
    return text if bare or x.is_Rational or x.is_Symbol else f"({text})"


class LawExpr:
    """An expression of the algebra: see the module docstring. ``+`` is ``⊞`` between
    laws and a shift with a number, ``*`` is ``⊠`` between laws and a dilation with a
    number, ``-`` and ``/`` (by a number) follow."""

    # ------------------------------------------------------------------ exact objects
    @property
    def free_law(self) -> FreeLaw:
        """The exact law of :mod:`freege.symbolic` (moments, S-relation, ``P(G, z)``). For
        an expression with your symbols or constants, that of its renamed copy
        (:func:`open_field.aliases`): the methods below rename their results back."""
        renamed = _renamed(self)
        return _free_law(self if renamed is None else renamed[0])

    def _build(self) -> FreeLaw:  # pragma: no cover - every node overrides
        raise NotImplementedError

    def moments(self, order: int) -> list[sp.Expr]:
        """``m_1..m_order``, exact (theory §3)."""
        renamed = _renamed(self)
        if renamed is not None:
            return [_back(m, renamed[1]) for m in renamed[0].moments(order)]
        return self.free_law.moments(order)

    @property
    def mean(self) -> sp.Expr:
        renamed = _renamed(self)
        return self.free_law.mean if renamed is None else _back(renamed[0].mean, renamed[1])

    def cauchy_polynomial(self) -> sp.Poly:
        """``P(G, z)``: irreducible, gens ``(G, z)``, integer coefficients in the
        parameters, primitive with a positive leading coefficient; its root ``G ~ 1/z``
        is the Cauchy transform, checked against the moment series (theory §3). Over
        the degree budget a ValueError (:func:`check_degree`): before any derivation for
        the bound read from the expression, before each elimination for the bound from
        the operands' polynomials. Your symbols and constants are renamed into the exact
        layer's field and back (:func:`open_field.aliases`)."""
        check_degree(self)
        renamed = _renamed(self)
        if renamed is not None:
            return _back_poly(renamed[0].cauchy_polynomial(), renamed[1])
        return _cauchy(self)

    def s_relation(self) -> sp.Expr:
        """``E(S, w)`` (theory §3); a ValueError for a law of mean 0 (no S-transform), or
        over the degree budget (:meth:`cauchy_polynomial`, derived first)."""
        self.cauchy_polynomial()
        renamed = _renamed(self)
        if renamed is not None:
            return _back(renamed[0].s_relation(), renamed[1])
        return self.free_law.s_relation

    def ridge_polynomial(self) -> sp.Poly:
        """``F(w, lam)`` of the normalized law ``D_{1/m_1}`` (theory §5), gens
        ``(w, lam)``; a ValueError for a law of mean 0, or over the degree budget
        (:meth:`cauchy_polynomial`, derived first)."""
        self.cauchy_polynomial()
        if self.mean == 0:
            raise ValueError(f"{self} has mean 0: no normalized law, no ridge polynomial")
        renamed = _renamed(self)
        if renamed is not None:
            return _back_poly(renamed[0].ridge_polynomial(), renamed[1])
        normalized = laws.dilation(self.free_law, 1 / self.mean)
        return ridge_from_s_relation(normalized.s_relation, 1)

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """The symbols the law depends on, in :data:`SYMBOLS` order, then yours by name
        (empty: numeric)."""
        free = self.symbols_used()
        return (*(s for s in SYMBOLS.values() if s in free),
                *sorted((s for s in free if s not in FIELD.symbols), key=lambda s: s.name))

    def symbols_used(self) -> set[sp.Symbol]:  # pragma: no cover - overridden
        raise NotImplementedError

    def subs(self, values: Mapping[str | sp.Symbol, Any]) -> LawExpr:
        """The expression with parameter symbols -- :data:`SYMBOLS` and your symbols in
        it -- (by name or symbol) replaced by ``values`` (numbers, exact constants,
        expressions in symbols, or their text in the grammar such as ``"exp(1) - 1"``),
        rebuilt through the constructors, so every parameter and ``⊠``'s positivity are
        checked again; a number for your symbol must be positive (it was assumed so)."""
        mapping: dict[sp.Symbol, sp.Expr] = {}
        own = {s.name: s for s in self.parameters if s not in FIELD.symbols}
        for key, value in values.items():
            name = key.name if isinstance(key, sp.Symbol) else str(key)
            if name not in SYMBOLS and name not in own:
                mine = f"; its own: {', '.join(own)}" if own else ""
                raise ValueError(f"subs: {name!r} is no symbol of {_short(self)} (the "
                                 f"parameter symbols are {', '.join(SYMBOLS)}{mine})")
            if isinstance(value, str):
                if _NUMBER_READER is None:
                    raise RuntimeError("subs with a number written as text needs the "
                                       "grammar: import freege.algebra first")
                value = _NUMBER_READER(value, name)
            bound = parameter(name, value, Domain(), sized=False)
            if name in own and is_number(bound) and bound.is_positive is not True:
                raise ValueError(f"subs: {name} stands for a positive number (got {bound}; "
                                 f"write -{name} where you want a negative one)")
            mapping[SYMBOLS.get(name) or own[name]] = bound
        return self._subs(mapping)

    def _subs(self, mapping: NumberMap) -> LawExpr:  # pragma: no cover
        raise NotImplementedError

    def atoms(self) -> Atoms:
        """The point masses ``((location, mass), ...)`` sorted by location, exact; needs
        numeric parameters (a ValueError otherwise)."""
        if self.parameters:
            raise ValueError(f"atoms of {self} need numeric parameters")
        merged: dict[sp.Expr, sp.Expr] = {}
        for x, p in self._atoms():
            merged[x] = merged.get(x, sp.Integer(0)) + p
        return tuple(sorted(((x, p) for x, p in merged.items() if p > 0), key=lambda a: a[0]))

    def _atoms(self) -> Atoms:  # pragma: no cover - overridden
        raise NotImplementedError

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        """An exact interval ``(lo, hi)`` containing the support (``-oo``/``oo`` where a
        symbolic sign cannot be decided)."""
        raise NotImplementedError  # pragma: no cover - overridden

    @property
    def is_positive(self) -> bool:
        """Whether the law is provably supported on ``[0, inf)``."""
        return _nonneg(self.bounds()[0])

    # ------------------------------------------------------------------ numbers
    def law(self, dps: int | None = None) -> Any:
        """The numeric law (:class:`freege.numeric.expression_law.ExpressionLaw`, the
        methods of :class:`freege.numeric.law.Law`): float64 (``dps=None``) or mpmath at
        ``dps`` digits; needs numeric parameters (a ValueError otherwise).

        The numeric layer sits above this one, so it registers its constructor here when
        it is imported (:func:`register_numeric_law`; ``import freege.algebra`` does);
        before that, a RuntimeError says so. Over the degree budget a ValueError comes
        first (:meth:`cauchy_polynomial`, derived first with numeric parameters), and one
        for a Cauchy polynomial estimated at more than :data:`MAX_NUMERIC_COST` terms
        before its elimination (:func:`check_numeric_cost`) or of more than
        :data:`MAX_NUMERIC_TERMS` terms once derived (:func:`check_numeric_size`). With
        exact constants, :class:`freege.numeric.constant_law.ConstantExpressionLaw`: the
        law of the expression with each number holding one rounded to ``dps`` +
        :data:`open_field.GUARD_DIGITS` digits (:meth:`rounded`), which keeps this exact
        expression (registered too, :func:`register_constant_law`)."""
        check_degree(self)
        if not self.parameters and any(open_field.has_constant(v) for v in _numbers(self)):
            if _CONSTANT_LAW is None:
                raise RuntimeError("LawExpr.law with constants needs the numeric layer: "
                                   "import freege.algebra first")
            return _CONSTANT_LAW(self, dps)
        if not self.parameters:
            check_numeric_cost(self)
            check_numeric_size(self, self.cauchy_polynomial())
        if _NUMERIC_LAW is None:
            raise RuntimeError("LawExpr.law needs the numeric layer: import freege.algebra "
                               "(or freege.numeric.expression_law) first")
        return _NUMERIC_LAW(self, dps)

    def rounded(self, dps: int | None) -> LawExpr:
        """The expression with each number holding an exact constant rounded to ``dps``
        (None: float64) + :data:`open_field.GUARD_DIGITS` significant digits
        (:func:`open_field.rounded_value`): what :meth:`law` computes."""
        return self._subs(lambda v: open_field.rounded_value(v, dps))

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        raise NotImplementedError  # pragma: no cover - overridden

    def __repr__(self) -> str:
        return f"freege.algebra.parse({str(self)!r})"

    def _repr_latex_(self) -> str:
        """Jupyter: the law in mathematical notation (:func:`freege.display.expression_latex`)."""
        from freege import display

        return display.math_mode(display.expression_latex(self))

    # ------------------------------------------------------------------ operators
    def __add__(self, other: Any) -> LawExpr:
        if getattr(other, "is_data_expr", False):  # freege.algebra.data
            return NotImplemented
        return free_add(self, other) if isinstance(other, LawExpr) else affine(self, 1, other)

    def __radd__(self, other: Any) -> LawExpr:
        return affine(self, 1, other)

    def __sub__(self, other: Any) -> LawExpr:
        if getattr(other, "is_data_expr", False):  # freege.algebra.data
            return NotImplemented
        if isinstance(other, LawExpr):
            return free_add(self, affine(other, -1))
        return affine(self, 1, -parameter("shift", other, sized=False))

    def __rsub__(self, other: Any) -> LawExpr:
        return affine(self, -1, other)

    def __neg__(self) -> LawExpr:
        return affine(self, -1)

    def __mul__(self, other: Any) -> LawExpr:
        if getattr(other, "is_data_expr", False):  # freege.algebra.data
            return NotImplemented
        return free_mult(self, other) if isinstance(other, LawExpr) else affine(self, other)

    def __rmul__(self, other: Any) -> LawExpr:
        return affine(self, other)

    def __truediv__(self, other: Any) -> LawExpr:
        if getattr(other, "is_data_expr", False):  # freege.algebra.data
            return NotImplemented
        if isinstance(other, LawExpr):
            raise ValueError("'/' divides a law by a number, not by a law")
        divisor = parameter("divisor", other, Domain(), sized=False)
        if divisor == 0:
            raise ValueError("divisor must not be 0")
        return affine(self, 1 / divisor)


#: the numeric layer's ``(expr, dps) -> Law`` (:func:`register_numeric_law`)
_NUMERIC_LAW: Callable[[LawExpr, int | None], Any] | None = None


#: the numeric layer's ``(expr with constants, dps) -> Law`` (:func:`register_constant_law`)
_CONSTANT_LAW: Callable[[LawExpr, int | None], Any] | None = None


#: the grammar's ``(text, name) -> number`` (:func:`register_number_reader`)
_NUMBER_READER: Callable[[str, str], sp.Expr] | None = None


def register_number_reader(read: Callable[[str, str], sp.Expr]) -> None:
    """Called by :mod:`freege.algebra.grammar` on import: how :meth:`LawExpr.subs` reads a
    number written as text (the exact layer does not import the grammar above it)."""
    global _NUMBER_READER
    _NUMBER_READER = read


def register_constant_law(build: Callable[[LawExpr, int | None], Any]) -> None:
    """Called by :mod:`freege.numeric.constant_law` on import: what :meth:`LawExpr.law`
    returns for an expression with exact constants."""
    global _CONSTANT_LAW
    _CONSTANT_LAW = build


def register_numeric_law(build: Callable[[LawExpr, int | None], Any]) -> None:
    """Called by :mod:`freege.numeric.expression_law` on import: ``build(expr, dps)`` is
    what :meth:`LawExpr.law` returns (the exact layer does not import the numeric one)."""
    global _NUMERIC_LAW
    _NUMERIC_LAW = build


@functools.cache
def _free_law(expr: LawExpr) -> FreeLaw:
    return expr._build()


@functools.cache
def _cauchy(expr: LawExpr) -> sp.Poly:
    # bottom up: each operand's P first (each checked the same way), then this node's
    # degree bound from the operands' actual degrees, before its own elimination
    degrees = [(c.cauchy_polynomial().degree(0), c.cauchy_polynomial().degree(1))
               for c in _children(expr)]
    check_degree(expr, max(_degree_bound(expr, degrees)))
    return _cauchy_from_shape(expr) or _cauchy_at_numbers(expr)


#: ``expr -> P(G, z) or None``: :func:`freege.symbolic.expression_shapes.cauchy_at_numbers`
#: once that module is imported (it registers itself; the numeric law imports it)
_SHAPE_ROUTE: Callable[[LawExpr], sp.Poly | None] | None = None


def register_shape_route(route: Callable[[LawExpr], sp.Poly | None]) -> None:
    """Called by :mod:`freege.symbolic.expression_shapes` on import (it imports this
    module, so this one does not import it)."""
    global _SHAPE_ROUTE
    _SHAPE_ROUTE = route


def _cauchy_from_shape(expr: LawExpr) -> sp.Poly | None:
    """``P(G, z)`` of an expression with numbers from its shape's, derived once in symbols
    (the same polynomial, :mod:`freege.symbolic.expression_shapes`), or None."""
    return None if _SHAPE_ROUTE is None else _SHAPE_ROUTE(expr)


def _cauchy_at_numbers(expr: LawExpr) -> sp.Poly:
    """``P(G, z)`` derived from the expression itself (its exact law's elimination)."""
    law = expr.free_law
    return additive.physical_cauchy_factor(law.cauchy_polynomial, law)


def _put(value: sp.Expr, mapping: Any) -> sp.Expr:
    """``value`` with ``mapping`` applied: a dict replaces its subexpressions structurally
    (symbols, or constants such as ``E``), a function maps the whole number."""
    return mapping(value) if callable(mapping) else value.xreplace(mapping)


def _numbers(expr: LawExpr) -> list[sp.Expr]:
    """Every number (parameter) in the tree of ``expr``."""
    out: list[sp.Expr] = []

    def collect(value: Any) -> None:
        if isinstance(value, LawExpr):
            for field in dataclasses.fields(value):  # type: ignore[arg-type]
                collect(getattr(value, field.name))
        elif isinstance(value, tuple):
            for item in value:
                collect(item)
        elif isinstance(value, sp.Expr):
            out.append(value)

    collect(expr)
    return out


@functools.cache
def _renamed(expr: LawExpr) -> tuple[LawExpr, dict[sp.Symbol, sp.Expr]] | None:
    """``(copy, back)``: ``expr`` with your symbols and constants renamed to unused
    generators of the exact layer's field, and the map back (:func:`open_field.aliases`);
    None when it holds neither."""
    forward, back = open_field.aliases(
        _numbers(expr), {s for s in expr.symbols_used() if s in FIELD.symbols})
    return None if not forward else (expr._subs(forward), back)


def _back(value: Any, back: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    return sp.sympify(value).xreplace(back)


def _back_poly(poly: sp.Poly, back: dict[sp.Symbol, sp.Expr]) -> sp.Poly:
    """``poly`` (gens ``(G, z)`` or ``(w, lam)``) with the renamed generators put back."""
    return sp.Poly(sp.expand(poly.as_expr().xreplace(back)), *poly.gens)


def _symbols_of(*values: Any) -> set[sp.Symbol]:
    out: set[sp.Symbol] = set()
    for v in values:
        out |= v.symbols_used() if isinstance(v, LawExpr) else sp.sympify(v).free_symbols
    return out


# ---------------------------------------------------------------------- leaves
@dataclass(frozen=True, repr=False)
class MarchenkoPastur(LawExpr):
    """``MP_c``: the limit law of ``X X^T / m`` for ``X`` an ``n x m`` Gaussian matrix with
    ``n / m -> c``; mean 1, variance ``c``, Narayana moments, an atom ``1 - 1/c`` at 0 when
    ``c > 1``."""

    ratio: Number

    def _build(self) -> FreeLaw:
        return laws.marchenko_pastur(self.ratio)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(self.ratio)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return marchenko_pastur(_put(self.ratio, mapping))

    def _atoms(self) -> Atoms:
        c = self.ratio
        return ((sp.Integer(0), 1 - 1 / c),) if c > 1 else ()

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        c = self.ratio
        lo = (1 - sp.sqrt(c)) ** 2 if is_number(c) and c < 1 else sp.Integer(0)
        return lo, (1 + sp.sqrt(c)) ** 2

    def __str__(self) -> str:
        return f"mp({number_text(self.ratio, True)})"


@dataclass(frozen=True, repr=False)
class Semicircle(LawExpr):
    """``sigma_v``: Wigner's semicircle of variance ``v`` on ``[-2 sqrt v, 2 sqrt v]``."""

    variance: Number

    def _build(self) -> FreeLaw:
        return additive.semicircle(self.variance)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(self.variance)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return semicircle(_put(self.variance, mapping))

    def _atoms(self) -> Atoms:
        return ()

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        r = 2 * sp.sqrt(self.variance)
        return -r, r

    def __str__(self) -> str:
        return f"semicircle({number_text(self.variance, True)})"


@dataclass(frozen=True, repr=False)
class Atomic(LawExpr):
    """``sum_i p_i delta_{a_i}``: distinct locations in increasing order, masses in
    ``(0, 1]`` summing to 1 (:func:`atomic`, :func:`point_mass`)."""

    points: Atoms

    def _build(self) -> FreeLaw:
        return additive.atomic(self.points)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(*(x for x, _ in self.points))

    def _subs(self, mapping: NumberMap) -> Atomic:
        return atomic([(_put(x, mapping), p) for x, p in self.points])

    def _atoms(self) -> Atoms:
        return self.points

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        locations = [x for x, _ in self.points]
        if len(locations) == 1:
            return locations[0], locations[0]
        if any(not is_number(x) for x in locations):
            return -sp.oo, sp.oo
        return min(locations), max(locations)

    def __str__(self) -> str:
        if len(self.points) == 1:
            return f"point({number_text(self.points[0][0], True)})"
        pairs = ", ".join(f"({number_text(x, True)}, {number_text(p, True)})"
                          for x, p in self.points)
        return f"atoms({pairs})"


@dataclass(frozen=True, repr=False)
class FreePoisson(LawExpr):
    """``pi(mu, t)``, the compound free Poisson law of rate ``t`` and jump law ``mu``
    (any expression; atomic in the common case): free cumulants ``kappa_q = t m_q(mu)``;
    ``mu = delta_1`` is ``pi_t`` (mean ``t``, an atom ``1 - t`` at 0 when ``t < 1``)."""

    rate: Number
    jump: LawExpr

    def _build(self) -> FreeLaw:
        if self.jump == _UNIT_JUMP:
            return laws.free_poisson(self.rate)
        return laws.compound_free_poisson(self.jump.free_law, self.rate)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(self.rate, self.jump)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return free_poisson(_put(self.rate, mapping), self.jump._subs(mapping))

    def _atoms(self) -> Atoms:
        at_zero = sum((p for x, p in self.jump.atoms() if x == 0), sp.Integer(0))
        mass = 1 - self.rate * (1 - at_zero)
        return ((sp.Integer(0), mass),) if mass > 0 else ()

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        # X M X^T / n: ||X X^T / n|| -> (1 + sqrt t)^2, M with the jump law
        reach = (1 + sp.sqrt(self.rate)) ** 2
        lo, hi = self.jump.bounds()
        if not (is_number(lo) and is_number(hi)):
            return -sp.oo, sp.oo
        return reach * sp.Min(lo, 0), reach * sp.Max(hi, 0)

    def __str__(self) -> str:
        if self.jump == _UNIT_JUMP:
            return f"poisson({number_text(self.rate, True)})"
        return f"poisson({number_text(self.rate, True)}, {self.jump})"


_UNIT_JUMP = Atomic(((sp.Integer(1), sp.Integer(1)),))


# ---------------------------------------------------------------------- operations
def _wrapped(expr: LawExpr, compound: tuple[type, ...]) -> str:
    return f"({expr})" if isinstance(expr, compound) else str(expr)


@dataclass(frozen=True, repr=False)
class Affine(LawExpr):
    """The law of ``scale X + shift`` (``scale != 0``)."""

    base: LawExpr
    scale: Number
    shift: Number

    def _build(self) -> FreeLaw:
        return laws.affine(self.base.free_law, self.scale, self.shift)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(self.base, self.scale, self.shift)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return affine(self.base._subs(mapping), _put(self.scale, mapping),
                      _put(self.shift, mapping))

    def _atoms(self) -> Atoms:
        return tuple((self.scale * x + self.shift, p) for x, p in self.base.atoms())

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        lo, hi = self.base.bounds()
        a, b = self.scale, self.shift
        if a.is_positive:
            return a * lo + b, a * hi + b
        if a.is_negative:
            return a * hi + b, a * lo + b
        return -sp.oo, sp.oo

    def __str__(self) -> str:
        a, b = self.scale, self.shift
        inner = _wrapped(self.base, (Affine, FreeAdd, FreeMult))
        head = inner if a == 1 else f"-{inner}" if a == -1 else f"{number_text(a)}*{inner}"
        if b == 0:
            return head
        if b.is_Rational and b < 0:
            return f"{head} - {number_text(-b)}"
        return f"{head} + {number_text(b)}"


@dataclass(frozen=True, repr=False)
class FreeMult(LawExpr):
    """``factors[0] ⊠ factors[1] ⊠ ...``: S-transforms multiply (theory §3); every factor
    provably on ``[0, inf)`` with a mean other than 0."""

    factors: tuple[LawExpr, ...]

    def _build(self) -> FreeLaw:
        return laws.free_mult_conv(*(f.free_law for f in self.factors))

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(*self.factors)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return free_mult(*(f._subs(mapping) for f in self.factors))

    def _atoms(self) -> Atoms:
        # Belinschi; Bercovici-Voiculescu: mass max(mu{0}, nu{0}) at 0, and
        # mu{b} + nu{c} - 1 at bc != 0 when positive
        out = dict(self.factors[0].atoms())
        for factor in self.factors[1:]:
            other = dict(factor.atoms())
            step = {sp.Integer(0): max(out.get(0, 0), other.get(0, 0))}
            for b, p in out.items():
                for c, q in other.items():
                    if b != 0 and c != 0 and p + q > 1:
                        step[b * c] = step.get(b * c, 0) + p + q - 1
            out = step
        return tuple(out.items())

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        lo, hi = sp.Integer(1), sp.Integer(1)
        for factor in self.factors:
            flo, fhi = factor.bounds()
            lo, hi = lo * flo, hi * fhi
        return lo, hi

    def __str__(self) -> str:
        return " * ".join(_wrapped(f, (Affine, FreeAdd)) for f in self.factors)


@dataclass(frozen=True, repr=False)
class FreeAdd(LawExpr):
    """``terms[0] ⊞ terms[1] ⊞ ...``: R-transforms (free cumulants) add (theory §3)."""

    terms: tuple[LawExpr, ...]

    def _build(self) -> FreeLaw:
        return additive.free_add_conv(*(t.free_law for t in self.terms))

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(*self.terms)

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return free_add(*(t._subs(mapping) for t in self.terms))

    def _atoms(self) -> Atoms:
        # Bercovici-Voiculescu: an atom at b + c of mass mu{b} + nu{c} - 1 when positive
        out = dict(self.terms[0].atoms())
        for term in self.terms[1:]:
            step: dict[sp.Expr, sp.Expr] = {}
            for b, p in out.items():
                for c, q in term.atoms():
                    if p + q > 1:
                        step[b + c] = step.get(b + c, 0) + p + q - 1
            out = step
        return tuple(out.items())

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        pairs = [t.bounds() for t in self.terms]
        return sp.Add(*[lo for lo, _ in pairs]), sp.Add(*[hi for _, hi in pairs])

    def __str__(self) -> str:
        return " + ".join(f"({t})" if isinstance(t, Affine) and t.shift != 0 else str(t)
                          for t in self.terms)


#: the variable of a pushforward's polynomial in the grammar
X = sp.Symbol("x")


#: the highest degree of a pushforward's polynomial: the Cauchy polynomial of ``phi_* mu``
#: has degree ``n^d`` in ``G`` (``n`` that of ``mu``'s), so each degree squares the work
#: (docs/algebra.md)
MAX_DEGREE = 4


@dataclass(frozen=True, repr=False)
class Pushforward(LawExpr):
    """The law of ``phi(X)``, ``phi(x) = sum_j c_j x^j`` (``coeffs`` ascending, degree
    ``2 <= d <=`` :data:`MAX_DEGREE`, ``c_d != 0``)."""

    base: LawExpr
    coeffs: tuple[Number, ...]

    def _build(self) -> FreeLaw:
        return additive.polynomial_image(self.base.free_law, self.coeffs)

    def symbols_used(self) -> set[sp.Symbol]:
        return _symbols_of(self.base, *self.coeffs)

    @property
    def polynomial(self) -> sp.Expr:
        return sum((c * X**j for j, c in enumerate(self.coeffs)), sp.Integer(0))

    def _subs(self, mapping: NumberMap) -> LawExpr:
        return pushforward(self.base._subs(mapping), [_put(c, mapping) for c in self.coeffs])

    def _atoms(self) -> Atoms:
        return tuple((self.polynomial.subs(X, x), p) for x, p in self.base.atoms())

    def critical_points(self) -> tuple[sp.Expr, ...]:
        """The distinct real zeros of ``phi'`` in the base's bounds (ends included), exact
        (sympy real roots), ascending; empty when a bound or a coefficient is not a
        number. Their images, the critical values, are where ``phi`` folds the base's
        density: ``sum_i f(x_i)/|phi'(x_i)|`` over the preimages is singular there
        (docs/algebra.md)."""
        lo, hi = self.base.bounds()
        if any(not is_number(v) for v in (lo, hi, *self.coeffs)):
            return ()
        slope = sp.Poly(sp.diff(self.polynomial, X), X)
        if slope.domain.is_QQ or slope.domain.is_ZZ:
            roots = sorted(set(slope.real_roots()))
        else:  # exact constants among the coefficients: roots by radicals (degree <= 3)
            found = sp.roots(slope)
            if sum(found.values()) != slope.degree() or any(r.is_real is None for r in found):
                raise ValueError(f"{self}: the critical points of its polynomial are not "
                                 "decided exactly; bind its constants to rationals")
            roots = sorted(r for r in found if r.is_real)
        return tuple(r for r in roots if lo <= r <= hi)

    def interior_critical_values(self) -> tuple[sp.Expr, ...]:
        """The critical values strictly inside the image's bounds when the base has a
        continuous part: interior points where the image's density is singular (an
        inverse power of the distance), which the numeric law refuses (docs/algebra.md);
        empty with symbolic parameters."""
        lo, hi = self.bounds()
        if not (lo.is_finite and hi.is_finite) or sum(p for _, p in self.base.atoms()) == 1:
            return ()
        values = {self.polynomial.subs(X, c) for c in self.critical_points()}
        return tuple(sorted(v for v in values if lo < v < hi))

    def bounds(self) -> tuple[sp.Expr, sp.Expr]:
        """``phi``'s least and greatest value over the base's bounds: at the bounds and at
        the critical points inside them (:meth:`critical_points`)."""
        lo, hi = self.base.bounds()
        if any(not is_number(v) for v in (lo, hi, *self.coeffs)) or not (
                lo.is_finite and hi.is_finite):
            return -sp.oo, sp.oo
        values = [self.polynomial.subs(X, v) for v in (lo, hi, *self.critical_points())]
        return min(values), max(values)

    def __str__(self) -> str:
        return f"pushforward({self.base}, {sp.sstr(self.polynomial).replace('**', '^')})"


def critical_pushforwards(expr: LawExpr) -> list[tuple[Pushforward, tuple[sp.Expr, ...]]]:
    """Every pushforward in the tree of ``expr`` that has
    :meth:`Pushforward.interior_critical_values`, with those values."""
    out = []
    values = expr.interior_critical_values() if isinstance(expr, Pushforward) else ()
    if values:
        out.append((expr, values))
    for field in dataclasses.fields(expr):  # type: ignore[arg-type]
        value = getattr(expr, field.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, LawExpr):
                out += critical_pushforwards(item)
    return out


# ---------------------------------------------------------------------- the budget
#: where :func:`cauchy_degree_bound` stops counting (any bound above it is "over")
DEGREE_CAP = 10**9


def _capped_product(values: Any) -> int:
    out = 1
    for v in values:
        out = min(out * v, DEGREE_CAP)
    return out


def _children(expr: LawExpr) -> list[LawExpr]:
    """The operands of ``expr`` (laws among its fields, in order)."""
    out: list[LawExpr] = []
    for field in dataclasses.fields(expr):  # type: ignore[arg-type]
        value = getattr(expr, field.name)
        out += [v for v in (value if isinstance(value, tuple) else (value,))
                if isinstance(v, LawExpr)]
    return out


def _degree_bound(expr: LawExpr, degrees: list[tuple[int, int]]) -> tuple[int, int]:
    """The rules of :func:`cauchy_degree_bound` for ``expr`` whose operands
    (:func:`_children`, in order) have degrees at most ``degrees`` in ``G`` and ``z``:
    bounds on the degrees of ``P(G, z)`` of ``expr`` in ``G`` and ``z``."""
    if isinstance(expr, MarchenkoPastur | Semicircle):
        return 2, 1
    if isinstance(expr, Atomic):
        return 1, len(expr.points)
    if isinstance(expr, FreePoisson) and isinstance(expr.jump, Atomic):
        return (2, 1) if expr.jump == _UNIT_JUMP else (len(expr.jump.points) + 1, 1)
    if isinstance(expr, Affine):
        return degrees[0]
    sizes = [max(pair) for pair in degrees]
    if isinstance(expr, FreePoisson):
        n = min(3 * sizes[0], DEGREE_CAP)
    elif isinstance(expr, FreeAdd):
        n = _capped_product(sizes)
    elif isinstance(expr, FreeMult):
        # a factor with S(w) = 1/(a + b w) (MP, pi_t, their dilations) multiplies the
        # S-relation by a linear factor: k of them add k to the degree of the rest's
        linear = [_linear_s(f) for f in expr.factors]
        n = _capped_product([sum(linear) + 1,
                             *(n for n, lin in zip(sizes, linear, strict=True) if not lin)])
    elif isinstance(expr, Pushforward):
        # n^d sums of one root per preimage (n: the base's degree in G)
        g, m = degrees[0]
        power = _capped_product([g] * (len(expr.coeffs) - 1))
        return power, max(power, m)
    else:  # pragma: no cover
        raise TypeError(f"no degree bound for {type(expr).__name__}")
    return n, n


@functools.cache
def _static_degrees(expr: LawExpr) -> tuple[int, int]:
    return _degree_bound(expr, [_static_degrees(c) for c in _children(expr)])


@functools.cache
def cauchy_degree_bound(expr: LawExpr) -> int:
    """An upper bound, read from the tree alone (no derivation), on the degrees of the
    Cauchy polynomial ``P(G, z)`` of ``expr`` in ``G`` and in ``z``, capped at
    :data:`DEGREE_CAP`: ``(2, 1)`` for MP, the semicircle and ``pi_t``; ``(1, k)`` for
    ``k`` atoms (``k + 1`` as the jump law of a compound free Poisson law, three times
    the jump law's for another one: ``P_mu(G + G(zG - 1)/t, 1/G)``); affine maps keep
    them; ``⊞`` multiplies its terms' (one resultant each), ``⊠`` its factors' but counts
    the ``k`` factors whose S-transform is ``1/(a + bw)`` (MP, ``pi_t``, their dilations)
    as ``k + 1`` together (``MP^⊠k`` has degree ``k + 1``); a pushforward of degree ``d``
    raises its base's degree in ``G`` to the power ``d`` (``n^d`` sums of roots,
    docs/algebra.md). The same rules bound each elimination from its operands' actual
    polynomials (:meth:`LawExpr.cauchy_polynomial`)."""
    return max(_static_degrees(expr))


def _linear_s(expr: LawExpr) -> bool:
    """Whether the S-transform of ``expr`` is ``1/(a + b w)``: MP, ``pi_t``, dilations."""
    if isinstance(expr, Affine) and expr.shift == 0:
        expr = expr.base
    return isinstance(expr, MarchenkoPastur) or (isinstance(expr, FreePoisson)
                                                 and expr.jump == _UNIT_JUMP)


def _short(expr: LawExpr) -> str:
    text = str(expr)
    return text if len(text) <= 60 else f"{text[:45]}...({len(text)} characters)"


def _known_degrees(expr: LawExpr) -> tuple[int, int] | None:
    """The degrees of ``P(G, z)`` of ``expr`` in ``G`` and ``z`` where they are known without
    a derivation, else None: ``(2, 1)`` for MP, the semicircle and ``pi_t``, ``(1, k)`` for
    ``k`` atoms (distinct: equal locations are merged when built), kept by an affine map
    (checked against derived polynomials in ``tests/algebra/test_budget.py``)."""
    base = expr.base if isinstance(expr, Affine) else expr
    if isinstance(base, MarchenkoPastur | Semicircle | Atomic) or (
            isinstance(base, FreePoisson) and base.jump == _UNIT_JUMP):
        return _degree_bound(base, [])
    return None


def _check_known_operands(expr: LawExpr) -> None:
    """:func:`check_degree` of each node of ``expr`` whose operands all have
    :func:`_known_degrees`, from those degrees: the check its elimination would make from
    its operands' derived polynomials (the same degrees), made before anything is derived
    (24 atoms ⊞ ``mp(1/2)`` is refused at once, not after the atoms' ``P``)."""
    seen: set[int] = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        children = _children(node)
        known = [_known_degrees(c) for c in children]
        if children and all(k is not None for k in known):
            check_degree(node, max(_degree_bound(node, known)))  # type: ignore[arg-type]
        todo += children


def check_degree(expr: LawExpr, bound: int | None = None) -> None:
    """A ValueError, in one line, over the degree budget (docs/algebra.md, Limits): with
    no ``bound``, when :func:`cauchy_degree_bound` of ``expr``, read from the tree alone,
    exceeds :data:`MAX_DEGREE_BOUND`, or a node's operands of :func:`_known_degrees` give
    it a bound over :data:`MAX_CAUCHY_DEGREE` (:func:`_check_known_operands`; called
    before any derivation of ``P(G, z)``, the S-relation or the numeric law); else when
    ``bound``, from the actual degrees of the operands' polynomials, exceeds
    :data:`MAX_CAUCHY_DEGREE` (called before each node's own elimination)."""
    static = bound is None
    n = cauchy_degree_bound(expr) if bound is None else bound
    if n <= (MAX_DEGREE_BOUND if static else MAX_CAUCHY_DEGREE):
        if static:
            _check_known_operands(expr)
        return
    shown = f"more than {DEGREE_CAP}" if n >= DEGREE_CAP else str(n)
    if static:
        raise ValueError(
            f"{_short(expr)}: its Cauchy polynomial P(G, z) has degree up to {shown} by "
            f"the expression alone (pushforwards raise it to their degree, ⊞ and ⊠ "
            f"multiply it); the limit is {MAX_DEGREE_BOUND} ({BOUND_COST}; "
            "docs/algebra.md, Limits)")
    raise ValueError(
        f"{_short(expr)}: its Cauchy polynomial P(G, z) would have degree up to {shown} "
        f"from its operands' polynomials; the limit is {MAX_CAUCHY_DEGREE} "
        f"({DEGREE_COST}; docs/algebra.md, Limits)")


def check_numeric_size(expr: LawExpr, poly: sp.Poly) -> None:
    """A ValueError, in one line, when the Cauchy polynomial ``poly`` of ``expr`` has more
    than :data:`MAX_NUMERIC_TERMS` terms (docs/algebra.md, Limits): checked by
    :meth:`LawExpr.law` after ``P`` is derived (within the degree budget) and before the
    numeric law computes its exact discriminant; the exact objects stay available."""
    terms = len(poly.terms())
    if terms > MAX_NUMERIC_TERMS:
        raise ValueError(
            f"{_short(expr)}: its Cauchy polynomial P(G, z) has {terms} terms; a numeric law "
            f"takes at most {MAX_NUMERIC_TERMS} ({TERMS_COST}; docs/algebra.md, Limits); "
            "its exact moments and P(G, z) are available")


def _polygon(poly: sp.Poly) -> tuple[int, int, int, int]:
    """``(deg_G, deg_z, lo, hi)`` of ``P(G, z)``: its terms ``G^i z^j`` lie in the hexagon
    ``0 <= i <= deg_G``, ``0 <= j <= deg_z``, ``lo <= i - j <= hi``."""
    diagonals = [i - j for i, j in poly.monoms()]
    return poly.degree(0), poly.degree(1), min(diagonals), max(diagonals)


def _hexagon(a: int, b: int, lo: int, hi: int) -> int:
    """The lattice points of the hexagon of :func:`_polygon` (at most ``(a+1)(b+1)``)."""
    lo, hi = max(lo, -b), min(hi, a)
    return sum(max(0, min(a, b + k) - max(0, k) + 1) for k in range(lo, hi + 1))


def terms_estimate(expr: LawExpr, polys: list[sp.Poly]) -> int | None:
    """An estimate, from the Cauchy polynomials ``polys`` of the operands of ``expr``
    (:func:`_children`, in order), of the terms of ``P(G, z)`` of a pushforward or a ``⊞``
    (None for another node: no dense elimination). A pushforward of degree ``d`` of a
    base of degrees ``(a, b)`` has degrees up to ``(a^d, d b a^(d-1))``; for ``c x^d`` its
    terms stay within a band of diagonals ``i - j`` ``a^(d-1)`` times the base's (plus
    ``d - 1``), else the rectangle. ``⊞`` of degrees ``(a_1, b_1)``, ``(a_2, b_2)`` has
    degrees up to ``((a_1 - 1) b_2 + (a_2 - 1) b_1 + 1, b_1 b_2)`` (``a_k - 1`` at least 1),
    its terms filling the rectangle. Checked against derived polynomials in
    ``tests/algebra/test_budget.py``; an estimate (a cost), not a proof."""
    shapes = [_polygon(p) for p in polys]
    if isinstance(expr, Pushforward):
        (a, b, lo, hi), d = shapes[0], len(expr.coeffs) - 1
        a2, b2 = min(a**d, DEGREE_CAP), min(d * b * a ** (d - 1), DEGREE_CAP)
        rectangle = (a2 + 1) * (b2 + 1)
        if any(c != 0 for c in expr.coeffs[:-1]):
            return rectangle
        width = (hi - lo) * a ** (d - 1) + d - 1
        return min(rectangle, (width + 1) * (min(a2, b2) + 1))
    if isinstance(expr, FreeAdd):
        a, b = shapes[0][:2]
        for a2, b2, _, _ in shapes[1:]:
            a, b = (max(a - 1, 1) * b2 + max(a2 - 1, 1) * b + 1, b * b2)
        return (a + 1) * (b + 1)
    return None


def check_numeric_cost(expr: LawExpr) -> None:
    """A ValueError, in one line, when :func:`terms_estimate` of a pushforward or ``⊞`` in
    the tree of ``expr`` exceeds :data:`MAX_NUMERIC_COST` (docs/algebra.md, Limits):
    called by :meth:`LawExpr.law`, bottom up, before each such elimination (after its
    operands' polynomials, each checked first), so a numeric law that
    :data:`MAX_NUMERIC_TERMS` would refuse is refused before its ``P`` is derived."""
    seen: set[LawExpr] = set()

    def walk(node: LawExpr) -> None:
        if node in seen:
            return
        seen.add(node)
        children = _children(node)
        for child in children:
            walk(child)
        if not isinstance(node, Pushforward | FreeAdd):
            return
        polys = [c.cauchy_polynomial() for c in children]
        # the degree limit of the elimination first, as cauchy_polynomial() names it
        check_degree(node, max(_degree_bound(node, [(p.degree(0), p.degree(1))
                                                    for p in polys])))
        cost = terms_estimate(node, polys)
        if cost is not None and cost > MAX_NUMERIC_COST:
            raise ValueError(
                f"{_short(node)}: its Cauchy polynomial P(G, z) would have about {cost} "
                f"terms by its operands' polynomials; a numeric law takes at most "
                f"{MAX_NUMERIC_COST} ({COST_COST}; docs/algebra.md, Limits); its exact "
                "moments and P(G, z) are available")

    walk(expr)


@functools.cache
def _shape(expr: LawExpr) -> tuple[int, int]:
    """``(depth, nodes)`` of the tree of ``expr``: operations from the root to the deepest
    leaf, and nodes in all."""
    shapes = [_shape(c) for c in _children(expr)]
    return (1 + max((d for d, _ in shapes), default=-1),
            min(1 + sum(n for _, n in shapes), MAX_NODES + 1))


def _checked(node: LawExpr) -> Any:
    """``node`` when its tree is within :data:`MAX_TREE_DEPTH` and :data:`MAX_NODES`, else
    a ValueError (checked as each node is built, from its children's counts)."""
    depth, nodes = _shape(node)
    if depth > MAX_TREE_DEPTH:
        raise ValueError(f"the expression nests {depth} operations; the limit is "
                         f"{MAX_TREE_DEPTH} (docs/algebra.md, Limits)")
    if nodes > MAX_NODES:
        raise ValueError(f"the expression has more than {MAX_NODES} laws and operations; "
                         f"the limit is {MAX_NODES} (docs/algebra.md, Limits)")
    return node


# ---------------------------------------------------------------------- constructors
def marchenko_pastur(ratio: Any) -> MarchenkoPastur:
    """``MP_ratio`` (``ratio > 0``)."""
    return MarchenkoPastur(parameter("ratio", ratio, POSITIVE))


def semicircle(variance: Any) -> Semicircle:
    """``sigma_variance`` (``variance > 0``)."""
    return Semicircle(parameter("variance", variance, POSITIVE))


def atomic(points: Any) -> Atomic:
    """``sum_i p_i delta_{a_i}`` from ``((a_1, p_1), ...)``: masses in ``(0, 1]`` summing
    to 1 (numbers); equal locations are merged, the pairs sorted by location."""
    try:
        points = list(points)
        if len(points) > MAX_ATOMS:
            raise ValueError(f"atoms: {len(points)} atoms; the limit is {MAX_ATOMS} (k atoms "
                             f"make a Cauchy polynomial of degree k; docs/algebra.md, Limits)")
        pairs = [(parameter("location", a), parameter("mass", p, MASS)) for a, p in points]
        if any(open_field.has_constant(p) for _, p in pairs):
            raise ValueError("atoms: masses must be rational, no constant (e, pi, exp, sqrt: "
                             f"they sum to 1 exactly; got {', '.join(str(p) for _, p in pairs)})")
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and ("must" in str(exc) or "limit" in str(exc)):
            raise
        raise ValueError(f"atoms must be (location, mass) pairs (got {points!r})") from None
    if not pairs:
        raise ValueError("atoms must hold at least one (location, mass) pair")
    if sum(p for _, p in pairs) != 1:
        raise ValueError(f"atom masses must sum to 1 (got {sum(p for _, p in pairs)})")
    merged: dict[sp.Expr, sp.Expr] = {}
    for a, p in pairs:
        merged[a] = merged.get(a, sp.Integer(0)) + p
    keys = sorted(merged, key=lambda a: (not is_number(a), a if is_number(a) else 0, str(a)))
    return Atomic(tuple((a, merged[a]) for a in keys))


def point_mass(location: Any) -> Atomic:
    """``delta_location``."""
    return atomic([(location, 1)])


def free_poisson(rate: Any, jump: Any = None) -> FreePoisson:
    """``pi(jump, rate)``: the free Poisson law ``pi_rate`` (``jump`` None: ``delta_1``) or
    the compound one with jump law ``jump`` (an expression, or ``(location, mass)`` pairs
    of an atomic law)."""
    jump_law = (_UNIT_JUMP if jump is None else jump if isinstance(jump, LawExpr)
                else atomic(jump))
    return _checked(FreePoisson(parameter("rate", rate, POSITIVE), jump_law))


def affine(law: LawExpr, scale: Any = 1, shift: Any = 0) -> LawExpr:
    """The law of ``scale X + shift`` for ``X ~ law`` (``scale != 0``); nested affine maps
    compose, the identity returns ``law``."""
    _check_law("law", law)
    a, b = parameter("scale", scale, sized=False), parameter("shift", shift, sized=False)
    if a == 0:
        raise ValueError("scale must not be 0")
    if isinstance(law, Affine):
        law, a, b = law.base, a * law.scale, a * law.shift + b
    if is_number(a) and not (sp.Rational(1, REAL_MAX) <= abs(a) <= REAL_MAX
                             or (abs(a) < 1 and _normalizes(law, a, b))):
        raise ValueError(f"scale must be {1 / REAL_MAX:g} to {REAL_MAX:g} in size "
                         f"({REAL_WHY}) (got {_magnitude(a)})")
    if is_number(b) and abs(b) > REAL_MAX:
        raise ValueError(f"shift must be in [-{REAL_MAX}, {REAL_MAX}] ({REAL_WHY}) (got "
                         f"{_magnitude(b)})")
    a, b = _sized("scale", a), _sized("shift", b)
    if a == 1 and b == 0:
        return law
    return _checked(Affine(law, a, b))


def _normalizes(law: LawExpr, a: sp.Expr, b: sp.Expr) -> bool:
    """Whether ``a X + b`` (``X ~ law``, numbers) is a normalized law, of mean exactly 1
    (theory §3): ``X`` divided by its mean, shifted or not. Such a law is exempt from the
    lower bound 1/:data:`REAL_MAX` on a scale (its numbers are of order one whatever the
    scale: ``(mp(1/2) + 1000000) / 1000001``, the law the readouts of ``mp(1/2) + 10^6``
    ask for; docs/algebra.md, Limits). The mean is asked only of numbers within
    :data:`MAX_BITS` and of a law without symbols (exact moments: no elimination)."""
    if not (is_number(b) and a.is_Rational and b.is_Rational) or law.parameters:
        return False
    if max(int(v).bit_length() for v in (a.p, a.q, b.p, b.q)) > MAX_BITS:
        return False
    return bool(a * law.mean + b == 1)


def _magnitude(x: sp.Expr) -> str:
    if abs(x) >= 10**300:
        return "more than 1e300"
    text = f"{float(x):.3g}"
    return text if sp.Rational(text) == x else f"about {text}"


def dilation(law: LawExpr, scale: Any) -> LawExpr:
    """``D_scale law``, the law of ``scale X``."""
    return affine(law, scale, 0)


def free_mult(*factors: LawExpr) -> FreeMult:
    """``factors[0] ⊠ factors[1] ⊠ ...``: every factor provably on ``[0, inf)`` (the
    product ``sqrt(A) B sqrt(A)`` of free positive matrices), none of mean 0. With symbolic
    parameters a factor whose sign cannot be decided is accepted; :meth:`LawExpr.subs`
    checks it again at numbers."""
    flat = _flatten("free_mult", factors, FreeMult, "factors")
    for k, factor in enumerate(flat, start=1):
        lo = factor.bounds()[0]
        undecided = bool(factor.parameters) and (lo == -sp.oo or lo.is_negative is not True)
        if not (_nonneg(lo) or undecided):
            raise ValueError(f"free_mult: factor {k} ({factor}) is not provably supported on "
                             "[0, inf); ⊠ needs laws on [0, inf)")
        if factor.mean == 0:
            raise ValueError(f"free_mult: factor {k} ({factor}) has mean 0 (it is delta_0)")
    return _checked(FreeMult(flat))


def free_add(*terms: LawExpr) -> FreeAdd:
    """``terms[0] ⊞ terms[1] ⊞ ...``: the law of a sum of free variables."""
    return _checked(FreeAdd(_flatten("free_add", terms, FreeAdd, "terms")))


def pushforward(law: LawExpr, coeffs: Any) -> LawExpr:
    """The law of ``phi(X)``, ``phi(x) = sum_j coeffs[j] x^j`` (ascending, at least one
    coefficient), of degree at most :data:`MAX_DEGREE`: degree 0 (``phi = c_0``) is the
    point mass ``delta_{c_0}``, degree 1 an affine map, degree 2 and above a
    :class:`Pushforward`; a ValueError above :data:`MAX_DEGREE`."""
    _check_law("law", law)
    try:
        cs = [parameter(f"coefficient {j}", c) for j, c in enumerate(coeffs)]
    except TypeError:
        raise ValueError(f"coeffs must be a sequence of numbers (got {coeffs!r})") from None
    if not cs:
        raise ValueError("coeffs must hold at least one coefficient (c_0, c_1, ...)")
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    degree = len(cs) - 1
    if degree > MAX_DEGREE:
        raise ValueError(f"pushforward's polynomial has degree {degree}; at most "
                         f"{MAX_DEGREE} is supported (the Cauchy polynomial's degree is "
                         "raised to the power of it)")
    if degree == 0:
        return point_mass(cs[0])
    if degree == 1:
        return affine(law, cs[1], cs[0])
    return _checked(Pushforward(law, tuple(cs)))


def _check_law(name: str, law: Any) -> None:
    if not isinstance(law, LawExpr):
        raise ValueError(f"{name} must be a law of freege.algebra (got {law!r})")


def _flatten(what: str, items: tuple[Any, ...], kind: type, name: str) -> tuple[LawExpr, ...]:
    if len(items) < 2:
        raise ValueError(f"{what} needs at least two laws")
    flat: list[LawExpr] = []
    for item in items:
        _check_law(name, item)
        flat.extend(item.factors if kind is FreeMult and isinstance(item, FreeMult) else
                    item.terms if kind is FreeAdd and isinstance(item, FreeAdd) else (item,))
    return tuple(flat)
