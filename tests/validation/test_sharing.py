"""Softmax vs GE convergence and the sharing claims of theory §4, on sampled spectra.

Statistics are means over independent draws, compared with Student-t / Welch intervals
at 99.9% (so a correct sampler fails a fixed-seed comparison with probability ~1e-3).
"""

import math

import numpy as np
from scipy import stats

from freege.params import Dims
from freege.validation.sampling import metrics
from freege.validation.sampling.limits import limiting_moments
from freege.validation.sampling.sample import draw

DRAWS = 6


def _mean_se(values):
    v = np.asarray(values)
    return v.mean(), v.std(ddof=1) / math.sqrt(v.size)


def _t(level: float = 0.999, dof: int = DRAWS - 1) -> float:
    return float(stats.t.ppf(0.5 + level / 2, dof))


def test_softmax_ge_distance_shrinks_as_n_grows():
    """Relative W1 and KS between the softmax and GE spectra fall from n = 64 to n = 192
    at fixed ratios (h = 4, gK = gV = gO = 1): the drop exceeds its one-sided 99.9%
    Welch bound."""
    stats_by_n = {}
    for n in (64, 192):
        dims = Dims(n=n, h=4, dK=n // 4, dV=n // 4, dO=n)
        m1 = limiting_moments("mha", dims)[0]
        draws = [draw(dims, seed=(n, s)) for s in range(DRAWS)]
        stats_by_n[n] = {
            "w1": _mean_se([metrics.rel_w1(d.softmax, d.ge, m1) for d in draws]),
            "ks": _mean_se([metrics.ks(d.softmax, d.ge) for d in draws]),
        }
    for key in ("w1", "ks"):
        (small_m, small_se), (big_m, big_se) = stats_by_n[64][key], stats_by_n[192][key]
        se = math.sqrt(small_se**2 + big_se**2)
        assert small_m - big_m > _t(level=0.998, dof=2 * DRAWS - 2) * se


def _ks_to_reference(sharing: str, h_kv: int | None = None) -> np.ndarray:
    ref = Dims(n=128, h=4, dK=32, dV=32, dO=128)
    other = Dims(n=128, h=4, dK=32, dV=32, dO=128, sharing=sharing, h_kv=h_kv)
    return np.array([metrics.ks(draw(ref, seed=(1, s)).softmax,
                                draw(other, seed=(2, s)).softmax) for s in range(DRAWS)])


def test_across_head_sharing_keeps_the_law_and_tying_changes_it():
    """KS distance of an independent-heads spectrum to a GQA / MQA spectrum is the same,
    within a 99.9% Welch interval, as to another independent-heads spectrum; to a tied
    spectrum it is far larger (theory §4: across-head sharing leaves the law unchanged,
    within-head tying changes it)."""
    base = _ks_to_reference("none")
    for sharing, h_kv in (("gqa", 2), ("mqa", 1)):
        shared = _ks_to_reference(sharing, h_kv)
        se = math.sqrt(base.var(ddof=1) / DRAWS + shared.var(ddof=1) / DRAWS)
        assert abs(shared.mean() - base.mean()) <= _t(dof=2 * DRAWS - 2) * se
    tied = _ks_to_reference("tied")
    se = math.sqrt(base.var(ddof=1) / DRAWS + tied.var(ddof=1) / DRAWS)
    assert tied.mean() - base.mean() > _t(dof=2 * DRAWS - 2) * se
