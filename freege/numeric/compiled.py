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
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

from freege.cache_key import cache_dir, source_hash

#: argument names of every generated function, in :data:`_symbolic.PARAMETERS` order
ARGUMENTS = ("theta1", "theta2", "h", "gK", "gV", "gO")


def mp_rational(p: int, q: int) -> mpmath.mpf:
    """``p/q`` at the ambient precision (the ``_q`` of mpmath evaluations)."""
    return mpmath.mpf(p) / q


def exact_rational(p: int, q: int) -> Fraction:
    """``p/q`` exactly (the ``_q`` of exact evaluations)."""
    return Fraction(p, q)


def cache_root() -> Path:
    """``<freege cache dir>/numeric``: the numeric layer's disk caches."""
    return cache_dir() / "numeric"


def _path(name: str, arguments: tuple[str, ...]) -> Path:
    signature = name if arguments == ARGUMENTS else f"{name}:{','.join(arguments)}"
    digest = hashlib.sha256(f"{source_hash()}:{signature}".encode()).hexdigest()[:24]
    return cache_root() / f"{name}-{digest}.py"


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

    return (f"def f({', '.join(arguments)}, _q):\n"
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
    path = _path(name, arguments)
    try:
        namespace = _load(path.read_text(), path)
    except (OSError, SyntaxError, ValueError):  # absent, unreadable or corrupt: rebuild
        source = _source(build(), arguments)
        namespace = _load(source, path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as handle:
                handle.write(source)
            os.replace(tmp, path)  # atomic: concurrent writers never see half a file
        except OSError:
            pass
    _LOADED[key] = namespace["f"]
    return _LOADED[key]


def _load(source: str, path: Path) -> dict[str, Any]:
    """Execute generated source; ValueError unless it defines ``f`` (a truncated or
    foreign file is never used)."""
    namespace: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 -- our own printed source
    if not callable(namespace.get("f")):
        raise ValueError(f"{path} does not define f")
    return namespace


__all__ = ["ARGUMENTS", "cache_root", "exact_rational", "function", "mp_rational"]
