"""Certified results and ball arithmetic of :mod:`freege.numeric.certify` (python-flint's
arb/acb; theory §3, §7.1).

Holds the result types (:class:`Certified`: an exact rational midpoint and radius, printed
as decimal strings that still enclose the value; :class:`Uncertified`: a refusal with its
reason), exact reading of inputs (:func:`exact`), the precision ladder and the
:class:`NeedPrecision` signal, ball evaluation of exact polynomials in ``theta1``
(:data:`ThetaPoly`; exact specialisation and Taylor shift in ``z``), and root isolation
(:func:`root_balls`, :func:`tight_roots`: every root of every polynomial in the
coefficient balls, classified as certainly lower, upper or real). Methods and guarantees:
:mod:`freege.numeric.certify`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction
from typing import Any

import mpmath

from freege.params import mpf_fraction

try:  # python-flint is an extra: freege[certify]
    import flint
except ImportError:  # pragma: no cover - exercised by monkeypatching in the tests
    flint = None

#: significant digits printed for an exact midpoint whose decimal expansion does not end
EXACT_DIGITS = 40


# ---------------------------------------------------------------------- results
def _decimal(value: Fraction, exponent: int) -> tuple[Decimal, Fraction]:
    """``value`` rounded to a multiple of ``10**exponent``, and the rounding error."""
    scaled = value / Fraction(10) ** exponent
    n = round(scaled)
    dec = Decimal(f"{n}E{exponent}")  # exact: the string constructor does not round
    return dec, abs(scaled - n) * Fraction(10) ** exponent


@dataclass(frozen=True)
class Certified:
    """A rigorous enclosure: the true value lies in ``[mid - rad, mid + rad]``.

    ``mid_exact``/``rad_exact`` are exact rationals; :attr:`mid` and :attr:`rad` are the
    decimal strings printed (the decimal midpoint is rounded and its rounding error is
    added to the decimal radius, which is rounded up, so the printed ball still encloses
    the value). ``prec`` is the working precision (bits) that certified it.
    """

    mid_exact: Fraction
    rad_exact: Fraction
    prec: int = 0
    certified: bool = field(default=True, init=False)

    @functools.cached_property
    def _strings(self) -> tuple[str, str]:
        mid, rad = self.mid_exact, self.rad_exact
        if rad > 0:
            exponent = math.floor(math.log10(rad)) - 2
        else:
            exponent = (math.floor(math.log10(abs(mid))) if mid else 0) - EXACT_DIGITS
        dec, err = _decimal(mid, exponent)
        if rad == 0 and err == 0:
            return _trim(dec), "0"
        total = rad + err
        with localcontext() as ctx:  # three significant digits, rounded up
            ctx.prec, ctx.rounding = 3, ROUND_CEILING
            up = +(Decimal(total.numerator) / Decimal(total.denominator))
        while Fraction(up) < total:  # the division itself was rounded up: belt and braces
            up = up.next_plus()
        mant, exp = f"{up:e}".split("e")
        return _trim(dec), f"{mant}e{int(exp)}" if up else "0"

    @property
    def mid(self) -> str:
        """Decimal midpoint (a string ``Fraction``/``Decimal``/``float`` all read)."""
        return self._strings[0]

    @property
    def rad(self) -> str:
        """Decimal radius, rounded up (includes the midpoint's rounding)."""
        return self._strings[1]

    def contains(self, value: Any) -> bool:
        """Whether the exact ball contains ``value`` (a number, read exactly)."""
        return abs(exact(value) - self.mid_exact) <= self.rad_exact

    def as_dict(self) -> dict[str, str]:
        return {"mid": self.mid, "rad": self.rad}

    def __str__(self) -> str:
        return f"{self.mid} +/- {self.rad}"


def _trim(dec: Decimal) -> str:
    """Plain decimal for moderate exponents, scientific otherwise; no trailing zeros."""
    if not dec:
        return "0"
    if -7 <= dec.adjusted() <= 20:
        text = format(dec, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mant, exp = f"{dec:e}".split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}e{int(exp)}"


@dataclass(frozen=True)
class Uncertified:
    """A refused certificate: ``reason`` says what could not be proven."""

    reason: str
    certified: bool = field(default=False, init=False)

    def as_dict(self) -> dict[str, Any]:
        return {"certified": False, "reason": self.reason}

    def __str__(self) -> str:
        return f"not certified: {self.reason}"


Result = Certified | Uncertified


def ball_result(ball: Any, prec: int) -> Certified:
    return Certified(arf_fraction(ball.mid()), arf_fraction(ball.rad()), prec)


def arf_fraction(value: Any) -> Fraction:
    """The exact value of an exact arb (a midpoint or a radius)."""
    man, exp = value.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * (Fraction(2) ** exp)


def exact(value: Any) -> Fraction:
    """A number as an exact rational: ints and Fractions as they are, a float by its exact
    binary value, an mpmath number exactly, a string as the decimal it spells."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number (got {value!r})")
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number (got {value!r})")
        return Fraction(value)
    if isinstance(value, str):
        return Fraction(value.strip())
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"expected a finite number (got {value!r})")
        return mpf_fraction(value)
    if hasattr(value, "numerator") and hasattr(value, "denominator"):
        return Fraction(int(value.numerator), int(value.denominator))
    raise ValueError(f"expected a real number (got {type(value).__name__})")


def ladder(prec: int, max_prec: int) -> Iterator[int]:
    """Working precisions: ``prec``, doubled while ``<= max_prec``."""
    if prec < 16 or max_prec < prec:
        raise ValueError(f"need 16 <= prec <= max_prec (got prec={prec}, max_prec={max_prec})")
    p = prec
    while p <= max_prec:
        yield p
        p *= 2


def narrow(result: Result, rtol: Fraction | None) -> bool:
    """Whether a certified ball has radius at most ``rtol |mid|`` (always, without
    ``rtol``; never, for a refusal)."""
    if not isinstance(result, Certified):
        return False
    return rtol is None or result.rad_exact <= rtol * abs(result.mid_exact)


class NeedPrecision(Exception):
    """The current working precision cannot decide; retry with more bits."""


# ---------------------------------------------------------------------- exact polynomials
#: an exact polynomial in (variables..., theta1): {exponents of the variables: {k: coeff}}
ThetaPoly = dict[tuple[int, ...], dict[int, Fraction]]


# ---------------------------------------------------------------------- arb evaluation
def arb(value: Fraction) -> Any:
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def _theta_eval(row: dict[int, Fraction], t1: Any) -> Any:
    """Ball value of an exact theta1-polynomial (Horner)."""
    if not row:
        return flint.arb(0)
    out = flint.arb(0)
    for k in range(max(row), -1, -1):
        out = out * t1 + (arb(row[k]) if k in row else 0)
    return out


def rows_at(spec: ThetaPoly, x: Fraction, var: int, other: int, deriv: bool = False
             ) -> dict[int, dict[int, Fraction]]:
    """Coefficients, as exact theta1-polynomials, of the polynomial in gen ``other``
    obtained by fixing gen ``var`` at ``x`` (its derivative in gen ``var`` if ``deriv``)."""
    out: dict[int, dict[int, Fraction]] = {}
    for monom, row in spec.items():
        e = monom[var]
        if deriv:
            if e == 0:
                continue
            factor = e * x ** (e - 1)
        else:
            factor = x ** e
        if factor == 0:
            continue
        target = out.setdefault(monom[other], {})
        for k, c in row.items():
            target[k] = target.get(k, Fraction(0)) + c * factor
    return {i: {k: c for k, c in row.items() if c} for i, row in out.items()}


def shift_z(spec: ThetaPoly, c: Fraction) -> ThetaPoly:
    """``P(G, w + c)`` as a polynomial in ``(G, w)``, exactly (Taylor shift in ``z``)."""
    if c == 0:
        return spec
    out: ThetaPoly = {}
    for (i, j), row in spec.items():
        for k in range(j + 1):
            factor = math.comb(j, k) * c ** (j - k)
            if factor == 0:
                continue
            target = out.setdefault((i, k), {})
            for t, coeff in row.items():
                target[t] = target.get(t, Fraction(0)) + coeff * factor
    return {m: {t: v for t, v in row.items() if v} for m, row in out.items()
            if any(row.values())}


def poly_balls(rows: dict[int, dict[int, Fraction]], t1: Any) -> list[Any]:
    """Ascending ball coefficients of a univariate polynomial with theta1 coefficients."""
    rows = {i: r for i, r in rows.items() if r}
    if not rows:
        return []
    return [_theta_eval(rows.get(i, {}), t1) for i in range(max(rows) + 1)]



# ---------------------------------------------------------------------- root isolation
LOWER, UPPER, REAL = "lower", "upper", "real"


def _classify(roots: list[Any]) -> list[tuple[str, Any]]:
    """Kinds of isolated root balls of a real polynomial (module docstring): ``lower``,
    ``upper`` or ``real`` (then the ball of the real part); NeedPrecision otherwise."""
    out = []
    for k, r in enumerate(roots):
        if r.imag < 0:
            out.append((LOWER, r))
        elif r.imag > 0:
            out.append((UPPER, r))
        elif r.imag.contains(0) and not any(
                r.conjugate().overlaps(s) for j, s in enumerate(roots) if j != k):
            out.append((REAL, r.real))
        else:
            raise NeedPrecision("a root is neither certainly real nor certainly non-real")
    return out


def _real_roots(rows: dict[int, dict[int, Fraction]], t1: Any, prec: int) -> list[Any]:
    coeffs = poly_balls(rows, t1)
    if len(coeffs) <= 1:
        return []
    return sorted((b for kind, b in tight_roots(coeffs, prec) if kind == REAL),
                  key=lambda b: arf_fraction(b.mid()))


#: variable scalings ``u = 2^k v`` tried by :func:`root_balls`
_ROOT_SCALINGS = (0, -4, 4)


def root_balls(coeffs: list[Any], prec: int) -> list[Any]:
    """Isolating balls of all roots of the polynomial with ascending ball coefficients (each
    holds exactly one root of every polynomial in the coefficient balls), refined as far as
    the coefficients allow: radius ``2^-(prec - 16)``, else ``2^-(3 prec/4)``, else
    ``2^-(prec/2)``, else as isolated. :class:`NeedPrecision` when not isolated.

    arb's root finder (fixed iteration budget per precision) fails on some polynomials with
    well separated roots (seen on ``P(., x)`` and ``Q(., x)`` of an mha law with h = 25
    near its upper edge) and succeeds on the same polynomial made monic or with the
    variable scaled by a power of two; those variants, which have the same roots (scaled
    back exactly), are tried in turn."""
    lead = coeffs[-1]
    isolated = None
    for k in _ROOT_SCALINGS:
        scale = flint.arb(2) ** k
        scaled = [c * scale**i for i, c in enumerate(coeffs)]
        for monic in (False, True) if not lead.contains(0) else (False,):
            poly = flint.acb_poly([c / scaled[-1] for c in scaled] if monic else scaled)
            try:
                found = poly.roots(maxprec=2 * prec)
            except ValueError:
                continue
            isolated = isolated or [r * scale for r in found]
            for bits in (prec - 16, 3 * prec // 4, prec // 2):
                try:
                    return [r * scale for r in poly.roots(tol=flint.arb(2) ** (-bits) / scale,
                                                          maxprec=2 * prec)]
                except ValueError:
                    continue
    if isolated is None:
        raise NeedPrecision("roots not isolated")
    return isolated


def tight_roots(coeffs: list[Any], prec: int) -> list[tuple[str, Any]]:
    """All roots of a real polynomial (ascending ball coefficients), refined
    (:func:`root_balls`), each as ``(kind, ball)`` (:func:`_classify`)."""
    return _classify(root_balls(coeffs, prec))
