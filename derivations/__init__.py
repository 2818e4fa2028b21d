"""Derivation documents: scripts that call :mod:`freege.symbolic` and write committed
Markdown (with LaTeX), each result labelled with the `docs/theory.md` section it establishes.

``python -m freege.derivations`` regenerates every document;
``python -m freege.derivations --check`` exits 1 listing the documents that differ from a
fresh regeneration (the test ``tests/test_derivations_up_to_date.py`` does the same in
memory); both print one progress line per document on stderr.

Adding a document is a one-line change: write ``derivations/<name>.py`` exposing
``render() -> str`` (deterministic Markdown: same input, same bytes) and add ``"<name>"``
to :data:`DOCUMENTS`; it is written to ``derivations/<name>.md``.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

#: the documents, in the order they are regenerated (one module per name)
DOCUMENTS: tuple[str, ...] = ("moments", "tied_kv", "ridge", "cauchy")

FOLDER = Path(__file__).resolve().parent


def document_path(name: str) -> Path:
    """Where document ``name`` is committed: ``derivations/<name>.md``."""
    return FOLDER / f"{name}.md"


def render(name: str) -> str:
    """The Markdown of document ``name``, freshly derived."""
    if name not in DOCUMENTS:
        raise ValueError(f"document must be one of {', '.join(DOCUMENTS)} (got {name!r})")
    text = import_module(f"freege.derivations.{name}").render()
    return text if text.endswith("\n") else text + "\n"


def stale(names: tuple[str, ...] = DOCUMENTS) -> list[str]:
    """The documents whose committed file is missing or differs from a regeneration."""
    out = []
    for name in names:
        path = document_path(name)
        if not path.exists() or path.read_text(encoding="utf-8") != render(name):
            out.append(name)
    return out


def write(names: tuple[str, ...] = DOCUMENTS) -> list[Path]:
    """Regenerate and write the documents; returns their paths."""
    paths = []
    for name in names:
        path = document_path(name)
        path.write_text(render(name), encoding="utf-8")
        paths.append(path)
    return paths
