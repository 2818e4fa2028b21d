"""In-process and on-disk cache for exact derivations.

Derivations are pure functions of their arguments and of freege's symbolic source, so
results are stored by (function name, arguments, source hash) as ``sympy.srepr`` text
under ``$FREEGE_CACHE_DIR`` (default ``~/.cache/freege``). A changed source file gives
a new hash, so stale entries are never read. Unwritable cache folders are ignored.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from typing import Any, TypeVar

import sympy as sp

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


def _decode(data: Any) -> Any:
    if "srepr" in data:
        return eval(data["srepr"], vars(sp).copy())  # noqa: S307 -- our own srepr text
    if "seq" in data:
        items = [_decode(v) for v in data["seq"]]
        return tuple(items) if data["tuple"] else items
    if "map" in data:
        return {_decode(k): _decode(v) for k, v in data["map"]}
    return data["plain"]


def cached(func: F) -> F:
    """Memoise ``func`` in memory and on disk. Arguments must have stable ``repr``."""

    memory: dict[str, Any] = {}

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = repr((func.__module__, func.__qualname__, args, sorted(kwargs.items())))
        if key in memory:
            return memory[key]
        name = hashlib.sha256(f"{source_hash()}|{key}".encode()).hexdigest()[:32]
        path = cache_dir() / f"{name}.json"
        try:
            result = _decode(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, SyntaxError):
            result = func(*args, **kwargs)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(_encode(result)))
                tmp.replace(path)
            except (OSError, TypeError):
                pass
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
