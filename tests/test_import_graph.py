"""The modules of ``freege`` (every subpackage, ``freege.validation`` and
``freege.derivations`` included) import each other without a circle, and the folders
("rooms") they live in import only downwards through :data:`LAYERS`.

Every ``import`` / ``from ... import`` statement of every module under ``freege/``
(function-level ones included: a deferred import hides a circle, it does not remove it)
is read with ``ast``; the graph of imports between freege's modules must be acyclic.
The same reading as tests/symbolic/test_import_graph.py, over the whole package: ``from
freege.a import x`` names the submodule ``freege.a.x`` when there is one, else
``freege.a`` (a package ``__init__`` counts as the package's module); relative imports
are resolved against the importing module's package.

The layers, lowest first: the shared foundations of ``freege/`` (params, errors, caches,
progress, plotting), the exact layer, the numeric layer, then the sampling side
(models and the sampling core, the sweep engine, the checks at the top of
``validation/``, the paper reproduction, then its panels and their registry), and the CLI
on top. A module may import its own folder and any lower layer; nothing below the CLI
imports it.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import freege

ROOT = Path(freege.__file__).resolve().parent
#: the repository folders installed inside the package (pyproject's package-dir mapping)
SIBLINGS = {"validation": ROOT.parent / "validation", "derivations": ROOT.parent / "derivations"}


def module_name(path: Path, root: Path = ROOT, prefix: tuple[str, ...] = ("freege",)) -> str:
    parts = prefix + path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(name: str, path: Path) -> str:
    """The package relative imports of the module ``name`` (at ``path``) start from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


MODULES = {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}
for _name, _folder in SIBLINGS.items():
    MODULES.update({module_name(path, _folder, ("freege", _name)): path
                    for path in sorted(_folder.rglob("*.py"))})


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules among ``modules`` that the module ``name`` (source at ``path``)
    imports, anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package_of(name, path).split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {m for m in found if m in modules}


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules among ``modules`` it imports (itself excluded)."""
    return {name: imported_modules(name, path, modules) - {name}
            for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


def test_reader_sees_known_edges_across_the_package():
    """The reader has teeth: top-level, deferred and package-style imports are edges."""
    graph = import_graph(MODULES)
    assert "freege.numeric.case_law" in graph["freege.cli.law"]  # top level
    assert "freege.cli.certify_output" in graph["freege.cli.law"]  # inside run()
    assert "freege.symbolic.laws" in graph["freege.symbolic.expressions"]  # from pkg import mod
    assert "freege.numeric" not in graph["freege.numeric"]


def test_relative_imports_are_resolved(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n", encoding="utf-8")
    (pkg / "a.py").write_text("from .b import f\nfrom .. import params\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from . import a\n    return a\n",
                              encoding="utf-8")
    modules = {**MODULES, **{module_name(p, tmp_path): p for p in pkg.glob("*.py")}}
    graph = import_graph(modules)
    assert graph["freege.pkg"] == {"freege.pkg.a"}
    assert graph["freege.pkg.a"] == {"freege.pkg.b", "freege.params"}
    assert ["freege.pkg.a", "freege.pkg.b"] in circles(graph)  # deferred import: a circle
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter(graph).static_order())


def test_freege_has_no_import_circle():
    graph = import_graph(MODULES)
    found = circles(graph)
    assert not found, "import circles in freege: " + "; ".join(" <-> ".join(c) for c in found)
    assert set(graphlib.TopologicalSorter(graph).static_order()) == set(MODULES)


#: the rooms (a module's folder, as a dotted package) from the bottom up; a room imports
#: only rooms of lower layers (and itself)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("freege",),
    ("freege.symbolic",),
    ("freege.numeric",),
    ("freege.algebra",),
    ("freege.derivations", "freege.validation.models", "freege.validation.sampling"),
    ("freege.validation.sweep",),
    ("freege.validation",),
    ("freege.validation.paper",),
    ("freege.validation.paper.panels",),
    ("freege.cli",),
)
#: modules that belong to another room than their folder's: the ``python -m freege``
#: entry point is the CLI
ROOM_OF = {"freege.__main__": "freege.cli"}


def room(name: str, modules: dict[str, Path] = MODULES) -> str:
    """The room of module ``name``: its package (a package ``__init__`` is its own)."""
    if name in ROOM_OF:
        return ROOM_OF[name]
    return name if modules[name].name == "__init__.py" else name.rpartition(".")[0]


def arrows_up(graph: dict[str, set[str]], modules: dict[str, Path] = MODULES
              ) -> list[str]:
    """Every import from a room into a room of the same or a higher layer."""
    rank = {r: k for k, rooms in enumerate(LAYERS) for r in rooms}
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if room(a, modules) != room(b, modules)
                  and rank[room(a, modules)] <= rank[room(b, modules)])


def test_every_room_has_a_layer():
    """A new folder must be given its place in :data:`LAYERS`."""
    placed = {r for rooms in LAYERS for r in rooms}
    assert {room(name) for name in MODULES} == placed


def test_no_arrow_runs_back_up():
    graph = import_graph(MODULES)
    assert arrows_up(graph) == []
    # the test has teeth: the numeric layer importing the CLI or the sampling side is
    # caught, and so is the sampling core importing the sweep
    law = "freege.numeric.case_law"
    planted = {**graph, law: graph[law] | {"freege.cli"},
               "freege.validation.sampling.sample": {"freege.validation.sweep.store"}}
    assert arrows_up(planted) == ["freege.numeric.case_law -> freege.cli",
                                  "freege.validation.sampling.sample -> "
                                  "freege.validation.sweep.store"]


def test_the_sampling_side_is_inside_the_graph():
    """``validation/`` and ``derivations/`` are read too (they install inside freege)."""
    graph = import_graph(MODULES)
    assert "freege.validation.sampling.sample" in graph["freege.validation.runner"]
    assert "freege.symbolic.cases" in graph["freege.derivations.moments"]
