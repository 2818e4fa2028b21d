"""The law operand's warm starts (issue 39): a Cauchy-polynomial law inside a ⊠ is
continued from the latest evaluations, or tracked in float64 near its atom's pole, and
answers what its own route answers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from freege.numeric import operands
from freege.numeric.case_law import CaseLaw
from freege.numeric.operands import FreePoissonOperand, LawOperand
from freege.numeric.roots import NEAR_ZERO
from freege.numeric.subordination import FreeMultNode
from freege.params import Ratios

#: an MHA law with an atom at 0 (mass 3/4: h gV < 1) and support [0.58, 28.1]
RATIOS = Ratios(beta=1, h=2, gK=Fraction(1, 2), gV=Fraction(1, 4), gO=Fraction(1))


def _law() -> CaseLaw:
    return CaseLaw("mha", RATIOS)


def _count_cold(monkeypatch) -> list[int]:
    asked: list[int] = []
    cold = LawOperand._cold_f64

    def spy(self, zs):
        asked.append(zs.size)
        return cold(self, zs)

    monkeypatch.setattr(LawOperand, "_cold_f64", spy)
    return asked


def test_warm_starts_answer_what_the_law_answers(monkeypatch) -> None:
    law = _law()
    op = LawOperand(law)
    x = np.linspace(0.3, 30.0, 40)
    first = x + 1j * np.geomspace(1e-3, 2.0, 40)
    second = first * (1 + 2e-3) + 1e-4j
    asked = _count_cold(monkeypatch)
    with op.warm():
        op.cauchy_f64(first)
        g, dg = op.cauchy_f64(second)
    assert asked[0] == first.size and sum(asked[1:]) < second.size / 4  # mostly warm
    assert id(op) not in operands._WARM.__dict__.get("memos", {})  # forgotten after
    ref, dref = law.cauchy_pair_f64(second)
    np.testing.assert_allclose(g, ref, rtol=1e-13)
    np.testing.assert_allclose(dg, dref, rtol=1e-10)


def test_near_the_atom_float64_where_its_error_estimate_allows(monkeypatch) -> None:
    law = _law()
    op = LawOperand(law)
    near = NEAR_ZERO * law.equation.scale()
    # at 0.8 near the estimate is ~8e-15 |G| (it grows like 1/|z|): float64; at 1e-3 near
    # it is above FLOAT64_RTOL: the law's own mpmath route
    angles = np.exp(1j * np.array([0.05, 1.5, 3.0]))
    zs = np.concatenate([0.8 * near * angles, 1e-3 * near * angles[:1]])
    asked = _count_cold(monkeypatch)
    with op.warm():
        g, _ = op.cauchy_f64(zs)
    assert asked == [1]
    ref, _ = law.cauchy_pair_f64(zs)  # the law's own route: mpmath at 30 digits
    np.testing.assert_allclose(g, ref, rtol=1e-13)


def test_a_free_product_is_the_same_with_and_without_warm_starts(monkeypatch) -> None:
    xs = np.linspace(0.05, 40.0, 30)

    def pdf() -> np.ndarray:
        node = FreeMultNode(FreePoissonOperand(Fraction(1, 2)), LawOperand(_law()))
        return -node.cauchy_f64(xs + 0j)[0].imag / np.pi

    warm = pdf()
    monkeypatch.setattr(LawOperand, "_warm_ready", lambda self: False)
    np.testing.assert_allclose(warm, pdf(), rtol=1e-11, atol=1e-14 * warm.max())
