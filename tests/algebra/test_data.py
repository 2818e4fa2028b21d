"""``freege.algebra.data``: laws from data in the algebra -- the leaves (``empirical``,
``from_scipy``), the operators with numbers and with expressions of either kind, the
data-aware functions, the text form ``parse_data`` -- and the engine's numbers against the
polynomial route where both apply (an empirical operand with 2 atoms)."""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest

from freege import algebra
from freege.algebra import DataExpr, empirical
from freege.algebra.data import parse_data
from freege.numeric.data_law import DataLaw


def interior(law, count: int = 200, margin: float = 1e-3) -> np.ndarray:
    """``count`` points spread over the support's intervals, ``margin`` (relative) away
    from every edge."""
    pieces = law.intervals()
    per = -(-count // len(pieces))
    xs = np.concatenate([np.linspace(a + margin * (b - a), b - margin * (b - a), per)
                         for a, b in pieces])
    return xs[:count]


def assert_same_law(data_law, reference, count: int = 200) -> None:
    """Support edges and the density at ``count`` interior points to 1e-12 relative."""
    ref_edges = np.array(reference.intervals(), dtype=float)
    got_edges = np.array(data_law.intervals(), dtype=float)
    assert got_edges.shape == ref_edges.shape
    np.testing.assert_allclose(got_edges, ref_edges, rtol=1e-12, atol=1e-12)
    xs = interior(reference, count)
    assert xs.size == count
    want = np.asarray(reference.pdf(xs), dtype=float)
    got = np.asarray(data_law.pdf(xs), dtype=float)
    assert np.all(want > 0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------- accuracy
def test_mp_times_empirical_matches_the_polynomial_route():
    e = algebra.parse("mp(1/2)") * empirical([1.0, 3.0, 3.0, 3.0])
    assert isinstance(e, DataExpr)
    law = e.law()
    assert isinstance(law, DataLaw) and str(law) == "mp(1/2) * empirical([1, 3, 3, 3])"
    reference = algebra.parse("mp(1/2) * atoms((1,1/4),(3,3/4))").law()
    assert_same_law(law, reference)
    # the exact moments of the reference (S-transforms multiply), from the engine
    exact = algebra.parse("mp(1/2) * atoms((1,1/4),(3,3/4))").moments(4)
    np.testing.assert_allclose(e.moments(4), [float(m) for m in exact], rtol=1e-13)


def test_semicircle_plus_empirical_matches_the_polynomial_route():
    # two atoms far apart: a support of two intervals (free cumulants add)
    e = algebra.semicircle(1) + empirical([0, 3])
    assert str(e) == "semicircle(1) + empirical([0, 3])"
    reference = algebra.parse("semicircle(1) + atoms((0,1/2),(3,1/2))").law()
    assert len(reference.intervals()) == 2
    assert_same_law(e.law(), reference)


def test_weights_are_the_masses():
    weighted = algebra.parse("mp(1/2)") * empirical([1.0, 3.0], weights=[1.0, 3.0])
    equal = algebra.parse("mp(1/2)") * empirical([1.0, 3.0, 3.0, 3.0])
    xs = np.linspace(0.5, 7.0, 9)
    np.testing.assert_allclose(weighted.law().pdf(xs), equal.law().pdf(xs), rtol=1e-13)


def test_pickle_round_trip_of_a_data_law():
    e = 2 * (algebra.parse("mp(1/2)") * empirical([1.0, 3.0, 3.0, 3.0])) + 1
    law = e.law()
    back = pickle.loads(pickle.dumps(law))
    assert isinstance(back, DataLaw)
    assert back == law and back.spec == law.spec and str(back) == str(law)
    xs = np.array([2.0, 5.0, 9.0])
    assert np.array_equal(back.pdf(xs), law.pdf(xs))
    assert pickle.loads(pickle.dumps(e)) == e


# ---------------------------------------------------------------------- operators
def test_operators_build_the_spec():
    mp = algebra.parse("mp(1/2)")
    d = empirical([1.0, 2.0])
    leaf = d.spec
    assert leaf == ("empirical", np.array([1.0, 2.0], "<f8").tobytes(), None)
    assert (mp * d).spec == ("mult", ("mp", Fraction(1, 2)), leaf)
    assert (d * mp).spec == ("mult", leaf, ("mp", Fraction(1, 2)))
    assert (mp + d).spec == ("add", ("mp", Fraction(1, 2)), leaf)
    assert (d + mp).spec == ("add", leaf, ("mp", Fraction(1, 2)))
    assert (d - mp).spec == ("add", leaf, ("affine", -1, 0, ("mp", Fraction(1, 2))))
    assert (mp - d).spec == ("add", ("mp", Fraction(1, 2)), ("affine", -1, 0, leaf))
    assert (d + 1).spec == (1 + d).spec == ("affine", 1, 1, leaf)
    assert (d - 1).spec == ("affine", 1, -1, leaf)
    assert (1 - d).spec == ("affine", -1, 1, leaf)
    assert (2 * d).spec == (d * 2).spec == (d / Fraction(1, 2)).spec == ("affine", 2, 0, leaf)
    assert (np.float64(2) * d).spec == ("affine", 2, 0, leaf)
    assert (d * 0.5).spec == ("affine", Fraction(1, 2), 0, leaf)
    assert (-d).spec == ("affine", -1, 0, leaf)
    assert (+d) is d
    # affine maps compose; the identity is the law itself
    assert (2 * d + 3).spec == ("affine", 2, 3, leaf)
    assert ((d + 1) - 1).spec == leaf
    assert str(2 * d + 3) == "2 * empirical([1, 2]) + 3"
    assert str(mp - d) == "mp(1/2) - empirical([1, 2])"
    assert str((mp + d) * mp) == "(mp(1/2) + empirical([1, 2])) * mp(1/2)"


def test_functions_take_data_and_stay_the_algebras_otherwise():
    d = empirical([1.0, 2.0])
    mp, sc = algebra.parse("mp(1/2)"), algebra.semicircle(1)
    assert algebra.free_add(sc, d, mp).spec == ("add", ("add", ("semicircle", 1), d.spec),
                                                 ("mp", Fraction(1, 2)))
    assert algebra.free_mult(d, mp) == d * mp
    assert algebra.affine(d, 2, 1) == 2 * d + 1 and algebra.dilation(d, 3) == 3 * d
    assert algebra.pushforward(d, [1, 0, 1]).spec == ("pushforward", (1, 0, 1), d.spec)
    assert algebra.pushforward(d, [1, 2]) == 2 * d + 1
    assert algebra.pushforward(d, [5]) == algebra.point_mass(5)
    assert algebra.free_poisson(2, d).spec == ("poisson", 2, d.spec)
    # without data: the algebra's own expressions
    assert isinstance(algebra.free_add(sc, mp), algebra.LawExpr)
    assert algebra.affine(mp, 2, 1) == 2 * mp + 1
    assert algebra.free_poisson(2) == algebra.parse("poisson(2)")


def test_data_numbers_agree_with_the_exact_moments():
    d = empirical([1.0, 3.0, 3.0, 3.0])
    atoms = algebra.parse("atoms((1,1/4),(3,3/4))")
    for data, exact in [(algebra.free_poisson(2, d), algebra.free_poisson(2, atoms)),
                        (algebra.pushforward(d, [1, 0, 1]), algebra.pushforward(atoms,
                                                                               [1, 0, 1])),
                        (3 - 2 * d, 3 - 2 * atoms)]:
        np.testing.assert_allclose(data.moments(3), [float(m) for m in exact.moments(3)],
                                   rtol=1e-13)
    assert d.mean == Fraction(5, 2)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: empirical([]), "values must hold 1 to"),
    (lambda: empirical(np.zeros(10**5 + 1)), "values must hold 1 to"),
    (lambda: empirical([1.0, np.nan]), "values must be finite"),
    (lambda: empirical([[1.0, 2.0]]), "values must be a 1-D array"),
    (lambda: empirical(["a"]), "values must be real numbers"),
    (lambda: empirical([1 + 1j]), "values must be real numbers"),
    (lambda: empirical([1.0, 2.0], [1.0]), "weights must have one entry per value"),
    (lambda: empirical([1.0, 2.0], [1.0, 0.0]), "weights must be finite and > 0"),
    (lambda: empirical([1.0, 2.0], [1.0, np.inf]), "weights must be finite and > 0"),
    (lambda: algebra.parse("mp(1/2)") * empirical([-1.0, 2.0]), "[0, inf)"),
    (lambda: empirical([1.0]) / empirical([2.0]), "not by a law"),
    (lambda: algebra.parse("mp(1)") / empirical([2.0]), "not by a law"),
    (lambda: 2 / empirical([2.0]), "not by a law"),
    (lambda: empirical([1.0]) / 0, "divisor must not be 0"),
    (lambda: empirical([1.0]) * 0, "scale must not be 0"),
    (lambda: empirical([1.0]) + "x", "shift"),
    (lambda: algebra.parse("mp(gK)") * empirical([1.0]), "numeric parameters"),
    (lambda: algebra.free_add(empirical([1.0])), "at least two laws"),
    (lambda: algebra.free_poisson(0, empirical([1.0])), "rate must be > 0"),
    (lambda: algebra.pushforward(empirical([1.0]), [1] * 9), "degree"),
])
def test_bad_input_is_a_value_error(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert message in str(info.value) and "\n" not in str(info.value)


# ---------------------------------------------------------------------- text
def test_parse_data_reads_files_from_a_mapping_and_from_disk(tmp_path):
    eigs = np.array([1.0, 3.0, 3.0, 3.0])
    e = parse_data("mp(1/2) * empirical(@spectrum.npy)", files={"spectrum.npy": eigs})
    assert e == algebra.parse("mp(1/2)") * empirical(eigs)
    assert str(e) == "mp(1/2) * empirical(@spectrum.npy)"
    np.save(tmp_path / "spectrum.npy", eigs)
    assert parse_data("mp(1/2) * empirical( @spectrum.npy )", folder=tmp_path) == e
    (tmp_path / "w.csv").write_text("1,1\n3,3\n")
    weighted = parse_data("empirical(@w.csv) * mp(1/2)", folder=tmp_path)
    assert weighted == empirical([1.0, 3.0], [1.0, 3.0]) * algebra.parse("mp(1/2)")


def test_parse_data_grammar_around_the_leaves():
    files = {"a.npy": np.array([1.0, 2.0]), "b.txt": (np.array([0.0, 3.0]), None)}
    a, b = empirical([1.0, 2.0]), empirical([0.0, 3.0])
    mp = algebra.parse("mp(1/2)")
    cases = {
        "2*empirical(@a.npy) + 1/2": 2 * a + Fraction(1, 2),
        "-empirical(@a.npy) - 3": -a - 3,
        "(semicircle(1) + 2*mp(1/2)) + empirical(@b.txt)":
            algebra.parse("semicircle(1) + 2*mp(1/2)") + b,
        "empirical(@a.npy) * empirical(@a.npy) / 2": a * a / 2,
        "pushforward(empirical(@a.npy), x^2 + 2*x/3 - 1)":
            algebra.pushforward(a, [-1, Fraction(2, 3), 1]),
        "poisson(3/2, empirical(@a.npy))": algebra.free_poisson(Fraction(3, 2), a),
        "mp(1/2) * (empirical(@a.npy) + 1)": mp * (a + 1),
    }
    for text, want in cases.items():
        assert parse_data(text, files=files) == want, text
    # without empirical(: the grammar itself
    assert parse_data("mp(1/2) * mp(1/2)") == algebra.parse("mp(1/2) * mp(1/2)")


@pytest.mark.parametrize(("text", "words"), [
    ("mp(1/2) * empirical(@missing.npy)", ["missing.npy", "no such file"]),
    ("mp(1/2) * empirical([1, 2])", ["empirical(@FILE)"]),
    ("mp(1/2) * empirical(@)", ["needs a file name"]),
    ("mp(1/2) ** empirical(@a.npy)", ["unexpected operator"]),
    ("gK * empirical(@a.npy)", ["expected a number", "gK"]),
    ("foo(empirical(@a.npy))", ["unexpected", "foo(empirical(@a.npy))"]),
    ("mp(empirical(@a.npy))", ["unexpected"]),
    ("empirical(@a.npy) / empirical(@a.npy)", ["not by a law"]),
    ("empirical(@a.npy) / 0", ["divisor must not be 0"]),
    ("empirical(@a.npy) * (1/0)", ["division by zero"]),
    ("mp(1/2) * empirical(@a.npy) +", ["cannot read"]),
    ("pushforward(empirical(@a.npy), x^9)", ["power 0 to"]),
    ("pushforward(empirical(@a.npy), x/x)", ["divides the polynomial"]),
    ("2 + 3 * empirical(@a.npy) * mp(-1)", ["ratio"]),
    ("__freege_data_0 * empirical(@a.npy)", ["unknown name"]),
    ("empirical(@a.npy) * " + "-(" * 100 + "1" + ")" * 100, ["nested deeper"]),
    ("-(" * 100 + "empirical(@a.npy)" + ")" * 100, ["nested deeper"]),
])
def test_parse_data_errors_are_one_line(text, words):
    with pytest.raises(ValueError) as info:
        parse_data(text, files={"a.npy": np.array([1.0, 2.0])}, folder="/nonexistent")
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


# ---------------------------------------------------------------------- scipy
def test_from_scipy_combines_with_the_algebra():
    pytest.importorskip("freege.numeric.density_operand")
    stats = pytest.importorskip("scipy.stats")
    e = algebra.semicircle(1) + algebra.from_scipy(stats.uniform(1, 2))
    assert isinstance(e, DataExpr)
    assert str(e) == "semicircle(1) + from_scipy(uniform(1, 2))"
    law = e.law()
    # free cumulants add: mean 0 + 2, variance 1 + 1/3
    np.testing.assert_allclose([law.moment(1), law.moment(2)], [2.0, 4 + 4 / 3],
                               rtol=1e-12)
    (a, b), = law.intervals()
    assert a < 0 and b > 4 and law.pdf(2.0) > 0


def test_a_numeric_law_is_an_operand() -> None:
    """Any law of the family is an operand through its own Cauchy transform (here the
    polynomial route's MP law): the product with an empirical spectrum matches the
    polynomial route of the whole expression."""
    operand = algebra.parse("mp(1/2)").law()
    e = algebra.empirical([1.0, 3.0, 3.0, 3.0]) * operand
    reference = algebra.parse("mp(1/2) * atoms((1,1/4),(3,3/4))").law()
    xs = np.linspace(0.3, 7.5, 40)
    np.testing.assert_allclose(e.law().root.cauchy_f64(xs + 0.05j)[0],
                               reference.stieltjes(xs + 0.05j), rtol=1e-12)
