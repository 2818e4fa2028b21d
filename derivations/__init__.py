"""Derivation documents: scripts that call :mod:`freege.symbolic` and write committed
Markdown (with LaTeX), each result labelled with the `docs/theory.md` section it establishes.

``python -m freege.derivations`` regenerates every document in a source checkout (the
committed ``derivations/*.md``); anywhere else (an installed freege, whose copies in
site-packages are package data) it refuses unless ``--out DIR`` names where to write.
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


def in_source_checkout(folder: Path | None = None) -> bool:
    """Whether ``folder`` (default: this package's) is the ``derivations/`` folder of a
    source checkout: beside a ``pyproject.toml`` and the ``freege/`` package. An installed
    freege holds it inside ``freege/`` (``site-packages/freege/derivations``)."""
    root = (FOLDER if folder is None else folder).parent
    return (root / "pyproject.toml").is_file() and (root / "freege" / "__init__.py").is_file()


def document_path(name: str, folder: Path | None = None) -> Path:
    """Where document ``name`` is committed: ``derivations/<name>.md`` (or in ``folder``)."""
    return (FOLDER if folder is None else folder) / f"{name}.md"


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


def write(names: tuple[str, ...] = DOCUMENTS, folder: Path | None = None) -> list[Path]:
    """Regenerate and write the documents (into ``folder``, default the committed ones'
    folder); returns their paths. Each is written atomically, never through a fixed
    temporary name or a planted link, and only into a folder of yours that no one else
    can write (:func:`freege.safe_files.write_text`; ValueError of one line otherwise)."""
    from freege import safe_files

    paths = []
    for name in names:
        path = document_path(name, folder)
        what = "documents" if folder is None else "--out"
        safe_files.write_text(path, render(name), what)
        paths.append(path)
    return paths
