"""The text form of the law algebra: a small whitelisted grammar, read without ``eval``
(docs/algebra.md).

::

    expr   := term (("+" | "-") term)*        law + law: ⊞;  law + number: a shift
    term   := factor (("*" | "/") factor)*    law * law: ⊠;  number * law: a dilation
    factor := ("-" | "+") factor | "(" expr ")" | number | name | constant | call
    constant := "e" | "E" | "pi" | "exp(" rational ")" | "sqrt(" rational ")"
    call   := "mp(" ratio ")" | "semicircle(" variance ")" | "point(" location ")"
            | "atoms(" "(" location "," mass ")" ("," "(" location "," mass ")")* ")"
            | "poisson(" rate ["," expr] ")" | "pushforward(" expr "," polynomial ")"

Numbers are integers, decimals (``0.5``, read exactly) and their quotients (``1/2``),
and exact constants (:mod:`freege.symbolic.open_field`: ``exp(q)`` for ``|q| <= 20``,
``sqrt(q)`` for ``q >= 0``); names are the parameter symbols of
:data:`freege.symbolic.expressions.SYMBOLS` and any other name not reserved
(:data:`freege.symbolic.open_field.RESERVED`), your symbol: a positive number bound
later with ``subs`` (``--param NAME=VALUE``); the
polynomial of ``pushforward`` is in ``x`` with ``^`` (or ``**``) for integer powers 0 to
:data:`freege.symbolic.expressions.MAX_DEGREE`, and of degree at most that. The text is
read by :func:`ast.parse` and every node checked against a whitelist; anything else is a
one-line ValueError naming the offending token. A power in the polynomial is refused
before it is expanded when its numbers could exceed
:data:`freege.symbolic.expressions.MAX_BITS`; every other limit of the expression budget
is checked by the constructors it calls (docs/algebra.md, Limits).
"""

from __future__ import annotations

import ast
from typing import Any

import sympy as sp

from freege.params import parse_number
from freege.symbolic import expressions as ex
from freege.symbolic import open_field
from freege.symbolic.expressions import LawExpr

#: the longest expression text read
MAX_LENGTH = 2000
#: the deepest nesting of operations read
MAX_DEPTH = 60
FUNCTIONS = ("mp", "semicircle", "point", "atoms", "poisson", "pushforward")
#: the functions that make an exact constant of a rational
CONSTANTS = {"exp": sp.exp, "sqrt": sp.sqrt}
#: the names of constants
NAMED_CONSTANTS = {"e": sp.E, "E": sp.E, "pi": sp.pi}


class _Reader:
    """One reading of ``text``: evaluates the whitelisted syntax tree."""

    def __init__(self, text: str) -> None:
        self.text = text
        #: values read so far, by syntax node (a node is read once, however it is asked)
        self.memo: dict[int, Any] = {}

    def fail(self, node: ast.AST | None, what: str) -> ValueError:
        token = ast.get_source_segment(self.text, node) if node is not None else None
        where = f" at column {node.col_offset + 1}" if node is not None else ""
        shown = f" {token!r}" if token else ""
        return ValueError(f"expression: {what}{shown}{where}")

    def value(self, node: ast.AST, depth: int = 0, polynomial: bool = False) -> Any:
        """A LawExpr, or an exact sympy number/expression (read once per node)."""
        key = id(node)
        if key not in self.memo:
            self.memo[key] = self.read(node, depth, polynomial)
        return self.memo[key]

    def read(self, node: ast.AST, depth: int, polynomial: bool) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {MAX_DEPTH} levels at")
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            if polynomial and node.id == "x":
                return ex.X
            if node.id in ex.SYMBOLS:
                return ex.SYMBOLS[node.id]
            if node.id in NAMED_CONSTANTS:
                return NAMED_CONSTANTS[node.id]
            try:
                return open_field.user_symbol(node.id)
            except ValueError as exc:
                raise self.fail(node, f"{exc}:") from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.value(node.operand, depth + 1, polynomial)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp):
            return self.binary(node, depth, polynomial)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in CONSTANTS:
            return self.constant(node, depth)
        if isinstance(node, ast.Call) and not polynomial:
            return self.call(node, depth)
        raise self.fail(node, "unexpected")

    def check_degree(self, node: ast.AST, degree: Any) -> None:
        """Refuses a polynomial of degree above :data:`~freege.symbolic.expressions.MAX_DEGREE`
        before it is expanded."""
        if degree > ex.MAX_DEGREE:
            raise self.fail(node, f"pushforward's polynomial has degree at most "
                            f"{ex.MAX_DEGREE}, not {degree}:")

    def check_bits(self, node: ast.AST, bits: int) -> None:
        """Refuses a power whose numbers could exceed
        :data:`~freege.symbolic.expressions.MAX_BITS` before it is expanded (a bound from
        the operands' sizes: ``(10^4)^4`` nested 14 deep would be a number of 2^28 digits)."""
        if bits > ex.MAX_BITS:
            raise self.fail(node, f"a number has at most {ex.MAX_BITS} bits (about "
                            f"{int(ex.MAX_BITS * 0.30103)} digits: the limit of "
                            f"docs/algebra.md, Limits), and this could make one of up to "
                            f"{bits} bits:")

    def number(self, node: ast.Constant) -> sp.Expr:
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise self.fail(node, "not a number:")
        # read exactly (its size checked on the text, freege.params), sized by the
        # parameter it becomes (its domain, then MAX_BITS): mp(1e308) names the ratio
        x = parse_number("number", ast.get_source_segment(self.text, node) or "")
        return sp.Rational(x.numerator, x.denominator)

    def affine_sum(self, node: ast.BinOp, depth: int) -> LawExpr | None:
        """``a*X + b`` (``X*a``, ``X/d``; ``+`` or ``-``; the number ``b`` on either side)
        as one affine map, or None for any other sum: the text of a normalized law,
        ``1/1000001*mp(1/2) + 1000000/1000001``, reads back to it although its scale
        alone is below the scales' range (docs/algebra.md, Limits)."""
        if not isinstance(node.op, ast.Add | ast.Sub):
            return None
        for product, other, first in ((node.left, node.right, True),
                                      (node.right, node.left, False)):
            if not (isinstance(product, ast.BinOp)
                    and isinstance(product.op, ast.Mult | ast.Div)):
                continue
            left = self.value(product.left, depth + 2)
            right = self.value(product.right, depth + 2)
            if not (isinstance(left, LawExpr) or isinstance(right, LawExpr)):
                continue  # a product of numbers: the law, if any, is on the other side
            b = self.value(other, depth + 1)
            if isinstance(b, LawExpr):
                return None
            if isinstance(product.op, ast.Div):
                if not isinstance(left, LawExpr) or isinstance(right, LawExpr) or right == 0:
                    return None
                x, a = left, 1 / right
            elif isinstance(left, LawExpr) != isinstance(right, LawExpr):
                x, a = (left, right) if isinstance(left, LawExpr) else (right, left)
            else:
                return None  # law * law: ⊠, then + a number
            subtract = isinstance(node.op, ast.Sub)
            scale = -a if subtract and not first else a
            shift = -b if subtract and first else b
            try:
                return ex.affine(x, scale, shift)
            except ValueError as exc:
                raise self.fail(node, f"{exc}; in") from None
        return None

    def binary(self, node: ast.BinOp, depth: int, polynomial: bool) -> Any:
        if not polynomial:
            combined = self.affine_sum(node, depth)
            if combined is not None:
                return combined
        left = self.value(node.left, depth + 1, polynomial)
        right = self.value(node.right, depth + 1, polynomial)
        laws = isinstance(left, LawExpr), isinstance(right, LawExpr)
        op = node.op
        if isinstance(op, ast.Pow):
            if not polynomial or any(laws) or not (right.is_Integer
                                                   and 0 <= right <= ex.MAX_DEGREE):
                raise self.fail(node, f"'^' raises x to a power 0 to {ex.MAX_DEGREE} in "
                                "pushforward's polynomial only:")
            self.check_degree(node, sp.degree(left, ex.X) * right)
            self.check_bits(node, int(right) * (_bits(left) + _terms(left).bit_length()))
            return sp.expand(left**right)
        if not isinstance(op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            raise self.fail(node, "unexpected operator in")
        if isinstance(op, ast.Div) and laws[1]:
            raise self.fail(node.right, "'/' divides by a number, not by the law")
        if not any(laws):
            if isinstance(op, ast.Div) and right == 0:
                raise self.fail(node.right, "division by zero:")
            if isinstance(op, ast.Div) and polynomial and right.has(ex.X):
                raise self.fail(node.right, "'/' divides pushforward's polynomial by a "
                                "number, not by")
            if isinstance(op, ast.Mult) and polynomial:
                self.check_degree(node, sp.degree(left, ex.X) + sp.degree(right, ex.X))
            result = {ast.Add: sp.Add, ast.Sub: lambda a, b: a - b, ast.Mult: sp.Mul,
                      ast.Div: lambda a, b: a / b}[type(op)](left, right)
            return sp.expand(result) if polynomial else result
        try:
            if isinstance(op, ast.Add):
                return left + right if laws[0] else right + left
            if isinstance(op, ast.Sub):
                return left - right if laws[0] else right.__rsub__(left)
            if isinstance(op, ast.Mult):
                return left * right if laws[0] else right.__rmul__(left)
            return left / right
        except ValueError as exc:
            raise self.fail(node, f"{exc}; in") from None

    def constant(self, node: ast.Call, depth: int) -> sp.Expr:
        """``exp(q)`` (``|q| <=`` :data:`~freege.symbolic.open_field.MAX_EXP`) or
        ``sqrt(q)`` (``q >= 0``) of a rational ``q``: an exact sympy constant."""
        name = node.func.id  # type: ignore[attr-defined]
        if len(node.args) != 1 or node.keywords:
            raise self.fail(node, f"{name} takes one rational number:")
        q = self.value(node.args[0], depth + 1)
        if isinstance(q, LawExpr) or not q.is_Rational:
            raise self.fail(node, f"{name} takes a rational number (a constant or a symbol "
                            "inside is not read):")
        if name == "exp" and abs(q) > open_field.MAX_EXP:
            raise self.fail(node, f"exp takes a number in [-{open_field.MAX_EXP}, "
                            f"{open_field.MAX_EXP}] (e^{open_field.MAX_EXP} is past every "
                            "parameter's range):")
        if name == "sqrt" and q < 0:
            raise self.fail(node, "sqrt takes a number >= 0:")
        return CONSTANTS[name](q)

    def call(self, node: ast.Call, depth: int) -> LawExpr:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in FUNCTIONS:
            raise self.fail(node.func, f"unknown function (one of {', '.join(FUNCTIONS)}):")
        if node.keywords:
            raise self.fail(node.keywords[0].value, "keyword arguments are not read:")
        args = node.args
        try:
            if name == "atoms":
                return ex.atomic([self.pair(a, depth) for a in args])
            if name == "poisson" and len(args) == 2:
                jump = self.value(args[1], depth + 1)
                if not isinstance(jump, LawExpr):
                    raise self.fail(args[1], "poisson's second argument is its jump law:")
                return ex.free_poisson(self.scalar(args[0], depth), jump)
            if name == "pushforward" and len(args) == 2:
                law = self.value(args[0], depth + 1)
                if not isinstance(law, LawExpr):
                    raise self.fail(args[0], "pushforward needs a law first:")
                poly = sp.Poly(self.value(args[1], depth + 1, polynomial=True), ex.X)
                return ex.pushforward(law, list(reversed(poly.all_coeffs())))
            if len(args) != 1 or name == "pushforward":
                raise self.fail(node, f"{name} takes {self.arity(name)}:")
            build = {"mp": ex.marchenko_pastur, "semicircle": ex.semicircle,
                     "point": ex.point_mass, "poisson": ex.free_poisson}[name]
            return build(self.scalar(args[0], depth))
        except ValueError as exc:
            if str(exc).startswith("expression:"):
                raise
            raise self.fail(node, f"{exc}; in") from None

    @staticmethod
    def arity(name: str) -> str:
        return {"poisson": "a rate and optionally a jump law",
                "pushforward": "a law and a polynomial in x"}.get(name, "one number")

    def scalar(self, node: ast.AST, depth: int) -> sp.Expr:
        value = self.value(node, depth + 1)
        if isinstance(value, LawExpr):
            raise self.fail(node, "expected a number, not the law")
        return value

    def pair(self, node: ast.AST, depth: int) -> tuple[sp.Expr, sp.Expr]:
        if not isinstance(node, ast.Tuple) or len(node.elts) != 2:
            raise self.fail(node, "atoms takes (location, mass) pairs, not")
        return self.scalar(node.elts[0], depth), self.scalar(node.elts[1], depth)


def _bits(value: sp.Expr) -> int:
    """The largest size in bits of a numerator or denominator of the numbers in ``value``."""
    return max((max(int(r.p).bit_length(), int(r.q).bit_length())
                for r in value.atoms(sp.Rational)), default=1)


def _terms(value: sp.Expr) -> int:
    return len(sp.Add.make_args(value))


def _source_text(text: Any, name: str) -> str:
    """``text`` as Python source for :mod:`ast` (``^`` read as ``**``), after the checks
    every reader shares: a string of at most :data:`MAX_LENGTH` characters."""
    if not isinstance(text, str):
        raise ValueError(f"{name} must be a string (got {type(text).__name__})")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"{name}: longer than {MAX_LENGTH} characters")
    return text.replace("^", "**").strip()


def parse(text: str) -> LawExpr:
    """The law written ``text`` in the grammar of the module docstring, e.g.
    ``"mp(1/2) * mp(1/2)"``, ``"semicircle(1) + mp(1/2)"``, ``"2*mp(1) + 3"``."""
    source = _source_text(text, "expression")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        offset = exc.offset or 1
        near = source[max(offset - 1, 0):offset + 9] or "end of text"
        raise ValueError(f"expression: cannot read {near!r} at column {offset}") from None
    except (RecursionError, MemoryError):
        raise ValueError(f"expression: nested deeper than {MAX_DEPTH} levels") from None
    result = _Reader(source).value(tree.body)
    if not isinstance(result, LawExpr):
        raise ValueError(f"expression: {text!r} is a number, not a law")
    return result


def parse_number_text(text: str, name: str = "value") -> sp.Expr:
    """A number (or an expression in symbols, no law) written ``text`` in the grammar,
    e.g. ``"1/2"``, ``"exp(1) - 1"``, ``"2*sqrt(2)"``: what ``subs`` and ``--param
    NAME=VALUE`` bind a symbol to; a one-line ValueError naming ``name`` otherwise."""
    source = _source_text(text, name)
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        raise ValueError(f"{name}: cannot read {text!r} as a number") from None
    try:
        value = _Reader(source).value(tree.body)
    except ValueError as exc:
        raise ValueError(f"{name}: {str(exc).removeprefix('expression: ')}") from None
    if isinstance(value, LawExpr):
        raise ValueError(f"{name}: {text!r} is a law, not a number")
    return value


ex.register_number_reader(parse_number_text)


def law_of(text: str, dps: int | None) -> Any:
    """The numeric law of the expression written ``text`` (``parse(text).law(dps)``): what
    a pickled expression law is rebuilt from (:mod:`freege.numeric.law_recipe`). The
    text goes through the grammar (:func:`parse`) and ``dps`` must be in the command
    line's range (:func:`freege.numeric.law_recipe.check_dps`), both before building."""
    from freege.numeric import law_recipe

    if not isinstance(text, str):
        raise ValueError(f"recipe expression must be a string (got {text!r})")
    dps = law_recipe.check_dps(dps)
    return parse(text).law(dps)
