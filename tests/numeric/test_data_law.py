"""The subordination engine and DataLaw (docs/data-laws.md) against the polynomial route.

Every algebra expression has two independent numeric routes: the Cauchy polynomial
(:class:`freege.numeric.expression_law.ExpressionLaw`) and the subordination engine over
closed-form operands (:func:`freege.numeric.data_law.spec_of_expression`). They share no
solver code, so their agreement tests both.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege import algebra
from freege.numeric.data_law import DataLaw, build_operand, spec_of_expression

CASES = [
    "mp(1/2) * atoms((1,1/4),(3,3/4))",
    "semicircle(1) + mp(1/2)",
    "mp(1/2) * mp(1/3)",
    "poisson(2, atoms((1,1/2),(3,1/2)))",
]


def _pair(text: str, dps: int | None = None) -> tuple[DataLaw, object]:
    expr = algebra.parse(text)
    return DataLaw(spec_of_expression(expr), dps, text), expr.law(dps)


@pytest.mark.parametrize("text", CASES)
def test_density_and_edges_agree_with_the_polynomial_route(text: str) -> None:
    law, ref = _pair(text)
    edges = [e for ab in law.intervals() for e in ab]
    ref_edges = [e for ab in ref.intervals() for e in ab]
    assert len(edges) == len(ref_edges)
    np.testing.assert_allclose(edges, ref_edges, rtol=1e-12, atol=1e-12)
    lo, hi = ref_edges[0], ref_edges[-1]
    xs = np.linspace(lo, hi, 1002)[1:-1]
    xs = xs[ref.pdf(xs) > 0]
    np.testing.assert_allclose(law.pdf(xs), ref.pdf(xs), rtol=1e-12)
    assert law.pdf(hi + 0.5) == 0.0


@pytest.mark.parametrize("text", CASES[:2])
def test_thirty_digits_agree_with_the_polynomial_route(text: str) -> None:
    law, ref = _pair(text, 30)
    with mpmath.workdps(30):
        for (a, b), (c, d) in zip(law.intervals(), ref.intervals(), strict=True):
            assert abs(a - c) < mpmath.mpf(10) ** -25 * (1 + abs(c))
            assert abs(b - d) < mpmath.mpf(10) ** -25 * (1 + abs(d))
        x = (ref.intervals()[0][0] + ref.intervals()[0][1]) / 3
        assert abs(law.pdf(x) - ref.pdf(x)) < mpmath.mpf(10) ** -25 * ref.pdf(x)
        z = mpmath.mpc(x, "0.25")
        assert abs(law.stieltjes(z) - ref.stieltjes(z)) < mpmath.mpf(10) ** -25
        for q in range(1, 5):
            assert abs(law.moment(q) - ref.moment(q)) < mpmath.mpf(10) ** -25 * abs(ref.moment(q))


def test_moments_follow_the_operations() -> None:
    """m1..m4 of MP(1/2) ⊠ empirical from the S-transform product, against the moments of
    the product computed by hand: MP_c ⊠ nu has m1 = m1(nu), m2 = m2(nu) + c m1(nu)^2."""
    values = np.array([1.0, 2.0, 5.0])
    law = DataLaw(("mult", ("mp", Fraction(1, 2)),
                   ("empirical", values.astype("<f8").tobytes(), None)), 30)
    with mpmath.workdps(30):
        m1 = mpmath.fsum(values) / 3
        m2 = mpmath.fsum(v * v for v in values) / 3
        assert abs(law.moment(1) - m1) < 1e-25
        assert abs(law.moment(2) - (m2 + m1**2 / 2)) < 1e-25


def test_atoms_follow_bercovici_voiculescu() -> None:
    law, ref = _pair("atoms((0,3/4),(1,1/4)) + atoms((0,1/2),(5,1/2))")
    assert law.atoms() == pytest.approx(ref.atoms())
    assert law.atoms() == pytest.approx({0.0: 0.25, 5.0: 0.25})  # 3/4 + 1/2 - 1 at 0 + 0, 0 + 5
    law, ref = _pair("mp(2) * atoms((1,1/2),(2,1/2))")
    assert law.atoms() == pytest.approx({0.0: 0.5})
    assert law.cdf(law.intervals()[0][0] / 2) == pytest.approx(0.5, abs=1e-12)


def test_empirical_moments_are_exact() -> None:
    """The operand's moments from the float64 data, against exact fractions of the same
    floats (values over six decades, signs, unequal weights)."""
    from freege.numeric.operands import EmpiricalOperand

    rng = np.random.default_rng(5)
    values = np.concatenate([rng.standard_normal(40) * 10.0 ** rng.integers(-3, 4, 40),
                             [0.0]])
    weights = rng.random(values.size) + 0.1
    op = EmpiricalOperand(values, weights)
    total = sum(Fraction(float(w)) for w in weights)
    with mpmath.workdps(60):
        got = op.moments_mp(4)
        for k in range(1, 5):
            exact = sum(Fraction(float(w)) * Fraction(float(x)) ** k
                        for x, w in zip(values, weights, strict=True)) / total
            ref = mpmath.mpf(exact.numerator) / exact.denominator
            assert abs(got[k - 1] - ref) <= mpmath.mpf(10) ** -58 * abs(ref)


def test_atoms_of_empirical_operands() -> None:
    """Bercovici-Voiculescu with heavy atoms read from empirical data: 3/4 + 3/4 - 1 at
    1 + 5 and 2/3 + 3/4 - 1 at 2 * 7 (nothing else pairs)."""
    add = DataLaw(("add", ("empirical", np.array([1.0, 1, 1, 2]).tobytes(), None),
                   ("empirical", np.array([5.0, 5, 5, 7]).tobytes(), None)))
    ref = algebra.parse("atoms((1,3/4),(2,1/4)) + atoms((5,3/4),(7,1/4))").law()
    assert add.atoms() == pytest.approx(ref.atoms())
    assert add.atoms() == pytest.approx({6.0: 0.5})
    mult = DataLaw(("mult", ("empirical", np.array([0.0, 2, 2]).tobytes(), None),
                    ("empirical", np.array([7.0, 7, 7, 9]).tobytes(), None)))
    assert mult.atoms() == pytest.approx({0.0: 1 / 3, 14.0: 2 / 3 + 3 / 4 - 1})


def test_a_component_between_scan_anchors_is_found(monkeypatch) -> None:
    """A small component far from the bulk (compound free Poisson of 65 spread atoms at
    rate 1/8: five components, the first 0.9 wide with the scan's anchors 3.6 apart)
    against the polynomial-free reference of the same law solved point by point from
    above: inside points between two outside ones are not taken for outside, by the
    explicit route and by the scan (the explicit route switched off)."""
    from freege.numeric import data_support

    rng = np.random.default_rng(7)
    atoms = np.sort(rng.gamma(2.0, 10.0, 65))
    spec = ("poisson", Fraction(1, 8), ("empirical", atoms.tobytes(), None))
    law = DataLaw(spec)
    found = law.intervals()
    monkeypatch.setattr(data_support, "explicit_intervals", lambda node, f64: None)
    scanned = DataLaw(spec).intervals()
    xs = np.linspace(0.0, law.support()[1], 400)[1:-1]
    g = law.root._path_f64(xs + 0j, True)[1][0]  # each point down its own path
    inside = -g.imag / np.pi > 1e-9 * np.max(-g.imag)
    for intervals in (found, scanned):
        flagged = np.zeros(xs.shape, dtype=bool)
        for a, b in intervals:
            flagged |= (xs > a) & (xs < b)
        assert np.array_equal(flagged, inside)
    assert law.mass() == pytest.approx(1.0, abs=1e-8)


def test_a_cusp_is_refused_in_one_line() -> None:
    """semicircle(1) ⊞ (delta_0 + delta_2)/2 sits exactly at the threshold where the two
    bulks meet (variance 1 = the squared half-distance of the atoms): a cusp at 1. The
    mass check's quadrature cannot converge across it; the law refuses at once (no finer
    scans) rather than answer."""
    from freege.errors import ConvergenceError

    law = DataLaw(("add", ("semicircle", Fraction(1)),
                   ("empirical", np.array([0.0, 2.0]).tobytes(), None)))
    with pytest.raises(ConvergenceError, match="cusp") as info:
        law.intervals()
    assert "\n" not in str(info.value) and "500 points" in str(info.value)


def test_answers_do_not_depend_on_batches() -> None:
    law, _ = _pair(CASES[0])
    xs = np.linspace(0.2, 7.9, 301)
    whole = law.pdf(xs)
    rng = np.random.default_rng(1)
    perm = rng.permutation(xs.size)
    shuffled = np.empty_like(whole)
    shuffled[perm] = law.pdf(xs[perm])
    alone = np.array([law.pdf(x) for x in xs[::30]])
    np.testing.assert_allclose(shuffled, whole, rtol=1e-13)
    np.testing.assert_allclose(alone, whole[::30], rtol=1e-13)


def test_pickle_estimate_and_scipy_methods() -> None:
    law, ref = _pair(CASES[0])
    back = pickle.loads(pickle.dumps(law))
    assert back == law and hash(back) == hash(law)
    assert back.pdf(2.0) == law.pdf(2.0)
    est = law.estimate("pdf", 2.0)
    assert est.error < 1e-13 and abs(est.value - ref.pdf(2.0)) < 1e-13
    np.testing.assert_allclose(law.ppf([0.1, 0.5, 0.9]), ref.ppf([0.1, 0.5, 0.9]), rtol=1e-10)
    np.testing.assert_allclose(law.cdf(2.0), ref.cdf(2.0), rtol=1e-10)
    assert law.s_transform(-0.3) == pytest.approx(ref.s_transform(-0.3), rel=1e-10)
    samples = law.rvs(2000, random_state=3)
    assert abs(samples.mean() - 2.5) < 6 * np.sqrt(law.var() / 2000)


def test_bad_specs_and_operands_are_refused() -> None:
    with pytest.raises(ValueError, match="not supported on"):
        build_operand(("mult", ("semicircle", Fraction(1)), ("mp", Fraction(1, 2))))
    with pytest.raises(ValueError, match="unknown spec kind"):
        build_operand(("eval", "1"))
    with pytest.raises(ValueError, match="ratio must be > 0"):
        build_operand(("mp", Fraction(-1)))
    with pytest.raises(ValueError, match="exact number"):
        build_operand(("mp", 0.5))
    with pytest.raises(ValueError, match="finite"):
        build_operand(("empirical", np.array([1.0, np.nan]).tobytes(), None))
