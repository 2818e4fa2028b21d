"""Certified enclosures (freege.numeric.certify) of expressions of the law algebra
(docs/algebra.md): balls that contain closed forms written here independently -- the
Marchenko-Pastur density and edges (also moved by affine maps, below 0 and with the atom
at 1), the semicircle's, the ⊠ square's edges 0 and 27/4, atoms by the
Bercovici-Voiculescu rule worked by hand -- and are narrow; per-point refusals at atoms
and branch points; ``freege law --expr --certify``."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from freege import algebra
from tests.cli.helpers import result_json, run_cli

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


def _semicircle_density(v: mpmath.mpf, x: mpmath.mpf) -> mpmath.mpf:
    """``sqrt(4 v - x^2) / (2 pi v)`` on ``[-2 sqrt(v), 2 sqrt(v)]``."""
    return mpmath.sqrt(4 * v - x * x) / (2 * mpmath.pi * v)


def _mp(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def _tight(ball) -> bool:
    """Certified with a radius below 1e-10 (far above what the default precision gives)."""
    return ball.certified and ball.rad_exact < Fraction(1, 10**10)


def test_semicircle_reaching_below_zero_holds_the_closed_form():
    """semicircle(2): irrational edges -+2 sqrt(2) as narrow balls, the density on both
    sides of 0 and at 0, exact 0 outside the bounds, no atoms."""
    law = algebra.parse("semicircle(2)").law()
    xs = [Fraction(-5, 2), Fraction(-1), Fraction(0), Fraction(3, 2), Fraction(7, 2)]
    balls = certify.certified_pdf(law, xs)
    (lo, hi), = certify.certified_support(law)
    with mpmath.workdps(REF_DPS):
        v = mpmath.mpf(2)
        assert _contains(lo, -2 * mpmath.sqrt(v)) and _contains(hi, 2 * mpmath.sqrt(v))
        for x, ball in zip(xs[:-1], balls, strict=False):
            assert _tight(ball) and _contains(ball, _semicircle_density(v, _mp(x))), (x, ball)
    assert certify.narrow(lo, certify.EDGE_RTOL) and certify.narrow(hi, certify.EDGE_RTOL)
    assert balls[-1].mid_exact == 0 == balls[-1].rad_exact
    assert certify.certified_atoms(law) == {}


@pytest.mark.parametrize(("text", "scale", "shift", "ratio"), [
    ("mp(1/2) - 3", 1, -3, Fraction(1, 2)),
    ("2*mp(2) + 1", 2, 1, Fraction(2)),
    ("-2*mp(2) - 1", -2, -1, Fraction(2)),
])
def test_affine_marchenko_pastur_holds_the_moved_closed_form(text, scale, shift, ratio):
    """``scale MP_c + shift``: edges ``scale (1 -+ sqrt c)^2 + shift``, density
    ``f_c((x - shift)/scale)/|scale|``, the atom ``1 - 1/c`` (c > 1) moved to ``shift``
    (with ``scale < 0`` the density lies left of the atom)."""
    law = algebra.parse(text).law()
    c = _mp(ratio)
    with mpmath.workdps(REF_DPS):
        edges = sorted(scale * e + shift for e in _mp_edges(c))
    xs = [Fraction(shift) + scale * Fraction(k, 4) for k in (1, 4, 10)]
    balls = certify.certified_pdf(law, xs, rtol=PDF_RTOL)
    support = certify.certified_support(law)
    with mpmath.workdps(REF_DPS):
        for x, ball in zip(xs, balls, strict=True):
            ref = _mp_density(c, (_mp(x) - shift) / scale) / abs(scale)
            assert _tight(ball) and certify.narrow(ball, PDF_RTOL) and _contains(ball, ref)
        assert len(support) == 1
        for edge, ref in zip(support[0], edges, strict=True):
            assert certify.narrow(edge, certify.EDGE_RTOL) and _contains(edge, ref)
    atoms = certify.certified_atoms(law)
    assert atoms == ({Fraction(shift): certify.Certified(1 - 1 / ratio, Fraction(0), 0)}
                     if ratio > 1 else {})
    if ratio > 1:  # the atom's location: a root escapes to infinity, not certified
        at_atom, = certify.certified_pdf(law, [Fraction(shift)])
        assert not at_atom.certified and "leading coefficient" in at_atom.reason


def test_hard_edge_at_a_rational_point_is_a_narrow_ball_around_it():
    """3 MP_1 + 1/3: the hard edge of MP_1 at 0 moves to 1/3 (a linear factor of the edge
    polynomial over QQ), the soft one to 3 * 4 + 1/3."""
    (lo, hi), = certify.certified_support(algebra.parse("3*mp(1) + 1/3").law())
    assert lo.contains(Fraction(1, 3)) and hi.contains(Fraction(37, 3))
    assert certify.narrow(lo, certify.EDGE_RTOL) and certify.narrow(hi, certify.EDGE_RTOL)


def test_several_atoms_away_from_zero():
    """atoms((0, 3/4), (1, 1/4)) ⊞ atoms((0, 1/2), (5, 1/2)): by Bercovici-Voiculescu
    3/4 + 1/2 - 1 = 1/4 at 0 + 0 and 3/4 + 1/2 - 1 = 1/4 at 0 + 5 (the pairs with 1 carry
    3/4 or less); two intervals, edges and density against the 40-digit numeric layer."""
    law = algebra.parse("atoms((0, 3/4), (1, 1/4)) + atoms((0, 1/2), (5, 1/2))").law()
    quarter = certify.Certified(Fraction(1, 4), Fraction(0), 0)
    assert certify.certified_atoms(law) == {Fraction(0): quarter, Fraction(5): quarter}
    support = certify.certified_support(law)
    xs = [Fraction(1, 2), Fraction(11, 2)]
    balls = certify.certified_pdf(law, xs)
    ref = law.with_dps(REF_DPS)
    with mpmath.workdps(REF_DPS):
        assert len(support) == len(ref.intervals()) == 2
        for pair, ref_pair in zip(support, ref.intervals(), strict=True):
            for edge, value in zip(pair, ref_pair, strict=True):
                assert certify.narrow(edge, certify.EDGE_RTOL) and _contains(edge, value)
        for x, ball in zip(xs, balls, strict=True):
            assert _tight(ball) and _contains(ball, ref.pdf(_mp(x)))


def test_semicircle_plus_marchenko_pastur_matches_the_numeric_layer():
    law = algebra.parse("semicircle(1) + mp(1/2)").law()
    (lo, hi), = certify.certified_support(law)
    xs = [Fraction(-1), Fraction(0), Fraction(2)]
    balls = certify.certified_pdf(law, xs)
    ref = law.with_dps(REF_DPS)
    with mpmath.workdps(REF_DPS):
        (ref_lo, ref_hi), = ref.intervals()
        assert lo.mid_exact < 0 and _contains(lo, ref_lo) and _contains(hi, ref_hi)
        for x, ball in zip(xs, balls, strict=True):
            assert _tight(ball) and _contains(ball, ref.pdf(_mp(x)))


def test_branch_point_and_atom_are_refused_per_point():
    """An exact edge (a double root of P(., x)) and an atom's location: refused points
    with the reason, never a ball; the other points are certified."""
    law = algebra.parse("2*mp(1) + 3").law()
    at_edge, at_atom_free_hard_edge, inside = certify.certified_pdf(
        law, [Fraction(11), Fraction(3), Fraction(5)])
    assert not at_edge.certified and "multiple root" in at_edge.reason
    assert not at_atom_free_hard_edge.certified
    assert "leading coefficient" in at_atom_free_hard_edge.reason
    with mpmath.workdps(REF_DPS):
        assert _contains(inside, _mp_density(mpmath.mpf(1), mpmath.mpf(1)) / 2)


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


def test_cli_certify_prints_negative_edges_and_atoms_away_from_zero(capsys):
    code, out, _ = run_cli(capsys, "law", "--expr", "semicircle(2)", "--certify", "--pdf",
                           "0", "--format", "json")
    data = result_json(out, "law")
    (a, b), = data["support"]
    with mpmath.workdps(REF_DPS):
        for edge, ref in ((a, -2 * mpmath.sqrt(2)), (b, 2 * mpmath.sqrt(2))):
            assert abs(mpmath.mpf(edge["mid"]) - ref) <= mpmath.mpf(edge["rad"]) + SLACK
            assert mpmath.mpf(edge["rad"]) < mpmath.mpf(10) ** -30
        ball = data["pdf"][0]
        ref = 1 / (mpmath.pi * mpmath.sqrt(2))
        assert abs(mpmath.mpf(ball["mid"]) - ref) <= mpmath.mpf(ball["rad"]) + SLACK
    assert data["atoms"] == []
    code, out, _ = run_cli(capsys, "law", "--expr", "2*mp(2) + 1", "--certify", "--pdf", "1")
    assert code == 0 and "mass 0.5 +/- 0 at 1" in out
    assert "not certified: the leading coefficient" in out  # the pdf at the atom
