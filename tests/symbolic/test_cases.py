"""The theory §4 laws: derived closed forms against the stated ones (docs/theory.md),
tied laws against a direct computation, and the public API's bad input."""

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import freege.symbolic as fs
from freege.symbolic import cases, laws, series
from freege.symbolic.symbols import S, gK, gO, gV, h, theta1, theta2, w

c = theta2 / theta1

#: theory §4 table, "mean m1" column
THEORY_MEANS = {
    "attention": theta1,
    "head-average": theta1,
    "head-average-shared-key": theta1,
    "value": gV * theta1,
    "mha": gO * theta1,
    "value-tied": gK * theta1 + h * theta2,
    "mha-tied": gO * (theta1 + h * theta2 / gK),
}


def is_zero(expr: sp.Expr) -> bool:
    return sp.simplify(expr) == 0


@pytest.mark.parametrize("case", cases.CASES)
def test_means_match_spec_table(case: str) -> None:
    assert is_zero(fs.moments(case, 1)[0] - THEORY_MEANS[case])
    assert fs.moments(case, 2, normalized=True)[0] == 1


def test_attention_second_moment() -> None:
    """theory §4: attention m2 = theta1^2 (1 + 1/h) + theta2^2 / gK."""
    assert is_zero(fs.moments("attention", 2)[1] - (theta1**2 * (1 + 1 / h) + theta2**2 / gK))


@pytest.mark.parametrize(
    ("case", "excess"),
    [
        ("value", 1 / h + 1 / gV + c**2 / gK),
        ("mha", 1 / h + 1 / gV + 1 / gO + c**2 / gK),
    ],
)
def test_normalized_second_moment(case: str, excess: sp.Expr) -> None:
    """theory §4: mbar2 - 1 of the value output and of MHA."""
    m1, m2 = fs.moments(case, 2)
    assert is_zero(m2 / m1**2 - 1 - excess)
    assert is_zero(fs.moments(case, 2, normalized=True)[1] - 1 - excess)


@pytest.mark.parametrize(
    ("case", "mp_ratios"),
    [("attention", [h]), ("value", [h, gV]), ("mha", [h, gV, gO])],
)
def test_normalized_s_transform_matches_spec(case: str, mp_ratios: list) -> None:
    """theory §4: S_nubar(w) = s(w) / prod_j (1 + w/g_j) with
    s = 2 / ((1+u) + sqrt((1+u)^2 - 4(1-c)u)), u = c w / gK."""
    u = c * w / gK
    s = 2 / ((1 + u) + sp.sqrt((1 + u) ** 2 - 4 * (1 - c) * u))
    spec = s / sp.Mul(*[1 + w / g for g in mp_ratios])
    derived = fs.s_transform(case, normalized=True)
    assert not derived.has(S)
    point = {theta1: sp.Rational(7, 4), theta2: 1, h: 3, gK: sp.Rational(1, 2), gV: 2, gO: 5}
    for w0 in (sp.Rational(-1, 10), sp.Rational(1, 7), sp.Rational(2, 3)):
        at = {**point, w: w0}
        assert abs(sp.N(derived.subs(at) - spec.subs(at), 30)) < 1e-25


@pytest.mark.parametrize("case", cases.CASES)
def test_s_relation_passes_through_the_mean(case: str) -> None:
    """theory §3: the S-transform branch has S(0) = 1/m1."""
    relation = fs.s_relation(case)
    assert is_zero(relation.subs({w: 0, S: 1 / THEORY_MEANS[case]}))


def test_tied_mha_s_transform_matches_spec() -> None:
    """theory §4: the tied MHA normalized by m = gO (theta1 + h theta2 / gK) has
    S_nubar(z) = gK m S_mu(z/h) / ((h + z)(gO + z))."""
    mu = cases.tied_jump_law()
    s_mu = mu.s_explicit
    assert s_mu is not None
    m = THEORY_MEANS["mha-tied"]
    spec = gK * m * s_mu.subs(w, w / h) / ((h + w) * (gO + w))
    derived = fs.s_transform("mha-tied", normalized=True)
    point = {theta1: sp.Rational(7, 4), theta2: 1, h: 3, gK: sp.Rational(1, 2), gO: 5}
    for w0 in (sp.Rational(-1, 10), sp.Rational(1, 7), sp.Rational(2, 3)):
        at = {**point, w: w0}
        assert abs(sp.N(derived.subs(at) - spec.subs(at), 30)) < 1e-25


def test_tied_jump_moments_from_the_algebra() -> None:
    """mu_KV's moments (freege.symbolic.pushforward) equal the law algebra's polynomial
    image of pi_{gK/h} under phi (theory §4), exactly."""
    direct = laws.pushforward(
        laws.free_poisson(gK / h), [0, theta1 - theta2, h * theta2 / gK]
    )
    assert [sp.cancel(a - b) for a, b in
            zip(cases.tied_jump_law().moments(5), direct.moments(5), strict=True)] == [0] * 5


@pytest.mark.parametrize(
    ("t1", "t2", "hh", "k"),
    [(Fraction(1718, 1000), Fraction(1), 4, Fraction(1, 2)),
     (Fraction(1, 5), Fraction(19, 100), 2, Fraction(3))],
)
def test_value_tied_moments_by_quadrature(t1: Fraction, t2: Fraction, hh: int, k: Fraction) -> None:
    """value-tied = pi(mu_KV, h) (theory §4) against an independent computation: mu_KV
    moments by quadrature of phi(x)^q against the free Poisson density of pi_{gK/h} (its
    atom at 0 maps to 0), then the moments of the compound free Poisson law from its free
    cumulants h m_q(mu_KV) by the non-crossing recursion (not Lagrange inversion)."""
    order = 5
    with mpmath.workdps(30):
        a, b, t = (mpmath.mpf(x.numerator) / x.denominator for x in (t1 - t2, hh * t2 / k, k / hh))
        lo, hi = (1 - mpmath.sqrt(t)) ** 2, (1 + mpmath.sqrt(t)) ** 2

        def integrand(x, q):
            density = mpmath.sqrt((hi - x) * (x - lo)) / (2 * mpmath.pi * x)
            return (a * x + b * x**2) ** q * density

        kappa = [hh * mpmath.quad(lambda x, q=q: integrand(x, q), [lo, hi])
                 for q in range(1, order + 1)]
        moments = [mpmath.mpf(1)]
        for n in range(1, order + 1):
            moments.append(sum(kappa[s - 1] * series.power(moments, s, n - s + 1)[n - s]
                               for s in range(1, n + 1)))
        point = {theta1: sp.Rational(t1.numerator, t1.denominator),
                 theta2: sp.Rational(t2.numerator, t2.denominator), h: hh,
                 gK: sp.Rational(k.numerator, k.denominator)}
        for got, want in zip(fs.moments("value-tied", order), moments[1:], strict=True):
            exact = sp.Rational(got.subs(point))
            assert abs(mpmath.mpf(exact.p) / exact.q - want) <= 1e-20 * abs(want)


def test_value_tied_cumulants_are_compound_poisson() -> None:
    """theory §3: pi(mu, t) has free cumulants t m_q(mu)."""
    mu = cases.tied_jump_law().moments(4)
    assert [sp.cancel(k - h * m) for k, m in zip(fs.cumulants("value-tied", 4), mu, strict=True)] \
        == [0] * 4


def test_dof_series_alternates_normalized_moments() -> None:
    """theory §5: w(lam) = mbar1/lam - mbar2/lam^2 + mbar3/lam^3 - ..."""
    mbar = fs.moments("mha", 4, normalized=True)
    assert fs.dof_series("mha", 4) == [mbar[0], -mbar[1], mbar[2], -mbar[3]]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="attention, head-average"):
        fs.moments("softmax", 2)
    with pytest.raises(ValueError, match=r"order must be an integer in \[1, 12\]"):
        fs.moments("mha", 0)
    with pytest.raises(ValueError, match=r"\[1, 12\]"):
        fs.dof_series("mha", 13)
    with pytest.raises(ValueError, match="case must be one of"):
        cases.case_law("MHA")
