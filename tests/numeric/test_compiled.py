"""The generated-source cache of :mod:`freege.numeric.compiled`: a corrupt or foreign
file in the cache is detected and rebuilt, never executed as if it were right."""

import pytest
import sympy as sp

from freege.numeric import compiled


@pytest.mark.parametrize("content", [
    "def f(theta1, theta2, h, gK, gV, gO, _q):\n    return [(theta1 +",  # truncated
    "g = 1\n",  # defines no f
    "",  # empty
])
def test_corrupt_cache_file_is_rebuilt(monkeypatch, tmp_path, content):
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    name = "test-compiled-corrupt"
    theta1, gO = sp.symbols("theta1 gO")
    path = compiled._path(name, compiled.ARGUMENTS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    f = compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert "theta1" in path.read_text()  # the file was rewritten with the right source
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
