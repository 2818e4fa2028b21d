"""One validated configuration of softmax multi-head attention (theory §1, §1.1, §1.2).

Two shapes of the same thing:

* :class:`Dims` -- a finite model: tokens ``n``, heads ``h``, K/V groups ``h_kv``,
  per-head widths ``dK``, ``dV``, output width ``dO``, model width ``d``, inverse
  temperature ``beta`` and the sharing scheme (theory §1, §1.1).
* :class:`Ratios` -- the proportional limit: ``(beta, h, gK, gV, gO, sharing)`` with
  ``gK = h dK / n``, ``gV = h dV / n``, ``gO = dO / n`` (theory §1.2).

Every bad input is rejected here, once, with a :class:`ValueError` that names the
parameter and its allowed range. Ratios computed from dimensions are exact
:class:`fractions.Fraction` values, so high-precision code loses nothing.

Numbers are read exactly: strings as decimals (``'0.7'`` is 7/10), and Python floats
through their shortest decimal representation (``0.7`` is read as ``'0.7'``, not as the
binary double 0.6999999999999999555910790149937...), so ``Ratios(beta=0.7) ==
Ratios(beta='0.7')`` and a ``dps`` evaluation answers for the decimal the user typed.

Supported domain (checked here, once; outside it every entry point refuses with a
ValueError naming the parameter and the range):

* ``beta`` in [:data:`BETA_MIN`, :data:`BETA_MAX`]: ``theta1 = e^{beta^2} - 1`` from
  about 1e-6 to 8.9e6 and ``c = theta2/theta1`` from 1 - 5e-7 down to 1.8e-6; beyond
  either end the normalized theory §4 laws differ from their ``beta -> 0`` or
  ``beta -> inf`` limits by less than that, while the polynomial method loses digits to
  the scale of ``theta1`` (measured: the float64 law fails at beta = 8);
* ``gK, gV, gO`` in [:data:`RATIO_MIN`, :data:`RATIO_MAX`] and ``h`` in
  [1, :data:`H_MAX`] (theory §1.2); in :class:`Ratios` ``h`` may be any real number in
  [:data:`RATIO_MIN`, :data:`H_MAX`] (the proportional-limit formulas are rational in
  ``h``, so curves interpolate between head counts, theory §6.4; for ``h < 1`` the
  factor ``MP_{1/h}`` puts mass ``1 - h`` at 0); a finite :class:`Dims` needs an
  integer;
* working precision ``dps`` <= :data:`MAX_DPS` digits;
* readout times ``t`` in [:data:`T_MIN`, :data:`T_MAX`] (theory §5).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real
from typing import Any

SHARINGS: tuple[str, ...] = ("none", "gqa", "mqa", "tied")

#: the theory §4 cases (the exact layer derives one law per name)
CASES: tuple[str, ...] = (
    "attention",
    "head-average",
    "head-average-shared-key",
    "value",
    "mha",
    "value-tied",
    "mha-tied",
)

#: cases whose law involves the tied jump law ``mu_KV`` (theory §1.1 tying, §4)
TIED_CASES: tuple[str, ...] = ("value-tied", "mha-tied")


def check_case(name: str) -> str:
    """``name`` if it is a theory §4 case, else a ValueError listing the valid ones."""
    if name not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)} (got {name!r})")
    return name

Number = int | float | Fraction

#: largest decimal exponent a number typed as text may carry (float64 ends at 1e308;
#: reading ``1e1000000000`` exactly would take minutes)
MAX_EXPONENT = 400

#: smallest supported inverse temperature (theta1 = e^{beta^2} - 1 is about 1e-6)
BETA_MIN = Fraction(1, 1000)
#: largest supported inverse temperature (theta1 = e^16 - 1 is about 8.9e6)
BETA_MAX = Fraction(4)
#: smallest supported ratio gK, gV, gO (theory §1.2)
RATIO_MIN = Fraction(1, 10**4)
#: largest supported ratio gK, gV, gO (theory §1.2)
RATIO_MAX = Fraction(10**4)
#: largest supported number of heads in the limit laws (theory §1.2)
H_MAX = 10**4
#: largest precision a user may ask for, in decimal digits (``--dps``, ``Ratios.thetas``;
#: internal guard digits come on top). Measured on a loaded 2-core machine at 200 digits:
#: ``law`` 4 s, ``readout ridge`` 2 s, ``readout loss`` 5 s, ``readout arrival`` 5 min;
#: at 300 digits arrival takes over 15 min and at 500 ``readout loss`` 83 s.
MAX_DPS = 200
#: supported gradient-flow times t of the readout loss L(t) (theory §5)
T_MIN = Fraction(1, 10**6)
T_MAX = Fraction(10**6)


def _number(name: str, value: object) -> int | Fraction:
    """Parse ``value`` as an exact real number: strings as decimals, floats through their
    shortest decimal representation (``0.7`` is 7/10), mpmath numbers exactly."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number (got {value!r})")
    if isinstance(value, str):
        text = value.strip()
        try:
            exponent = text.lower().partition("e")[2]
            if exponent and abs(int(exponent)) > MAX_EXPONENT:  # 10**huge would hang
                raise ValueError(f"{name} must be a finite number (got {value!r})")
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a number (got {value!r})") from None
    if isinstance(value, int | Fraction):
        return value
    mpmath = sys.modules.get("mpmath")  # not imported here: ``freege --help`` stays fast
    if mpmath is not None and isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be a finite number (got {value!r})")
        return mpf_fraction(value)
    if isinstance(value, Real):
        as_float = float(value)
        if not math.isfinite(as_float):
            raise ValueError(f"{name} must be a finite number (got {value!r})")
        return Fraction(repr(as_float))
    raise ValueError(f"{name} must be a number (got {value!r})")


def mpf_fraction(value: Any) -> Fraction:
    """The exact value of a finite mpmath ``mpf`` as a Fraction (``man_exp`` holds the
    mantissa of ``|value|``: the sign is restored here)."""
    man, exp = value.man_exp
    exact = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -exact if value < 0 else exact


def positive(name: str, value: object) -> int | Fraction:
    """``value`` as an exact finite number > 0, else a ValueError naming ``name``."""
    x = _number(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0 (got {value!r})")
    return x


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an integer >= ``minimum``, else a ValueError naming ``name``."""
    x = _number(name, value)
    if x != int(x) or int(x) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum} (got {value!r})")
    return int(x)


def _text(x: Fraction | int) -> str:
    """A range bound as it is typed: ``0.001``, ``5``, ``1e-06``."""
    return f"{float(x):g}"


def in_range(name: str, value: object, low: Fraction | int, high: Fraction | int,
             why: str = "") -> int | Fraction:
    """``value`` as an exact number in ``[low, high]``, else a ValueError naming ``name``,
    the range and (when given) why the range is what it is."""
    x = positive(name, value)
    if not low <= x <= high:
        reason = f" ({why})" if why else ""
        got = repr(value) if isinstance(value, str) else _text(x)
        raise ValueError(f"{name} must be in [{_text(low)}, {_text(high)}]{reason} (got {got})")
    return x


def check_beta(name: str, value: object) -> int | Fraction:
    """An inverse temperature in the supported domain [BETA_MIN, BETA_MAX] (module
    docstring): ``theta1 = e^{beta^2} - 1`` between about 1e-6 and 8.9e6."""
    return in_range(name, value, BETA_MIN, BETA_MAX,
                    "theta1 = e^(beta^2) - 1 from about 1e-6 to 8.9e6")


def check_ratio(name: str, value: object) -> int | Fraction:
    """A ratio gK, gV or gO in the supported domain [RATIO_MIN, RATIO_MAX] (theory §1.2)."""
    return in_range(name, value, RATIO_MIN, RATIO_MAX)


def check_dps(name: str, value: object, minimum: int = 15) -> int:
    """A working precision in decimal digits, ``minimum <= dps <= MAX_DPS``."""
    message = f"{name} must be an integer in [{minimum}, {MAX_DPS}] (got {value!r})"
    try:
        dps = positive_int(name, value, minimum)
    except ValueError:
        raise ValueError(message) from None
    if dps > MAX_DPS:
        raise ValueError(message)
    return dps


def check_time(name: str, value: object) -> int | Fraction:
    """A gradient-flow time in the supported range [T_MIN, T_MAX] (theory §5)."""
    return in_range(name, value, T_MIN, T_MAX)



def check_sharing(sharing: str) -> str:
    if sharing not in SHARINGS:
        raise ValueError(f"sharing must be one of {', '.join(SHARINGS)} (got {sharing!r})")
    return sharing


def to_mpf(x: Number) -> Any:
    """Convert a parameter to an mpmath number at the current working precision, exactly
    for integers and fractions."""
    import mpmath

    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


@dataclass(frozen=True)
class Ratios:
    """The proportional-limit parameters ``(beta, h, gK, gV, gO, sharing)`` (theory §1.2).

    ``gV`` defaults to ``gK`` when tied (theory §1.1 requires ``dV = dK``) and is otherwise
    required. Across-head sharing (``gqa``, ``mqa``) does not change any limiting law
    (theory §4), so ``h_kv`` is not a limit parameter.
    """

    beta: Number
    h: Number
    gK: Number
    gV: Number
    gO: Number
    sharing: str = "none"

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", check_beta("beta", self.beta))
        # real h (theory §6.4 interpolates in h); an integral value is kept as an int
        h = in_range("h", self.h, RATIO_MIN, H_MAX)
        object.__setattr__(self, "h", int(h) if h == int(h) else h)
        for name in ("gK", "gV", "gO"):
            object.__setattr__(self, name, check_ratio(name, getattr(self, name)))
        check_sharing(self.sharing)
        if self.sharing == "tied" and self.gV != self.gK:
            raise ValueError(
                f"tied sharing needs gV == gK (V_r = K_r), got gK={self.gK}, gV={self.gV}"
            )

    @property
    def tied(self) -> bool:
        return self.sharing == "tied"

    def thetas(self, dps: int | None = None) -> tuple:
        """``(theta1, theta2, c) = (e^{beta^2} - 1, beta^2, theta2/theta1)`` (theory §2):
        mpmath numbers correct to ``dps`` digits, or (``dps=None``) float64 values rounded
        from a 30-digit evaluation (``beta`` is exact, so only the final rounding errs)."""
        import mpmath

        digits = 30 if dps is None else check_dps("dps", dps)
        with mpmath.workdps(digits + 5):
            b2 = to_mpf(self.beta) ** 2
            values = (mpmath.expm1(b2), b2, b2 / mpmath.expm1(b2))
        if dps is None:
            return tuple(float(v) for v in values)
        with mpmath.workdps(dps):
            return tuple(+v for v in values)

    def as_dict(self) -> dict[str, Number | str]:
        return {
            "beta": self.beta, "h": self.h, "gK": self.gK, "gV": self.gV,
            "gO": self.gO, "sharing": self.sharing,
        }


@dataclass(frozen=True)
class Dims:
    """A finite MHA configuration (theory §1, §1.1).

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
        object.__setattr__(self, "beta", check_beta("beta", self.beta))
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
        ``floor(r h_kv / h)`` (theory §1.1)."""
        if not 0 <= r < self.h:
            raise ValueError(f"head index r must be in [0, {self.h - 1}] (got {r})")
        return r * self.h_kv // self.h

    @property
    def ratios(self) -> Ratios:
        """The limit parameters of this configuration, exact (theory §1.2); a ValueError
        naming the dimensions when a ratio is outside the supported domain."""
        if self.h > H_MAX:
            raise ValueError(f"h must be an integer in [1, {H_MAX}] for the limit laws "
                             f"(got {self.h})")
        return Ratios(
            beta=self.beta,
            h=self.h,
            gK=check_ratio("gK = h dK / n", Fraction(self.h * self.dK, self.n)),
            gV=check_ratio("gV = h dV / n", Fraction(self.h * self.dV, self.n)),
            gO=check_ratio("gO = dO / n", Fraction(self.dO, self.n)),
            sharing=self.sharing,
        )

    @property
    def n_params(self) -> int:
        """Projection parameter count (theory §5): ``d h dK`` for Q, ``d h_kv (dK + dV)`` for
        K/V (K counted once when tied), ``h dV dO`` for O."""
        kv = self.dK if self.sharing == "tied" else self.dK + self.dV
        return self.d * self.h * self.dK + self.d * self.h_kv * kv + self.h * self.dV * self.dO
