"""``freege docs [theory|guide] [--section N]``: the documentation shipped with the package,
so that every citation the program prints ("theory §6.1") resolves on the user's machine.

The Markdown files of the repository's ``docs/`` folder install as package data
(``freege/docs/*.md``, the ``package-dir`` mapping of ``pyproject.toml``); a source
checkout reads them from ``docs/`` beside the package. Without a document: the list of
documents and their numbered sections. Without ``--section``: the whole document. A
section is its heading down to the next heading of the same or a higher level, so
``--section 6`` holds §6.1-§6.3 and ``--section 6.1`` only §6.1.

On a terminal the Markdown is formatted for reading (:mod:`freege.cli.docs_render`:
headings uppercased and underlined, tables in aligned columns, LaTeX as text, code
indented); piped or redirected, it is printed as written, for tools that read Markdown.
``--render`` and ``--raw`` choose either way; ``--format json`` always carries the
Markdown as written.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import freege
from freege.cli import docs_render
from freege.cli.common import emit
from freege.cli.options import add_format_option

#: document name -> (file, what it is)
DOCUMENTS: dict[str, tuple[str, str]] = {
    "theory": ("theory.md", "the mathematics freege implements (cited as 'theory §N')"),
    "guide": ("guide.md", "the user guide with worked examples"),
}
#: a numbered heading: '## §6 Validation', '### §6.1 ...' (theory), '## 3. Validate' (guide)
_HEADING = re.compile(r"^(#{1,6}) (?:§)?(\d+(?:\.\d+)*)\.? (.*)$")


def docs_folder() -> Path:
    """The folder of the shipped documents: ``freege/docs`` in an installed package, the
    repository's ``docs/`` in a source checkout."""
    package = Path(freege.__file__).resolve().parent
    installed = package / "docs"
    return installed if installed.is_dir() else package.parent / "docs"


def text_of(name: str) -> str:
    """The Markdown of document ``name`` (``theory`` or ``guide``)."""
    if name not in DOCUMENTS:
        raise ValueError(f"document must be one of {', '.join(DOCUMENTS)} (got {name!r})")
    path = docs_folder() / DOCUMENTS[name][0]
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        raise ValueError(f"document {name!r} is not installed (no {path})") from None


def _headings(lines: list[str]) -> list[tuple[int, int, re.Match | None]]:
    """``(line index, level, numbered match or None)`` of every Markdown heading of
    ``lines`` outside fenced code blocks (where ``#`` starts a comment)."""
    found, fenced = [], False
    for k, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (h := re.match(r"^(#{1,6}) ", line)):
            found.append((k, len(h[1]), _HEADING.match(line)))
    return found


def sections(text: str) -> list[tuple[str, str]]:
    """``[(number, title), ...]`` of the numbered headings of ``text``, in order."""
    return [(m[2], m[3]) for _k, _level, m in _headings(text.splitlines()) if m]


def section(text: str, number: str) -> str:
    """Section ``number`` of ``text`` (e.g. ``6`` or ``6.1``): its heading down to the next
    heading of the same or a higher level (a lower ``#`` count)."""
    lines = text.splitlines()
    heads = _headings(lines)
    for i, (k, level, m) in enumerate(heads):
        if m and m[2] == number:
            end = next((j for j, lv, _m in heads[i + 1:] if lv <= level), len(lines))
            return "\n".join(lines[k:end]).rstrip()
    known = ", ".join(n for n, _ in sections(text))
    raise ValueError(f"--section must be one of {known} (got {number!r})")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "docs", help="print the shipped documentation (theory, guide) or one of its sections",
        description="Print docs/theory.md or docs/guide.md as installed with freege, or one "
        "numbered section (--section 6.1 for 'theory §6.1'); without a document, list the "
        "documents and their sections. On a terminal the Markdown is formatted for reading "
        "(headings, aligned tables, formulas as text); piped, it is printed as written.",
    )
    p.add_argument("document", nargs="?", choices=tuple(DOCUMENTS), help="which document")
    p.add_argument("--section", metavar="N", default=None,
                   help="a section number, e.g. 4 or 6.1 (default: the whole document)")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--render", dest="render", action="store_true",
                      help="format the Markdown for a terminal: headings, aligned tables, "
                      "formulas as text (the default when standard output is a terminal)")
    view.add_argument("--raw", dest="render", action="store_false",
                      help="print the Markdown as written (the default when piped)")
    add_format_option(p)
    p.set_defaults(func=run, render=None)


def run(args: argparse.Namespace) -> int:
    if args.document is None:
        if args.section is not None:
            raise ValueError("--section needs a document (theory or guide)")
        data = {"documents": {name: {"about": about,
                                     "sections": [{"number": n, "title": t}
                                                  for n, t in sections(text_of(name))]}
                              for name, (_file, about) in DOCUMENTS.items()}}
        emit(data, args, lambda d: _listing(d, formatted=_formatted(args)))
        return 0
    text = text_of(args.document)
    body = text if args.section is None else section(text, args.section)
    emit({"document": args.document, "section": args.section, "text": body}, args,
         lambda d: docs_render.render(d["text"]) if _formatted(args) else d["text"])
    return 0


def _formatted(args: argparse.Namespace) -> bool:
    """Whether text output is formatted for a terminal: ``--render``/``--raw``, else
    whether standard output is one."""
    return sys.stdout.isatty() if args.render is None else args.render


def _listing(d: dict, formatted: bool) -> str:
    lines = []
    for name, doc in d["documents"].items():
        lines.append(f"freege docs {name}: {doc['about']}")
        lines += [f"  --section {s['number']:<5} "
                  f"{docs_render.inline(s['title']) if formatted else s['title']}"
                  for s in doc["sections"]]
    return "\n".join(lines)
