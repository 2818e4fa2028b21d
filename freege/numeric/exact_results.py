"""Disk cache of the exact-arithmetic results of a Cauchy equation (theory §7, §7.1;
issue 7: no sympy on a warm path).

Support edges, the leading coefficient's real zeros, the atom's candidate masses and the
branch-point moduli come from exact polynomials over QQ (sympy: discriminant, square-free
part, root isolation), which depend only on the generated coefficient matrix (named by
the symbolic layer's source hash), the code that computes them (the text of
:mod:`freege.numeric.roots` and the modules it relies on), the parameters rationalised at
the working precision and the requested digits. Each result is stored under
``<freege cache dir>/numeric/exact`` as JSON that repeats its full key; numbers are stored
exactly (an ``mpf`` as its mantissa and exponent, a ``Fraction`` as numerator and
denominator, a float as its hex form), so a warm result is bit-identical to a cold one.
Files are read and written through :mod:`freege.cache_files` (only a private file in a
private folder is read; written atomically through ``mkstemp``); a missing, corrupt or
mismatched file is ignored and the result recomputed.
"""

from __future__ import annotations

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
FORMAT = 1
#: the modules whose code computes the stored results (their text is part of every key)
_PRODUCERS = ("roots.py", "solve.py", "compiled.py", "exact_results.py")


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


def _exact_mpf(man: int, exp: int) -> mpmath.mpf:
    if not (isinstance(man, int) and isinstance(exp, int)):
        raise ValueError("bad mpf")
    with mpmath.workprec(man.bit_length() + 10):  # exact: no rounding
        return mpmath.ldexp(mpmath.mpf(man), exp)


def _decode(data: Any) -> Any:
    tag = data[0]
    if tag == "list":
        return [_decode(v) for v in data[1]]
    if tag == "mpc":
        re, im = _decode(data[1]), _decode(data[2])
        bits = max(abs(p.man_exp[0]).bit_length() for p in (re, im))
        with mpmath.workprec(bits + 10):  # exact: no rounding
            return mpmath.mpc(re, im)
    if tag == "mpf":
        return _exact_mpf(data[1], data[2])
    if tag == "q":
        if not (isinstance(data[1], int) and isinstance(data[2], int) and data[2] > 0):
            raise ValueError("bad fraction")
        return Fraction(data[1], data[2])
    if tag == "float":
        return float.fromhex(data[1])
    raise ValueError(f"unknown tag {tag!r}")


def remember(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()`` read from the disk cache under ``key`` (a tuple with a stable
    ``repr``), else computed and stored (an unwritable cache folder is ignored)."""
    text = repr((FORMAT, source_hash(), _code_hash(), *key))
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    path = cache_root() / "exact" / f"{digest}.json"
    text_read = cache_files.read_text(path)  # None: absent, or not private (warned)
    if text_read is not None:
        try:
            data = json.loads(text_read)
            if data["key"] != text:
                raise ValueError("written for another key")
            return _decode(data["value"])
        except (ValueError, KeyError, TypeError, IndexError, OverflowError,
                RecursionError) as exc:
            cache_files.reject(path, f"not a valid entry: {type(exc).__name__}: {exc}")
    value = compute()
    try:
        cache_files.write_text(path, json.dumps({"key": text, "value": _encode(value)}))
    except (OSError, TypeError, ValueError):
        pass
    return value


__all__ = ["FORMAT", "remember"]
