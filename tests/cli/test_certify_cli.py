"""``--certify`` in ``freege law`` and ``freege readout dof|ridge``: JSON shape, text,
one-line failures (theory §4, §5, §7)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tests.cli.helpers import bad, run_cli

certify = pytest.importorskip("freege.numeric.certify")
pytest.importorskip("flint")

LAW = ("--case", "mha", "--beta", "1", "--h", "4", "--gK", "0.5", "--gV", "0.5", "--gO", "0.5")


def _is_ball(entry: object) -> bool:
    return (isinstance(entry, dict) and set(entry) == {"mid", "rad"}
            and all(isinstance(v, str) for v in entry.values())
            and Fraction(entry["rad"]) >= 0 and Fraction(entry["mid"]) is not None)


def test_law_certify_json_shape(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(capsys, "law", *LAW, "--normalized", "--certify", "--format",
                             "json", "--pdf", "-1", "0", "0.5", "3", "20")
    assert code == 0, err
    data = json.loads(out)
    assert data["x"] == ["-1", "0", "0.5", "3", "20"]
    pdf = data["pdf"]
    assert len(pdf) == 5
    assert all(_is_ball(pdf[k]) for k in (0, 2, 3, 4))
    assert pdf[1]["certified"] is False and isinstance(pdf[1]["reason"], str)
    assert Fraction(pdf[0]["mid"]) == 0 == Fraction(pdf[4]["mid"])  # outside the support
    lo, hi = data["support"][0]
    assert _is_ball(lo) and _is_ball(hi) and Fraction(hi["mid"]) > 1
    assert data["atoms"][0]["at"] == "0" and Fraction(data["atoms"][0]["mass"]["mid"]) == \
        Fraction(1, 2)


def test_law_certify_text_prints_balls(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(capsys, "law", *LAW, "--certify", "--pdf", "1", "--dps", "30")
    assert code == 0, err
    line = out.strip().splitlines()[-1]
    x, mid, sign, rad = line.split()
    assert (x, sign) == ("1", "+/-") and Fraction(rad) < Fraction(1, 10**30) * Fraction(mid)


def test_readout_certify_json(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(capsys, "readout", "ridge", *LAW, "--lam", "1e-2", "--sigma2",
                             "0.1", "--certify", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert _is_ball(data["w"]) and _is_ball(data["error"])
    assert 0 < Fraction(data["w"]["mid"]) < Fraction(1, 2)  # w < 1 - atom
    code, out, err = run_cli(capsys, "readout", "dof", *LAW, "--certify", "--format", "json")
    assert code == 0, err
    assert _is_ball(json.loads(out)["w"])


def test_failed_readout_certificate_is_one_line(capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certify, "certified_dof",
                        lambda *a, **k: certify.Uncertified("interval Newton did not contract"))
    err = bad(capsys, "readout", "dof", *LAW, "--certify")
    assert "certificate failed" in err and "interval Newton" in err


def test_certify_without_python_flint_is_one_line(capsys: pytest.CaptureFixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certify, "flint", None)
    for argv in (("law", *LAW, "--certify"), ("readout", "ridge", *LAW, "--certify")):
        err = bad(capsys, *argv)
        assert "needs python-flint: pip install 'freege[certify]'" in err


@pytest.mark.slow
def test_edges_have_30_digits_by_default_and_the_near_edge_point_a_ball(
        capsys: pytest.CaptureFixture) -> None:
    """Issue 16's reproducers: mha at beta 4 printed 7-digit edges; value-tied at a point
    4e-5 from its lower edge printed "not certified"."""
    code, out, err = run_cli(capsys, "law", "--case", "mha", "--beta", "4", "--h", "1000",
                             "--gK", "1000", "--gV", "0.001", "--gO", "1000", "--certify",
                             "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    edges = [edge for pair in data["support"] for edge in pair]
    assert edges and all(_is_ball(e) for e in edges)
    assert all(Fraction(e["rad"]) <= certify.EDGE_RTOL * Fraction(e["mid"]) for e in edges)
    assert data["prec_bits"] > certify.DEFAULT_PREC  # the precision was raised for them
    code, out, err = run_cli(capsys, "law", "--case", "value-tied", "--beta", "1", "--h", "4",
                             "--gK", "0.5", "--gO", "1", "--pdf",
                             "0.421556798371955186978889996702", "--certify")
    assert code == 0, err
    x, mid, sign, rad = out.strip().splitlines()[-1].split()
    assert sign == "+/-" and 0 < Fraction(rad) < Fraction(1, 10**30) * Fraction(mid)


def test_certify_with_plot_draws_the_density(capsys: pytest.CaptureFixture,
                                             tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "density.png"
    code, out, err = run_cli(capsys, "law", *LAW, "--certify", "--plot", str(target))
    assert code == 0, err
    assert target.stat().st_size > 0 and "support" in out


def test_readout_certify_dps_sets_the_digits(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run_cli(capsys, "readout", "dof", *LAW, "--lam", "0.5", "--certify",
                             "--dps", "60", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    w = data["w"]
    assert Fraction(w["rad"]) <= Fraction(1, 10**60) * Fraction(w["mid"])
    assert data["prec_bits"] >= 60 * 3
