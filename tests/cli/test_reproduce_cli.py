"""``freege reproduce``: JSON shapes, internal consistency, text = JSON, bad input.

Each setup runs on a small grid (the law objects are memoised per configuration in
:mod:`freege.validation.paper.setups`, so the text run after a JSON run reuses the same laws)."""

from __future__ import annotations

import json

import pytest

from freege.validation.paper import setups as experiments
from tests.cli.helpers import bad, result_json, run_cli


@pytest.fixture(autouse=True)
def compute_once(monkeypatch):
    """Both output formats of a test come from one computation: the setups are memoised
    on their arguments (the progress callback aside) for the duration of a test."""
    for name, setup in list(experiments.SETUPS.items()):
        memo: dict[str, dict] = {}

        def once(setup=setup, memo=memo, **kwargs):
            key = repr(sorted((k, v) for k, v in kwargs.items() if k != "progress"))
            if key not in memo:
                memo[key] = setup(**kwargs)
            return memo[key]

        monkeypatch.setitem(experiments.SETUPS, name, once)


def reproduce(capsys, *argv: str) -> tuple[dict, str]:
    """JSON and text output of one setup."""
    code, out, err = run_cli(capsys, "reproduce", *argv, "--format", "json", "--quiet")
    assert code == 0, err
    data = result_json(out, "reproduce")
    code, text, err = run_cli(capsys, "reproduce", *argv, "--quiet")
    assert code == 0, err
    return data, text


def table_rows(text: str, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the text table whose header is ``columns``."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if tuple(line.split()) == columns)
    rows = []
    for line in lines[start + 1:]:
        cells = line.split()
        if len(cells) != len(columns) or not cells[0][0].isdigit():
            break
        rows.append(dict(zip(columns, cells, strict=True)))
    return rows


def same_numbers(text: str, rows: list[dict], columns: tuple[str, ...]) -> None:
    parsed = table_rows(text, columns)
    assert len(parsed) == len(rows)
    for got, want in zip(parsed, rows, strict=True):
        for key in columns:
            assert float(got[key]) == float(want[key]), key


def test_temperature_ratio_crossover_and_text(capsys):
    data, text = reproduce(capsys, "temperature", "--betas", "0.5", "0.6")
    assert set(data) == {"rows", "crossover_beta"}
    columns = ("beta", "error_64_192", "error_128_128", "ratio")
    for row in data["rows"]:
        assert set(row) == set(columns)
        assert row["ratio"] == row["error_64_192"] / row["error_128_128"]
    same_numbers(text, data["rows"], columns)
    first, last = (row["ratio"] - 1 for row in data["rows"])
    cross = data["crossover_beta"]
    if first * last > 0:
        assert cross is None
        return
    assert 0.5 <= cross <= 0.6
    assert f"crossover_beta  {cross!r}" in text
    dims = experiments.temperature_dims(cross)
    settings = experiments.Readout()
    ratio = (experiments.error(dims["64_192"], settings, None)
             / experiments.error(dims["128_128"], settings, None))
    assert ratio == pytest.approx(1, abs=1e-12)


@pytest.mark.slow
def test_sharing_difference_text_and_dps_digits(capsys):
    """The float64 table (its columns, difference and text) and the dps-20 one against it
    (one float64 run for both checks: the table costs seconds)."""
    data, text = reproduce(capsys, "sharing", "--heads", "2")
    (row,) = data["rows"]
    assert set(row) == {"h", "dK", "error_gqa", "error_tied", "difference"}
    assert (row["h"], row["dK"]) == (2, 1024)
    assert row["difference"] == row["error_gqa"] - row["error_tied"]
    same_numbers(text, data["rows"], ("h", "dK", "error_gqa", "error_tied", "difference"))
    code, out, err = run_cli(capsys, "reproduce", "sharing", "--heads", "2", "--dps", "20",
                             "--format", "json", "--quiet")
    assert code == 0, err
    (dps_row,) = json.loads(out)["rows"]
    for key in ("error_gqa", "error_tied", "difference"):
        digits = dps_row[key].lstrip("-").replace(".", "").lstrip("0")
        assert len(digits) == 20, dps_row[key]
        assert float(dps_row[key]) == pytest.approx(row[key], rel=1e-12)
    assert dps_row["h"] == 2  # integers stay integers


def test_arrival_fixed_widths_and_budget(capsys):
    data, text = reproduce(capsys, "arrival", "--h-kv", "64", "2")
    columns = ("h_kv", "t_fixed_widths", "t_fixed_budget", "width_fixed_budget")
    full, shared = data["rows"]
    assert set(full) == set(columns) and (full["h_kv"], shared["h_kv"]) == (64, 2)
    # theory §4 (sharing leaves the law unchanged at fixed widths), computed per row
    assert shared["t_fixed_widths"] == pytest.approx(full["t_fixed_widths"], rel=1e-12)
    assert full["width_fixed_budget"] == 64
    assert full["t_fixed_budget"] == pytest.approx(full["t_fixed_widths"], rel=1e-12)
    assert shared["width_fixed_budget"] > 64
    same_numbers(text, data["rows"], columns)


def test_headcount_and_budget_shapes(capsys):
    data, text = reproduce(capsys, "headcount", "--curve-heads", "64", "--times", "0.5", "2",
                           "--heads", "64")
    assert [(r["h"], r["t"]) for r in data["curves"]] == [(64, 0.5), (64, 2.0)]
    losses = [r["loss"] for r in data["curves"]]
    assert 1 > losses[0] > losses[1] > 0  # L(t) decreases from L(0) = 1
    (row,) = data["rows"]
    assert (row["h"], row["dK"], row["dV"], row["dO"]) == (64, 64, 64, 2048)
    assert row["n_params"] == experiments.fixed_output_dims(64).n_params
    same_numbers(text, data["curves"], ("h", "dK", "dV", "dO", "t", "loss"))
    same_numbers(text, data["rows"], ("h", "dK", "dV", "dO", "n_params", "error"))
    budget, text = reproduce(capsys, "budget-widths", "--heads", "64")
    (brow,) = budget["rows"]
    assert brow["dK"] == brow["dV"] == pytest.approx(6 * 4096**2 / (64 * (3 * 4096 + 2048)))
    assert brow["n_params"] == budget["n_params"] == 6 * 4096**2
    same_numbers(text, budget["rows"], ("h", "dK", "dV", "dO", "n_params", "error"))
    budget, text = reproduce(capsys, "budget", "--heads", "80")
    (brow,) = budget["rows"]  # the paper's path: dK = dV = 64, dO solved
    assert (brow["dK"], brow["dV"]) == (64, 64)
    assert 80 * 64 * (3 * 4096 + brow["dO"]) == pytest.approx(6 * 4096**2, rel=1e-15)
    assert brow["dO_rounded"] == round(brow["dO"])
    same_numbers(text, budget["rows"], ("h", "dK", "dV", "dO", "dO_rounded", "n_params",
                                        "error"))


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["temperature", "--betas", "0"], "--betas"),
        (["temperature", "--betas", "inf"], "--betas"),
        (["temperature", "--lam", "0"], "--lam"),
        (["temperature", "--lam", "-1e-4"], "--lam"),
        (["sharing", "--sigma2", "-1"], "--sigma2"),
        (["sharing", "--heads", "3"], "even divisor"),
        (["headcount", "--heads", "0"], "--heads"),
        (["headcount", "--curve-heads", "2.5"], "--curve-heads"),
        (["arrival", "--h-kv", "65"], "h_kv"),
        (["arrival", "--h-kv", "0"], "--h-kv"),
        (["arrival", "--level", "1.5"], "--level"),
        (["budget", "--dps", "10"], "dps"),
        (["budget", "--plot", "out.jpg"], "--plot"),
        (["budget", "--heads", "128"], "h must be < 2n/dK"),
    ],
)
def test_bad_input(capsys, argv, name):
    assert name in bad(capsys, "reproduce", *argv)


def test_plot_curves(tmp_path):
    from freege import plotting

    target = tmp_path / "curves.png"
    plotting.curves(str(target), {"a": ([1, 2, 4], [3, 2, 1]), "b": ([1, 2, 4], [1, 2, 3])},
                    "h", "error", "test", logx=True, hline=1.0, vline=2.0)
    assert target.read_bytes().startswith(b"\x89PNG")
