"""``freege readout``: JSON keys, agreement with the numeric layer, --dps, bad input."""

from __future__ import annotations

import pytest

from tests.cli.helpers import bad, result_json, run_cli
from tests.cli.test_law_cli import RATIOS


def readout_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, "readout", *argv, "--format", "json")
    assert code == 0, err
    return result_json(out, "readout")


def test_ridge_and_dof_keys_and_consistency(capsys):
    ridge = readout_json(capsys, "ridge", *RATIOS, "--lam", "0.01", "--sigma2", "0")
    assert set(ridge) == {"lam", "sigma2", "w", "error"}
    dof = readout_json(capsys, "dof", *RATIOS, "--lam", "0.01")
    assert set(dof) == {"lam", "w"} and dof["w"] == ridge["w"]
    assert 0 < dof["w"] < 1
    # theory §5: E = 1 - w/gO + (lam/gO - sigma^2) w'(lam); with sigma^2 = 0 and
    # w' < 0 the error lies below 1 - w/gO
    assert ridge["error"] < 1 - ridge["w"] / 2


def test_loss_and_arrival_agree(capsys):
    arrival = readout_json(capsys, "arrival", *RATIOS, "--level", "0.25")
    assert set(arrival) == {"level", "t"} and arrival["t"] > 0
    loss = readout_json(capsys, "loss", *RATIOS, "--t", str(arrival["t"]))
    assert set(loss) == {"t", "loss"}
    assert loss["t"] == [arrival["t"]]
    assert loss["loss"][0] == pytest.approx(0.25, rel=1e-10)


def test_dof_dps_digits(capsys):
    f64 = readout_json(capsys, "dof", *RATIOS, "--lam", "0.5")
    mp = readout_json(capsys, "dof", *RATIOS, "--lam", "0.5", "--dps", "30")
    assert len(mp["w"].replace(".", "").lstrip("0")) == 30
    assert float(mp["w"]) == pytest.approx(f64["w"], rel=1e-13)
    assert mp["lam"] == "0.500000000000000000000000000000"


def test_text_output(capsys):
    data = readout_json(capsys, "dof", *RATIOS, "--lam", "0.5")
    code, out, _ = run_cli(capsys, "readout", "dof", *RATIOS, "--lam", "0.5")
    assert code == 0
    assert f"w      {data['w']!r}" in out.splitlines()


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["dof", *RATIOS, "--lam", "0"], "--lam"),
        (["ridge", *RATIOS, "--lam", "-0.1"], "--lam"),
        (["ridge", *RATIOS, "--sigma2", "-1"], "--sigma2"),
        (["ridge", "--case", "attention", *RATIOS], "--case"),
        (["loss", *RATIOS, "--t", "-1"], "--t"),
        (["loss", *RATIOS], "--t"),
        (["arrival", *RATIOS, "--level", "1"], "--level"),
        (["arrival", *RATIOS, "--dps", "8"], "dps"),
    ],
)
def test_bad_input(capsys, argv, name):
    assert name in bad(capsys, "readout", *argv)
