"""The schema of a sweep store's payloads (theory §6.1), checked on every read.

A line's checksum catches accidents, not a record rewritten with a recomputed checksum,
so every payload is also checked here before anything uses it:

* the header (:func:`check_header`): ``identity`` with the grid ``points`` (each a valid
  :class:`freege.validation.sweep.grid.Point`), ``draws`` (an integer in
  [1, :data:`freege.params.MAX_DRAWS`]), ``seed`` (an integer >= 0), ``backend`` and
  ``dtype`` (names), and ``theory``: ``[m1, m2]`` of every point, finite and > 0. A bad
  header makes the whole store unusable: a ValueError (one line).
* a draw record (:func:`record_problem`): ``type: "draw"``; ``point`` one of the header's
  point keys; ``draw`` an integer in ``[0, draws)``; ``status`` ``"ok"`` with ``w1``,
  ``rel_w1`` (finite, >= 0), ``ks`` (in [0, 1]), ``moments`` (``softmax`` and ``ge``,
  each ``[m1, m2]`` finite and >= 0), ``seconds`` (finite, >= 0) and ``peak_bytes``
  (an integer >= 0 or null); or ``status`` ``"failed"`` with an ``error`` string.
  Numbers must be JSON numbers (not strings, not booleans); other keys are ignored.
  A record that breaks the schema is reported (its line) and left out of everything.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from freege.params import MAX_DRAWS

MODELS = ("softmax", "ge")


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _shown(x: object) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _number_problem(record: dict[str, Any], key: str, high: float | None = None) -> str | None:
    """Why ``record[key]`` is not a finite number in ``[0, high]`` (None when it is)."""
    if key not in record:
        return f"missing {key}"
    x = record[key]
    if not _is_number(x):
        return f"{key} must be a finite number (got {_shown(x)})"
    if x < 0 or (high is not None and x > high):
        where = ">= 0" if high is None else f"in [0, {high:g}]"
        return f"{key} must be {where} (got {_shown(x)})"
    return None


def _moments_problem(moments: object) -> str | None:
    if not isinstance(moments, dict):
        return f"moments must be an object with {' and '.join(MODELS)} (got {_shown(moments)})"
    for model in MODELS:
        values = moments.get(model)
        if (not isinstance(values, list) or len(values) != 2
                or not all(_is_number(v) and v >= 0 for v in values)):
            return f"moments.{model} must be [m1, m2], finite and >= 0 (got {_shown(values)})"
    return None


def record_problem(record: dict[str, Any], points: frozenset[str], draws: int) -> str | None:
    """Why ``record`` is not a draw record of the sweep whose point keys are ``points``
    and whose draws per point are ``draws`` (module docstring); None when it is one."""
    if record.get("type") != "draw":
        return f"unknown record type {_shown(record.get('type'))}"
    point, draw = record.get("point"), record.get("draw")
    if "point" not in record:
        return "missing point"
    if not isinstance(point, str) or point not in points:
        return f"point {_shown(point)} is not a point of this sweep"
    if "draw" not in record:
        return "missing draw"
    if not _is_int(draw) or not 0 <= draw < draws:
        return f"draw must be an integer in [0, {draws - 1}] (got {_shown(draw)})"
    status = record.get("status")
    if status == "failed":
        error = record.get("error")
        return None if isinstance(error, str) else f"error must be text (got {_shown(error)})"
    if status != "ok":
        return f"status must be ok or failed (got {_shown(status)})"
    for key, high in (("w1", None), ("rel_w1", None), ("ks", 1.0), ("seconds", None)):
        problem = _number_problem(record, key, high)
        if problem:
            return problem
    peak = record.get("peak_bytes")
    if peak is not None and not (_is_int(peak) and peak >= 0):
        return f"peak_bytes must be an integer >= 0 or null (got {_shown(peak)})"
    return _moments_problem(record.get("moments"))


def check_header(header: dict[str, Any], source: str) -> frozenset[str]:
    """The point keys of a valid store header; a ValueError naming ``source`` otherwise."""
    from freege.validation.sweep.grid import Point

    def bad(why: str) -> ValueError:
        return ValueError(f"{source} has a malformed header ({why}); not a usable sweep store")

    identity, theory = header.get("identity"), header.get("theory")
    if not isinstance(identity, dict) or not isinstance(theory, dict):
        raise bad("no identity or theory")
    points = identity.get("points")
    if not isinstance(points, list) or not points:
        raise bad("no grid points")
    keys = []
    for pd in points:
        try:
            keys.append(Point.from_dict(pd).key)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise bad(f"grid point {_shown(pd)} is not valid") from None
    draws, seed = identity.get("draws"), identity.get("seed")
    if not _is_int(draws) or not 1 <= draws <= MAX_DRAWS:
        raise bad(f"draws must be an integer in [1, {MAX_DRAWS}] (got {_shown(draws)})")
    if not _is_int(seed) or seed < 0:
        raise bad(f"seed must be an integer >= 0 (got {_shown(seed)})")
    if not isinstance(identity.get("backend"), str):
        raise bad(f"backend must be a name (got {_shown(identity.get('backend'))})")
    if not isinstance(identity.get("dtype", "float64"), str):  # older stores have none
        raise bad(f"dtype must be a name (got {_shown(identity.get('dtype'))})")
    for key in keys:
        values = theory.get(key)
        if (not isinstance(values, list) or len(values) != 2
                or not all(_is_number(v) and v > 0 for v in values)):
            raise bad(f"theory of point {key} must be [m1, m2], finite and > 0 "
                      f"(got {_shown(values)})")
    return frozenset(keys)


@dataclass(frozen=True)
class Schema:
    """How the payloads of one kind of store are checked on every read:
    ``header(payload, source)`` returns what the record check needs (a ValueError naming
    ``source`` refuses the store), ``record(payload, context)`` says why a record is bad
    (None when it is good). The store's own checks (checksum, header first, a repeated
    finished draw) come on top."""

    header: Callable[[dict[str, Any], str], Any]
    record: Callable[[dict[str, Any], Any], str | None]


def _sweep_header(header: dict[str, Any], source: str) -> tuple[frozenset[str], int]:
    return check_header(header, source), header["identity"]["draws"]


#: the schema of ``freege sweep`` stores (this module's docstring)
SWEEP = Schema(_sweep_header, lambda record, context: record_problem(record, *context))


def finite_tree_problem(value: object, where: str = "record", depth: int = 0) -> str | None:
    """Why ``value`` is not a tree of string-keyed objects and lists (at most 8 deep) whose
    leaves are finite JSON numbers; None when it is one. For stores whose records are
    measurement tables (``freege chain``)."""
    if depth > 8:
        return f"{where} is nested too deeply"
    if isinstance(value, dict):
        for key, item in value.items():
            problem = finite_tree_problem(item, f"{where}.{key}", depth + 1)
            if problem:
                return problem
        return None
    if isinstance(value, list):
        for k, item in enumerate(value):
            problem = finite_tree_problem(item, f"{where}[{k}]", depth + 1)
            if problem:
                return problem
        return None
    return None if _is_number(value) else f"{where} must be a finite number (got {_shown(value)})"
