"""Generated functions shipped with freege (:data:`freege.numeric.compiled.SHIPPED`,
:mod:`freege.numeric.ship_functions`): an empty cache folder reads them, under the same
checks as a cache entry, and only for the key they were written for."""

from __future__ import annotations

from fractions import Fraction

import pytest

from freege import cache_files
from freege.numeric import compiled, ship_functions
from freege.symbolic import expression_shapes

SOURCE = "def f(theta1, theta2, h, gK, gV, gO, _q):\n    return [(theta1 + _q(1, 3))]\n"


def _never() -> list:
    raise AssertionError("derived although a shipped function exists")


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """An empty cache folder and an empty shipped folder."""
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(compiled, "SHIPPED", tmp_path / "shipped")
    monkeypatch.setattr(compiled, "_LOADED", {})
    (tmp_path / "shipped").mkdir(mode=0o700)
    return tmp_path / "shipped"


def _ship(folder, name: str, key: str | None = None, source: str = SOURCE) -> None:
    path, entry = compiled.disk_entry(name)
    cache_files.store(folder / f"{path.stem}.gen", key or entry, source)


def test_an_empty_cache_reads_the_shipped_function(shipped):
    _ship(shipped, "planted")
    f = compiled.function("planted", _never)
    assert f(Fraction(1, 6), 0, 0, 0, 0, 0, compiled.exact_rational) == [Fraction(1, 2)]
    assert ship_functions.stale() == []


def test_a_shipped_function_of_other_sources_is_not_read(shipped, capsys):
    """Written for another key (other symbolic sources): its checksum does not match, it
    is ignored with a warning and the function is derived."""
    _ship(shipped, "planted", key="another source hash:planted")
    f = compiled.function("planted", lambda: [2])
    assert f(0, 0, 0, 0, 0, 0, compiled.exact_rational) == [2]
    assert "checksum does not match" in capsys.readouterr().err


def test_a_shipped_file_that_is_not_arithmetic_is_refused(shipped, capsys):
    _ship(shipped, "planted", source="import os\n")
    assert compiled.function("planted", lambda: [3])(0, 0, 0, 0, 0, 0, int) == [3]
    assert "not a valid entry" in capsys.readouterr().err


def test_check_names_a_stale_file(shipped, capsys):
    (shipped / "cauchy-mha-0-000000000000000000000000.gen").write_text("x")
    assert ship_functions.stale() == ["cauchy-mha-0-000000000000000000000000.gen"]
    assert ship_functions.main(["--check"]) == 1
    assert "1 of 1 stale" in capsys.readouterr().out



def test_check_names_stale_and_missing_shapes(tmp_path, monkeypatch):
    monkeypatch.setattr(expression_shapes, "SHIPPED", tmp_path)
    (tmp_path / "shapes-000000000000000000000000.gen").write_text("x")
    current = expression_shapes.shipped_entry()[0]
    assert ship_functions.stale_shapes() == ["shapes-000000000000000000000000.gen",
                                             f"{current.name} (missing)"]
    current.write_text("x")
    (tmp_path / "shapes-000000000000000000000000.gen").unlink()
    assert ship_functions.stale_shapes() == []
