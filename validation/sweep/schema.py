"""The schema of a sweep store's payloads (theory §6.1), checked on every read.

A line's checksum catches accidents, not a record rewritten with a recomputed checksum,
so every payload is also checked here -- for its shape and for plausibility -- before
anything uses it:

* the header (:func:`check_header`): ``identity`` with the grid ``points`` (at most
  :data:`freege.params.MAX_POINTS`, each a valid
  :class:`freege.validation.sweep.grid.Point`, no key twice), ``draws`` (an integer in
  [1, :data:`freege.params.MAX_DRAWS`], points x draws at most
  :data:`freege.params.MAX_TASKS`: no more than ``freege sweep`` itself accepts),
  ``seed`` (an integer >= 0), ``backend`` and ``dtype`` (names), and ``theory``:
  ``[m1, m2]`` of every point, finite and > 0, and equal to a fresh derivation
  (:func:`freege.validation.sampling.limits.limiting_moments`, theory §4) within
  :data:`THEORY_RTOL`. A bad header makes the whole store unusable: a ValueError (one
  line).
* a draw record (:func:`record_problem`): ``type: "draw"``; ``point`` one of the header's
  point keys; ``draw`` an integer in ``[0, draws)``; ``status`` ``"ok"`` with ``w1``,
  ``rel_w1``, ``ks``, ``moments`` (``softmax`` and ``ge``, each ``[m1, m2]``),
  ``seconds`` (finite, >= 0) and ``peak_bytes`` (an integer in [0, 2^64) -- a byte
  count of a 64-bit address space -- or null), and ``floor`` (the noise floor's
  ``rel_w1`` >= 0 and ``ks`` in [0, 1]; absent from stores written before it was
  recorded); or ``status`` ``"failed"`` with an
  ``error`` string. Numbers must be finite JSON numbers (not strings, not booleans);
  other keys are ignored. A record that breaks the schema is reported (its line) and
  left out of everything.

The ranges of an ``ok`` record's metrics follow from what the metrics are (theory §3,
§6.1), for two real spectra ``a``, ``b`` of one size computed in floating point, with
``m_q = mean(x^q)`` evaluated in float64:

* moments: ``m1 >= 0`` and ``m2 >= 0`` (Gram spectra), and ``m1 <= sqrt(m2)`` (Jensen:
  ``mean(x)^2 <= mean(x^2)``). A finite ``m2`` also bounds every eigenvalue by
  ``sqrt(max float64)`` ~ 1.3e154, hence so is ``m1``: no moment is absurdly large
  without being caught by these two.
* ``ks`` in [0, 1]: a difference of two distribution functions.
* ``w1 = mean_i |a_(i) - b_(i)|``: ``|m1(a) - m1(b)| <= w1`` (``x -> x`` is
  1-Lipschitz, Kantorovich-Rubinstein) and ``w1 <= mean|a| + mean|b| <= sqrt(m2(a)) +
  sqrt(m2(b))`` (triangle, then Cauchy-Schwarz) -- so w1 is bounded by the record's own
  spectra, whatever their sign.
* ``rel_w1 = w1 / m1`` of the header's theory for the point: one correctly rounded
  division, so it must agree with the division redone here to :data:`REL_W1_RTOL`.

Each comparison of computed means allows the relative slack :data:`SUM_RTOL`: NumPy's
pairwise summation of ``N`` non-negative terms errs by at most about ``(log2 N + 16) u``
(``u = 2^-53``), under 64 u for any spectrum that fits in memory; the slack is 64 times
that.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from freege.params import MAX_DRAWS, MAX_POINTS, MAX_TASKS

MODELS = ("softmax", "ge")
#: relative slack of every comparison between computed means (module docstring)
SUM_RTOL = 2.0**-41
#: relative agreement of a stored ``rel_w1`` with ``w1 / m1``: the stored value and the
#: one redone here are each one correctly rounded division, within u = 2^-53 of the exact
#: quotient, so at most 2u apart; 4u is allowed
REL_W1_RTOL = 2.0**-51
#: relative agreement of a header's limiting moments with a fresh derivation: the same
#: code reproduces them bit for bit; 2^-30 ~ 9e-10 leaves room for a closed form printed
#: in another order (tens of float64 operations, a few u each times their conditioning),
#: while any change of the theory itself (a doubled m1, another case) is of order 1
THEORY_RTOL = 2.0**-30
#: a byte count fits a 64-bit address space
MAX_BYTES = 2**64


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
    """Why ``moments`` are not ``[m1, m2]`` per model with ``0 <= m1 <= sqrt(m2)``."""
    if not isinstance(moments, dict):
        return f"moments must be an object with {' and '.join(MODELS)} (got {_shown(moments)})"
    for model in MODELS:
        values = moments.get(model)
        if (not isinstance(values, list) or len(values) != 2
                or not all(_is_number(v) and v >= 0 for v in values)):
            return f"moments.{model} must be [m1, m2], finite and >= 0 (got {_shown(values)})"
        if values[0] > math.sqrt(values[1]) * (1 + SUM_RTOL):
            return (f"moments.{model} has m1 > sqrt(m2), which no spectrum has "
                    f"(got {_shown(values)})")
    return None


def _distance_problem(record: dict[str, Any], limit_m1: float) -> str | None:
    """Why ``w1`` and ``rel_w1`` are not what the record's spectra can give (module
    docstring; the moments already checked)."""
    w1, rel = record["w1"], record["rel_w1"]
    (s1, s2), (g1, g2) = (record["moments"][model] for model in MODELS)
    high = math.sqrt(s2) + math.sqrt(g2)
    if w1 > high * (1 + SUM_RTOL):
        return (f"w1 = {w1:.6g} exceeds sqrt(m2) of softmax plus GE ({high:.6g}), "
                "the most two such spectra can be apart")
    if abs(s1 - g1) > w1 + SUM_RTOL * (s1 + g1 + w1):
        return f"w1 = {w1:.6g} is below |m1(softmax) - m1(GE)| = {abs(s1 - g1):.6g}"
    expected = w1 / limit_m1
    if abs(rel - expected) > REL_W1_RTOL * expected:
        return (f"rel_w1 = {rel:.17g} is not w1 / limit m1 = {expected:.17g} "
                "(to float64 rounding)")
    return None


def record_problem(record: dict[str, Any], theory: dict[str, list[float]],
                   draws: int) -> str | None:
    """Why ``record`` is not a plausible draw record of the sweep whose limiting moments by
    point key are ``theory`` and whose draws per point are ``draws`` (module docstring);
    None when it is one."""
    if record.get("type") != "draw":
        return f"unknown record type {_shown(record.get('type'))}"
    point, draw = record.get("point"), record.get("draw")
    if "point" not in record:
        return "missing point"
    if not isinstance(point, str) or point not in theory:
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
    if peak is not None and not (_is_int(peak) and 0 <= peak < MAX_BYTES):
        return f"peak_bytes must be an integer in [0, 2^64) or null (got {_shown(peak)})"
    return (_floor_problem(record) or _moments_problem(record.get("moments"))
            or _distance_problem(record, theory[point][0]))


def _floor_problem(record: dict[str, Any]) -> str | None:
    """Why an ``ok`` record's optional ``floor`` is not ``{"rel_w1" >= 0, "ks" in [0, 1]}``
    (None when it is, or when it is absent)."""
    if "floor" not in record:
        return None
    floor = record["floor"]
    if not isinstance(floor, dict):
        return f"floor must be an object with rel_w1 and ks (got {_shown(floor)})"
    for key, high in (("rel_w1", None), ("ks", 1.0)):
        problem = _number_problem(floor, key, high)
        if problem:
            return f"floor: {problem}"
    return None


def _theory_problem(points: list[Any], theory: dict[str, Any]) -> str | None:
    """Why ``theory`` is not ``[m1, m2]`` of each of ``points`` (grid points), finite,
    > 0 and equal to a fresh derivation within :data:`THEORY_RTOL`."""
    from freege.validation.sampling.limits import limiting_moments

    for p in points:
        values = theory.get(p.key)
        if (not isinstance(values, list) or len(values) != 2
                or not all(_is_number(v) and v > 0 for v in values)):
            return f"theory of point {p.key} must be [m1, m2], finite and > 0 (got " \
                   f"{_shown(values)})"
        fresh = limiting_moments(p.case, p.dims, 2)
        if any(abs(v - f) > THEORY_RTOL * f for v, f in zip(values, fresh, strict=True)):
            return (f"theory of point {p.key} is {_shown(values)}, not its theory §4 limits "
                    f"[{fresh[0]:.17g}, {fresh[1]:.17g}]")
    return None


def check_header(header: dict[str, Any], source: str) -> dict[str, list[float]]:
    """The limiting moments by point key of a valid store header; a ValueError naming
    ``source`` otherwise."""
    from freege.validation.sweep.grid import Point

    def bad(why: str) -> ValueError:
        return ValueError(f"{source} has a malformed header ({why}); not a usable sweep store")

    identity, theory = header.get("identity"), header.get("theory")
    if not isinstance(identity, dict) or not isinstance(theory, dict):
        raise bad("no identity or theory")
    points = identity.get("points")
    if not isinstance(points, list) or not points:
        raise bad("no grid points")
    if len(points) > MAX_POINTS:
        raise bad(f"{len(points)} grid points, a sweep holds at most {MAX_POINTS}")
    draws, seed = identity.get("draws"), identity.get("seed")
    if not _is_int(draws) or not 1 <= draws <= MAX_DRAWS:
        raise bad(f"draws must be an integer in [1, {MAX_DRAWS}] (got {_shown(draws)})")
    if len(points) * draws > MAX_TASKS:
        raise bad(f"{len(points)} points x {draws} draws = {len(points) * draws} tasks, a "
                  f"sweep holds at most {MAX_TASKS}")
    if not _is_int(seed) or seed < 0:
        raise bad(f"seed must be an integer >= 0 (got {_shown(seed)})")
    if not isinstance(identity.get("backend"), str):
        raise bad(f"backend must be a name (got {_shown(identity.get('backend'))})")
    if not isinstance(identity.get("dtype", "float64"), str):  # older stores have none
        raise bad(f"dtype must be a name (got {_shown(identity.get('dtype'))})")
    parsed = []
    for pd in points:
        try:
            parsed.append(Point.from_dict(pd))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise bad(f"grid point {_shown(pd)} is not valid") from None
    if len({p.key for p in parsed}) < len(parsed):
        raise bad("a grid point is listed twice")
    problem = _theory_problem(parsed, theory)
    if problem:
        raise bad(problem)
    return {p.key: theory[p.key] for p in parsed}


@dataclass(frozen=True)
class Schema:
    """How the payloads of one kind of store are checked on every read:
    ``header(payload, source)`` returns what the record check needs (a ValueError naming
    ``source`` refuses the store), ``record(payload, context)`` says why a record is bad
    (None when it is good). The store's own checks (checksum, header first, a repeated
    finished draw) come on top."""

    header: Callable[[dict[str, Any], str], Any]
    record: Callable[[dict[str, Any], Any], str | None]


def _sweep_header(header: dict[str, Any], source: str
                  ) -> tuple[dict[str, list[float]], int]:
    return check_header(header, source), header["identity"]["draws"]


#: the schema of ``freege sweep`` stores (this module's docstring)
SWEEP = Schema(_sweep_header, lambda record, context: record_problem(record, *context))


#: the ranges (module docstring) of the metrics that measurement tables name as the sweep
#: does (``freege chain``, the paper run): KS in [0, 1], distances and times >= 0
NAMED_RANGES: dict[str, float | None] = {"ks": 1.0, "w1": None, "rel_w1": None,
                                         "seconds": None}


def finite_tree_problem(value: object, where: str = "record", depth: int = 0) -> str | None:
    """Why ``value`` is not a tree of string-keyed objects and lists (at most 8 deep) whose
    leaves are finite JSON numbers, those under a key of :data:`NAMED_RANGES` in its
    range; None when it is one. For stores whose records are measurement tables
    (``freege chain``, the paper run)."""
    if depth > 8:
        return f"{where} is nested too deeply"
    if isinstance(value, dict):
        for key, item in value.items():
            if key in NAMED_RANGES and not isinstance(item, dict | list):
                problem = _number_problem(value, key, NAMED_RANGES[key])
                problem = problem and f"{where}.{problem}"
            else:
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
