"""``python -m freege.derivations [--check] [NAME ...]``: regenerate the derivation documents, or
with ``--check`` exit 1 listing the stale ones (see :mod:`derivations`)."""

from __future__ import annotations

import argparse
import sys

from freege.derivations import DOCUMENTS, stale, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m freege.derivations", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"documents to process (default: all of {', '.join(DOCUMENTS)})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a committed document is stale")
    args = parser.parse_args(argv)
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
            print(f"wrote {write((name,))[0].name}")
        elif stale((name,)):
            old.append(name)
            print(f"stale: derivations/{name}.md (run python -m freege.derivations)",
                  file=sys.stderr)
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
