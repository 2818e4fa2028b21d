"""The fuzzes' random laws (benchmarks/random_laws.py): the laws ``certify_fuzz.py`` and
``law_fuzz.py`` draw with their default seed are the ones their docstrings record by index.

Each fuzz's first draws are derived here again straight from its source of random numbers,
call by call as the fuzz documents its distribution, without the generator's code; and
many draws of both stay in the declared domain (theory §1.2, freege.params)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from benchmarks import certify_fuzz, law_fuzz
from freege.params import CASES, TIED_CASES, Ratios

SEED = 16  # both fuzzes' default seed


def _four_digits(uniform: Callable[[float, float], float], lo: str, hi: str) -> Fraction:
    """Log-uniform in [lo, hi], rounded to four significant digits and kept inside."""
    low, high = Fraction(lo), Fraction(hi)
    value = Fraction(f"{math.exp(uniform(math.log(low), math.log(high))):.4g}")
    return min(max(value, low), high)


def _domain(uniform: Callable[[float, float], float]) -> tuple[Fraction, int, list[Fraction]]:
    beta = _four_digits(uniform, "0.001", "4")
    h = min(10**4, max(1, round(math.exp(uniform(0, math.log(10**4))))))
    return beta, h, [_four_digits(uniform, "0.0001", "10000") for _ in range(3)]


def _certify_law(k: int) -> tuple[str, Ratios]:
    """Law ``k`` of certify_fuzz.py: case k mod 7; one law in four, one ratio at a corner."""
    rng = random.Random(f"{SEED}:{k}")
    beta, h, ratios = _domain(rng.uniform)
    if rng.random() < 0.25:
        ratios[rng.randrange(3)] = Fraction(
            rng.choice(["1", "0.999", "1.001", "0.9999", "0.0001", "10000"]))
    case = CASES[k % 7]
    tied = case in TIED_CASES
    return case, Ratios(beta=beta, h=h, gK=ratios[0], gV=ratios[0] if tied else ratios[1],
                        gO=ratios[2], sharing="tied" if tied else "none")


def _law_fuzz_laws(n: int) -> list[tuple[str, Ratios]]:
    """The first ``n`` laws of law_fuzz.py: one numpy generator, the case drawn, each ratio
    at 1 (12 %), at 1 +- 10^-j (8 %) or equal to the next one (5 %)."""
    rng = np.random.default_rng(SEED)
    out = []
    for _ in range(n):
        case = CASES[int(rng.integers(7))]
        beta, h, ratios = _domain(rng.uniform)
        for k in range(3):
            u = rng.random()
            if u < 0.12:
                ratios[k] = Fraction(1)
            elif u < 0.2:
                sign, j = int(rng.choice([-1, 1])), int(rng.integers(1, 5))
                ratios[k] = 1 + sign * Fraction(1, 10**j)
            elif u < 0.25:
                ratios[k] = ratios[(k + 1) % 3]
        gV = ratios[0] if case in TIED_CASES else ratios[1]
        out.append((case, Ratios(beta=beta, h=h, gK=ratios[0], gV=gV, gO=ratios[2])))
    return out


def test_certify_fuzz_draws_its_recorded_laws() -> None:
    for k in range(60):
        case, params = certify_fuzz.random_law(SEED, k)
        assert (case, Ratios(**params)) == _certify_law(k), k
        assert all("e" not in params[name] for name in ("beta", "gK", "gV", "gO")), params


def test_law_fuzz_draws_its_recorded_laws() -> None:
    rng = np.random.default_rng(SEED)
    drawn = [law_fuzz.random_law(rng) for _ in range(60)]
    assert drawn == _law_fuzz_laws(60)


@pytest.mark.parametrize("seed", [0, 7])
def test_draws_are_seeded_and_stay_in_the_declared_domain(seed: int) -> None:
    """Same seed, same laws; every law is a valid :class:`Ratios` (the domain check) with
    ``gV == gK`` in the tied cases; every case comes up."""
    rngs = np.random.default_rng(seed), np.random.default_rng(seed)
    laws = [law_fuzz.random_law(rngs[0]) for _ in range(300)]
    assert laws == [law_fuzz.random_law(rngs[1]) for _ in range(300)]
    laws += [(case, Ratios(**params)) for case, params in
             (certify_fuzz.random_law(seed, k) for k in range(300))]
    assert {case for case, _ in laws} == set(CASES)
    for case, ratios in laws:
        assert case not in TIED_CASES or ratios.gV == ratios.gK, (case, ratios)
    assert [certify_fuzz.random_law(seed, k) for k in (5, 250)] == [
        certify_fuzz.random_law(seed, k) for k in (5, 250)]
