"""The modules of ``freege.symbolic`` import each other without a circle: the reader of
``tests/test_import_graph.py`` (every import statement, function-level ones included)
restricted to the symbolic layer, with its known edges and a planted deferred circle."""

from __future__ import annotations

import graphlib

import pytest

from tests.test_import_graph import MODULES as FREEGE_MODULES
from tests.test_import_graph import import_graph

PACKAGE = "freege.symbolic"
MODULES = {name: path for name, path in FREEGE_MODULES.items()
           if name == PACKAGE or name.startswith(PACKAGE + ".")}


def test_reader_sees_the_known_edges():
    """The graph reader has teeth: it finds top-level and submodule-style imports."""
    graph = import_graph(MODULES)
    assert f"{PACKAGE}.transforms" in graph[f"{PACKAGE}.equations"]
    assert f"{PACKAGE}.laws" in graph[f"{PACKAGE}.expressions"]  # ``from ... import laws``
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
