"""The modules of ``freege.symbolic`` import each other without a circle.

Every ``import`` / ``from ... import`` statement of every module (function-level ones
included: a deferred import hides a circle, it does not remove it) is read with ``ast``;
the graph of imports inside ``freege.symbolic`` must be acyclic.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import freege.symbolic

PACKAGE = "freege.symbolic"
FOLDER = Path(freege.symbolic.__file__).resolve().parent
MODULES = {
    PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}": path
    for path in sorted(FOLDER.glob("*.py"))
}


def imported_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules among ``modules`` that the source at ``path`` imports.

    ``from freege.symbolic import x`` names the submodule ``x`` when there is one, else the
    package itself; ``from freege.symbolic.x import y`` names ``x`` (or ``x.y``, were it a
    module). Relative imports are resolved against the package.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([PACKAGE, base]).rstrip(".")
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {name for name in found if name in modules}


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules among ``modules`` it imports (itself excluded)."""
    return {name: imported_modules(path, modules) - {name} for name, path in modules.items()}


def test_reader_sees_the_known_edges():
    """The graph reader has teeth: it finds top-level and submodule-style imports."""
    graph = import_graph(MODULES)
    assert f"{PACKAGE}.transforms" in graph[f"{PACKAGE}.equations"]
    assert f"{PACKAGE}.laws" in graph[f"{PACKAGE}.cases"]  # ``from freege.symbolic import laws``
    assert f"{PACKAGE}.symbols" in graph[f"{PACKAGE}.series"]


def test_a_deferred_import_circle_is_detected(tmp_path):
    """A function-level import that closes a circle is an edge like any other."""
    (tmp_path / "a.py").write_text("from freege.symbolic.b import f\n", encoding="utf-8")
    (tmp_path / "b.py").write_text(
        "def f():\n    from freege.symbolic import a\n    return a\n", encoding="utf-8"
    )
    modules = {**MODULES, f"{PACKAGE}.a": tmp_path / "a.py", f"{PACKAGE}.b": tmp_path / "b.py"}
    assert import_graph(modules)[f"{PACKAGE}.b"] == {f"{PACKAGE}.a"}
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter(import_graph(modules)).static_order())


def test_symbolic_layer_has_no_import_circle():
    graph = import_graph(MODULES)
    try:
        order = tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:  # pragma: no cover - the failure being tested for
        pytest.fail(f"import circle in {PACKAGE}: {' -> '.join(error.args[1])}")
    assert set(order) == set(MODULES)
