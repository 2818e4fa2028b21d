"""One verdict per panel of the paper reproduction, and an overall line (theory §6.4).

The paper's claim for each measured panel is that the limit lies within the measured 95%
intervals. A panel's verdict tests that claim on this run: its *checks* are

- every row with a theory value and a 95% interval: the limit must lie in the interval;
- at S = 1 only (the paper's dimensions), every value the paper states with a row's
  ``paper_checks`` (``name``, ``freege``, ``half_width``, ``paper`` and the paper's
  ``paper_half_width``, or None when the paper states none, taken as freege's: the same
  protocol with the same draws): the two must differ by at most
  ``sqrt(half_width^2 + paper_half_width^2)``, the 95% half-width of a difference of two
  independent estimates.

Each check fails with probability 5% when the claim holds, so some misses are expected in
a panel of many rows. The panel *agrees* when its misses are at most
:func:`allowed_misses` -- the largest count a Binomial(checks, 5%) exceeds with probability
at most :data:`FAMILY_LEVEL` (rows of one panel share draws, so this is an
approximation) -- and *differs* otherwise. Either way the verdict says by how much: the
worst check (its relative difference and how many half-widths it lies from its interval)
and the panel's largest relative difference beside the paper's. A panel with no check
(theory only, a single draw without intervals, or the paper's values at S > 1) has no
verdict, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from freege.validation.paper import stats as st

AGREES, DIFFERS, NONE = "agrees", "differs", "no verdict"
#: the chance that a panel whose claim holds is called ``differs``, at most: the level of
#: every interval, so that a panel of one check is judged by its one interval
FAMILY_LEVEL = 1 - st.LEVEL
#: relative slack of the tail comparison (``1 - 0.95`` is not 0.05 in binary)
_ROUNDING = 1e-9


def allowed_misses(checks: int, level: float = st.LEVEL, family: float = FAMILY_LEVEL) -> int:
    """The misses ``checks`` independent ``level`` intervals may have when every one is
    right: the smallest ``m`` with ``P(Binomial(checks, 1 - level) > m) <= family``."""
    if checks < 0:
        raise ValueError(f"checks must be >= 0 (got {checks})")
    p = 1.0 - level
    for m in range(checks + 1):
        tail = sum(math.comb(checks, k) * p**k * (1 - p) ** (checks - k)
                   for k in range(m + 1, checks + 1))
        if tail <= family * (1 + _ROUNDING):
            return m
    return checks


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _label(row: Mapping[str, Any], columns: list[str]) -> str:
    """Where a row sits: its columns, less the measured ones (2(d)'s ``error_...``)."""
    return ", ".join(f"{c} = {row[c]:g}" if _number(row[c]) else f"{c} = {row[c]}"
                     for c in columns if c in row and not c.startswith("error"))


def _check(label: str, measured: float, reference: float, low: float, high: float,
           what: str) -> dict[str, Any]:
    """One check: ``reference`` against the interval ``[low, high]`` about ``measured``;
    ``gap`` is the distance from ``measured`` to ``reference`` in half-widths on
    ``reference``'s side (above 1: outside)."""
    half = (high - measured) if reference >= measured else (measured - low)
    gap = abs(reference - measured) / half if half > 0 else (
        0.0 if reference == measured else math.inf)
    return {"label": label, "what": what, "measured": measured, "reference": reference,
            "low": low, "high": high, "gap": gap, "inside": low <= reference <= high,
            "relative_difference": (measured - reference) / reference if reference
            else math.nan}


def checks(part: Mapping[str, Any], scale: float) -> list[dict[str, Any]]:
    """The checks of a panel's report part (the module docstring); rows repeated with
    the same numbers (one measurement listed under two paths) count once."""
    out, seen = [], set()
    columns = part.get("columns", [])
    for row in part.get("rows", []):
        values = [row.get(k) for k in ("measured", "theory", "low", "high")]
        if all(_number(v) for v in values) and tuple(values) not in seen:
            seen.add(tuple(values))
            measured, theory, low, high = values
            out.append(_check(_label(row, columns), measured, theory, low, high, "limit"))
        if scale != 1:
            continue
        for pc in row.get("paper_checks", []):
            if not all(_number(pc.get(k)) for k in ("freege", "half_width", "paper")):
                continue
            other = pc.get("paper_half_width")
            half = math.hypot(pc["half_width"], other if _number(other) else pc["half_width"])
            out.append(_check(f"{_label(row, columns)}, {pc['name']}", pc["freege"],
                              pc["paper"], pc["freege"] - half, pc["freege"] + half,
                              "paper"))
    return out


def _paper_line(part: Mapping[str, Any]) -> str:
    """The panel's first "largest ..." statistic beside the paper's value, if stated."""
    for s in part.get("statistics", []):
        if s["statistic"].startswith("largest") and s.get("paper") is not None:
            value = f"{s['freege']:.3g}" if _number(s["freege"]) else str(s["freege"])
            return f"; {s['statistic']}: {value} (paper: {s['paper']})"
    return ""


def _worst(c: dict[str, Any]) -> str:
    ref = "the limit" if c["what"] == "limit" else "the paper"
    rel = c["relative_difference"]
    rel_text = f", {100 * rel:+.3g} %" if _number(rel) else ""
    where = "inside" if c["inside"] else "outside"
    return (f"worst {c['label']}: measured {c['measured']:.5g} vs {ref} {c['reference']:.5g}"
            f"{rel_text}, {c['gap']:.2g} half-widths from the estimate ({where} its "
            "interval)")


def panel(part: Mapping[str, Any], scale: float, measured: bool) -> dict[str, Any]:
    """The verdict of one panel's report part at scale ``scale``: ``verdict`` (agrees,
    differs, no verdict), the counts, the worst check, and ``line``, the sentence."""
    if not measured:
        return {"verdict": NONE, "checks": 0, "misses": 0, "allowed": 0,
                "line": "no verdict: theory only (nothing measured)"}
    cs = checks(part, scale)
    if not cs:
        if not part.get("rows"):
            why = "no configuration finished two draws"
        elif any("paper_checks" in r for r in part["rows"]):
            why = (f"the paper's values are at S = 1, this run is at S = {scale:g} (compare "
                   "them at --scale 1)")
        else:
            why = "no 95% interval to test (one draw)"
        return {"verdict": NONE, "checks": 0, "misses": 0, "allowed": 0,
                "line": f"no verdict: {why}"}
    misses = sum(not c["inside"] for c in cs)
    allowed = allowed_misses(len(cs))
    worst = max(cs, key=lambda c: c["gap"])
    against = ("the limit" if all(c["what"] == "limit" for c in cs) else
               "the paper's values" if all(c["what"] == "paper" for c in cs) else
               "the limit or the paper's value")
    verdict = AGREES if misses <= allowed else DIFFERS
    if verdict == AGREES:
        head = (f"agrees with the paper within the intervals: {against} inside "
                f"{len(cs) - misses} of {len(cs)} 95% intervals (up to {allowed} "
                f"outside expected by chance at the {FAMILY_LEVEL:.2g} level)")
    else:
        head = (f"differs from the paper: {against} outside {misses} of {len(cs)} 95% "
                f"intervals (chance allows {allowed} at the {FAMILY_LEVEL:.2g} level)")
    return {"verdict": verdict, "checks": len(cs), "misses": misses, "allowed": allowed,
            "worst": worst, "line": f"{head}; {_worst(worst)}{_paper_line(part)}"}


def overall(verdicts: Mapping[str, Mapping[str, Any]], scale: float) -> str:
    """The overall line over the panels' verdicts (name -> :func:`panel`'s result)."""
    judged = {n: v for n, v in verdicts.items() if v["verdict"] != NONE}
    differ = [n for n, v in judged.items() if v["verdict"] == DIFFERS]
    none = [n for n, v in verdicts.items() if v["verdict"] == NONE]
    if not judged:
        text = "no panel has a verdict"
    elif differ:
        text = (f"differs from the paper in {len(differ)} of {len(judged)} panels with a "
                f"verdict ({', '.join(differ)})")
    else:
        which = "the one panel" if len(judged) == 1 else f"all {len(judged)} panels"
        text = f"agrees with the paper in {which} with a verdict"
    if none:
        text += f"; no verdict: {', '.join(none)}"
    if scale != 1:
        text += (f"; at S = {scale:g} the measurements carry finite-size bias the paper's "
                 "S = 1 runs do not")
    return f"overall: {text}"
