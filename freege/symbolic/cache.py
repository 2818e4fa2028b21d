"""In-process and on-disk cache for exact derivations.

Derivations are pure functions of their arguments and of freege's symbolic source, so
results are stored by (function name, arguments, source hash) as ``sympy.srepr`` text
in the cache folder (:func:`freege.cache_key.cache_dir`). A changed source file gives
a new hash, so stale entries are never read. Unwritable cache folders are ignored.

Entries are read and written through :mod:`freege.cache_files` (only private files in a
private folder; atomic writes through ``mkstemp``) and decoded without ``eval``:
:func:`from_srepr` builds the expression from the syntax tree of the text, accepting only
the constructors and literals ``srepr`` writes for freege's results (:data:`SREPR_CLASSES`,
:data:`SREPR_CONSTANTS`); an entry with anything else is ignored and recomputed, with a
warning.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import sympy as sp
from sympy.core.assumptions import _assume_defined

from freege import cache_files
from freege.cache_key import cache_dir, source_hash

F = TypeVar("F", bound=Callable[..., Any])


def _encode(value: Any) -> Any:
    """JSON-able form of a derivation result: sympy objects as srepr text."""
    if isinstance(value, sp.Basic):
        return {"srepr": sp.srepr(value)}
    if isinstance(value, list | tuple):
        return {"seq": [_encode(v) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        return {"map": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, bool | int | str):
        return {"plain": value}
    raise TypeError(f"cannot cache {type(value).__name__}")


#: the sympy constructors a cache entry may call, with the arguments they take: ``expr``
#: (sub-expressions), ``int`` (integer literals), ``name`` (one string and boolean
#: assumptions), ``float`` (a decimal string and an integer ``precision``)
SREPR_CLASSES: dict[str, tuple[Any, str]] = {
    "Add": (sp.Add, "expr"), "Mul": (sp.Mul, "expr"), "Pow": (sp.Pow, "expr"),
    "Tuple": (sp.Tuple, "expr"), "exp": (sp.exp, "expr"), "log": (sp.log, "expr"),
    "Integer": (sp.Integer, "int"), "Rational": (sp.Rational, "int"),
    "Symbol": (sp.Symbol, "name"), "Float": (sp.Float, "float"),
}
#: the bare names a cache entry may use
SREPR_CONSTANTS: dict[str, Any] = {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo,
                                   "zoo": sp.zoo, "nan": sp.nan}
_ASSUMPTIONS = frozenset(_assume_defined)
#: the deepest nesting of constructors an entry may use
MAX_DEPTH = 200
#: the most bits of a numerator or denominator an entry may build
MAX_BITS = 1 << 17
#: the largest numerator or denominator of a numeric exponent
MAX_EXPONENT = 10_000
#: the highest precision (bits) of a Float, whose text must be a plain decimal
MAX_PRECISION = 10_000
_DECIMAL = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d{1,6})?")


def _int_literal(node: ast.expr) -> int:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_int_literal(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise ValueError("expected an integer literal")


def _bounded(value: sp.Basic) -> sp.Basic:
    """``value`` unless it is a number or a numeric power larger than a derivation makes
    (:data:`MAX_BITS`, :data:`MAX_EXPONENT`): ValueError then."""
    if isinstance(value, sp.Rational) and _bits(value) > MAX_BITS:
        raise ValueError(f"a number of more than {MAX_BITS} bits")
    if isinstance(value, sp.Pow):
        _check_exponent(value.exp)
    return value


def _check_exponent(exponent: sp.Basic) -> None:
    if isinstance(exponent, sp.Rational) and max(abs(exponent.p), exponent.q) > MAX_EXPONENT:
        raise ValueError(f"an exponent beyond {MAX_EXPONENT}")


def _bits(number: sp.Rational) -> int:
    return max(abs(number.p).bit_length(), number.q.bit_length())


def _power(base: sp.Basic, exponent: sp.Basic) -> sp.Basic:
    """``Pow(base, exponent)``, refused (ValueError) before sympy evaluates a numeric
    power beyond the bounds of :func:`_bounded`."""
    _check_exponent(exponent)
    if (isinstance(base, sp.Rational) and isinstance(exponent, sp.Rational)
            and _bits(base) * abs(exponent.p) > MAX_BITS):
        raise ValueError(f"a power of more than {MAX_BITS} bits")
    return sp.Pow(base, exponent)


def _build(node: ast.expr, depth: int = 0) -> sp.Basic:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH}")
    if isinstance(node, ast.Name) and node.id in SREPR_CONSTANTS:
        return SREPR_CONSTANTS[node.id]
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in SREPR_CLASSES):
        raise ValueError(f"unexpected {ast.dump(node)[:60]}")
    cls, kind = SREPR_CLASSES[node.func.id]
    if kind == "expr":
        if node.keywords:
            raise ValueError("keywords in an expression")
        args = [_build(a, depth + 1) for a in node.args]
        if cls is sp.Pow:
            return _bounded(_power(*args))
        return _bounded(cls(*args))
    if kind == "int":
        if node.keywords or not 1 <= len(node.args) <= 2:
            raise ValueError("bad integer constructor")
        return _bounded(cls(*(_int_literal(a) for a in node.args)))
    (arg,) = node.args
    if not (isinstance(arg, ast.Constant) and type(arg.value) is str):
        raise ValueError("expected a string literal")
    options = {k.arg: k.value.value for k in node.keywords
               if isinstance(k.value, ast.Constant)}
    if len(options) != len(node.keywords):
        raise ValueError("non-literal keyword")
    if kind == "name":
        if not (set(options) <= _ASSUMPTIONS
                and all(type(v) is bool for v in options.values())):
            raise ValueError("bad symbol assumptions")
        return cls(arg.value, **options)
    precision = options.get("precision")
    if (set(options) != {"precision"} or type(precision) is not int
            or not 1 <= precision <= MAX_PRECISION or not _DECIMAL.fullmatch(arg.value)):
        raise ValueError("bad Float")
    return cls(arg.value, precision=precision)


def from_srepr(text: str) -> sp.Basic:
    """The expression ``sympy.srepr`` printed as ``text``, rebuilt by walking its syntax
    tree -- no ``eval``: ValueError for any constructor or name outside
    :data:`SREPR_CLASSES` and :data:`SREPR_CONSTANTS`, and for an expression beyond the
    bounds (:data:`MAX_DEPTH`, :data:`MAX_BITS`, :data:`MAX_EXPONENT`,
    :data:`MAX_PRECISION`) that keep its work small."""
    return _build(ast.parse(text, mode="eval").body)


def _decode(data: Any) -> Any:
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("bad cache entry")
    if "srepr" in data:
        return from_srepr(data["srepr"])
    if "seq" in data:
        items = [_decode(v) for v in data["seq"]]
        return tuple(items) if data["tuple"] is True else items
    if "map" in data:
        return {_decode(k): _decode(v) for k, v in data["map"]}
    value = data["plain"]
    if value is not None and type(value) not in (bool, int, str):
        raise ValueError("bad plain value")
    return value


def _parse_entry(content: str) -> tuple[Any]:
    """A disk entry's result, wrapped in a 1-tuple (a cached ``None`` is a result too)."""
    return (_decode(json.loads(content)),)


def disk_entry(func: Callable[..., Any], args: tuple, kwargs: dict) -> tuple[Path, str]:
    """The disk entry of ``func(*args, **kwargs)`` and its key (the call and the symbolic
    source hash)."""
    key = f"{source_hash()}|{_call_key(func, args, kwargs)}"
    return cache_dir() / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json", key


def _call_key(func: Callable[..., Any], args: tuple, kwargs: dict) -> str:
    return repr((func.__module__, func.__qualname__, args, sorted(kwargs.items())))


def cached(func: F) -> F:
    """Memoise ``func`` in memory and on disk. Arguments must have stable ``repr``."""

    memory: dict[str, Any] = {}

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = _call_key(func, args, kwargs)
        if key in memory:
            return memory[key]
        path, entry = disk_entry(func, args, kwargs)
        loaded = cache_files.load(path, entry, _parse_entry)
        if loaded is not None:
            (result,) = loaded
        else:
            result = func(*args, **kwargs)
            with contextlib.suppress(TypeError):  # a result that is not cacheable
                cache_files.store(path, entry, json.dumps(_encode(result)))
        memory[key] = result
        return result

    wrapper.cache_clear = memory.clear  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def cached_poly(func: Callable[..., sp.Poly]) -> Callable[..., sp.Poly]:
    """:func:`cached` for functions returning a ``sympy.Poly``.

    The disk cache keeps the expression and generators; the Poly is rebuilt without
    re-expanding (``expand=False``, several times faster than parsing a Poly's srepr), and
    memoised in memory.
    """

    @cached
    @functools.wraps(func)
    def parts(*args: object, **kwargs: object) -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
        poly = func(*args, **kwargs)
        return poly.as_expr(), tuple(poly.gens)

    memory: dict[str, sp.Poly] = {}

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> sp.Poly:
        key = repr((args, sorted(kwargs.items())))
        if key not in memory:
            expr, gens = parts(*args, **kwargs)
            memory[key] = sp.Poly(expr, *gens, expand=False)
        return memory[key]

    return wrapper
