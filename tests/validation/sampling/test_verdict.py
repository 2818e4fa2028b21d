"""The verdict of a softmax-vs-GE comparison against its paired noise floor
(:mod:`freege.validation.sampling.verdict`), decided on synthetic per-draw values whose
answer is known by construction."""

import numpy as np
import pytest

from freege.validation.sampling import metrics, verdict


def _pairs(shift: float, draws: int = 20, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Floor values around 0.05 and distances equal to them plus ``shift`` plus noise of
    sd 0.002: the paired difference has mean ``shift`` up to that noise."""
    rng = np.random.default_rng(seed)
    floor = 0.05 + 0.01 * rng.standard_normal(draws)
    return floor + shift + 0.002 * rng.standard_normal(draws), floor


def test_a_gap_far_above_its_interval_is_above_the_floor():
    d, f = _pairs(0.01)  # 5 noise sd per draw, 22 sd for the mean of 20
    c = verdict.compare("KS", d, f)
    mean, half = metrics.mean_ci(d - f)
    assert c.decision == "above_floor"
    assert (c.difference, c.ci95) == pytest.approx((mean, half))
    assert c.difference - c.ci95 > 0
    text = verdict.line([c])
    assert text.startswith("verdict: softmax and GE differ above the noise floor")
    assert "larger n" in text and "--draws" in text and f"{c.difference:+.2g}" in text


def test_no_gap_is_consistent_and_says_what_it_could_have_missed():
    d, f = _pairs(0.0)
    c = verdict.compare("relative W1", d, f)
    assert c.decision == "consistent"
    assert c.difference - c.ci95 <= 0
    text = verdict.line([c])
    assert text.startswith("verdict: GE consistent with softmax at this size")
    assert f"{c.difference + c.ci95:.2g}" in text


def test_the_floor_is_paired_not_pooled():
    """The same gap, 0.004, hidden by the floor's spread (sd 0.01) if the two were
    compared as independent samples, is resolved by the per-draw pairing."""
    d, f = _pairs(0.004)
    pooled = metrics.welch(d, f)
    assert pooled.agree  # unpaired: no difference resolved
    assert verdict.compare("KS", d, f).decision == "above_floor"


def test_one_draw_or_no_spread_is_undecided():
    one = verdict.compare("KS", [0.1], [0.05])
    assert one.decision == "undecided" and one.ci95 is None
    flat = verdict.compare("KS", [0.1, 0.2], [0.05, 0.15])  # differences all 0.05
    assert flat.decision == "undecided"
    assert "--trials 3" in verdict.line([one], more="--trials")


def test_several_metrics():
    d, f = _pairs(0.01)
    above = verdict.compare("KS", d, f)
    d0, f0 = _pairs(0.0, seed=1)
    same = verdict.compare("relative W1", d0, f0)
    flat = verdict.compare("KS", [0.1, 0.2], [0.05, 0.15])
    assert verdict.overall([same, above]) == "above_floor"
    assert verdict.overall([same, flat]) == "consistent"
    assert "KS undecided, no spread" in verdict.line([same, flat])
    assert verdict.overall([flat]) == "undecided"
    assert verdict.overall([same]) == "consistent"


def test_bad_input():
    with pytest.raises(ValueError, match="equal-length"):
        verdict.compare("KS", [0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="finite"):
        verdict.compare("KS", [0.1, np.nan], [0.1, 0.2])
