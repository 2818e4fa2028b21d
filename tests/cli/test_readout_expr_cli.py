"""``freege readout KIND --expr TEXT``: theory §5 readouts of any law of the algebra
(docs/algebra.md) -- Marchenko-Pastur against its closed forms written here, a compound
expression against :mod:`freege.numeric.readout` on ``algebra.parse(text).law()``, and
one-line errors (exit 2) for every bad input."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from freege import algebra
from freege.numeric import readout
from tests.cli.helpers import bad, result_json, run_cli

#: the Marchenko-Pastur ratio of the closed-form checks
RATIO = mpmath.mpf(1) / 2
#: float64 w(lam) and ridge error against a 30-digit closed form: the readouts round a
#: 30-digit value (freege.numeric.readout), so two ulps at most
F64_RTOL = 2 * 2.0**-52
#: float64 L(t) (quadrature against the density, ~1e-15 absolute) against the closed form
LOSS_ATOL = 2e-15
#: float64 arrival time: a root to 2^-50 relative of a loss accurate to LOSS_ATOL
ARRIVAL_RTOL = 1e-14


def readout_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, "readout", *argv, "--format", "json")
    assert code == 0, err
    return result_json(out, "readout")


def mp_dof(lam: mpmath.mpf, y: mpmath.mpf = RATIO) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(w, w')`` of MP_y (mean 1) in closed form. Its Stieltjes transform on the negative
    axis is ``G(-lam) = (lam + 1 - y - s)/(2 y lam)`` with ``s = sqrt((lam + a)(lam + b))``,
    ``a, b = (1 -+ sqrt y)^2`` (the branch with ``G ~ -1/lam`` as ``lam -> inf``), so
    ``w = 1 + lam G(-lam) = (lam + 1 + y - s)/(2y)`` and ``w' = (1 - (lam + 1 + y)/s)/(2y)``
    (``s' = (lam + 1 + y)/s`` since ``a + b = 2(1 + y)``)."""
    a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
    s = mpmath.sqrt((lam + a) * (lam + b))
    return (lam + 1 + y - s) / (2 * y), (1 - (lam + 1 + y) / s) / (2 * y)


def mp_loss(t: mpmath.mpf, y: mpmath.mpf = RATIO) -> mpmath.mpf:
    """``L(t) = int exp(-2 t x) dMP_y`` for ``y <= 1`` (no atom): the Marchenko-Pastur
    density ``sqrt((b - x)(x - a))/(2 pi y x)`` integrated by mpmath."""
    a, b = (1 - mpmath.sqrt(y)) ** 2, (1 + mpmath.sqrt(y)) ** 2
    return mpmath.quad(lambda x: mpmath.exp(-2 * t * x) * mpmath.sqrt((b - x) * (x - a))
                       / (2 * mpmath.pi * y * x), [a, b])


@pytest.mark.parametrize("text", ["mp(1/2)", "3 * mp(1/2)"])  # normalized to mean one
def test_mp_dof_and_ridge_error_match_the_closed_form(capsys, text):
    for lam in ("0.001", "0.5", "40"):
        data = readout_json(capsys, "ridge", "--expr", text, "--lam", lam, "--sigma2", "0.1",
                            "--gO", "3")
        with mpmath.workdps(30):
            lam_m = mpmath.mpf(lam)
            w, w_prime = mp_dof(lam_m)
            error = 1 - w / 3 + (lam_m / 3 - mpmath.mpf("0.1")) * w_prime
        assert abs(data["w"] - w) <= F64_RTOL * w
        assert abs(data["error"] - error) <= F64_RTOL * abs(error)
        assert readout_json(capsys, "dof", "--expr", text, "--lam", lam)["w"] == data["w"]


def test_mp_dof_digits(capsys):
    data = readout_json(capsys, "dof", "--expr", "mp(1/2)", "--lam", "0.5", "--dps", "30")
    with mpmath.workdps(40):
        w = mp_dof(mpmath.mpf("0.5"))[0]
        assert abs(mpmath.mpf(data["w"]) - w) <= mpmath.mpf(10) ** -29 * w
    assert len(data["w"].replace(".", "").lstrip("0")) == 30


def test_mp_loss_and_arrival_match_the_closed_density(capsys):
    data = readout_json(capsys, "loss", "--expr", "mp(1/2)", "--t", "0.1", "1.5")
    with mpmath.workdps(30):
        for t, loss in zip(("0.1", "1.5"), data["loss"], strict=True):
            assert abs(loss - mp_loss(mpmath.mpf(t))) <= LOSS_ATOL
    arrival = readout_json(capsys, "arrival", "--expr", "mp(1/2)", "--level", "0.25")
    with mpmath.workdps(20):
        t_ref = mpmath.findroot(lambda t: mp_loss(t) - mpmath.mpf("0.25"), arrival["t"])
    assert abs(arrival["t"] - t_ref) <= ARRIVAL_RTOL * t_ref


def test_compound_expression_matches_the_python_readouts(capsys):
    text = "mp(1/2) * mp(1/2)"
    the_law = algebra.parse(text).law()
    ridge = readout_json(capsys, "ridge", "--expr", text, "--lam", "0.3", "--sigma2", "0.2",
                         "--gO", "2")
    lam, sigma2 = Fraction(3, 10), Fraction(1, 5)
    assert ridge["w"] == readout.dof(the_law, lam)
    assert ridge["error"] == readout.ridge_error(the_law, lam, sigma2, gO=2)
    loss = readout_json(capsys, "loss", "--expr", text, "--t", "0.5", "2")
    assert loss["loss"] == [readout.flow_loss(the_law, Fraction(1, 2)),
                            readout.flow_loss(the_law, 2)]
    arrival = readout_json(capsys, "arrival", "--expr", text, "--level", "0.3")
    assert arrival["t"] == readout.arrival_time(the_law, Fraction(3, 10))


def test_text_output_names_the_expression(capsys):
    code, out, _ = run_cli(capsys, "readout", "ridge", "--expr", "mp(1/2)*mp(1/2)",
                           "--lam", "0.3", "--gO", "2")
    assert code == 0
    title, *rows = out.splitlines()
    assert "law of mp(1/2) * mp(1/2)" in title and "gO=2" in title
    assert [row.split()[0] for row in rows] == ["lam", "sigma2", "w", "error"]


@pytest.mark.parametrize(("argv", "names"), [
    (["dof", "--expr", "mp(1/2) ** 2"], "expression"),
    (["dof", "--expr", "mp(gK) * mp(1)"], "free parameters (gK)"),
    (["dof", "--expr", "mp(1)", "--case", "mha"], "--expr and --case are mutually exclusive"),
    (["loss", "--expr", "mp(1)", "--t", "1", "--beta", "1"], "--expr and --beta"),
    (["ridge", "--expr", "mp(1)", "--gO", "2", "--gK", "2"], "--expr and --gK"),
    (["dof", "--expr", "mp(1)", "--gO", "2"], "--expr and --gO"),
    (["arrival", "--expr", "mp(1)", "--dk", "64"], "--expr and --dk"),
    (["dof", "--expr", "semicircle(1)"], "[0, inf)"),
    (["loss", "--expr", "mp(1) - 1", "--t", "1"], "[0, inf)"),
    (["dof", "--expr", "point(0)"], "mean 0"),
    (["ridge", "--expr", "mp(1/2)"], "needs --gO"),
    (["ridge", "--expr", "mp(1/2)", "--gO", "0"], "--gO must be"),
    (["dof", "--expr", "mp(1/2)", "--lam", "0"], "--lam"),
    (["ridge", "--expr", "mp(1/2)", "--gO", "1", "--lam", "1e300"], "--lam"),
    (["ridge", "--expr", "mp(1/2)", "--gO", "1", "--sigma2", "-1"], "--sigma2"),
    (["loss", "--expr", "mp(1/2)", "--t", "-1"], "--t"),
    (["arrival", "--expr", "mp(1/2)", "--level", "1"], "--level"),
    (["arrival", "--expr", "mp(2)", "--level", "0.4"], "--level"),  # below the atom 1/2
    (["dof", "--expr", "mp(1/2)", "--dps", "8"], "dps"),
    (["dof", "--expr", "mp(1/2)", "--certify"], "--certify"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, names):
    assert names in bad(capsys, "readout", *argv)
