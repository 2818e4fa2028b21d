"""theory §6.3 setups: configurations (widths, budgets, parameter counts) and the internal
consistency of their theory outputs."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from freege.params import Dims
from freege.validation.paper import setups as experiments


def spec_count(d: int, h: int, h_kv: int, dk, dv, d_out: int) -> Fraction:
    """theory §5 projection count, typed from docs/theory.md independently of Dims.n_params:
    ``d h dK`` (Q) + ``d h_kv (dK + dV)`` (K/V) + ``h dV dO`` (O)."""
    return d * h * dk + d * h_kv * (dk + dv) + h * dv * d_out


def test_temperature_allocations_have_equal_parameter_counts():
    dims = experiments.temperature_dims(1)
    assert dims["64_192"].n_params == dims["128_128"].n_params
    assert dims["64_192"].n_params == spec_count(12288, 96, 96, 64, 192, 12288)
    assert dims["128_128"].ratios.gK == Fraction(3, 2)
    assert dims["64_192"].ratios.gV == Fraction(9, 4)


@pytest.mark.parametrize("h", [16, 24, 64, 100, 120])
def test_budget_width_spends_six_n_squared(h):
    n, d_out = 4096, 2048
    width = experiments.budget_width(h, n, d_out)
    assert h * width * (3 * n + d_out) == 6 * n * n
    assert spec_count(n, h, h, width, width, d_out) == 6 * n * n
    ratios = experiments.width_ratios(n, h, width, d_out, 1)
    assert ratios.gK == ratios.gV == h * width / n and ratios.gO == Fraction(1, 2)


@pytest.mark.parametrize("h_kv", [64, 32, 8, 1])
def test_arrival_width_spends_the_saved_kv_weights(h_kv):
    dims = experiments.arrival_dims(h_kv)
    assert (dims.n, dims.d, dims.h, dims.dK, dims.dV, dims.dO) == (4096, 4096, 64, 64, 64, 8192)
    assert dims.h_kv == h_kv
    reference = spec_count(4096, 64, 64, 64, 64, 8192)
    width = experiments.width_for_budget(reference, n=4096, d=4096, h=64, dO=8192,
                                         sharing=dims.sharing, h_kv=h_kv)
    assert spec_count(4096, 64, h_kv, width, width, 8192) == reference
    assert (width == 64) == (h_kv == 64) and width >= 64


def test_sharing_configurations():
    for h in experiments.SHARING_HEADS:
        dims = experiments.sharing_dims(h)
        assert dims["gqa"].h_kv == h // 2 and dims["tied"].sharing == "tied"
        assert h * dims["gqa"].dK == 2048 and dims["gqa"].dK == dims["gqa"].dV
        assert dims["gqa"].ratios.gK == dims["tied"].ratios.gK == Fraction(1, 2)
    with pytest.raises(ValueError, match="even divisor"):
        experiments.sharing_dims(3)


def test_curve_and_fixed_output_configurations():
    assert experiments.curve_dims(64) == Dims(n=4096, h=64, dK=64, dV=64, dO=8192)
    assert experiments.fixed_output_dims(16).ratios.gO == Fraction(1, 2)
    assert experiments.TEMPERATURE_BETAS[0] == Fraction(1, 4)
    assert experiments.TEMPERATURE_BETAS[-1] == Fraction(3, 2)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"lam": 0}, "lam"), ({"lam": -1}, "lam"), ({"sigma2": -0.1}, "sigma2"),
     ({"level": 1}, "level"), ({"level": 0}, "level"), ({"lam": float("nan")}, "lam")],
)
def test_readout_settings_reject_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        experiments.Readout(**kwargs)


# -- theory outputs (their internal consistency is tested through the CLI in
# tests/cli/test_reproduce_cli.py) ---------------------------------------------------------


def test_dps_arithmetic_keeps_the_precision():
    """Differences and ratios of mpmath results are taken at the setup's precision (at
    the default 15 digits the difference of two O(1) errors would lose half of them)."""
    data = experiments.sharing(heads=[2], dps=30)
    (row,) = data["rows"]
    assert isinstance(row["error_gqa"], mpmath.mpf)
    with mpmath.workdps(30):
        assert row["difference"] == row["error_gqa"] - row["error_tied"]
        assert row["difference"] != 0


def test_paper_budget_path_has_peaks_near_hdv_n_and_do_n():
    """theory §6.3: with dK = dV = 64 fixed and dO solved from h dK (3n + dO) = 6 n^2, the
    limiting error has local maxima at h dV = n (h = 64) and dO = n (h = 96)."""
    heads = [60, 62, 63, 64, 65, 66, 68, 92, 94, 95, 96, 97, 98, 100]
    rows = experiments.budget(heads=heads)["rows"]
    err = {row["h"]: row["error"] for row in rows}
    for h in (64, 96):
        assert err[h - 1] < err[h] > err[h + 1]
        assert err[h - 4] < err[h - 2] < err[h] > err[h + 2] > err[h + 4]
    assert rows[3]["dO"] == 3 * 4096 and rows[10]["dO"] == 4096
