"""The noise floor ``freege validate`` prints beside relative W1 and KS: per draw, the same
metrics between the GE spectrum and a second GE with the same weights and fresh noise
(paired as softmax vs GE are, theory §6.1)."""

import numpy as np
import pytest

from freege.params import Dims
from freege.validation.runner import DEFINITIONS, floor_values, noise_floor, validate
from freege.validation.sampling import metrics
from freege.validation.sampling.sample import draw


def test_floor_model_shares_the_weights_and_not_the_noise():
    dims = Dims(n=48, h=2, dK=8, dV=8, dO=32)
    plain, with_floor = draw(dims, seed=5), draw(dims, seed=5, floor=True)
    # the floor is a third model: the softmax and GE of the seed are unchanged
    assert np.array_equal(plain.softmax, with_floor.softmax)
    assert np.array_equal(plain.ge, with_floor.ge)
    assert plain.ge_floor is None
    assert not np.allclose(with_floor.ge_floor, with_floor.ge)


def test_floor_values_and_summary():
    dims = Dims(n=40, h=2, dK=8, dV=8, dO=32)
    draws = [draw(dims, seed=(0, i), floor=True) for i in range(3)]
    values = floor_values(draws, 2.0, 1e-9)
    assert values["rel_w1"] == [metrics.rel_w1(d.ge, d.ge_floor, 2.0) for d in draws]
    assert values["ks"] == [metrics.ks(d.ge, d.ge_floor, 1e-9) for d in draws]
    floor = noise_floor(values)
    assert floor["draws"] == 3
    assert (floor["rel_w1"]["mean"], floor["rel_w1"]["ci95"]) == \
        metrics.mean_ci(values["rel_w1"])
    with pytest.raises(ValueError, match="floor=True"):
        floor_values([draw(dims, seed=0)], 2.0, 1e-9)


def test_validate_reports_the_floor_of_its_own_draws_and_a_verdict():
    run = validate(Dims(n=40, h=2, dK=8, dV=8, dO=32), draws=3, backend="numpy")
    summary = run.summary()
    tol = metrics.zero_tolerance("float64")
    assert summary["noise_floor"]["ks"]["mean"] == pytest.approx(
        np.mean([metrics.ks(d.ge, d.ge_floor, tol) for d in run.draws]))
    v = summary["verdict"]
    assert v["decision"] in ("consistent", "above_floor", "undecided")
    assert v["line"].startswith("verdict: ")
    assert {c["metric"] for c in v["comparisons"]} == {"relative W1", "KS"}
    assert {"rel_w1", "ks", "noise_floor", "verdict", "moment_error"} <= set(DEFINITIONS)
