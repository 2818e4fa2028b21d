"""One validated configuration of softmax multi-head attention (SPEC §1, §1.1, §1.2).

Two shapes of the same thing:

* :class:`Dims` -- a finite model: tokens ``n``, heads ``h``, K/V groups ``h_kv``,
  per-head widths ``dK``, ``dV``, output width ``dO``, model width ``d``, inverse
  temperature ``beta`` and the sharing scheme (SPEC §1, §1.1).
* :class:`Ratios` -- the proportional limit: ``(beta, h, gK, gV, gO, sharing)`` with
  ``gK = h dK / n``, ``gV = h dV / n``, ``gO = dO / n`` (SPEC §1.2).

Every bad input is rejected here, once, with a :class:`ValueError` that names the
parameter and its allowed range. Ratios computed from dimensions are exact
:class:`fractions.Fraction` values, so high-precision code loses nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import mpmath

SHARINGS: tuple[str, ...] = ("none", "gqa", "mqa", "tied")

Number = int | float | Fraction


def _number(name: str, value: object) -> Number:
    """Parse ``value`` as a real number (strings are read exactly as decimals)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number (got {value!r})")
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a number (got {value!r})") from None
    if isinstance(value, int | Fraction):
        return value
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be a finite number (got {value!r})")
        man, exp = value.man_exp
        return Fraction(man) * Fraction(2) ** exp
    if isinstance(value, Real):
        return float(value)
    raise ValueError(f"{name} must be a number (got {value!r})")


def positive(name: str, value: object) -> Number:
    """``value`` as a finite number > 0, else a ValueError naming ``name``."""
    x = _number(name, value)
    if not math.isfinite(float(x)) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (got {value!r})")
    return x


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an integer >= ``minimum``, else a ValueError naming ``name``."""
    x = _number(name, value)
    if not math.isfinite(float(x)) or x != int(x) or int(x) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum} (got {value!r})")
    return int(x)


def check_sharing(sharing: str) -> str:
    if sharing not in SHARINGS:
        raise ValueError(f"sharing must be one of {', '.join(SHARINGS)} (got {sharing!r})")
    return sharing


def to_mpf(x: Number) -> mpmath.mpf:
    """Convert a parameter to an mpmath number at the current working precision, exactly
    for integers and fractions."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


@dataclass(frozen=True)
class Ratios:
    """The proportional-limit parameters ``(beta, h, gK, gV, gO, sharing)`` (SPEC §1.2).

    ``gV`` defaults to ``gK`` when tied (SPEC §1.1 requires ``dV = dK``) and is otherwise
    required. Across-head sharing (``gqa``, ``mqa``) does not change any limiting law
    (SPEC §4), so ``h_kv`` is not a limit parameter.
    """

    beta: Number
    h: int
    gK: Number
    gV: Number
    gO: Number
    sharing: str = "none"

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", positive("beta", self.beta))
        object.__setattr__(self, "h", positive_int("h", self.h))
        for name in ("gK", "gV", "gO"):
            object.__setattr__(self, name, positive(name, getattr(self, name)))
        check_sharing(self.sharing)
        if self.sharing == "tied" and self.gV != self.gK:
            raise ValueError(
                f"tied sharing needs gV == gK (V_r = K_r), got gK={self.gK}, gV={self.gV}"
            )

    @property
    def tied(self) -> bool:
        return self.sharing == "tied"

    @property
    def theta1(self) -> float:
        """``theta1 = exp(beta^2) - 1`` (SPEC §2), float64."""
        return math.expm1(float(self.beta) ** 2)

    @property
    def theta2(self) -> float:
        """``theta2 = beta^2`` (SPEC §2), float64."""
        return float(self.beta) ** 2

    @property
    def c(self) -> float:
        """``c = theta2 / theta1`` in (0, 1) (SPEC §2), float64."""
        return self.theta2 / self.theta1

    def as_dict(self) -> dict[str, Number | str]:
        return {
            "beta": self.beta, "h": self.h, "gK": self.gK, "gV": self.gV,
            "gO": self.gO, "sharing": self.sharing,
        }


@dataclass(frozen=True)
class Dims:
    """A finite MHA configuration (SPEC §1, §1.1).

    ``h_kv`` defaults to ``h`` (``none``, ``tied``) or ``1`` (``mqa``) and must be given
    for ``gqa``; ``d`` defaults to ``n`` and must satisfy ``n <= d``.
    """

    n: int
    h: int
    dK: int
    dV: int
    dO: int
    beta: Number = 1
    sharing: str = "none"
    h_kv: int | None = None
    d: int | None = None

    def __post_init__(self) -> None:
        for name in ("n", "h", "dK", "dV", "dO"):
            object.__setattr__(self, name, positive_int(name, getattr(self, name)))
        object.__setattr__(self, "beta", positive("beta", self.beta))
        check_sharing(self.sharing)
        d = self.n if self.d is None else positive_int("d", self.d)
        if d < self.n:
            raise ValueError(f"d must be >= n = {self.n} (got d={d})")
        object.__setattr__(self, "d", d)
        if self.h_kv is None:
            if self.sharing == "gqa":
                raise ValueError("h_kv is required for gqa sharing (1 <= h_kv <= h)")
            h_kv = 1 if self.sharing == "mqa" else self.h
        else:
            h_kv = positive_int("h_kv", self.h_kv)
            if h_kv > self.h:
                raise ValueError(f"h_kv must be in [1, h={self.h}] (got {h_kv})")
            if self.sharing == "mqa" and h_kv != 1:
                raise ValueError(f"mqa sharing means h_kv = 1 (got h_kv={h_kv})")
            if self.sharing in ("none", "tied") and h_kv != self.h:
                raise ValueError(
                    f"h_kv < h needs sharing gqa or mqa (got sharing={self.sharing}, "
                    f"h_kv={h_kv}, h={self.h})"
                )
        object.__setattr__(self, "h_kv", h_kv)
        if self.sharing == "tied" and self.dV != self.dK:
            raise ValueError(
                f"tied sharing needs dV == dK (V_r = K_r), got dK={self.dK}, dV={self.dV}"
            )

    def kv_group(self, r: int) -> int:
        """K/V group of query head ``r``: contiguous groups of nearly equal size,
        ``floor(r h_kv / h)`` (SPEC §1.1)."""
        if not 0 <= r < self.h:
            raise ValueError(f"head index r must be in [0, {self.h - 1}] (got {r})")
        return r * self.h_kv // self.h

    @property
    def ratios(self) -> Ratios:
        """The limit parameters of this configuration, exact (SPEC §1.2)."""
        return Ratios(
            beta=self.beta,
            h=self.h,
            gK=Fraction(self.h * self.dK, self.n),
            gV=Fraction(self.h * self.dV, self.n),
            gO=Fraction(self.dO, self.n),
            sharing=self.sharing,
        )

    @property
    def n_params(self) -> int:
        """Projection parameter count (SPEC §5): ``d h dK`` for Q, ``d h_kv (dK + dV)`` for
        K/V (K counted once when tied), ``h dV dO`` for O."""
        kv = self.dK if self.sharing == "tied" else self.dK + self.dV
        return self.d * self.h * self.dK + self.d * self.h_kv * kv + self.h * self.dV * self.dO
