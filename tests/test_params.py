"""SPEC §1, §1.1, §1.2: the configuration map and its input checks."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.params import Dims, Ratios


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
    # SPEC §5: d h dK + 2 d h_kv dK + h dV dO for GQA with dK = dV
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
