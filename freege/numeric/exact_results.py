"""Disk cache of the exact-arithmetic results of a Cauchy equation (theory §7, §7.1;
issue 7: no sympy on a warm path).

Support edges, the leading coefficient's real zeros, the atom's candidate masses and the
branch-point moduli come from exact polynomials over QQ (discriminant and square-free
part in integers, :mod:`freege.numeric.exact_univariate`; verified root finding), which
depend only on the generated coefficient matrix (named by the symbolic layer's source
hash), the code that computes them (the text of
:mod:`freege.numeric.cauchy_polynomial`, :mod:`freege.numeric.branch_points` and the
modules they rely on), the parameters rationalised at
the working precision and the requested digits. Each result is stored under
``<freege cache dir>/numeric/exact`` as JSON led by the checksum of its key and content
(:func:`freege.cache_files.load`); numbers are stored exactly (an ``mpf`` as its mantissa
and exponent, a ``Fraction`` as numerator and denominator, a float as its hex form), so a
warm result is bit-identical to a cold one.
Files are read and written through :mod:`freege.cache_files` (only a private file in a
private folder is read; written atomically through ``mkstemp``); a missing, damaged,
mismatched or malformed file is ignored and the result recomputed and stored again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

from freege import cache_files
from freege.cache_key import source_hash
from freege.numeric.compiled import cache_root

#: bumped whenever the stored form changes
FORMAT = 2
#: the modules whose code computes the stored results (their text is part of every key)
_PRODUCERS = ("cauchy_polynomial.py", "branch_points.py", "exact_univariate.py", "solve.py",
              "compiled.py", "exact_results.py")


@functools.cache
def _code_hash() -> str:
    folder = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _PRODUCERS:
        digest.update(name.encode())
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()[:16]


def _encode(value: Any) -> Any:
    if isinstance(value, list):
        return ["list", [_encode(v) for v in value]]
    if isinstance(value, mpmath.mpc):
        return ["mpc", _encode(value.real), _encode(value.imag)]
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError("non-finite value")
        man, exp = value.man_exp  # the mantissa of |value| (man_exp drops the sign)
        return ["mpf", -int(man) if value < 0 else int(man), int(exp)]
    if isinstance(value, Fraction):
        return ["q", value.numerator, value.denominator]
    if isinstance(value, float):
        return ["float", value.hex()]
    raise TypeError(f"cannot store {type(value).__name__}")


def _exact_mpf(man: Any, exp: Any) -> mpmath.mpf:
    if not (type(man) is int and type(exp) is int):
        raise ValueError("bad mpf")
    with mpmath.workprec(man.bit_length() + 10):  # exact: no rounding
        return mpmath.ldexp(mpmath.mpf(man), exp)


#: each tag and the number of items that follow it
_ARITY = {"list": 1, "mpc": 2, "mpf": 2, "q": 2, "float": 1}


def _decode(data: Any) -> Any:
    """The value :func:`_encode` wrote as ``data``; ValueError for any other shape."""
    if not (isinstance(data, list) and data and _ARITY.get(data[0]) == len(data) - 1):
        raise ValueError(f"not a stored value: {str(data)[:40]}")
    tag = data[0]
    if tag == "list":
        if not isinstance(data[1], list):
            raise ValueError("bad list")
        return [_decode(v) for v in data[1]]
    if tag == "mpc":
        re, im = _decode(data[1]), _decode(data[2])
        if not (isinstance(re, mpmath.mpf) and isinstance(im, mpmath.mpf)):
            raise ValueError("bad mpc")
        bits = max(abs(p.man_exp[0]).bit_length() for p in (re, im))
        with mpmath.workprec(bits + 10):  # exact: no rounding
            return mpmath.mpc(re, im)
    if tag == "mpf":
        return _exact_mpf(data[1], data[2])
    if tag == "q":
        if not (type(data[1]) is int and type(data[2]) is int and data[2] > 0):
            raise ValueError("bad fraction")
        return Fraction(data[1], data[2])
    if not isinstance(data[1], str):
        raise ValueError("bad float")
    return float.fromhex(data[1])


def disk_entry(key: tuple[Any, ...]) -> tuple[Path, str]:
    """The disk entry of ``key`` and its full key (format, sources, producing code)."""
    text = repr((FORMAT, source_hash(), _code_hash(), *key))
    return cache_root() / "exact" / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.json", text


def remember(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()`` read from the disk cache under ``key`` (a tuple with a stable
    ``repr``), else computed and stored (an unwritable cache folder is ignored)."""
    path, text = disk_entry(key)
    loaded = cache_files.load(path, text, lambda content: (_decode(json.loads(content)),))
    if loaded is not None:
        return loaded[0]
    value = compute()
    with contextlib.suppress(TypeError, ValueError):  # a value that cannot be stored
        cache_files.store(path, text, json.dumps(_encode(value)))
    return value


__all__ = ["FORMAT", "disk_entry", "remember"]
