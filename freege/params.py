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
* readout times ``t`` in [:data:`T_MIN`, :data:`T_MAX`], ridge penalties ``lam`` in
  [:data:`LAM_MIN`, :data:`LAM_MAX`] and label noise ``sigma2`` in [0,
  :data:`SIGMA2_MAX`] (theory §5: the ridge error then stays finite in float64);
* model dimensions up to :data:`DIM_MAX`; runs of at most :data:`MAX_DRAWS` draws, sweeps
  of at most :data:`MAX_POINTS` points and :data:`MAX_TASKS` tasks on at most
  :data:`MAX_WORKERS` local workers; seeds in [0, :data:`SEED_MAX`].

One parser reads every numeric parameter, of the API and of every command-line option:
:func:`parse_number` with a :class:`Domain` (the constants ``BETA``, ``RATIO``,
``HEADS``, ``DIM``, ``TIME``, ``LAM``, ``SIGMA2``, ``LEVEL``, ``DPS``, ``DRAWS``,
``WORKERS``, ``SEED``, ``POINT``). A number typed as text has its magnitude checked on
the text before any arithmetic (``1e999999999`` is refused at once instead of building
a billion-digit integer), then its exact value against the domain.
"""

from __future__ import annotations

import math
import re
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
#: supported ridge penalties lam and label-noise variances sigma2 (theory §5): with
#: ``|w'(lam)| <= 1/lam`` the ridge error ``|E| <= 1 + 2/gO + sigma2/lam`` stays below
#: 1e201, far inside float64
LAM_MIN = Fraction(1, 10**100)
LAM_MAX = Fraction(10**100)
SIGMA2_MAX = Fraction(10**100)
#: largest model dimension (n, d, h, h_kv, dK, dV, dO) of a configuration; sampling is
#: bounded far below by the memory check of ``freege.cli.budget``
DIM_MAX = 10**9
#: largest number of draws (or trials) of one run, and of tasks (grid points x draws)
#: of one sweep: a task list that size is a few hundred MB
MAX_DRAWS = 10**6
MAX_TASKS = 10**6
#: largest number of grid points of one sweep (each has its own theory §4 moments)
MAX_POINTS = 10**4
#: largest number of local worker processes of a sweep
MAX_WORKERS = 256
#: largest seed (numpy's SeedSequence takes any integer >= 0; 64 bits are plenty)
SEED_MAX = 2**64 - 1
#: evaluation points of a density (``freege law --pdf``), well inside float64
X_MAX = Fraction(10**300)
#: highest moment / cumulant / dof order the closed forms are derived to (the method is
#: exact at any order; this bounds run time: order 12 of ``mha-tied`` takes under a minute
#: cold, normalized or not); here, sympy-free, for the CLI's help
MAX_ORDER = 12
#: how ``freege derive`` writes an exact result (:mod:`freege.symbolic.forms`), default first
DERIVE_FORMS: tuple[str, ...] = ("collected", "factored", "expanded")


@dataclass(frozen=True)
class Domain:
    """The allowed values of one numeric parameter: an interval ``low .. high`` (either
    end may be missing, open or closed), optionally of integers, and why it is what it is.
    :func:`parse_number` is the one parser that checks a value against it."""

    low: int | Fraction | None = None
    high: int | Fraction | None = None
    integer: bool = False
    low_open: bool = False
    high_open: bool = False
    why: str = ""

    def describe(self) -> str:
        """The domain as a message says it: ``an integer in [1, 1000000]``, ``in [0.001,
        4]``, ``a finite number > 0``, ``an integer >= 0``, ``in (0, 1)``."""
        kind = "an integer" if self.integer else "a finite number"
        low, high = self.low, self.high
        if low is not None and high is not None:
            interval = (f"{'(' if self.low_open else '['}{_text(low)}, {_text(high)}"
                        f"{')' if self.high_open else ']'}")
            return f"{kind} in {interval}" if self.integer else f"in {interval}"
        if low is not None:
            return f"{kind} {'>' if self.low_open else '>='} {_text(low)}"
        if high is not None:
            return f"{kind} {'<' if self.high_open else '<='} {_text(high)}"
        return kind

    def contains(self, x: int | Fraction) -> bool:
        if self.integer and x != int(x):
            return False
        if self.low is not None and (x <= self.low if self.low_open else x < self.low):
            return False
        return self.high is None or (x < self.high if self.high_open else x <= self.high)


#: longest significant-digit string a number typed as text may have
MAX_DIGITS = 1000
#: largest binary exponent of an mpmath number read exactly (10^400 is about 2^1329)
MAX_MPF_BITS = 1400
_DECIMAL = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")
_RATIONAL = re.compile(r"([+-]?)(\d+)/(\d+)")


def _scan(text: str) -> tuple[int, str, int, str] | None:
    """Read a decimal (``-1.5e-3``) or a ratio of integers (``2/3``) without building it:
    ``(sign, significant digits, exponent, denominator digits)``, the value being
    ``sign * digits * 10^exponent / denominator``; None when ``text`` is neither. The
    exponent is capped at +-10^9 (beyond it every magnitude check fails anyway)."""
    m = _RATIONAL.fullmatch(text)
    if m:
        sign, num, den = m.groups()
        return (-1 if sign == "-" else 1), num.lstrip("0"), 0, den.lstrip("0") or "0"
    m = _DECIMAL.fullmatch(text)
    if not m or not (m.group(2) or m.group(3)):
        return None
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    exponent = 0
    if exp is not None:
        digits = exp.lstrip("+-").lstrip("0")
        exponent = int(exp) if len(digits) <= 9 else (-1 if exp.startswith("-") else 1) * 10**9
    digits = (whole + frac).lstrip("0")
    exponent -= len(frac)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return (-1 if sign == "-" else 1), stripped, exponent, "1"


def _from_text(name: str, text: str, domain: Domain) -> int | Fraction:
    """A number typed as text, its magnitude checked on the string before anything is
    built: a nonzero value of more than :data:`MAX_DIGITS` digits, or whose decimal
    exponent is beyond +-:data:`MAX_EXPONENT` (or beyond the domain's bounds), is refused
    at once (``1e999999999`` read exactly would take hours)."""
    scanned = _scan(text.strip()) if text.isascii() else None  # no '１' (full-width) as 1
    if scanned is None or scanned[3] == "0":
        raise _not_a_number(name, text, domain)
    sign, digits, exponent, den = scanned
    if not digits:
        return 0
    if len(digits) > MAX_DIGITS or len(den) > MAX_DIGITS:
        raise ValueError(f"{name} must be {domain.describe()}, written with at most "
                         f"{MAX_DIGITS} digits (got {len(digits)} digits)")
    # 10^(order - 2) < |value| < 10^order: compared with the bounds' digits, +-1 spare
    order = len(digits) + exponent - len(den) + 1
    bound = MAX_EXPONENT
    for limit in (domain.low, domain.high):
        if limit:
            size = abs(Fraction(limit))
            bound = max(bound, len(str(int(size))) + 1, len(str(int(1 / size))) + 1)
    if abs(order) > bound:
        low, high = domain.low, domain.high
        beyond = ((order > bound and (high is not None if sign > 0 else low is not None))
                  or (order < -bound and (low is not None and low > 0
                                          or high is not None and high < 0)))
        detail = "" if beyond else f", with a decimal exponent within +-{MAX_EXPONENT}"
        raise ValueError(f"{name} must be {domain.describe()}{detail}"
                         f"{_why(domain) if beyond else ''} (got {_shown(text)})")
    value = Fraction(sign * int(digits), int(den))
    value *= Fraction(10) ** exponent
    return int(value) if value.denominator == 1 else value


def _not_a_number(name: str, value: object, domain: Domain) -> ValueError:
    """``n must be a number: an integer >= 1 (got 'many')``, ``beta must be a number in
    [0.001, 4] (got 'nan')``."""
    text = domain.describe()
    if text.startswith("in "):
        text = f"a number {text}"
    elif not text.startswith("a finite number"):
        text = f"a number: {text}"
    return ValueError(f"{name} must be {text} (got {_shown(value)})")


def _shown(value: object) -> str:
    """``repr(value)``, cut to 60 characters (a 100000-digit number stays one short line)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:45]}...({len(text)} characters)"


def _why(domain: Domain) -> str:
    return f" ({domain.why})" if domain.why else ""


def parse_number(name: str, value: object, domain: Domain = Domain()) -> int | Fraction:
    """THE parser of every numeric parameter (API arguments and command-line options):
    ``value`` as an exact number in ``domain``, else a one-line ValueError naming
    ``name``, the domain and why (:class:`Domain`).

    Strings are decimals (``'0.7'`` is 7/10) or ratios (``'2/3'``), their magnitude checked
    on the text before any arithmetic (:func:`_from_text`); Python floats are read through
    their shortest decimal representation, mpmath numbers exactly; ``nan``, ``inf`` and
    booleans are refused. Integers come back as ``int``, other values as ``Fraction``.

    Use it for a new option as ``parse_number("--draws", args.draws, DRAWS)`` with a
    domain constant of this module (or a new one defined next to them)."""
    if isinstance(value, bool):
        raise _not_a_number(name, value, domain)
    if isinstance(value, str):
        x = _from_text(name, value, domain)
    elif isinstance(value, int | Fraction):
        x = value
    else:
        x = _non_text(name, value, domain)
    if not domain.contains(x):
        got = _shown(value) if isinstance(value, str) else _text(x)
        raise ValueError(f"{name} must be {domain.describe()}{_why(domain)} (got {got})")
    return int(x) if domain.integer else x


def _non_text(name: str, value: object, domain: Domain) -> int | Fraction:
    """An mpmath number exactly, another real through its shortest decimal."""
    mpmath = sys.modules.get("mpmath")  # not imported here: ``freege --help`` stays fast
    if mpmath is not None and isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise _not_a_number(name, value, domain)
        if value and abs(int(mpmath.mag(value))) > MAX_MPF_BITS:  # 2^huge would hang
            raise ValueError(f"{name} must be {domain.describe()}, with a decimal exponent "
                             f"within +-{MAX_EXPONENT} (got {_shown(value)})")
        return mpf_fraction(value)
    if isinstance(value, Real):
        as_float = float(value)
        if not math.isfinite(as_float):
            raise _not_a_number(name, value, domain)
        return Fraction(repr(as_float))
    raise _not_a_number(name, value, domain)


def mpf_fraction(value: Any) -> Fraction:
    """The exact value of a finite mpmath ``mpf`` as a Fraction (``man_exp`` holds the
    mantissa of ``|value|``: the sign is restored here)."""
    man, exp = value.man_exp
    exact = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -exact if value < 0 else exact


POSITIVE = Domain(0, None, low_open=True)


def positive(name: str, value: object) -> int | Fraction:
    """``value`` as an exact finite number > 0, else a ValueError naming ``name``."""
    return parse_number(name, value, POSITIVE)


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an integer >= ``minimum``, else a ValueError naming ``name``."""
    return int(parse_number(name, value, Domain(minimum, None, integer=True)))


def _text(x: Fraction | int) -> str:
    """A number as it is typed: ``0.001``, ``5``, ``1e-06``, ``1000000`` (integers below
    1e20 exactly), ``about 1e+4000`` beyond float64."""
    if x == int(x) and abs(x) < 10**20:  # integers exactly: 10000, 18446744073709551615
        return str(int(x))
    if x != 0 and not 1e-300 < abs(x) < 1e300:
        size = abs(Fraction(x))
        digits = size.numerator.bit_length() - size.denominator.bit_length()
        return f"{'-' if x < 0 else ''}about 1e{round(digits * math.log10(2)):+d}"
    return f"{float(x):g}"


#: the domains of the numeric parameters, for :func:`parse_number` (module docstring)
BETA = Domain(BETA_MIN, BETA_MAX, why="theta1 = e^(beta^2) - 1 from about 1e-6 to 8.9e6")
RATIO = Domain(RATIO_MIN, RATIO_MAX)
HEADS = Domain(1, H_MAX, integer=True)
#: the head count of a limit (:class:`Ratios`): real, the proportional-limit formulas
#: interpolate between integers (theory §6.4)
REAL_HEADS = Domain(RATIO_MIN, H_MAX)
DIM = Domain(1, DIM_MAX, integer=True)
TIME = Domain(T_MIN, T_MAX)
LAM = Domain(LAM_MIN, LAM_MAX)
SIGMA2 = Domain(0, SIGMA2_MAX)
LEVEL = Domain(0, 1, low_open=True, high_open=True)
DPS = Domain(15, MAX_DPS, integer=True)
DRAWS = Domain(1, MAX_DRAWS, integer=True)
WORKERS = Domain(1, MAX_WORKERS, integer=True)
SEED = Domain(0, SEED_MAX, integer=True)
POINT = Domain(-X_MAX, X_MAX)


def check_beta(name: str, value: object) -> int | Fraction:
    """An inverse temperature in the supported domain [BETA_MIN, BETA_MAX] (module
    docstring): ``theta1 = e^{beta^2} - 1`` between about 1e-6 and 8.9e6."""
    return parse_number(name, value, BETA)


def check_ratio(name: str, value: object) -> int | Fraction:
    """A ratio gK, gV or gO in the supported domain [RATIO_MIN, RATIO_MAX] (theory §1.2)."""
    return parse_number(name, value, RATIO)


def check_dps(value: object, name: str = "dps", minimum: int = 15,
              maximum: int | None = MAX_DPS) -> int:
    """A working precision in decimal digits, ``minimum <= dps <= maximum`` (the one check
    of a precision: the command line and the sweep's options keep ``MAX_DPS``, the numeric
    API passes ``maximum=None``, where its own reference routes go beyond it)."""
    return int(parse_number(name, value, Domain(minimum, maximum, integer=True)))


def check_time(name: str, value: object) -> int | Fraction:
    """A gradient-flow time in the supported range [T_MIN, T_MAX] (theory §5)."""
    return parse_number(name, value, TIME)



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
        h = parse_number("h", self.h, REAL_HEADS)
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

        digits = 30 if dps is None else check_dps(dps)
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
            object.__setattr__(self, name, int(parse_number(name, getattr(self, name), DIM)))
        object.__setattr__(self, "beta", check_beta("beta", self.beta))
        check_sharing(self.sharing)
        d = self.n if self.d is None else int(parse_number("d", self.d, DIM))
        if d < self.n:
            raise ValueError(f"d must be >= n = {self.n} (got d={d})")
        object.__setattr__(self, "d", d)
        if self.h_kv is None:
            if self.sharing == "gqa":
                raise ValueError("h_kv is required for gqa sharing (1 <= h_kv <= h)")
            h_kv = 1 if self.sharing == "mqa" else self.h
        else:
            h_kv = int(parse_number("h_kv", self.h_kv, DIM))
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
