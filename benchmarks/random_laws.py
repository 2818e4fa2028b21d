"""Random laws over the declared domain, for the fuzzes (theory §4 cases, theory §1.2
ratios; the domain of :mod:`freege.params`).

One generator, :func:`draw`: a theory §4 case, ``beta`` log-uniform in [BETA_MIN,
BETA_MAX], ``h`` log-uniform in [1, H_MAX] (rounded), ``gK, gV, gO`` log-uniform in
[RATIO_MIN, RATIO_MAX], each to four significant digits; then a named distribution of
*special* ratios puts some of them where the laws have atoms, hard edges and tiny lower
edges, and a tied case takes ``gV = gK``. Each fuzz keeps its own distribution and its own
source of random numbers, so the laws its docstring records by index are drawn again:

* :func:`one_corner` (``certify_fuzz.py``, a ``random.Random(f"{seed}:{k}")`` per law,
  case ``k mod 7``): one law in four puts one ratio at 1, a hair either side of it, or a
  domain end (:data:`CORNERS`);
* :func:`near_one` (``law_fuzz.py``, one numpy generator for the whole run, case drawn):
  each ratio on its own at 1 (12 %), at ``1 +- 10^-j`` with j in 1..4 (8 %), or equal to
  the next ratio (5 %).

A source is a ``random.Random`` or a ``numpy.random.Generator``: the generator calls only
``random()``, ``uniform(a, b)`` and ``choice(range(n))``, which both define (and numpy's
``choice(range(n))`` draws the same index as its ``integers(n)``). Exponentials and
logarithms are Python's ``math`` ones, not numpy's (whose SIMD kernels differ by machine in
the last bit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Protocol, TypeVar

from freege.params import (
    BETA_MAX,
    BETA_MIN,
    CASES,
    H_MAX,
    RATIO_MAX,
    RATIO_MIN,
    TIED_CASES,
)

T = TypeVar("T")

#: values a corner ratio of :func:`one_corner` takes: exactly 1, a hair either side, and
#: the domain ends
CORNERS = ("1", "0.999", "1.001", "0.9999", str(RATIO_MIN), str(RATIO_MAX))


class Source(Protocol):
    """The calls the generator makes on ``random.Random`` or ``numpy.random.Generator``."""

    def random(self) -> float: ...

    def uniform(self, a: float, b: float) -> float: ...

    def choice(self, seq: range) -> int: ...


#: a distribution of special ratios: puts some of ``gK, gV, gO`` (a list, changed in place)
#: at special values
Special = Callable[[Source, list[str]], None]


def pick(rng: Source, options: Sequence[T]) -> T:
    """One of ``options``, each as likely (``random.Random.choice``'s index)."""
    return options[int(rng.choice(range(len(options))))]


def _log_uniform(rng: Source, lo: Fraction | int, hi: Fraction | int) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _decimal(rng: Source, lo: Fraction, hi: Fraction) -> str:
    """Log-uniform in ``[lo, hi]`` to four significant digits, as a plain decimal string
    (``'10000'``, not ``'1e+04'``)."""
    text = f"{min(max(_log_uniform(rng, lo, hi), float(lo)), float(hi)):.4g}"
    return str(Fraction(text)) if "e" in text else text


def one_corner(rng: Source, ratios: list[str]) -> None:
    """``certify_fuzz.py``'s distribution: one law in four puts one ratio at a corner."""
    if rng.random() < 0.25:
        ratios[pick(rng, range(3))] = pick(rng, CORNERS)


def near_one(rng: Source, ratios: list[str]) -> None:
    """``law_fuzz.py``'s distribution: each ratio at 1 (12 %), ``1 +- 10^-j`` with j in
    1..4 (8 %), or equal to the next ratio (5 %)."""
    for k in range(3):
        u = rng.random()
        if u < 0.12:
            ratios[k] = "1"
        elif u < 0.2:
            ratios[k] = str(1 + pick(rng, (-1, 1)) * 10.0 ** -pick(rng, (1, 2, 3, 4)))
        elif u < 0.25:
            ratios[k] = ratios[(k + 1) % 3]


def draw(rng: Source, special: Special, case: str | None = None
         ) -> tuple[str, dict[str, str | int]]:
    """A random law: its case (``case``, or one drawn from ``rng`` when None) and its
    ``beta, h, gK, gV, gO`` (decimal strings, ``h`` an int), the ratios passed through
    ``special``."""
    case = pick(rng, CASES) if case is None else case
    beta = _decimal(rng, BETA_MIN, BETA_MAX)
    h = max(1, min(H_MAX, round(_log_uniform(rng, 1, H_MAX))))
    ratios = [_decimal(rng, RATIO_MIN, RATIO_MAX) for _ in range(3)]
    special(rng, ratios)
    gK, gV, gO = ratios
    return case, {"beta": beta, "h": h, "gK": gK, "gV": gK if case in TIED_CASES else gV,
                  "gO": gO}
