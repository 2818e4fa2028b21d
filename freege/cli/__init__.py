"""The ``freege`` command line: one sub-command module per job.

Every sub-command module exposes ``register(subparsers)``, which adds its parser(s)
and sets ``func`` (``args -> int``) as the handler. Bad input -- an argparse error or
a :class:`ValueError` from the library -- and a computation that cannot be verified (an
:class:`ArithmeticError`, e.g. :class:`freege.errors.ConvergenceError`) print one line
on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

#: sub-command modules under ``freege.cli``, in the order ``--help`` lists them
COMMAND_MODULES: tuple[str, ...] = ("derive", "validate", "law", "readout", "reproduce", "sweep")


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        fail(f"{self.prog}: {message}")


def fail(message: str) -> None:
    """Print ``freege: error: message`` (one line) on stderr and exit 2."""
    line = " ".join(str(message).split())
    print(f"freege: error: {line}", file=sys.stderr)
    raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="freege",
        description="Random-matrix theory of softmax multi-head attention: derive, evaluate, "
        "validate.",
    )
    from freege import __version__
    parser.add_argument("--version", action="version", version=f"freege {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        import_module(f"freege.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except (ValueError, ArithmeticError) as exc:  # bad input, non-convergence, certificate
        fail(str(exc))
    except KeyboardInterrupt:
        print("freege: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
