"""theory §1, §1.1, §1.2: the configuration map and its input checks."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.params import (
    BETA_MAX,
    BETA_MIN,
    H_MAX,
    MAX_DPS,
    RATIO_MAX,
    RATIO_MIN,
    T_MAX,
    T_MIN,
    Dims,
    Ratios,
    check_dps,
    check_time,
    parse_number,
)


def test_ratios_are_exact_fractions():
    r = Dims(n=512, h=12, dK=64, dV=64, dO=768, d=768).ratios
    assert (r.gK, r.gV, r.gO) == (Fraction(3, 2), Fraction(3, 2), Fraction(3, 2))


@given(h=st.integers(1, 96), data=st.data())
def test_kv_groups_contiguous_and_nearly_equal(h, data):
    h_kv = data.draw(st.integers(1, h))
    dims = Dims(n=64, h=h, dK=4, dV=4, dO=8, sharing="gqa", h_kv=h_kv)
    groups = [dims.kv_group(r) for r in range(h)]
    assert groups == sorted(groups)
    assert set(groups) == set(range(h_kv))
    sizes = [groups.count(g) for g in range(h_kv)]
    assert max(sizes) - min(sizes) <= 1


def test_param_count_matches_spec_formula():
    # theory §5: d h dK + 2 d h_kv dK + h dV dO for GQA with dK = dV
    dims = Dims(n=2048, h=71, dK=64, dV=64, dO=4544, d=4544, sharing="mqa")
    assert dims.n_params == 4544 * 71 * 64 + 2 * 4544 * 1 * 64 + 71 * 64 * 4544
    tied = Dims(n=2048, h=32, dK=64, dV=64, dO=2048, sharing="tied")
    assert tied.n_params == 2048 * 32 * 64 + 2048 * 32 * 64 + 32 * 64 * 2048


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(beta=-1), "beta"),
        (dict(beta=float("inf")), "beta"),
        (dict(n=0), "n"),
        (dict(dK=-3), "dK"),
        (dict(h=2.5), "h"),
        (dict(sharing="gqa", h_kv=9), "h_kv"),
        (dict(sharing="gqa"), "h_kv"),
        (dict(sharing="mqa", h_kv=2), "mqa"),
        (dict(sharing="tied", dV=8), "dV"),
        (dict(sharing="bogus"), "sharing"),
        (dict(d=16), "d must be >= n"),
    ],
)
def test_bad_dims_name_the_parameter(kwargs, word):
    base = dict(n=32, h=8, dK=4, dV=4, dO=16)
    with pytest.raises(ValueError, match=word):
        Dims(**{**base, **kwargs})


@pytest.mark.parametrize(
    "kwargs, word",
    [(dict(gK=0), "gK"), (dict(h=0), "h"), (dict(beta="x"), "beta"),
     (dict(sharing="tied", gV=2), "gV")],
)
def test_bad_ratios_name_the_parameter(kwargs, word):
    base = dict(beta=1, h=4, gK=1, gV=1, gO=1)
    with pytest.raises(ValueError, match=word):
        Ratios(**{**base, **kwargs})


# ---------------------------------------------------------------- exact reading of inputs
def test_floats_are_read_as_their_shortest_decimal():
    """Issue 10 finding 7: a float means the decimal it prints as, not the binary double."""
    import numpy as np

    assert Ratios(beta=0.7, h=4, gK=1, gV=1, gO=1) == Ratios(beta="0.7", h=4, gK=1, gV=1, gO=1)
    r = Ratios(beta=np.float64(0.7), h=4, gK=0.1, gV=1.5, gO=1e-4)
    assert (r.beta, r.gK, r.gV, r.gO) == (Fraction(7, 10), Fraction(1, 10), Fraction(3, 2),
                                          Fraction(1, 10**4))
    assert Dims(n=8, h=2, dK=2, dV=2, dO=2, beta=0.7).beta == Fraction(7, 10)


def test_mpmath_inputs_are_exact():
    import mpmath

    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 3
    man, exp = x.man_exp
    assert Ratios(beta=x, h=1, gK=1, gV=1, gO=1).beta == man * Fraction(2) ** exp


# ---------------------------------------------------------------- supported domain
@pytest.mark.parametrize(
    "kwargs, ok",
    [
        (dict(beta=BETA_MIN), True), (dict(beta=BETA_MAX), True),
        (dict(beta=BETA_MIN * Fraction(999, 1000)), False),
        (dict(beta=BETA_MAX + Fraction(1, 10**9)), False),
        (dict(beta="1e308"), False), (dict(beta="1e400"), False), (dict(beta="1e-300"), False),
        (dict(gK=RATIO_MIN, gV=RATIO_MAX, gO=RATIO_MIN), True),
        (dict(gK="1e300"), False), (dict(gV=RATIO_MIN / 2), False), (dict(gO=RATIO_MAX * 2), False),
        (dict(h=H_MAX), True), (dict(h=H_MAX + 1), False),
    ],
)
def test_domain_edges(kwargs, ok):
    base = dict(beta=1, h=4, gK=1, gV=1, gO=1)
    if ok:
        Ratios(**{**base, **kwargs})
        return
    (name,) = kwargs
    with pytest.raises(ValueError, match=rf"{name} must be (an integer )?in \["):
        Ratios(**{**base, **kwargs})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), "nan", True])
def test_non_finite_beta_is_refused(value):
    with pytest.raises(ValueError, match="beta"):
        Ratios(beta=value, h=1, gK=1, gV=1, gO=1)


def test_dims_beta_domain():
    with pytest.raises(ValueError, match=r"beta must be in \[0.001, 4\]"):
        Dims(n=8, h=2, dK=2, dV=2, dO=2, beta=50)


def test_dps_cap():
    assert check_dps(MAX_DPS) == MAX_DPS
    for bad_dps in (MAX_DPS + 1, 14, "2.5"):
        with pytest.raises(ValueError, match=rf"dps must be an integer in \[15, {MAX_DPS}\]"):
            check_dps(bad_dps)


def test_time_range():
    assert check_time("t", T_MIN) == T_MIN and check_time("t", T_MAX) == T_MAX
    for t in ("1e300", "1e-300", 0):
        with pytest.raises(ValueError, match="t must be"):
            check_time("t", t)


# ---------------------------------------------------------------- thetas (finding 8)
def _theta1_series(beta: Fraction, digits: int) -> Fraction:
    """``e^{beta^2} - 1`` as the exact rational partial sum of its series, with the
    remainder below 10^-digits relative (an independent route to mpmath.expm1)."""
    b2, term, total, k = beta * beta, Fraction(1), Fraction(0), 0
    while True:
        k += 1
        term = term * b2 / k
        total += term
        if term < total / 10 ** (digits + 5) and k > 2 * b2:
            return total


@pytest.mark.parametrize("beta", [BETA_MIN, Fraction(7, 10), 1, Fraction(13, 10), BETA_MAX])
def test_thetas_are_exact_at_any_precision(beta):
    """``Ratios.thetas(dps)`` is right to dps digits (against the rational series), and the
    float64 values are the correctly rounded exact ones."""
    import mpmath

    r = Ratios(beta=beta, h=1, gK=1, gV=1, gO=1)
    exact1 = _theta1_series(Fraction(beta), 60)
    exact2 = Fraction(beta) ** 2
    t1, t2, c = r.thetas(50)
    with mpmath.workdps(60):
        for value, exact in ((t1, exact1), (t2, exact2), (c, exact2 / exact1)):
            ref = mpmath.mpf(exact.numerator) / exact.denominator
            assert abs(value - ref) <= mpmath.mpf(10) ** -49 * abs(ref)
    assert r.thetas() == (float(exact1), float(exact2), float(exact2 / exact1))


def test_dims_ratios_outside_the_domain_name_the_dimensions():
    with pytest.raises(ValueError, match=r"gK = h dK / n must be in \[0.0001, 10000\]"):
        _ = Dims(n=10**6, h=1, dK=1, dV=1, dO=10**6).ratios


def test_api_floats_mean_their_decimals_at_high_precision():
    """Issue 10 finding 7: ``dof(nu, lam=1e-4)`` on a 30-digit law answers for 1/10000,
    not for the binary double next to it (which differs from the 17th digit)."""
    import mpmath

    from freege.numeric.case_law import law
    from freege.numeric.readout import dof

    nu = law("mha", Ratios(beta=1, h=4, gK=2, gV=2, gO=2), normalized=True, dps=30)
    from_float, from_text = dof(nu, 1e-4), dof(nu, "1e-4")
    binary = dof(nu, Fraction(1e-4))  # the double itself, exactly
    assert from_float == from_text
    with mpmath.workdps(30):
        assert abs(binary - from_text) > mpmath.mpf(10) ** -25 * abs(from_text)


@pytest.mark.parametrize("text", ["1e1000000000", "1e-1000000000", "1e401"])
def test_huge_exponents_are_refused_at_once(text):
    with pytest.raises(ValueError, match="beta must be"):
        Ratios(beta=text, h=1, gK=1, gV=1, gO=1)


def test_negative_mpmath_numbers_keep_their_sign():
    """``mpf.man_exp`` holds the mantissa of ``|x|``: a negative beta must be refused,
    not silently read as its absolute value."""
    import mpmath

    from freege.params import mpf_fraction

    assert mpf_fraction(mpmath.mpf(-3) / 4) == Fraction(-3, 4)
    assert mpf_fraction(mpmath.mpf("0.5")) == Fraction(1, 2)
    with pytest.raises(ValueError, match="beta"):
        Ratios(beta=mpmath.mpf(-1), h=2, gK=1, gV=1, gO=1)


def test_ratios_accept_a_real_head_count_and_keep_integers_int():
    """theory §6.4: curves in h interpolate the proportional-limit formulas."""
    from fractions import Fraction

    from freege.params import Ratios

    assert Ratios(beta=1, h="2.5", gK=1, gV=1, gO=1).h == Fraction(5, 2)
    whole = Ratios(beta=1, h=Fraction(6, 2), gK=1, gV=1, gO=1).h
    assert whole == 3 and isinstance(whole, int)
    assert Ratios(beta=1, h="0.5", gK=1, gV=1, gO=1).h == Fraction(1, 2)
    for bad in ("0", "1e-5", "1e5"):
        with pytest.raises(ValueError, match=r"h must be"):
            Ratios(beta=1, h=bad, gK=1, gV=1, gO=1)


def test_non_ascii_digits_are_not_numbers() -> None:
    """Python's float() reads full-width and other Unicode digits; a parameter must not."""
    for text in ("１", "٣", "1２"):
        with pytest.raises(ValueError, match="must be a finite number"):
            parse_number("--n", text)
