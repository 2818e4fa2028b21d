"""The Cauchy polynomial of an expression at new numbers from its *shape* (theory §3;
issue 41: a law at numbers never seen derives nothing in sympy).

An expression's shape is the expression with its numbers replaced by the parameter
symbols of :data:`freege.symbolic.expressions.SYMBOLS` (one symbol per distinct number,
in order of appearance): ``mp(0.52) * mp(0.71)`` has the shape ``mp(theta1) *
mp(theta2)``. The shape's Cauchy polynomial ``P(G, z; theta)`` is derived once (the exact
layer's own route, kept on disk by :func:`freege.symbolic.cache.cached_poly`) and the
numbers are put into its integer coefficients in plain Python fractions
(:func:`cauchy_at_numbers`).

Why the result is the one a derivation at the numbers gives: ``P(G, z; theta)`` vanishes
on the moment series ``G = sum_k m_k(theta) z^(-k-1)`` identically in ``theta`` (its
coefficients are polynomials in ``theta``), so at the numbers it vanishes on that law's
series. The law's Cauchy polynomial is the irreducible polynomial over QQ that does
(:func:`freege.symbolic.additive.physical_cauchy_factor`), unique up to a constant, so
the specialized polynomial, once proved irreducible over QQ and normalized the same way
(primitive over ZZ, positive leading coefficient), *is* it. :meth:`LawExpr.cauchy_polynomial`
takes this route once this module is imported (it registers itself with
:func:`freege.symbolic.expressions.register_shape_route`; the numeric law imports it).

Irreducibility (:func:`_irreducible`): no factor in ``z`` alone (the ``G``-coefficients
are coprime) and ``P(G, z0)`` irreducible over QQ of full degree at some integer ``z0``
(a factorization ``P = A B`` would give one of ``P(., z0)``). Where that is not proved
(a special point of the parameters, or an unlucky ``z0``), None: the caller derives at
the numbers.

When the shape is derived: a derivation in symbols costs a few times one at the numbers
(``mp(theta1) * mp(theta2)`` 0.4 s against 0.08 s), and pays only when the shape comes
back at other numbers. So the first numbers of a shape are derived at the numbers and
recorded (:func:`_reuse`, in memory and on disk); the shape is derived in symbols once it
comes back at other numbers (a scan's second step), and used from then on.

Shipped shapes (issue 41: a law at numbers never seen, with an empty cache, derives
nothing in sympy): the shapes of :func:`shipped_examples` (the peers' table of
``benchmarks/algebra.py`` and the sums and products around it) are derived once, when
freege is shipped (``python -m freege.numeric.ship_functions``, :func:`shipped_text`),
and their ``P``'s terms kept as plain integers in JSON in :data:`SHIPPED`. The file is
named and checksummed for the symbolic sources and sympy's version
(:func:`shipped_entry`), so it is read only where a derivation would give the very same
polynomial (the derivation is deterministic); its content is checked before use
(:func:`_parse_shipped`: integers and symbol names only, no ``eval``). A shipped shape is
taken at its first numbers, under the same proof of irreducibility at the numbers; a
shipped shape without symbols (kept numbers only, as ``mp(1) * mp(1)``) is the
expression's own polynomial, read instead of derived.

Kept numbers (part of the shape, never a symbol): 0, 1 and -1 (they simplify the
shape), atom masses (they must sum to 1). Expressions with a number that is not
rational, shapes with a pushforward (its critical
points depend on the numbers), with more than :data:`MAX_SHAPE_SYMBOLS` distinct
numbers, or a degree bound over :data:`MAX_SHAPE_DEGREE`, are left to the caller: a
derivation in symbols costs more than one at numbers, and pays only when it is reused.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from fractions import Fraction
from pathlib import Path

import sympy as sp

from freege import cache_files
from freege.cache_key import cache_dir, source_hash
from freege.symbolic import cache
from freege.symbolic import expressions as ex
from freege.symbolic.cache import cached_poly
from freege.symbolic.symbols import G, z

#: most distinct numbers of a shape (each a symbol of the derivation)
MAX_SHAPE_SYMBOLS = 3
#: the highest static degree bound (:func:`expressions.cauchy_degree_bound`) of a shape
#: derived in symbols: measured, ``semicircle(theta1) + mp(theta2)`` (bound 4) takes 0.5 s
#: against 0.13 s at numbers (a shape pays when it is reused)
MAX_SHAPE_DEGREE = 8
#: the integers ``z0`` at which ``P(G, z0)`` is tried for irreducibility
PROBES = (2, 3, 5, 7)
#: numbers kept in a shape
KEPT = (0, 1, -1)
#: the folder of the shipped shapes' file (module docstring, :func:`shipped_entry`)
SHIPPED = Path(__file__).resolve().parent / "shipped"
#: the highest degree in ``G``, ``z`` or a symbol of a shipped term
MAX_SHIPPED_DEGREE = 64

#: a shape's symbols and the terms of its ``P`` (:func:`_terms`)
Terms = tuple[tuple[sp.Symbol, ...], tuple[tuple[int, int, tuple[int, ...], int], ...]]


class _Symbols:
    """Distinct numbers to symbols, in order of appearance."""

    def __init__(self) -> None:
        self.values: dict[sp.Expr, sp.Symbol] = {}

    def __call__(self, x: sp.Expr) -> sp.Expr:
        if not x.is_Rational:
            raise _NoShape  # an exact constant: derived at the numbers
        if x in KEPT:
            return x
        if x not in self.values:
            names = list(ex.SYMBOLS.values())
            if len(self.values) >= min(MAX_SHAPE_SYMBOLS, len(names)):
                raise _NoShape
            self.values[x] = names[len(self.values)]
        return self.values[x]


class _NoShape(Exception):
    """An expression whose shape is not derived (module docstring)."""


def _shape_of(expr: ex.LawExpr, sym: _Symbols) -> ex.LawExpr:
    """``expr`` with its numbers as symbols (nodes built directly: the constructors'
    checks were made on the numbers)."""
    if isinstance(expr, ex.MarchenkoPastur):
        return ex.MarchenkoPastur(sym(expr.ratio))
    if isinstance(expr, ex.Semicircle):
        return ex.Semicircle(sym(expr.variance))
    if isinstance(expr, ex.Atomic):
        return ex.Atomic(tuple((sym(x), p) for x, p in expr.points))
    if isinstance(expr, ex.FreePoisson):
        jump = expr.jump if expr.jump == ex._UNIT_JUMP else _shape_of(expr.jump, sym)
        return ex.FreePoisson(sym(expr.rate), jump)
    if isinstance(expr, ex.Affine):
        return ex.Affine(_shape_of(expr.base, sym), sym(expr.scale), sym(expr.shift))
    if isinstance(expr, ex.FreeMult):
        return ex.FreeMult(tuple(_shape_of(f, sym) for f in expr.factors))
    if isinstance(expr, ex.FreeAdd):
        return ex.FreeAdd(tuple(_shape_of(t, sym) for t in expr.terms))
    raise _NoShape  # a pushforward


def shape(expr: ex.LawExpr,
          fixed: bool = False) -> tuple[ex.LawExpr, dict[sp.Symbol, Fraction]] | None:
    """``(shape, values)``: the shape of an expression with numeric parameters and the
    number of each of its symbols; None where no shape is derived (module docstring). A
    shape without symbols (kept numbers only, as ``mp(1) * mp(1)``) only when it is
    shipped (:func:`_shipped`) or ``fixed`` (:func:`shipped_text`)."""
    if expr.parameters or ex.cauchy_degree_bound(expr) > MAX_SHAPE_DEGREE:
        return None
    sym = _Symbols()
    try:
        out = _shape_of(expr, sym)
    except _NoShape:
        return None
    if not sym.values and not fixed and str(out) not in _shipped():
        return None  # nothing to share: derived at the numbers
    return out, {s: Fraction(int(x.p), int(x.q)) for x, s in sym.values.items()}


@cached_poly
def shape_cauchy(shape_expr: ex.LawExpr) -> sp.Poly:
    """``P(G, z; theta)`` of a shape (:meth:`LawExpr.cauchy_polynomial`), on disk."""
    return shape_expr.cauchy_polynomial()


#: shape text -> the numbers it was first met at, in this process (:func:`_reuse`)
_MET: dict[str, str] = {}
#: shapes whose ``P`` this process has read or derived
_KNOWN: set[str] = set()


def _met_entry(text: str) -> tuple[Path, str]:
    """The disk entry recording the numbers a shape was first met at, and its key."""
    key = f"{source_hash()}|expression-shape-met|{text}"
    return cache_dir() / f"shape-met-{hashlib.sha256(key.encode()).hexdigest()[:32]}.txt", key


def _reuse(shape_expr: ex.LawExpr, values: dict[sp.Symbol, Fraction]) -> bool:
    """Whether to take the shape route (module docstring): the shape's ``P`` is at hand
    (this process has it, it is shipped, or its disk entry exists) or the shape was met
    before at other
    numbers; else these numbers are recorded as the shape's first (memory and disk)."""
    text = str(shape_expr)
    if (text in _KNOWN or text in _shipped()
            or cache.disk_entry(shape_cauchy, (shape_expr,), {})[0].exists()):
        return True
    numbers = ",".join(str(v) for v in values.values())
    path, key = _met_entry(text)
    first = _MET.get(text) or cache_files.load(path, key, str)
    if first is None:
        _MET[text] = numbers
        cache_files.store(path, key, numbers)
        return False
    return first != numbers


@functools.lru_cache(maxsize=64)
def _terms(shape_expr: ex.LawExpr) -> Terms | None:
    """The shape's symbols and ``P``'s terms ``(i, j, exponents, integer)`` of
    ``integer G^i z^j theta^exponents``: shipped (:func:`_shipped`), else
    :func:`_derived_terms`."""
    return _shipped().get(str(shape_expr)) or _derived_terms(shape_expr)


def _derived_terms(shape_expr: ex.LawExpr) -> Terms | None:
    """:func:`_terms` from :func:`shape_cauchy`; None unless ``P`` is over
    ``ZZ[theta]``."""
    poly = shape_cauchy(shape_expr)
    symbols = tuple(sorted(poly.free_symbols - {G, z}, key=lambda s: s.name))
    full = sp.Poly(poly.as_expr(), G, z, *symbols)
    if full.domain != sp.ZZ:
        return None
    return symbols, tuple((m[0], m[1], tuple(m[2:]), int(c)) for m, c in full.terms())


def _at_numbers(found: Terms, values: dict[sp.Symbol, Fraction]) -> dict[tuple[int, int], int]:
    """The shape's ``P`` (:func:`_terms`) at the numbers: primitive over ZZ, positive
    leading coefficient (that of the greatest ``(i, j)``, sympy's lex order), zero terms
    dropped."""
    symbols, terms = found
    point = [values[s] for s in symbols]
    sums: dict[tuple[int, int], Fraction] = {}
    for i, j, exponents, c in terms:
        term = Fraction(c)
        for v, e in zip(point, exponents, strict=True):
            if e:
                term *= v**e
        sums[i, j] = sums.get((i, j), Fraction(0)) + term
    sums = {k: v for k, v in sums.items() if v != 0}
    scale = math.lcm(*(v.denominator for v in sums.values())) if sums else 1
    ints = {k: int(v * scale) for k, v in sums.items()}
    content = math.gcd(*ints.values()) if ints else 1
    sign = -1 if ints and ints[max(ints)] < 0 else 1
    return {k: sign * v // content for k, v in ints.items()}


def _irreducible(terms: dict[tuple[int, int], int]) -> bool:
    """Whether ``P = sum terms[i, j] G^i z^j`` is proved irreducible over QQ (module
    docstring): coprime ``G``-coefficients and ``P(G, z0)`` irreducible of full degree at
    one of :data:`PROBES`."""
    n = max((i for i, _ in terms), default=0)
    if n < 1:
        return False
    rows = [sp.Poly({(j,): c for (i2, j), c in terms.items() if i2 == i} or {(0,): 0}, z,
                    domain=sp.ZZ) for i in range(n + 1)]
    content = functools.reduce(lambda a, b: a.gcd(b), rows)
    if content.degree() > 0:
        return False
    for z0 in PROBES:
        coeffs = [int(row.eval(z0)) for row in rows]
        if coeffs[n] == 0:
            continue
        _, factors = sp.Poly(coeffs[::-1], G, domain=sp.ZZ).factor_list()
        if len(factors) == 1 and factors[0][1] == 1:
            return True
    return False


def cauchy_at_numbers(expr: ex.LawExpr) -> sp.Poly | None:
    """``P(G, z)`` of an expression with numeric parameters from its shape's when the
    shape is reused (:func:`_reuse`): :func:`specialize`; else None."""
    found = shape(expr)
    if found is None or not _reuse(*found):
        return None
    return specialize(expr)


def specialize(expr: ex.LawExpr) -> sp.Poly | None:
    """``P(G, z)`` of an expression with numeric parameters from its shape's ``P`` (module
    docstring; derived now if need be): the polynomial :meth:`LawExpr.cauchy_polynomial`
    derives at the numbers, or None where the shape route does not apply or does not
    prove it."""
    found = shape(expr)
    if found is None:
        return None
    shape_expr, values = found
    generic = _terms(shape_expr)
    _KNOWN.add(str(shape_expr))
    if generic is None:
        return None
    terms = _at_numbers(generic, values)
    if not _irreducible(terms):
        return None
    return sp.Poly.from_dict(terms, G, z, domain=sp.ZZ)


def shipped_examples() -> tuple[ex.LawExpr, ...]:
    """Expressions whose shapes are shipped (module docstring): the peers' table of
    ``benchmarks/algebra.py`` (``mp(theta1)``, ``mp(theta1) * mp(theta2)`` and with one
    number twice, ``semicircle(theta1) + mp(theta2)``) and the sums, products, free
    Poisson laws and affine images around it, at numbers that are no special point; with
    the kept number 1 as the table has it (``mp(1) * mp(1)``, ``semicircle(1) +
    mp(theta1)``)."""
    mp, sc, poisson = ex.marchenko_pastur, ex.semicircle, ex.free_poisson
    a, b, c = sp.Rational(2, 7), sp.Rational(3, 11), sp.Rational(5, 13)
    return (mp(a), sc(a), poisson(a), mp(a) * mp(b), mp(a) * mp(a), mp(a) * mp(b) * mp(c),
            mp(1) * mp(1), mp(a) * mp(1), mp(1) * mp(a), sc(1) + mp(a), sc(a) + mp(1),
            sc(a) + mp(b), mp(a) + sc(b), sc(a) + mp(a), mp(a) + mp(b), mp(a) + mp(a),
            sc(a) + sc(b), sc(a) + mp(b) * mp(c), mp(a) + sc(b) + mp(c),
            ex.affine(mp(a), b, c), poisson(a, mp(b)), poisson(a, sc(b)))


def shipped_entry() -> tuple[Path, str]:
    """The shipped shapes' file for the current symbolic sources and its key."""
    key = f"{source_hash()}|expression-shapes-shipped"
    return SHIPPED / f"shapes-{hashlib.sha256(key.encode()).hexdigest()[:24]}.gen", key


def shipped_text(examples: tuple[ex.LawExpr, ...] | None = None) -> str:
    """The shipped shapes' file content (derived now, :func:`_derived_terms`): JSON of
    ``{shape text: [symbol names, [[i, j, exponents, integer], ...]]}`` for the shapes of
    ``examples`` (default :func:`shipped_examples`)."""
    out: dict[str, list] = {}
    for example in shipped_examples() if examples is None else examples:
        found = shape(example, fixed=True)
        if found is None:
            raise ValueError(f"{example} has no shape to ship")
        terms = _derived_terms(found[0])
        if terms is None:
            raise ValueError(f"the shape of {example} is not over ZZ[theta]")
        symbols, rows = terms
        out[str(found[0])] = [[s.name for s in symbols],
                              [[i, j, list(e), c] for i, j, e, c in rows]]
    return json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n"


def _parse_shipped(text: str) -> dict[str, Terms]:
    """The shipped shapes' terms from :func:`shipped_text`'s JSON; ValueError for content
    of any other form: names outside :data:`expressions.SYMBOLS`, a term that is not four
    integers-or-lists of the right lengths, a degree over :data:`MAX_SHIPPED_DEGREE` or an
    integer over :data:`freege.symbolic.cache.MAX_BITS` bits."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    out: dict[str, Terms] = {}
    for name, (names, rows) in data.items():
        if not (isinstance(names, list) and len(set(names)) == len(names)
                and all(isinstance(n, str) and n in ex.SYMBOLS for n in names)):
            raise ValueError(f"{name}: bad symbols")
        terms = []
        for i, j, exponents, c in rows:
            degrees = [i, j, *exponents] if isinstance(exponents, list) else None
            if (degrees is None or len(exponents) != len(names) or type(c) is not int
                    or not all(type(d) is int and 0 <= d <= MAX_SHIPPED_DEGREE for d in degrees)
                    or c.bit_length() > cache.MAX_BITS):
                raise ValueError(f"{name}: bad term")
            terms.append((i, j, tuple(exponents), c))
        out[name] = (tuple(ex.SYMBOLS[n] for n in names), tuple(terms))
    return out


@functools.cache
def _shipped() -> dict[str, Terms]:
    """Shape text -> terms of the shipped shapes (:func:`shipped_entry`), read once; empty
    where none is shipped for the current sources."""
    path, key = shipped_entry()
    return cache_files.load(path, key, _parse_shipped) or {}


ex.register_shape_route(cauchy_at_numbers)

__all__ = ["MAX_SHAPE_DEGREE", "MAX_SHAPE_SYMBOLS", "MAX_SHIPPED_DEGREE", "SHIPPED",
           "cauchy_at_numbers", "shape", "shape_cauchy", "shipped_entry", "shipped_examples",
           "shipped_text", "specialize"]
