"""Certified enclosures (freege.numeric.certify) of expressions of the law algebra
(docs/algebra.md): balls that contain closed forms written here independently -- the
Marchenko-Pastur density and edges, the ⊠ square's edges 0 and 27/4, the rank-deficiency
atom -- and are narrow; refusals for what is not certified; ``freege law --expr
--certify``."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from freege import algebra
from tests.cli.helpers import bad, result_json, run_cli

certify = pytest.importorskip("freege.numeric.certify")
pytest.importorskip("flint")

REF_DPS = 60
#: the 60-digit references' own rounding, far below every radius tested
SLACK = mpmath.mpf(10) ** -55
#: largest relative radius asked of a density ball
PDF_RTOL = Fraction(1, 10**30)


def _contains(ball, value: mpmath.mpf) -> bool:
    mid = mpmath.mpf(ball.mid_exact.numerator) / ball.mid_exact.denominator
    rad = mpmath.mpf(ball.rad_exact.numerator) / ball.rad_exact.denominator
    return abs(value - mid) <= rad + SLACK


def _mp_edges(c: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Edges ``(1 -+ sqrt(c))^2`` of Marchenko-Pastur with ratio ``c`` (mean 1)."""
    return (1 - mpmath.sqrt(c)) ** 2, (1 + mpmath.sqrt(c)) ** 2


def _mp_density(c: mpmath.mpf, x: mpmath.mpf) -> mpmath.mpf:
    """``sqrt((x - a)(b - x)) / (2 pi c x)`` on ``[a, b]``."""
    a, b = _mp_edges(c)
    return mpmath.sqrt((x - a) * (b - x)) / (2 * mpmath.pi * c * x)


@pytest.mark.parametrize("ratio", [Fraction(1, 2), Fraction(2)])
def test_marchenko_pastur_balls_hold_the_closed_form(ratio):
    law = algebra.marchenko_pastur(ratio).law()
    xs = [Fraction(1, 4), Fraction(1), Fraction(5, 2)]
    balls = certify.certified_pdf(law, xs, rtol=PDF_RTOL)
    support = certify.certified_support(law)
    with mpmath.workdps(REF_DPS):
        c = mpmath.mpf(ratio.numerator) / ratio.denominator
        for x, ball in zip(xs, balls, strict=True):
            assert ball.certified and certify.narrow(ball, PDF_RTOL), (x, ball)
            assert _contains(ball, _mp_density(c, mpmath.mpf(x.numerator) / x.denominator))
        assert len(support) == 1
        for edge, ref in zip(support[0], _mp_edges(c), strict=True):
            assert certify.narrow(edge, certify.EDGE_RTOL) and _contains(edge, ref)
    atoms = certify.certified_atoms(law)
    assert atoms == ({0: certify.Certified(1 - 1 / ratio, Fraction(0), 0)} if ratio > 1
                     else {})
    assert certify.certified_pdf(law, [Fraction(-1), Fraction(7)])[0].mid_exact == 0


def test_product_of_two_mp1_has_edges_0_and_27_over_4():
    law = algebra.parse("mp(1) * mp(1)").law()
    (lo, hi), = certify.certified_support(law)
    assert lo.contains(0) and lo.rad_exact == 0
    assert hi.contains(Fraction(27, 4)) and certify.narrow(hi, certify.EDGE_RTOL)
    assert certify.certified_atoms(law) == {}
    ball, = certify.certified_pdf(law, [Fraction(1)], rtol=PDF_RTOL)
    assert _contains(ball, mpmath.mpf(law.with_dps(40).pdf(1)))


@pytest.mark.parametrize(("text", "names"), [
    ("semicircle(1)", "[0, inf)"),
    ("2*mp(2) + 1", "atoms at 0 only"),
])
def test_what_is_not_certified_is_refused(text, names):
    law = algebra.parse(text).law()
    with pytest.raises(ValueError, match=names.replace("[", r"\[").replace(")", r"\)")):
        certify.certified_support(law)


def test_readouts_are_refused_for_expressions():
    law = algebra.parse("mp(1/2)").law()
    with pytest.raises(ValueError, match="theory §4 cases only"):
        certify.certified_dof(law, 1)


def test_cli_certify_prints_balls(capsys):
    text = "mp(1/2) * mp(1/2)"
    code, out, _ = run_cli(capsys, "law", "--expr", text, "--certify", "--pdf", "1")
    assert code == 0 and "certified balls" in out and "+/-" in out
    code, out, _ = run_cli(capsys, "law", "--expr", text, "--certify", "--pdf", "1",
                           "--format", "json")
    data = result_json(out, "law")
    law = algebra.parse(text).law()
    ball = data["pdf"][0]
    assert abs(float(ball["mid"]) - float(law.pdf(1.0))) <= 1e-13 * float(ball["mid"])
    (a, b), = data["support"]
    lo, hi = law.intervals()[0]
    assert abs(float(a["mid"]) - lo) <= 1e-14 and abs(float(b["mid"]) - hi) <= 1e-14
    assert data["atoms"] == []


def test_cli_certify_refusal_is_one_line(capsys):
    assert "[0, inf)" in bad(capsys, "law", "--expr", "semicircle(1)", "--certify")
