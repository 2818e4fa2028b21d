"""The verdict of a softmax-vs-GE comparison against its noise floor (theory §6.1, §6.2).

A distance between the softmax and Gaussian-equivalent (GE) spectra is never 0 at finite
n: two GE samples differ too. The *noise floor* is the same distance between two GE
samples built with the same pairing as the comparison (the same weights, fresh GE noise),
so on every draw the distance and its floor are a matched pair. The verdict is a decision
from the paired differences ``delta_i = distance_i - floor_i`` over draws (mean and
Student-t 95% half-width, :func:`freege.validation.sampling.metrics.mean_ci`):

* ``above_floor`` -- the interval of ``delta`` lies above 0: the softmax differs from its
  GE by more than sampling noise explains at this size, by ``delta`` (also given as a
  multiple of the floor). The GE is a statement about n -> infinity, so the next thing
  to try is a larger n: a gap that shrinks toward the floor is a finite-size effect.
* ``consistent`` -- the interval contains 0 or lies below it: no difference beyond the
  noise floor is resolved. The interval's upper end is the largest difference it leaves
  possible; more draws narrow it.
* ``undecided`` -- fewer than two draws, or no spread to estimate (every draw gave the
  same difference up to rounding, :func:`~freege.validation.sampling.metrics.constant`;
  KS moves in steps of 1/n): no interval, no decision; more draws (trials) decide.

Several metrics (relative W1 and KS) are decided together: ``above_floor`` when any of
them is, else ``consistent`` when any of them is (the line names the undecided ones:
KS moves in steps of 1/n and often repeats), else ``undecided``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from freege.validation.sampling.metrics import constant, mean_ci

DECISIONS: tuple[str, ...] = ("consistent", "above_floor", "undecided")


@dataclass(frozen=True)
class Comparison:
    """One metric's paired comparison with its floor: the mean distance, the mean floor,
    and the mean and 95% half-width of their per-draw difference (``ci95`` None when
    undecided); ``decision`` one of :data:`DECISIONS`."""

    metric: str
    distance: float
    floor: float
    difference: float
    ci95: float | None
    draws: int
    decision: str

    def as_dict(self) -> dict[str, object]:
        return {"metric": self.metric, "distance": self.distance, "floor": self.floor,
                "difference": self.difference, "ci95": self.ci95, "draws": self.draws,
                "decision": self.decision}


def compare(metric: str, distance: Sequence[float], floor: Sequence[float]) -> Comparison:
    """Decide ``distance`` (per draw) against its paired ``floor`` (per draw, the same
    draws in the same order; module docstring)."""
    d = np.asarray(distance, dtype=np.float64)
    f = np.asarray(floor, dtype=np.float64)
    if d.shape != f.shape or d.ndim != 1 or d.size == 0:
        raise ValueError(f"distance and floor must be equal-length, non-empty sequences "
                         f"(got {d.size} and {f.size})")
    if not (np.all(np.isfinite(d)) and np.all(np.isfinite(f))):
        raise ValueError("distance and floor must be finite")
    delta = d - f
    mean = float(delta.mean())
    if delta.size < 2 or constant(delta):
        return Comparison(metric, float(d.mean()), float(f.mean()), mean, None, d.size,
                          "undecided")
    _, half = mean_ci(delta)
    decision = "above_floor" if mean - half > 0 else "consistent"
    return Comparison(metric, float(d.mean()), float(f.mean()), mean, half, d.size, decision)


def overall(comparisons: Sequence[Comparison]) -> str:
    """The decision of several metrics together (module docstring)."""
    decisions = {c.decision for c in comparisons}
    if "above_floor" in decisions:
        return "above_floor"
    return "consistent" if "consistent" in decisions else "undecided"


def _times(c: Comparison) -> str:
    """The difference as a multiple of the floor (nothing when the floor is 0)."""
    return f" (distance {c.distance / c.floor:.2g}x its floor)" if c.floor > 0 else ""


def line(comparisons: Sequence[Comparison], *, more: str = "--draws",
         size: str = "n") -> str:
    """The ``verdict:`` line of ``comparisons`` (metric names as printed), with what to
    try next: a larger ``size`` option, more ``more`` (the option that adds draws)."""
    decision = overall(comparisons)
    if decision == "undecided":
        few = min(c.draws for c in comparisons)
        if few < 2:
            return (f"verdict: undecided (one draw gives no interval); rerun with {more} 3 "
                    "or more")
        return ("verdict: undecided (every draw gave the same difference, no spread to "
                f"estimate); rerun with more {more}")
    if decision == "above_floor":
        above = [c for c in comparisons if c.decision == "above_floor"]
        sizes = ", ".join(f"{c.metric} by {c.difference:+.2g} ± {c.ci95:.2g}{_times(c)}"
                          for c in above)
        return (f"verdict: softmax and GE differ above the noise floor at this size: {sizes}; "
                f"the GE is a large-n limit: try a larger {size} (a finite-size gap shrinks "
                f"toward the floor), or more {more} to size the gap more tightly")
    decided = [c for c in comparisons if c.decision == "consistent"]
    widest = max(decided, key=lambda c: c.difference + c.ci95)
    parts = "; ".join(f"{c.metric} {c.difference:+.3g} ± {c.ci95:.2g}" if c.ci95 is not None
                      else f"{c.metric} undecided, no spread" for c in comparisons)
    return (f"verdict: GE consistent with softmax at this size (distance minus floor, per "
            f"draw: {parts}; the 95% interval excludes a gap above "
            f"{max(widest.difference + widest.ci95, 0.0):.2g} in {widest.metric}); more "
            f"{more} resolve smaller gaps, a larger {size} tests the limit")


#: the definition printed beside every verdict
DEFINITION = ("verdict = decision from the per-draw (per-trial) difference distance - floor "
              "(mean ± 95% CI): above the floor when the whole interval is > 0, else "
              "consistent; undecided without an interval")
