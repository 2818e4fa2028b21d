"""``python -m derivations [--check] [NAME ...]``: regenerate the derivation documents, or
with ``--check`` exit 1 listing the stale ones (see :mod:`derivations`)."""

from __future__ import annotations

import argparse
import sys

from derivations import DOCUMENTS, stale, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m derivations", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"documents to process (default: all of {', '.join(DOCUMENTS)})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a committed document is stale")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(DOCUMENTS))
    if unknown:
        parser.error(f"unknown document(s) {', '.join(unknown)}; known: {', '.join(DOCUMENTS)}")
    names = tuple(args.names) or DOCUMENTS
    if args.check:
        old = stale(names)
        for name in old:
            print(f"stale: derivations/{name}.md (run python -m derivations)", file=sys.stderr)
        return 1 if old else 0
    for path in write(names):
        print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
