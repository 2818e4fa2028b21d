"""The sweep report's statistics (:mod:`freege.validation.sweep.report`): means with
their intervals and flags, and log-log fits."""

import math

import numpy as np
import pytest

from freege.validation.sampling import metrics
from freege.validation.sweep import report as sweep_report


def test_mean_ci_matches_metrics():
    values = [0.3, 0.1, 0.25, 0.4]
    got = sweep_report.mean_ci(values)
    assert (got["mean"], got["ci95"]) == pytest.approx(metrics.mean_ci(values), rel=1e-12)
    assert sweep_report.mean_ci([0.5]) == {"mean": 0.5, "ci95": None, "flag": "one_draw"}
    assert sweep_report.mean_ci([]) == {"mean": None, "ci95": None, "flag": None}
    assert sweep_report.mean_ci([0.25] * 3) == {"mean": 0.25, "ci95": 0.0, "flag": "degenerate"}
    overflow = {"mean": None, "ci95": None, "flag": "overflow"}
    assert sweep_report.mean_ci([0.25, math.inf]) == overflow  # an overflowed value
    assert sweep_report.mean_ci([1e308, 1e308]) == overflow  # an overflowing sum
    assert sweep_report.mean_ci([-1e308, 1e308]) == overflow  # an overflowing spread


def test_loglog_fit_recovers_an_exponent():
    n = np.array([128, 256, 512, 1024, 2048])
    exact = sweep_report.loglog_fit(n, 3.0 * n**-0.5)
    assert exact["exponent"] == pytest.approx(-0.5, abs=1e-12)
    assert exact["prefactor"] == pytest.approx(3.0, rel=1e-10) and exact["ci95"] < 1e-10
    # noisy data: the 95% CI covers the true exponent in about 95% of seeded trials
    rng = np.random.default_rng(1)
    trials = 400
    covered = sum(
        abs(f["exponent"] + 0.5) <= f["ci95"]
        for f in (sweep_report.loglog_fit(n, 3.0 * n**-0.5 * np.exp(0.1 * rng.standard_normal(
            n.size))) for _ in range(trials)))
    # binomial(400, 0.95): 3 standard deviations is 13 trials
    assert abs(covered / trials - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / trials)
