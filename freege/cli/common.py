"""Shared pieces of the CLI: output formats, precision option, JSON encoding."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

FORMATS = ("text", "json")


def add_format_option(parser: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    parser.add_argument(
        "--format", choices=formats, default="text", help="output format (default: text)"
    )


def dps_value(text: str) -> int:
    """Parse ``--dps``: an integer >= 15 (argparse type; bad input is one line, exit 2)."""
    try:
        dps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"dps must be an integer >= 15 (got {text!r})") from None
    if dps < 15:
        raise argparse.ArgumentTypeError(f"dps must be an integer >= 15 (got {text!r})")
    return dps


def add_dps_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dps", type=dps_value, default=None,
        help="decimal digits of working precision (>= 15); without it numbers are float64",
    )


def jsonable(value: Any, dps: int | None = None) -> Any:
    """Convert library values to JSON: mpmath numbers become strings with ``dps``
    significant digits (or floats without ``dps``); fractions and numpy scalars become
    floats; containers are converted recursively."""
    if isinstance(value, dict):
        return {str(k): jsonable(v, dps) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, dps) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v, dps) for v in value.tolist()]
    if isinstance(value, mpmath.mpf):
        return mpmath.nstr(value, dps, strip_zeros=False) if dps else float(value)
    if isinstance(value, bool | str | int | None):
        return value
    if isinstance(value, Fraction | np.floating | np.integer | float):
        return float(value)
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def emit(data: dict, fmt: str, render_text: Callable[[dict], str], dps: int | None = None) -> None:
    """Write ``data`` to stdout as JSON or as the text ``render_text`` makes of it."""
    if fmt == "json":
        json.dump(jsonable(data, dps), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(data).rstrip("\n") + "\n")
