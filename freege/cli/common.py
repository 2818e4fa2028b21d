"""Shared pieces of the CLI: JSON encoding and output (:func:`emit`), and the output-file
check made before any work starts. The shared options are in :mod:`freege.cli.options`.

Light to import (no numpy, mpmath or sympy at module level), like every sub-command
module's registration: ``freege --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any


def check_plot_target(path: str, option: str = "--plot") -> Path:
    """Check a figure target before any work: :func:`freege.plotting.check_target` (the
    extension, matplotlib, an existing folder of yours, not a folder itself), then
    writability, probed by creating a temporary file of a random name beside it and
    removing it at once (:func:`freege.safe_files.probe`: permission bits do not bind
    root, and a folder like /proc refuses files whatever they say; the target itself, or
    a link planted at its name, is never opened) -- so neither a failure after the work
    nor a partial file is possible. ValueError (one line) otherwise."""
    from freege import plotting, safe_files

    target = plotting.check_target(path)
    safe_files.probe(target, option)
    return target


#: how JSON output spells a number that is not finite: strict JSON has no NaN or
#: Infinity, so they are these strings (which ``float()`` reads back), never bare tokens
NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _finite_or_text(x: float) -> float | str:
    """``x``, or its :data:`NON_FINITE` string."""
    return x if math.isfinite(x) else NON_FINITE[repr(x)]


def jsonable(value: Any, dps: int | None = None) -> Any:
    """Convert library values to strict JSON: mpmath numbers become strings with ``dps``
    significant digits (or floats without ``dps``); fractions and numpy scalars become
    floats; a NaN or infinity becomes the string ``"NaN"``, ``"Infinity"`` or
    ``"-Infinity"`` (:data:`NON_FINITE`); containers are converted recursively."""
    import mpmath
    import numpy as np

    if isinstance(value, dict):
        return {str(k): jsonable(v, dps) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, dps) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v, dps) for v in value.tolist()]
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            return _finite_or_text(float(value))
        return mpmath.nstr(value, dps, strip_zeros=False) if dps else float(value)
    if isinstance(value, bool | str | int | None):
        return value
    if isinstance(value, Fraction | np.integer):
        return float(value)
    if isinstance(value, np.floating | float):
        return _finite_or_text(float(value))
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def run_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The inputs of a run as resolved by the parser: the command and every option's value,
    defaults filled in (the handler ``func`` left out)."""
    return {key: value for key, value in vars(args).items() if key != "func"}


def emit(data: dict, args: argparse.Namespace, render_text: Callable[[dict], str],
         dps: int | None = None) -> None:
    """Write ``data`` to stdout in ``args.format``: the text ``render_text`` makes of it,
    or strict JSON (no bare NaN/Infinity: :func:`jsonable`). Every JSON output starts with
    ``freege_version`` and ``inputs`` (:func:`run_inputs`), so a saved result says what
    made it."""
    if args.format == "json":
        from freege import __version__

        record = {"freege_version": __version__, "inputs": run_inputs(args), **data}
        json.dump(jsonable(record, dps), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(data).rstrip("\n") + "\n")


def one_line_warnings(action: Callable[[], Any], said: set[str] | None = None) -> Any:
    """Run ``action``; warnings it raises are printed as ``freege: warning:`` lines, each
    once (``said``: lines already printed by an earlier read of the same store)."""
    said = set() if said is None else said
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return action()
        finally:
            for w in caught:
                line = " ".join(str(w.message).split())
                if line not in said:
                    said.add(line)
                    print(f"freege: warning: {line}", file=sys.stderr)
