"""The Cauchy polynomial of an expression at numbers from its shape
(:mod:`freege.symbolic.expression_shapes`) is the polynomial derived at the numbers, to
the bit: same terms, same integers, same domain; a special point where the shape's
polynomial factors is left to the derivation at the numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from freege import algebra, cache_files
from freege.symbolic import expression_shapes, expressions

#: shapes of the peers' table and around it
TEXTS = (
    "mp(0.523417) * mp(0.712345)",
    "mp(1/3) * mp(1/3)",  # one number twice: one symbol
    "semicircle(0.523417) + mp(0.712345/2)",
)


@pytest.mark.parametrize("text", TEXTS)
def test_shape_route_is_the_derivation_at_the_numbers(text):
    expr = algebra.parse(text)
    found = expression_shapes.specialize(expr)
    direct = expressions._cauchy_at_numbers(expr)
    assert found is not None, "the shape route applies"
    assert found == direct and found.rep == direct.rep and found.domain == direct.domain == sp.ZZ
    assert expr.cauchy_polynomial() == direct


def test_shape_and_numbers():
    shape, values = expression_shapes.shape(algebra.parse("mp(0.25) * mp(1/3) + 1"))
    assert str(shape) == "(mp(theta1) * mp(theta2)) + 1"  # 1 is kept
    assert list(values.values()) == [Fraction(1, 4), Fraction(1, 3)]
    assert expression_shapes.shape(algebra.parse("pushforward(mp(1/2), x^2)")) is None
    assert expression_shapes.shape(algebra.parse("mp(1)")) is None  # no number to share


def test_a_special_point_is_left_to_the_numbers():
    """``2 MP_{1/2} = pi_2`` and ``MP_1 = pi_1``: their sum is ``pi_3``, of degree 2 in G,
    where the shape ``theta2*mp(theta1) + mp(1)`` has degree 3: the specialized
    polynomial factors, the route says None, and the derivation at the numbers answers."""
    expr = algebra.parse("2*mp(1/2) + mp(1)")
    shape, _ = expression_shapes.shape(expr)
    assert expression_shapes.shape_cauchy(shape).degree(0) == 3
    assert expression_shapes.specialize(expr) is None
    poly = expr.cauchy_polynomial()
    assert poly == expressions._cauchy_at_numbers(expr) and poly.degree(0) == 2


def test_a_shape_is_derived_when_it_comes_back_at_other_numbers(tmp_path, monkeypatch):
    """First numbers of a shape that is not shipped: derived at the numbers (None here,
    the first numbers recorded on disk); other numbers: the shape's ``P``; then the first
    numbers too."""
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(expression_shapes, "_MET", {})
    monkeypatch.setattr(expression_shapes, "_KNOWN", set())
    monkeypatch.setattr(expression_shapes, "_shipped", dict)  # none shipped
    first, other = algebra.parse("poisson(2/7)"), algebra.parse("poisson(3/7)")
    assert expression_shapes.cauchy_at_numbers(first) is None
    monkeypatch.setattr(expression_shapes, "_MET", {})  # a new process: the disk remembers
    assert expression_shapes.cauchy_at_numbers(first) is None
    assert expression_shapes.cauchy_at_numbers(other) == expressions._cauchy_at_numbers(other)
    assert expression_shapes.cauchy_at_numbers(first) == expressions._cauchy_at_numbers(first)


#: the peers' table of benchmarks/algebra.py, at its numbers and at numbers never seen
#: (benchmarks/new_law.py)
PEERS = ("mp(1/2)", "mp(2)", "mp(1) * mp(1)", "mp(1/2) * mp(1/2)", "semicircle(1) + mp(1/2)",
         "mp(0.52)", "mp(1.52)", "mp(0.52) * mp(0.71)", "mp(0.26) * mp(0.26)",
         "semicircle(0.52) + mp(0.71/2)", "semicircle(0.5) + mp(1/2)")


def test_the_peers_shapes_are_shipped():
    shipped = {str(expression_shapes.shape(e, fixed=True)[0])
               for e in expression_shapes.shipped_examples()}
    for text in PEERS:
        assert str(expression_shapes.shape(algebra.parse(text), fixed=True)[0]) in shipped, text


@pytest.fixture
def shipped_folder(tmp_path, monkeypatch):
    """An empty cache folder, an empty shipped folder, and no shape known in memory."""
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(expression_shapes, "SHIPPED", tmp_path / "shipped")
    monkeypatch.setattr(expression_shapes, "_MET", {})
    monkeypatch.setattr(expression_shapes, "_KNOWN", set())
    (tmp_path / "shipped").mkdir(mode=0o700)
    expression_shapes._shipped.cache_clear()
    expression_shapes._terms.cache_clear()
    yield tmp_path / "shipped"
    expression_shapes._shipped.cache_clear()
    expression_shapes._terms.cache_clear()


def _ship(text: str, key: str | None = None) -> None:
    path, entry = expression_shapes.shipped_entry()
    cache_files.store(path, key or entry, text)


def test_a_shipped_shape_gives_the_derivation_at_first_numbers(shipped_folder, monkeypatch):
    """A shape shipped (:func:`shipped_text`, its terms those of a derivation in symbols)
    answers at its first numbers, with an empty cache and nothing derived in symbols, the
    polynomial derived at the numbers, to the bit; so does a shipped shape without
    symbols, which is otherwise no shape."""
    examples = (algebra.parse("mp(1/5) * mp(1/5)"), algebra.parse("semicircle(2) + mp(3)"),
                algebra.parse("mp(1) * mp(1)"))
    assert expression_shapes.shape(examples[2]) is None
    _ship(expression_shapes.shipped_text(examples))
    expression_shapes._shipped.cache_clear()  # read once per process: this one read none
    shipped = expression_shapes._shipped()
    for example in examples:
        shape, _ = expression_shapes.shape(example)
        assert shipped[str(shape)] == expression_shapes._derived_terms(shape)

    def never(shape):
        raise AssertionError(f"{shape} derived although shipped")

    monkeypatch.setattr(expression_shapes, "_derived_terms", never)
    for text in ("mp(0.37) * mp(0.37)", "semicircle(0.61) + mp(0.37)", "mp(1) * mp(1)"):
        expr = algebra.parse(text)
        found = expression_shapes.cauchy_at_numbers(expr)
        direct = expressions._cauchy_at_numbers(expr)
        assert found is not None and found == direct and found.rep == direct.rep
    assert not list((shipped_folder.parent / "cache").glob("shape-met-*"))  # never "first"


def test_a_shipped_file_of_other_sources_or_content_is_not_read(shipped_folder, capsys):
    _ship('{"mp(theta1)": [["theta1"], [[1, 0, [0], 1]]]}', key="other sources")
    assert expression_shapes._shipped() == {}
    assert "checksum does not match" in capsys.readouterr().err
    for bad in ('{"mp(theta1)": [["os"], [[1, 0, [0], 1]]]}',  # not a parameter symbol
                '{"mp(theta1)": [["theta1"], [[1, 0, [0], "1"]]]}',  # not an integer
                '{"mp(theta1)": [["theta1"], [[1, 0, [99], 1]]]}',  # over the degree
                '{"mp(theta1)": [["theta1"], [[1, 0, [], 1]]]}'):  # exponents missing
        expression_shapes._shipped.cache_clear()
        _ship(bad)
        assert expression_shapes._shipped() == {}, bad
    assert "not a valid entry" in capsys.readouterr().err  # one warning per file and reason
