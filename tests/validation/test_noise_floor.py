"""The noise floor ``freege validate`` prints beside relative W1 and KS: the same metrics
between the Gaussian-equivalent spectra of independent draws (theory §6.1)."""

import numpy as np
import pytest

from freege.params import Dims
from freege.validation.runner import DEFINITIONS, noise_floor, validate
from freege.validation.sampling import metrics


def test_disjoint_pairs_of_draws():
    rng = np.random.default_rng(3)
    ge = [rng.exponential(size=50) for _ in range(5)]  # the fifth has no partner
    floor = noise_floor(ge, 2.0, 1e-9)
    w1 = [metrics.rel_w1(ge[0], ge[1], 2.0), metrics.rel_w1(ge[2], ge[3], 2.0)]
    ks = [metrics.ks(ge[0], ge[1], 1e-9), metrics.ks(ge[2], ge[3], 1e-9)]
    assert floor["pairs"] == 2
    assert (floor["rel_w1"]["mean"], floor["rel_w1"]["ci95"]) == metrics.mean_ci(w1)
    assert (floor["ks"]["mean"], floor["ks"]["ci95"]) == metrics.mean_ci(ks)
    one = noise_floor(ge[:3], 2.0, 1e-9)
    assert one["pairs"] == 1 and one["rel_w1"] == {"mean": w1[0], "ci95": None}
    with pytest.raises(ValueError, match="at least 2 draws"):
        noise_floor(ge[:1], 2.0, 1e-9)


def test_validate_reports_the_floor_of_its_own_ge_draws():
    run = validate(Dims(n=40, h=2, dK=8, dV=8, dO=32), draws=2, backend="numpy")
    floor = run.summary()["noise_floor"]
    assert floor["rel_w1"]["mean"] == metrics.rel_w1(run.draws[0].ge, run.draws[1].ge,
                                                     run.limiting_mean)
    assert floor["ks"]["mean"] == metrics.ks(run.draws[0].ge, run.draws[1].ge,
                                             metrics.zero_tolerance("float64"))
    assert set(DEFINITIONS) == {"rel_w1", "ks", "noise_floor"}
