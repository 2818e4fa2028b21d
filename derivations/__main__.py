"""``python -m freege.derivations [--check] [--out DIR] [NAME ...]``: regenerate the derivation
documents (in a source checkout, or into ``--out DIR``), or with ``--check`` exit 1 listing
the stale ones (see :mod:`derivations`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from freege import derivations as documents
from freege import safe_files
from freege.derivations import DOCUMENTS, in_source_checkout, stale, write

PROG = "python -m freege.derivations"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"documents to process (default: all of {', '.join(DOCUMENTS)})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a committed document is stale")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write the documents into this folder, created when missing "
                        "(its parent must exist; a link is refused; needed outside a source "
                        "checkout)")
    args = parser.parse_args(argv)
    out = None if args.out is None else Path(args.out)
    if args.check and out is not None:
        return _refuse("--check compares the committed documents; it takes no --out")
    if not args.check and out is not None:
        try:
            out = _out_folder(out)
        except ValueError as exc:
            return _refuse(str(exc))
    if not args.check and out is None and not in_source_checkout():
        return _refuse(f"{documents.FOLDER} is an installed copy, not a source checkout; "
                       "run it from a clone of the repository, or give --out DIR")
    unknown = sorted(set(args.names) - set(DOCUMENTS))
    if unknown:
        parser.error(f"unknown document(s) {', '.join(unknown)}; known: {', '.join(DOCUMENTS)}")
    names = tuple(args.names) or DOCUMENTS
    old = []
    for number, name in enumerate(names, 1):
        # progress on stderr, one line per document: a cold derivation takes a while
        verb = "checking" if args.check else "deriving"
        print(f"[{number}/{len(names)}] {verb} derivations/{name}.md", file=sys.stderr,
              flush=True)
        if not args.check:
            try:
                print(f"wrote {write((name,), out)[0]}")
            except ValueError as exc:  # a folder refused (safe_files): one line
                return _refuse(str(exc))
        elif stale((name,)):
            old.append(name)
            print(f"stale: derivations/{name}.md (run python -m freege.derivations)",
                  file=sys.stderr)
    if args.check:  # the result, on stdout: what a script or a reader looks for
        print(f"derivations: {len(old)} of {len(names)} document(s) stale: {', '.join(old)}"
              if old else f"derivations: all {len(names)} document(s) up to date")
    return 1 if old else 0


def _out_folder(out: Path) -> Path:
    """``--out``: the folder, created when missing (mode 0755 less the umask, its parent
    checked) by :func:`freege.safe_files.make_folder`; a link (to a folder or not) or a
    folder another user may write is refused, a ValueError of one line."""
    if out.is_symlink():
        raise ValueError(f"--out {str(out)!r} is a link: refused (name the folder itself)")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is not a folder")
    return safe_files.make_folder(out, "--out")


def _refuse(message: str) -> int:
    """Bad input: one line on stderr, exit 2, nothing written."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
