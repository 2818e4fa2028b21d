"""The leading singular value of MHA (theory §4.1): the exact finite-size law of the
common component, the second-order term, and the limit against samples."""

import math

import numpy as np
import pytest
from scipy import stats

from freege.numeric import outlier
from freege.params import Dims, Ratios
from freege.validation.sampling import outlier as sampled
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.eigensolver import top_singular_value
from freege.validation.sampling.sample import case_for, centred_softmax_values, draw

#: two-sided level of the statistical checks below
LEVEL = 0.999


def _common(dims, seed):
    """``(|vbar|^2, s_1(MHA)^2 - n |vbar|^2)`` of one draw."""
    bk = get_backend("numpy")
    ws, os_, _ = np.random.SeedSequence(seed).spawn(3)
    w = sampled.weights(bk, bk.generator(ws), dims)
    w_o = sampled.output_weights(bk, bk.generator(os_), dims)
    vbar = np.concatenate([v.mean(axis=0) for _, _, v, _ in w]) @ w_o
    z = np.concatenate([centred_softmax_values(np, q, k, v, float(dims.beta))
                        for q, k, v, _ in w], axis=1) @ w_o
    s1 = top_singular_value(np, z + vbar[None, :])
    return float(vbar @ vbar), s1**2 - dims.n * float(vbar @ vbar)


@pytest.mark.parametrize("sharing,h_kv", [("none", None), ("gqa", 2), ("mqa", None),
                                          ("tied", None)])
def test_common_component_mean_and_variance_are_exact(sharing, h_kv):
    """``E n |vbar|^2 = dO`` and the relative variance of theory §4.1, against 3000 draws
    of the values and W^O (the weights of the sampler, in its order)."""
    dims = Dims(n=24, h=4, dK=3, dV=3, dO=12, sharing=sharing, h_kv=h_kv)
    bk = get_backend("numpy")
    values = []
    for i in range(3000):
        ws, os_, _ = np.random.SeedSequence((9, i)).spawn(3)
        w = sampled.weights(bk, bk.generator(ws), dims)
        u = np.concatenate([v.mean(axis=0) for _, _, v, _ in w])
        vbar = u @ sampled.output_weights(bk, bk.generator(os_), dims)
        values.append(float(vbar @ vbar))
    x = np.asarray(values)
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    mean = float(outlier.limit(dims.ratios))
    assert abs(x.mean() - mean) <= z * x.std() / math.sqrt(x.size)
    var = float(outlier.relative_variance(dims)) * mean**2
    se_var = math.sqrt(np.var((x - x.mean()) ** 2) / x.size)
    assert abs(x.var() - var) <= z * se_var


def test_second_order_term_against_samples():
    """The mean of ``s_1(MHA)^2 - n |vbar|^2`` over draws is the constant c of theory §4.1
    (independent and tied), within its interval."""
    for sharing, beta in (("none", 1.0), ("tied", 0.8)):
        dims = Dims(n=256, h=4, dK=32, dV=32, dO=256, sharing=sharing, beta=beta)
        rest = [_common(dims, (3, i))[1] for i in range(24)]
        half = stats.t.ppf(0.5 + LEVEL / 2, len(rest) - 1) * np.std(rest, ddof=1) / math.sqrt(24)
        assert abs(np.mean(rest) - outlier.second_order(dims.ratios)) <= half


@pytest.mark.parametrize("dims", [
    Dims(n=512, h=12, dK=64, dV=64, dO=768, d=768),  # bert-base
    Dims(n=256, h=8, dK=32, dV=32, dO=256, sharing="tied"),
    Dims(n=256, h=8, dK=32, dV=32, dO=384, sharing="mqa"),
], ids=["bert-base", "tied", "mqa"])
def test_outlier_limit_agrees_with_samples(dims):
    """``s_1(MHA)^2 / n`` over 10 draws (the weights of ``freege validate``) contains the
    finite-size mean ``gO + c / n`` in its interval, and the limit gO lies within the
    interval widened by c/n."""
    values = [sampled.sample(dims, seed=(0, i)) for i in range(10)]
    r = sampled.compare(values, outlier.summary(case_for(dims), dims), LEVEL)
    assert r["agree"]
    assert abs(r["mean"] - r["limit"]) <= r["ci95"] + outlier.second_order(dims.ratios) / dims.n
    assert r["finite_n_mean"] == pytest.approx(r["limit"] + outlier.second_order(dims.ratios)
                                               / dims.n)


@pytest.mark.parametrize("dims", [
    Dims(n=64, h=4, dK=8, dV=8, dO=48),  # W^O held whole
    Dims(n=64, h=4, dK=8, dV=40, dO=48, sharing="gqa", h_kv=2),  # W^O in row blocks
    Dims(n=64, h=4, dK=8, dV=8, dO=48, sharing="tied", beta=0.8),
], ids=["held", "blocks", "tied"])
def test_draw_outlier_is_the_replayed_one(dims):
    """The outlier a draw takes from its own ``Z W^O`` (the rank-one term never formed)
    is :func:`sampled.sample` (the weights replayed, ``MHA`` formed whole) for the same
    seed."""
    for i in range(2):
        got = draw(dims, seed=(5, i)).outlier
        assert got == pytest.approx(sampled.sample(dims, seed=(5, i)), rel=1e-10)


def test_summary_only_for_mha_and_the_limit_is_go():
    ratios = Ratios(beta=1, h=4, gK=1, gV=1, gO=1.5)
    assert outlier.summary("attention", ratios) is None
    top = outlier.summary("mha", ratios)
    assert top["limit"] == 1.5 and "sd" not in top and top["second_order"] > 0
    assert outlier.text(None) == "" and "1.5" in outlier.text(top)
    tied = Ratios(beta=1, h=4, gK=1, gV=1, gO=1.5, sharing="tied")
    assert outlier.second_order(tied) > outlier.second_order(ratios)
    mqa = Dims(n=64, h=4, dK=8, dV=8, dO=64, sharing="mqa")
    none = Dims(n=64, h=4, dK=8, dV=8, dO=64)
    assert outlier.relative_variance(mqa) > outlier.relative_variance(none)
    assert outlier.group_sizes(mqa) == [4] and outlier.group_sizes(none) == [1] * 4


def test_top_singular_value_both_routes():
    """Power iteration (large gap) and the dense fallback (no gap) give the largest
    singular value of numpy's SVD."""
    rng = np.random.default_rng(0)
    m = rng.standard_normal((30, 20)) + 10
    assert top_singular_value(np, m) == pytest.approx(np.linalg.norm(m, 2), rel=1e-9)
    shift = rng.standard_normal(20)
    shifted = np.linalg.norm(m + shift, 2)
    assert top_singular_value(np, m, shift=shift) == pytest.approx(shifted, rel=1e-9)
    assert top_singular_value(np, m, shift=shift, max_iter=1) == pytest.approx(
        shifted, rel=1e-12)
    flat = np.eye(12)[:, :8]
    assert top_singular_value(np, flat, max_iter=1) == pytest.approx(1.0)
