"""The numeric layer's coefficient functions as generated Python source, cached on disk
(theory §7; issue 7: no ``lambdify`` and no decoding of exact expressions on a warm path).

Each function is a list (or nested list) of the exact symbolic expressions of
:mod:`freege.numeric._symbolic` -- Cauchy and S-relation coefficient matrices, the ridge
polynomial at ``lam = 0``, moments -- printed once as plain Python arithmetic in the
parameters ``(theta1, theta2, h, gK, gV, gO)``. The expressions are polynomials or
rational functions with integer coefficients, so the *same* source evaluates exactly on
:class:`fractions.Fraction` inputs and at working precision on mpmath inputs; a rational
constant is printed as ``_q(p, q)`` with ``_q`` supplied by the caller (``Fraction`` or an
mpmath quotient). The source lives in ``<freege cache dir>/numeric/``, named by the
symbolic layer's source hash, so an edit of :mod:`freege.symbolic` never reads a stale
file.

An empty cache folder first looks in :data:`SHIPPED` (issue 41: a first use derives
nothing in sympy): the functions a first use of each theory §4 case needs, written by
``python -m freege.numeric.ship_functions`` under the same names and keys, so they are
found only while the symbolic sources and sympy's version are those they were derived
from, and read with the same checks (:func:`freege.cache_files.load`, :func:`check_tree`).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

from freege import cache_files
from freege.cache_key import cache_dir, source_hash

#: argument names of every generated function, in :data:`_symbolic.PARAMETERS` order
ARGUMENTS = ("theta1", "theta2", "h", "gK", "gV", "gO")
#: the largest power a generated function may raise to
MAX_POWER = 10_000
#: generated functions shipped with freege (module docstring), ``<disk entry stem>.gen``
SHIPPED = Path(__file__).resolve().parent / "shipped"


def mp_rational(p: int, q: int) -> mpmath.mpf:
    """``p/q`` at the ambient precision (the ``_q`` of mpmath evaluations)."""
    return mpmath.mpf(p) / q


def exact_rational(p: int, q: int) -> Fraction:
    """``p/q`` exactly (the ``_q`` of exact evaluations)."""
    return Fraction(p, q)


def cache_root() -> Path:
    """``<freege cache dir>/numeric``: the numeric layer's disk caches."""
    return cache_dir() / "numeric"


def disk_entry(name: str, arguments: tuple[str, ...] = ARGUMENTS) -> tuple[Path, str]:
    """The disk entry of a generated function and its key (the symbolic source hash and
    the function's signature)."""
    signature = name if arguments == ARGUMENTS else f"{name}:{','.join(arguments)}"
    key = f"{source_hash()}:{signature}"
    return cache_root() / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.py", key


def _source(exprs: Any, arguments: tuple[str, ...]) -> str:
    import sympy as sp
    from sympy.printing.str import StrPrinter

    class Printer(StrPrinter):
        def _print_Rational(self, expr: sp.Rational) -> str:
            return f"_q({expr.p}, {expr.q})"

        def _print_Function(self, expr: sp.Expr) -> str:
            raise ValueError(f"cannot print {expr.func} as plain arithmetic")

    printer = Printer()

    def render(e: Any) -> str:
        if isinstance(e, list | tuple):
            return "[" + ", ".join(render(v) for v in e) + "]"
        return "(" + printer.doprint(sp.sympify(e)) + ")"

    return (f"def f({', '.join([*arguments, '_q'])}):\n"
            f"    return {render(exprs)}\n")


_LOADED: dict[tuple[str, tuple[str, ...]], Callable[..., Any]] = {}


def function(
    name: str, build: Callable[[], Any], arguments: tuple[str, ...] = ARGUMENTS
) -> Callable[..., Any]:
    """The generated function ``f(theta1, theta2, h, gK, gV, gO, _q)`` for ``name`` (or
    ``f(*arguments, _q)``: the names of the symbols ``build()`` uses): read from the disk
    cache, else ``build()`` (a list of sympy expressions in the parameters) printed and
    written there (an unwritable cache folder is ignored)."""
    key = (name, arguments)
    if key in _LOADED:
        return _LOADED[key]
    path, entry = disk_entry(name, arguments)
    namespace = cache_files.load(path, entry, lambda text: _load(text, path, arguments))
    if namespace is None:
        namespace = shipped(path, entry, arguments)
    if namespace is None:
        source = _source(build(), arguments)
        namespace = _load(source, path, arguments)
        cache_files.store(path, entry, source)  # an unwritable folder: still used
    _LOADED[key] = namespace["f"]
    return _LOADED[key]


def shipped(path: Path, entry: str, arguments: tuple[str, ...]) -> dict[str, Any] | None:
    """The generated function of disk entry ``path`` from :data:`SHIPPED`, or None (none
    shipped for this name and key)."""
    found = SHIPPED / f"{path.stem}.gen"
    if not found.is_file():
        return None
    return cache_files.load(found, entry, lambda text: _load(text, found, arguments))


def _literal_int(node: ast.expr) -> int | None:
    """The value of an integer literal, negated or not (``None``: not one)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _check_expression(root: ast.expr, names: frozenset[str]) -> None:
    """ValueError unless every node under ``root`` is one :func:`_source` prints, with
    powers of powers compounding to at most :data:`MAX_POWER` and positive ``_q``
    denominators (so evaluating it stays small and never divides a literal by zero;
    iterative: a long sum is a deep tree)."""
    stack = [(root, 1)]
    while stack:
        node, outer = stack.pop()
        if isinstance(node, ast.List):
            stack.extend((e, outer) for e in node.elts)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            power = _literal_int(node.right)
            if power is None or abs(power) * outer > MAX_POWER:
                raise ValueError("a power that is not a small integer")
            stack.append((node.left, max(abs(power), 1) * outer))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult
                                                           | ast.Div):
            stack.extend(((node.left, outer), (node.right, outer)))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            stack.append((node.operand, outer))
        elif isinstance(node, ast.Name):
            if node.id not in names or not isinstance(node.ctx, ast.Load):
                raise ValueError(f"unknown name {node.id!r}")
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == "_q"
                    and len(node.args) == 2 and not node.keywords
                    and _literal_int(node.args[0]) is not None
                    and (_literal_int(node.args[1]) or 0) > 0):
                raise ValueError("a call other than _q(p, q) with q > 0")
        elif _literal_int(node) is None:
            raise ValueError(f"unexpected {type(node).__name__}")


def check_tree(tree: ast.Module, arguments: tuple[str, ...]) -> None:
    """ValueError unless ``tree`` is ``def f(*arguments, _q): return <expression>`` with an
    expression of :func:`_source`'s shape (the only code a cached file may hold)."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise ValueError("not a single function definition")
    fn = tree.body[0]
    args = fn.args
    if (fn.name != "f" or fn.decorator_list or fn.returns is not None
            or [a.arg for a in args.args] != [*arguments, "_q"]
            or any(a.annotation is not None for a in args.args)
            or args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg
            or args.defaults or args.kw_defaults):
        raise ValueError("not the signature f(<arguments>, _q)")
    if len(fn.body) != 1 or not isinstance(fn.body[0], ast.Return) or fn.body[0].value is None:
        raise ValueError("the body is not a single return")
    _check_expression(fn.body[0].value, frozenset(arguments))


def _load(source: str, path: Path, arguments: tuple[str, ...]) -> dict[str, Any]:
    """Define ``f`` from generated source after :func:`check_tree` accepts its tree
    (SyntaxError or ValueError otherwise: a truncated or foreign file is never run)."""
    tree = ast.parse(source, str(path))
    check_tree(tree, arguments)
    namespace: dict[str, Any] = {"__builtins__": {}}
    exec(compile(tree, str(path), "exec"), namespace)  # noqa: S102 -- checked arithmetic only
    return namespace


__all__ = ["ARGUMENTS", "MAX_POWER", "SHIPPED", "cache_root", "check_tree", "disk_entry",
           "exact_rational", "function", "mp_rational", "shipped"]
