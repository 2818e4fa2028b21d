"""Preflight of the sampling commands (``validate``, ``ladder``, ``sweep``; theory §6.1,
§6.2): before any sampling, the memory one sample needs against the memory available,
and the time of the whole run against :data:`CONFIRM_SECONDS`, told to the user.

The announced total is the whole run's CPU time: what the process has already spent (start-up,
imports, the theory computed before sampling: measured, ``time.process_time``), the samples
(estimated) and the modelled work after them (``after``: figures, a cluster's start). The
estimates come from the sampler's cost model,
:mod:`freege.validation.sampling.cost` (a sample's :class:`~freege.validation.sampling.cost.Cost`,
its time at the speeds of this machine and backend -- one CPU core's, in CPU time: free
cores make a run faster than announced, a machine busy with other processes slower; on a
GPU the device's, probed at the run's own size -- and the memory available); this module
decides and words the refusal or the estimate.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import Any

#: a run estimated to take longer than this (seconds) needs ``--yes``
CONFIRM_SECONDS = 3600


def size_text(n_bytes: float) -> str:
    """``n_bytes`` in binary units: ``25 MiB``, ``2.1 PiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:.3g} {unit}"
        n_bytes /= 1024
    raise AssertionError("unreachable")


def duration_text(s: float) -> str:
    """``s`` seconds in the largest sensible unit: ``0.2 s``, ``3.4 min``, ``4.8 years``."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s:.2g} s"


def preflight(cost: Any, count: int, noun: str, backend: Any, confirmed: bool,
              each_means: str | None = None, after: float = 0.0,
              quiet: bool = False) -> float:
    """Refuse a run before it starts, or announce it (one line on stderr).

    ``count`` samples of ``cost`` on ``backend``: a ValueError (one line, exit 2) when one
    sample needs more memory than is available, or when the run is estimated to exceed
    :data:`CONFIRM_SECONDS` and ``confirmed`` (``--yes``) is false; otherwise prints the
    estimated time and memory (``each_means``: what the per-sample time covers; ``after``:
    estimated CPU seconds of the work after the samples; ``quiet``: ``--quiet``, no
    announcement, the refusals as always). Returns the estimated seconds of one sample."""
    return preflight_batch([(cost, count)], noun, backend, confirmed, each_means=each_means,
                           after=after, quiet=quiet)


def preflight_batch(batch: Sequence[tuple[Any, int]], noun: str, backend: Any,
                    confirmed: bool, workers: int = 1, check_memory: bool = True,
                    each_means: str | None = None, after: float = 0.0,
                    quiet: bool = False) -> float:
    """:func:`preflight` of a run of several kinds of samples: ``count`` samples of each
    ``(cost, count)`` of ``batch`` (a sweep: one per grid point), spread over ``workers``
    processes that each hold one sample at a time. The memory is checked (``workers``
    of the largest sample) only when the samples run on this machine
    (``check_memory``). On a GPU the time is measured on the device at the samples' own
    size (:func:`freege.validation.sampling.cost.run_speeds`); where no probe is possible
    it is announced as unknown, and nothing needs ``--yes``. ``quiet`` (``--quiet``)
    announces nothing; the refusals stay. Returns the estimated seconds of one sample (0
    when there is nothing to run, NaN when unknown)."""
    from freege.validation.sampling import cost as cost_model

    batch = [(cost, count) for cost, count in batch if count > 0]
    if not batch:
        return 0.0
    count = sum(n for _, n in batch)
    peak = max(cost.peak_bytes for cost, _ in batch)
    held = min(workers, count)
    free = cost_model.available_memory(backend) if check_memory else None
    if free is not None and held * peak > free:
        who = f"one {noun}" if held == 1 else f"{held} workers' {noun}s"
        raise ValueError(
            f"{who} need{'s' if held == 1 else ''} about {size_text(held * peak)} of memory "
            f"and {size_text(free)} is available on {backend.name}; choose smaller "
            f"dimensions{'' if held == 1 else ' or fewer --workers'}"
        )
    plural = f"{count} {noun}{'s' if count != 1 else ''}"
    spread = "" if held == 1 else f" over {held} workers"
    room = "" if free is None else f" of {size_text(free)} available"
    memory = f"peak memory about {size_text(held * peak)}{room}"
    work = 0.0
    for cost, n in batch:
        speed = cost_model.run_speeds(cost, backend)
        if isinstance(speed, str):  # a GPU that could not be probed: no guess, no --yes
            if quiet:
                return math.nan
            print(f"freege: estimate: {plural} on {backend.name}{spread}, time unknown "
                  f"({speed}); {memory}", file=sys.stderr, flush=True)
            return math.nan
        work += n * cost_model.seconds(cost, speed)
    each, total = work / count, work / held
    if total > CONFIRM_SECONDS and not confirmed:
        raise ValueError(
            f"{plural}{spread} would take about {duration_text(total)} (about "
            f"{duration_text(each)} each on {backend.name}); pass --yes to run anyway, or "
            "ask for fewer"
        )
    if quiet:
        return each
    what = f" ({each_means})" if each_means else ""
    where = (f"{backend.name} at one core's speed" if backend.on_cpu
             else f"{backend.name} at its speed measured at the run's size")
    spent = time.process_time()
    cpu = spent + work + after
    wall = "" if held == 1 else f", about {duration_text(total + after)} over {held} workers"
    print(f"freege: estimate: {plural} on {where}{spread}, about {duration_text(each)} each"
          f"{what}; {duration_text(cpu)} of CPU time in all ({duration_text(spent)} spent "
          f"starting, {duration_text(after)} after the {noun}s){wall}; {memory}",
          file=sys.stderr, flush=True)
    return each
