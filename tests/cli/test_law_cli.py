"""``freege law``: law options, bad input (one line, exit 2), JSON shape, --dps digits."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from freege.params import Dims, Ratios
from tests.cli.helpers import bad, result_json, run_cli

RATIOS = ["--beta", "1", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"]
#: the same law from dimensions: gK = gV = 8 * 512 / 2048 = 2, gO = 4096 / 2048 = 2
DIMS = ["--beta", "1", "--h", "8", "--n", "2048", "--dk", "512", "--dv", "512", "--do", "4096"]




@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["--beta", "0", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
        (["--beta", "-1", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
        (["--beta", "inf", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
        (["--beta", "nan", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
        (["--beta", "x", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
        (["--beta", "1", "--h", "0", "--gK", "2", "--gV", "2", "--gO", "2"], "--h"),
        (["--beta", "1", "--h", "2.5", "--gK", "2", "--gV", "2", "--gO", "2"], "--h"),
        (["--beta", "1", "--h", "8", "--gK", "0", "--gV", "2", "--gO", "2"], "--gK"),
        (["--beta", "1", "--h", "8", "--gK", "2", "--gV", "-2", "--gO", "2"], "--gV"),
        (["--beta", "1", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "0"], "--gO"),
        (["--beta", "1", "--h", "8", "--n", "0", "--dk", "1", "--dv", "1", "--do", "1"], "--n"),
        (["--beta", "1", "--h", "8", "--n", "64", "--dk", "0", "--dv", "1", "--do", "1"], "--dk"),
        (["--beta", "1", "--h", "8", "--n", "64", "--dk", "8", "--dv", "1.5", "--do", "1"],
         "--dv"),
        ([*RATIOS, "--sharing", "gqa", "--h-kv", "9"], "--h-kv"),
        ([*RATIOS, "--sharing", "gqa", "--h-kv", "0"], "--h-kv"),
        ([*DIMS, "--sharing", "gqa", "--h-kv", "9"], "--h-kv"),
        ([*DIMS, "--sharing", "gqa", "--h-kv", "0"], "--h-kv"),
        (["--beta", "1", "--h", "8", "--gK", "2", "--gV", "3", "--gO", "2", "--sharing", "tied"],
         "gV"),
        ([*DIMS[:-4], "--dv", "256", "--do", "4096", "--sharing", "tied"], "dV"),
        ([*RATIOS, "--dps", "14"], "dps"),
        ([*RATIOS, "--dps", "many"], "dps"),
        ([*DIMS, "--gK", "3"], "--gK"),
        ([*DIMS, "--gO", "2", "--gV", "1.5"], "--gV"),
        (["--beta", "1", "--h", "8", "--gK", "2", "--gO", "2"], "--gV"),
        (["--beta", "1", "--h", "8", "--n", "64", "--dk", "8", "--do", "64"], "--dv"),
        ([*RATIOS, "--pdf", "zero"], "--pdf"),
        ([*RATIOS, "--plot", "density.jpg"], "--plot"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, names):
    err = bad(capsys, "law", "--case", "mha", *argv)
    assert names in err


def test_bad_case(capsys):
    assert "--case" in bad(capsys, "law", "--case", "mlp", *RATIOS)


def test_tied_case_implies_tied_sharing(capsys):
    """A ``*-tied`` case is the tied law (theory §4): other sharing schemes contradict it."""
    err = bad(capsys, "law", "--case", "mha-tied", *RATIOS, "--sharing", "gqa", "--h-kv", "4")
    assert "--sharing" in err
    code, out, _ = run_cli(capsys, "law", "--case", "mha-tied", *RATIOS, "--format", "json")
    explicit = run_cli(capsys, "law", "--case", "mha", *RATIOS, "--sharing", "tied",
                       "--format", "json")[1]
    assert code == 0 and json.loads(out)["mean"] == json.loads(explicit)["mean"]


def test_no_traceback_in_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "freege", "law", "--case", "mha", "--beta", "-1", "--h", "8",
         "--gK", "2", "--gV", "2", "--gO", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "--beta must be in [0.001, 4]" in proc.stderr


def law_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, "law", "--format", "json", *argv)
    assert code == 0, err
    return result_json(out, "law")


def test_ratios_and_dimensions_agree(capsys):
    """The same law from ratios and from consistent ratio and dimension options."""
    from_ratios = law_json(capsys, "--case", "attention", *RATIOS, "--pdf", "1")
    from_both = law_json(capsys, "--case", "attention", *DIMS, "--gK", "2", "--gO", "2",
                         "--pdf", "1")
    assert from_ratios == from_both


def test_law_spec_exact_ratios():
    import argparse

    from freege.cli.law import law_spec
    from freege.cli.options import add_law_options

    parser = argparse.ArgumentParser()
    add_law_options(parser, ("mha",), default_case="mha")
    spec = law_spec(parser.parse_args(["--beta", "0.1", "--h", "3", "--gK", "0.3",
                                       "--gO", "1", "--sharing", "tied"]))
    assert spec.config == Ratios(beta=Fraction(1, 10), h=3, gK=Fraction(3, 10),
                                 gV=Fraction(3, 10), gO=1, sharing="tied")
    spec = law_spec(parser.parse_args(["--beta", "1", "--h", "4", "--n", "96", "--dk", "8",
                                       "--dv", "8", "--do", "32", "--sharing", "gqa",
                                       "--h-kv", "2"]))
    assert spec.config == Dims(n=96, h=4, dK=8, dV=8, dO=32, sharing="gqa", h_kv=2)
    assert spec.ratios.gK == Fraction(1, 3)


def test_json_shape_consistency_and_plot(capsys, tmp_path):
    target = tmp_path / "density.png"
    data = law_json(capsys, "--case", "mha", "--beta", "1", "--h", "4", "--gK", "0.5",
                    "--gV", "0.5", "--gO", "2", "--pdf", "-1", "0", "1", "100",
                    "--plot", str(target))
    assert set(data) >= {"mean", "m2", "mbar2", "support", "atoms", "pdf"}
    assert data["mbar2"] == pytest.approx(data["m2"] / data["mean"] ** 2, rel=1e-15)
    assert len(data["pdf"]) == 4
    (lo, hi), = data["support"]
    assert 0 < lo < 1 < hi < 100
    assert data["pdf"][0] == data["pdf"][1] == data["pdf"][3] == 0  # outside the support
    assert data["pdf"][2] > 0
    # rank deficiency: gV = 0.5 < 1 leaves an atom at 0 (its mass is the numeric layer's)
    assert [a["at"] for a in data["atoms"]] == [0]
    assert 0 < data["atoms"][0]["mass"] < 1
    assert target.read_bytes().startswith(b"\x89PNG")


def test_dps_digits_and_agreement_with_float64(capsys):
    argv = ["--case", "attention", "--normalized", *RATIOS, "--pdf", "0.5", "2"]
    f64 = law_json(capsys, *argv)
    mp = law_json(capsys, *argv, "--dps", "25")
    for key in ("mean", "m2", "mbar2"):
        text = mp[key]
        assert isinstance(text, str)
        assert len(text.replace("-", "").replace(".", "").lstrip("0")) == 25, text
        assert float(text) == pytest.approx(f64[key], rel=1e-13, abs=1e-13)
    for text, value in zip(mp["pdf"], f64["pdf"], strict=True):
        assert float(text) == pytest.approx(value, rel=1e-12)
    assert float(mp["support"][0][1]) == pytest.approx(f64["support"][0][1], rel=1e-13)
    # all 25 printed digits are correct: a run at 40 digits rounds to the same strings
    more = law_json(capsys, *argv, "--dps", "40")
    for key in ("m2", "mbar2"):
        with mpmath.workdps(60):
            assert mpmath.nstr(mpmath.mpf(more[key]), 25, strip_zeros=False) == mp[key]
    with mpmath.workdps(60):
        for a, b in zip(more["pdf"], mp["pdf"], strict=True):
            assert mpmath.nstr(mpmath.mpf(a), 25, strip_zeros=False) == b


def test_outlier_at_the_requested_digits(capsys):
    """``--dps 40 --format json``: the outlier block (theory §4.1) is 40-digit strings like
    the other values, agreeing with float64 and with a 60-digit run rounded to 40 digits;
    its sd and finite-n mean agree with the exact relative variance and the limit to all
    40 digits."""
    from freege.numeric import outlier

    argv = ["--case", "mha", "--beta", "1", "--h", "8", "--n", "512", "--dk", "64", "--dv",
            "64", "--do", "768"]
    f64 = law_json(capsys, *argv)["outlier"]
    mp = law_json(capsys, *argv, "--dps", "40")["outlier"]
    more = law_json(capsys, *argv, "--dps", "60")["outlier"]
    assert set(mp) == set(f64) == {"quantity", "limit", "second_order", "finite_n_mean", "sd"}
    with mpmath.workdps(80):
        for key in ("limit", "second_order", "finite_n_mean", "sd"):
            text = mp[key]
            assert isinstance(text, str) and len(text.replace(".", "").lstrip("0")) == 40, text
            assert float(text) == pytest.approx(f64[key], rel=1e-14)
            assert mpmath.nstr(mpmath.mpf(more[key]), 40, strip_zeros=False) == text
        dims = Dims(n=512, h=8, dK=64, dV=64, dO=768, beta=1)
        variance = outlier.relative_variance(dims)
        limit, sd = mpmath.mpf(more["limit"]), mpmath.mpf(more["sd"])
        assert limit == mpmath.mpf(3) / 2
        assert abs((sd / limit) ** 2 / (mpmath.mpf(variance.numerator) / variance.denominator)
                   - 1) < mpmath.mpf(10) ** -55
        mean = mpmath.mpf(more["finite_n_mean"])
        assert abs(mean - limit - mpmath.mpf(more["second_order"]) / 512) < mpmath.mpf(10) ** -55
    code, out, _ = run_cli(capsys, "law", *argv, "--dps", "40")
    assert code == 0 and f"c = {mp['second_order']}" in out and f"sd {mp['sd']}" in out


def test_text_output_carries_the_json_numbers(capsys):
    argv = ["--case", "attention", *RATIOS, "--pdf", "3"]
    data = law_json(capsys, *argv)
    code, out, _ = run_cli(capsys, "law", *argv)
    assert code == 0
    lines = dict(line.split(None, 1) for line in out.splitlines()[1:5])
    for key in ("mean", "m2", "mbar2"):
        assert float(lines[key]) == data[key]
    assert out.splitlines()[-1].split() == [repr(3.0), repr(data["pdf"][0])]


def test_svg_density_plot_with_atom(tmp_path):
    from freege import plotting

    target = tmp_path / "d.svg"
    xs = [0.5 + k / 10 for k in range(20)]
    plotting.density(str(target), xs, [1 / x for x in xs], {0.0: 0.25}, "test")
    text = target.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text


def test_plot_without_matplotlib_is_one_line(capsys, monkeypatch):
    """matplotlib is the optional extra ``plot``: without it ``--plot`` fails up front
    with one line naming the extra (simulated by blocking the import)."""
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    err = bad(capsys, "law", "--case", "mha", *RATIOS, "--plot", "density.png")
    assert "freege[plot]" in err
