"""The law family's contract (freege/numeric/law_family.py): a new kind of law implements
the hooks and nothing else, and every public method works for it.

The kind here is written in the test and is not algebraic as far as the family knows: the
semicircle law of radius 2 given by its closed-form Cauchy transform ``G(z) = (z -
sqrt(z - 2) sqrt(z + 2))/2`` (theory §3), its exact moments (Catalan numbers) and its
support. Everything else -- density, cdf, quantiles, mass, expectations, samples,
entropy, the accuracy estimate -- comes from the base and is checked against the
semicircle's closed forms, written here independently.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest

from freege.numeric.law_family import Law


class ClosedFormSemicircle(Law):
    """A kind of law that implements the family's hooks only."""

    def __init__(self, dps: int | None = None) -> None:
        super().__init__(dps, {"law": "semicircle of radius 2"})

    def recipe(self) -> Any:
        raise ValueError("the test's law does not pickle")

    def _identity(self) -> tuple[Any, ...]:
        return "semicircle-2", self.dps

    def with_dps(self, dps: int | None) -> ClosedFormSemicircle:
        return ClosedFormSemicircle(dps)

    def as_normalized(self) -> Law:
        raise ValueError("mean 0")

    def _moment_mp(self, q: int) -> mpmath.mpf:
        return mpmath.mpf(0 if q % 2 else math.comb(q, q // 2) // (q // 2 + 1))

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return [(mpmath.mpf(-2), mpmath.mpf(2))]

    def _atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return []

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        zs = np.asarray(zs, dtype=complex) + 0j
        return (zs - np.sqrt(zs - 2) * np.sqrt(zs + 2)) / 2

    def _stieltjes_mp_batch(self, zs: list[Any], seeds: np.ndarray | None = None
                            ) -> list[mpmath.mpc]:
        return [(z - mpmath.sqrt(z - 2) * mpmath.sqrt(z + 2)) / 2
                for z in (mpmath.mpc(v) for v in zs)]

    def _independent_one(self, method: str, zv: Any) -> Any:
        with mpmath.workdps((self.dps or 30) + 20):
            x = mpmath.re(zv)
            if method == "pdf":
                return mpmath.sqrt(max(4 - x * x, 0)) / (2 * mpmath.pi)
            return self._stieltjes_mp_batch([zv])[0]

    @property
    def s_relation(self) -> Any:
        raise ValueError("mean 0: no S-transform")

    def dof_point(self, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        raise ValueError("not a Gram spectrum")

    @property
    def nonnegative(self) -> bool:
        return False


def closed_cdf(x: Any) -> Any:
    """The semicircle's cdf on ``[-2, 2]``, typed here."""
    return 0.5 + x * mpmath.sqrt(4 - x * x) / (4 * mpmath.pi) + mpmath.asin(x / 2) / mpmath.pi


def test_a_new_kind_answers_every_public_method_from_its_hooks():
    law = ClosedFormSemicircle()
    xs = np.array([-1.5, -0.3, 0.0, 1.0, 1.9])
    assert law.support() == (-2.0, 2.0) and law.atoms() == {}
    assert np.allclose(law.pdf(xs), np.sqrt(4 - xs**2) / (2 * np.pi), rtol=1e-14, atol=0)
    assert law.pdf(2.5) == 0.0
    assert np.allclose(law.cdf(xs), [float(closed_cdf(x)) for x in xs], rtol=0, atol=1e-13)
    assert law.cdf(-3) == 0.0 and law.cdf(3) == 1.0
    assert law.ppf(0.5) == pytest.approx(0.0, abs=1e-12)
    assert law.ppf(float(closed_cdf(1))) == pytest.approx(1.0, abs=1e-12)
    assert law.mass() == pytest.approx(1.0, abs=1e-13)
    assert law.expect(lambda x: x**4) == pytest.approx(2.0, abs=1e-12)
    assert law.moment(2) == 1.0 and law.moment(6) == 5.0 and law.var() == 1.0
    assert law.entropy() == pytest.approx(math.log(2 * math.pi) - 0.5, abs=1e-12)
    value, error = law.estimate("pdf", 1.0)
    assert error < 1e-14 and value == pytest.approx(math.sqrt(3) / (2 * math.pi), rel=1e-14)


def test_a_new_kind_at_working_precision():
    law = ClosedFormSemicircle(dps=30)
    with mpmath.workdps(30):
        x = mpmath.mpf(1) / 3
        assert abs(law.cdf(x) - closed_cdf(x)) < mpmath.mpf(10) ** -28
        assert abs(law.mass() - 1) < mpmath.mpf(10) ** -28


def test_a_new_kind_samples_by_the_base():
    """Mean and variance of seeded samples within five standard errors of 0 and 1, and
    the Kolmogorov distance to the closed-form cdf within DKW's 99.9% bound."""
    n = 20_000
    samples = ClosedFormSemicircle().rvs(n, random_state=5)
    assert abs(samples.mean()) < 5 / math.sqrt(n)
    assert abs(samples.var() - 1) < 5 / math.sqrt(n)  # m4 = 2: the variance has sd 1/sqrt(n)
    ordered = np.sort(samples)
    cdf = np.array([float(closed_cdf(x)) for x in ordered])
    steps = np.arange(1, n + 1) / n
    distance = max(np.max(steps - cdf), np.max(cdf - (steps - 1 / n)))
    assert distance < math.sqrt(math.log(2 / 1e-3) / (2 * n))


def test_readouts_ask_the_law_not_its_kind():
    """The readouts refuse a law not on ``[0, inf)`` through its ``nonnegative`` hook."""
    from freege.numeric import readout

    with pytest.raises(ValueError, match="readouts need a law on"):
        readout.dof(ClosedFormSemicircle(), 0.1)
