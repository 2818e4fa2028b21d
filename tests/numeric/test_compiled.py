"""The generated-source cache of :mod:`freege.numeric.compiled`: a corrupt or foreign
file in the cache is detected and rebuilt, never executed as if it were right."""

import pytest
import sympy as sp

from freege import cache_files
from freege.numeric import compiled
from tests.cache_helpers import content, plant, warnings

SIGNATURE = "def f(theta1, theta2, h, gK, gV, gO, _q):\n    return "


@pytest.mark.parametrize(("text", "checked"), [
    (SIGNATURE + "[(theta1 +", True),  # truncated, checksum recomputed
    (SIGNATURE + "[(theta1 +", False),  # truncated, checksum of the full entry
    ("g = 1\n", True),  # defines no f
    ("", True),  # empty
    (SIGNATURE + "[(theta1*gO + _q(1, 0))]\n", True),  # a zero denominator
    (SIGNATURE + "[(((theta1**100)**100)**100)]\n", True),  # powers compounding to 10**6
])
def test_corrupt_cache_file_is_rebuilt(monkeypatch, capsys, tmp_path, text, checked):
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    cache_files._WARNED.clear()
    name = "test-compiled-corrupt"
    theta1, gO = sp.symbols("theta1 gO")
    path, key = compiled.disk_entry(name)
    plant(path, key, text if checked else SIGNATURE + "[(theta1*gO + _q(1, 3))]\n")
    if not checked:
        path.write_text(path.read_text()[:len(text) + 80])
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    f = compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert len(warnings(capsys.readouterr().err)) == 1
    assert "gO*theta1 + _q(1, 3)" in content(path)  # rewritten with the right source
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
