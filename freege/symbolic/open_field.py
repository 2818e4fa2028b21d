"""Your own symbols and exact constants in the law algebra (docs/algebra.md, "Your
symbols" and "Constants"; theory §3).

The exact layer computes in one field, :data:`freege.symbolic.series.FIELD`: rational
functions with rational coefficients of its six generators ``theta1 theta2 h gK gV gO``.
An expression may hold more than that:

* **your symbols**: any name the grammar does not reserve (:func:`user_symbol`), a
  positive real number you bind later (``expr.subs({"c": "1/2"})``, ``--param c=1/2``);
* **exact constants**: ``e`` (``E``), ``pi``, ``exp(q)`` and ``sqrt(q)`` of rationals
  ``q`` (:func:`check_constant`), sized by :data:`MAX_EXP`, :data:`MAX_CONSTANT_OPS`
  and the rationals' ``MAX_BITS``.

Both enter a derivation renamed (:func:`aliases`): each becomes a generator of the
field that the expression does not use, the derivation runs there, and its results are
renamed back. Your symbols are independent indeterminates, so the rename is exact.
``exp(p/q)`` for the exponents of one expression are the integer powers of
``t = exp(1/L)`` (``L`` the least common denominator), and ``t`` and ``pi`` are
transcendental, so they too are exact: ``Q(t)`` is a field of rational functions. A
square root ``sqrt(n)`` is algebraic: it is derived as an indeterminate ``s`` and ``s =
sqrt(n)`` put in at the end, which is a ring map, so every result is right (the moments,
``P(G, z)`` vanishing on the law's Cauchy transform); ``P`` may then factor further
over ``Q(sqrt(n))``. The numeric law of an expression with constants is that of the
expression with each number holding one rounded to :data:`GUARD_DIGITS` digits beyond
the working precision (:func:`rounded_value`), by sympy's (mpmath's) evaluation.
"""

from __future__ import annotations

import keyword
import math
from typing import Any

import sympy as sp

from freege.symbolic.series import FIELD

#: names the grammar gives a meaning (never your symbol): the constants, the law and
#: constant functions, pushforward's variable ``x`` and the transform variables
RESERVED = frozenset({
    "e", "E", "pi", "exp", "sqrt", "mp", "semicircle", "point", "atoms", "poisson",
    "pushforward", "x", "G", "z", "S", "w", "lam", "p", "I", "oo", "nan", "zoo",
})
#: the largest ``|q|`` of ``exp(q)`` (``e^20`` is about ``5e8``, past every domain's end)
MAX_EXP = 20
#: the highest power of ``t = exp(1/L)`` the exp(q) of one expression become (``exp(20)``
#: beside ``exp(1/3)`` is ``t^60``): the degree of a generator in every derivation
MAX_EXP_POWER = 60
#: the most operations in one number holding constants (``2*exp(1/2) - sqrt(3)/7``: 5)
MAX_CONSTANT_OPS = 24
#: digits beyond the working precision to which a number holding a constant is rounded
#: for the numeric law (16 + 20 = 36 digits in float64)
GUARD_DIGITS = 20
#: the most significant digits of a rounded constant (``MAX_BITS = 512``: about 154)
MAX_ROUNDED_DIGITS = 150


def user_symbol(name: str) -> sp.Symbol:
    """Your symbol ``name``: a positive real sympy symbol; a ValueError for a name that
    is no identifier or that the grammar reserves (:data:`RESERVED`)."""
    if not (isinstance(name, str) and name.isidentifier() and name.isascii()
            and not keyword.iskeyword(name) and not name.startswith("_")):
        raise ValueError(f"a symbol's name is a letter followed by letters, digits or "
                         f"'_' (got {name!r})")
    if name in RESERVED:
        raise ValueError(f"{name!r} is reserved in expressions (the constants e, E, pi, "
                         "the functions, pushforward's x and the transform variables G, "
                         "z, S, w, lam, p): choose another name")
    return sp.Symbol(name, positive=True)


def _constant_atoms(value: sp.Expr) -> set[sp.Expr]:
    """The constants in ``value``: ``E``, ``pi``, ``exp(q)``, ``sqrt(n)``."""
    found: set[sp.Expr] = set()
    for node in sp.preorder_traversal(value):
        if node is sp.E or node is sp.pi or isinstance(node, sp.exp):
            found.add(node)
        elif node.is_Pow and node.exp == sp.S.Half and node.base.is_Integer:
            found.add(node)
    return found


def has_constant(value: Any) -> bool:
    """Whether the sympy value ``value`` holds an exact constant."""
    return isinstance(value, sp.Basic) and bool(_constant_atoms(value))


def check_constant(name: str, value: sp.Expr, max_bits: int) -> sp.Expr:
    """``value`` when it is a real number built by ``+ - * /`` and integer powers from
    rationals of at most ``max_bits`` bits and the constants ``E``, ``pi``, ``exp(q)``
    (``|q| <=`` :data:`MAX_EXP`) and ``sqrt(q)`` of rationals, in at most
    :data:`MAX_CONSTANT_OPS` operations (symbols allowed beside them); else a ValueError
    naming ``name``."""
    for node in sp.preorder_traversal(value):
        if isinstance(node, sp.exp):
            q = node.args[0]
            if not (q.is_Rational and abs(q) <= MAX_EXP):
                raise ValueError(f"{name} must hold exp(q) of rationals q in [-{MAX_EXP}, "
                                 f"{MAX_EXP}] only (got {node})")
        elif node.is_Pow and not (node.exp.is_Integer or (node.exp == sp.S.Half
                                                           and node.base.is_Integer)):
            raise ValueError(f"{name} must hold e, pi, exp(q) and sqrt(q) of rationals q, "
                             f"and integer powers only (got {node})")
        elif node.is_Rational and max(int(node.p).bit_length(),
                                      int(node.q).bit_length()) > max_bits:
            raise ValueError(f"{name} must hold numbers of at most {max_bits} bits of "
                             "numerator and of denominator (docs/algebra.md, Limits)")
        elif not (node.is_Atom or node.is_Add or node.is_Mul or node.is_Pow
                  or isinstance(node, sp.exp)):
            raise ValueError(f"{name} must be built from rationals, e, pi, exp(q) and "
                             f"sqrt(q) by + - * / ({type(node).__name__} is not read: {node})")
        elif node.is_Atom and not (node.is_Rational or node.is_Symbol or node is sp.E
                                   or node is sp.pi):
            raise ValueError(f"{name} must be a real exact number ({node} is not)")
    ops = sp.count_ops(value)
    if ops > MAX_CONSTANT_OPS:
        raise ValueError(f"{name} must hold at most {MAX_CONSTANT_OPS} operations beside "
                         f"its constants (got {ops}; docs/algebra.md, Limits)")
    return value


def aliases(numbers: list[sp.Expr], theory: set[sp.Symbol]
            ) -> tuple[dict[sp.Expr, sp.Expr], dict[sp.Symbol, sp.Expr]]:
    """``(forward, back)``: renames of your symbols and the constants in ``numbers`` (an
    expression's parameters) to generators of FIELD outside ``theory`` (the ones it
    uses), and back (module docstring). Empty when there is nothing to rename; a
    ValueError when they do not fit in FIELD's six generators."""
    users = sorted({s for v in numbers for s in v.free_symbols if s not in FIELD.symbols},
                   key=lambda s: s.name)
    consts: set[sp.Expr] = set()
    for v in numbers:
        consts |= _constant_atoms(v)
    exps = [c for c in consts if c is sp.E or isinstance(c, sp.exp)]
    others = sorted((c for c in consts if c not in exps), key=sp.default_sort_key)
    needed = len(users) + len(others) + (1 if exps else 0)
    if not needed:
        return {}, {}
    free = [s for s in FIELD.symbols if s not in theory]
    if needed > len(free):
        raise ValueError(
            f"an expression's exact layer holds at most {len(FIELD.symbols)} symbols and "
            f"constants together (theirs: {', '.join(map(str, sorted(theory, key=str)))}; "
            f"yours: {', '.join(map(str, users + others + exps))}; the exp(q) count as "
            "one): bind some with subs (docs/algebra.md, Your symbols)")
    forward: dict[sp.Expr, sp.Expr] = {}
    back: dict[sp.Symbol, sp.Expr] = {}
    slots = iter(free)
    for item in users + others:
        slot = next(slots)
        forward[item], back[slot] = slot, item
    if exps:
        slot = next(slots)
        q = [sp.Integer(1) if c is sp.E else c.args[0] for c in exps]
        lcd = math.lcm(*(int(v.q) for v in q))
        power = max(abs(int(v * lcd)) for v in q)
        if power > MAX_EXP_POWER:
            raise ValueError(
                f"the exp(q) of one expression are powers of exp(1/{lcd}); here up to the "
                f"power {power}, and the limit is {MAX_EXP_POWER} (the degree of a "
                "generator in every derivation; docs/algebra.md, Constants): use fewer "
                "denominators, or bind the constant with subs")
        back[slot] = sp.exp(sp.Rational(1, lcd))
        for c, v in zip(exps, q, strict=True):
            forward[c] = slot ** int(v * lcd)
    return forward, back


def rounded_value(value: sp.Expr, dps: int | None) -> sp.Expr:
    """A number holding constants as the rational of its decimal rounded to ``dps`` (None:
    float64's 16) plus :data:`GUARD_DIGITS` significant digits (sympy's evaluation,
    mpmath underneath, with its accuracy checked); a rational unchanged. A ValueError
    past :data:`MAX_ROUNDED_DIGITS` digits."""
    if not has_constant(value):
        return value
    digits = (16 if dps is None else dps) + GUARD_DIGITS
    if digits > MAX_ROUNDED_DIGITS:
        raise ValueError(f"a law with exact constants is computed at most at dps "
                         f"{MAX_ROUNDED_DIGITS - GUARD_DIGITS} (its constants are rounded "
                         f"to dps + {GUARD_DIGITS} digits, at most {MAX_ROUNDED_DIGITS}; "
                         f"got dps {dps})")
    return sp.Rational(str(sp.N(value, digits)))
