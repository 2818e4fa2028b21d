"""Shared pieces of the CLI: output formats, precision option, JSON encoding, output-file
and resource checks made before any work starts.

Light to import (no numpy, mpmath or sympy at module level), like every sub-command
module's registration: ``freege --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from freege.params import MAX_DPS

FORMATS = ("text", "json")


def add_format_option(parser: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    parser.add_argument(
        "--format", choices=formats, default="text", help="output format (default: text)"
    )


def dps_value(text: str) -> int:
    """Parse ``--dps``: an integer in [15, MAX_DPS] (argparse type; bad input is one line,
    exit 2). The cap keeps a typo like ``--dps 100000`` from running for hours."""
    message = f"dps must be an integer in [15, {MAX_DPS}] (got {text!r})"
    try:
        dps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(message) from None
    if not 15 <= dps <= MAX_DPS:
        raise argparse.ArgumentTypeError(message)
    return dps


def add_dps_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dps", type=dps_value, default=None,
        help=f"decimal digits of working precision (15 to {MAX_DPS}); without it numbers "
        "are float64",
    )


def check_plot_target(path: str, option: str = "--plot") -> Path:
    """Check a figure target before any work: :func:`freege.plotting.check_target` (the
    extension, matplotlib, an existing folder, not a folder itself), then writability,
    probed by creating the file and removing it at once (permission bits do not bind root,
    and a folder like /proc refuses files whatever they say) -- so neither a failure after
    the work nor a partial file is possible. ValueError (one line) otherwise."""
    from freege import plotting

    target = plotting.check_target(path)
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{option} {path!r} cannot be written ({reason.lower()})") from None
    if not existed:
        os.unlink(target)
    return target


def jsonable(value: Any, dps: int | None = None) -> Any:
    """Convert library values to JSON: mpmath numbers become strings with ``dps``
    significant digits (or floats without ``dps``); fractions and numpy scalars become
    floats; containers are converted recursively."""
    import mpmath
    import numpy as np

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


def run_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The inputs of a run as resolved by the parser: the command and every option's value,
    defaults filled in (the handler ``func`` left out)."""
    return {key: value for key, value in vars(args).items() if key != "func"}


def emit(data: dict, args: argparse.Namespace, render_text: Callable[[dict], str],
         dps: int | None = None) -> None:
    """Write ``data`` to stdout in ``args.format``: the text ``render_text`` makes of it,
    or JSON. Every JSON output starts with ``freege_version`` and ``inputs``
    (:func:`run_inputs`), so a saved result says what made it."""
    if args.format == "json":
        from freege import __version__

        record = {"freege_version": __version__, "inputs": run_inputs(args), **data}
        json.dump(jsonable(record, dps), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(data).rstrip("\n") + "\n")
