"""Preflight of the sampling commands (``validate``, ``ladder``, ``sweep``; theory §6.1,
§6.2): before any sampling, the memory one sample needs against the memory available,
and the time of the whole run against :data:`CONFIRM_SECONDS`.

The cost of a sample is :class:`freege.validation.sample.Cost` (peak bytes, matrix-product flops,
elementwise passes, eigenvalue sizes: :func:`freege.validation.sample.draw_cost`,
:func:`freege.validation.ladder.trial_cost`); its time is that cost at the speeds of this machine
and backend, measured once per process on small problems (tens of milliseconds), so the
estimate is rough (a factor of about two, more on a busy machine) but never off by the
orders of magnitude that matter here. The speeds are one CPU core's (see :func:`speeds`):
free cores make a run faster than announced, busy ones slower.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

#: a run estimated to take longer than this (seconds) needs ``--yes``
CONFIRM_SECONDS = 3600
#: size of the calibration problems (matrix product, eigenvalues, elementwise pass)
CALIBRATION_SIZE = 256


@dataclass(frozen=True)
class Speeds:
    """Measured speeds of a backend: matrix-product flops per second, array elements per
    second of an elementwise exp, and seconds of a symmetric eigenvalue problem of size
    :data:`CALIBRATION_SIZE` (its cost grows as n^3)."""

    matmul: float
    elementwise: float
    eig_seconds: float


def _best_time(run: Any, sync: Any, repeats: int = 2) -> float:
    run()  # warm-up: library handles, caches, kernel compilation
    sync()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        sync()
        best = min(best, time.perf_counter() - start)
    return max(best, 1e-9)


@cache
def speeds(backend: Any) -> Speeds:
    """Measure :class:`Speeds` of ``backend`` (a :class:`freege.validation.backend.Backend`). On
    the CPU the BLAS runs on one thread while measuring (threadpoolctl, when installed):
    on a shared machine multi-threaded timings of small problems swing by 100x (measured
    on the 2-core machine: 1.4 to 43 GFLOP/s, eigenvalues 2.4 to 600 ms), one thread's do
    not (50 GFLOP/s, 2.0 ms, five runs)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return _measure(backend)
    with threadpool_limits(1):
        return _measure(backend)


def _measure(backend: Any) -> Speeds:
    import numpy as np

    xp, m = backend.xp, CALIBRATION_SIZE
    gen = backend.generator(np.random.SeedSequence(0))
    a = backend.normal(gen, (m, m))
    sym = a @ a.T
    t_mm = _best_time(lambda: a @ a, backend.synchronize)
    t_exp = _best_time(lambda: xp.exp(a), backend.synchronize)
    t_eig = _best_time(lambda: xp.linalg.eigvalsh(sym), backend.synchronize)
    return Speeds(matmul=2 * m**3 / t_mm, elementwise=m * m / t_exp, eig_seconds=t_eig)


def seconds(cost: Any, speed: Speeds) -> float:
    """Estimated seconds of one sample of ``cost`` at ``speed``."""
    eig = sum(speed.eig_seconds * (n / CALIBRATION_SIZE) ** 3 for n in cost.eig_sizes)
    return cost.matmul_flops / speed.matmul + cost.elementwise / speed.elementwise + eig


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _cgroup_available() -> int | None:
    """Room left under a cgroup memory limit (v2, else v1), None without a limit."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and usage is not None and limit < 2**60:
            return max(limit - usage, 0)
    return None


def _address_space_available() -> int | None:
    """Room left under ``ulimit -v`` (RLIMIT_AS), None without a limit."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    used = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return max(limit - used, 0)


def available_memory(backend: Any) -> int | None:
    """Bytes the sampler can still allocate: free device memory on CuPy; on the host the
    least of MemAvailable (/proc/meminfo, or sysconf), a cgroup limit's room and the
    ``ulimit -v`` room. None when nothing can be read."""
    if backend.name == "cupy":
        return int(backend.xp.cuda.runtime.memGetInfo()[0])
    known = [b for b in (_meminfo_available(), _cgroup_available(), _address_space_available())
             if b is not None]
    return min(known) if known else None


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


def preflight(cost: Any, count: int, noun: str, backend: Any, confirmed: bool) -> None:
    """Refuse a run before it starts, or announce it (one line on stderr).

    ``count`` samples of ``cost`` on ``backend``: a ValueError (one line, exit 2) when one
    sample needs more memory than is available, or when the run is estimated to exceed
    :data:`CONFIRM_SECONDS` and ``confirmed`` (``--yes``) is false; otherwise prints the
    estimated time and memory."""
    preflight_batch([(cost, count)], noun, backend, confirmed)


def preflight_batch(batch: Sequence[tuple[Any, int]], noun: str, backend: Any,
                    confirmed: bool, workers: int = 1, check_memory: bool = True) -> None:
    """:func:`preflight` of a run of several kinds of samples: ``count`` samples of each
    ``(cost, count)`` of ``batch`` (a sweep: one per grid point), spread over ``workers``
    processes that each hold one sample at a time. The memory is checked (``workers``
    of the largest sample) only when the samples run on this machine
    (``check_memory``)."""
    batch = [(cost, count) for cost, count in batch if count > 0]
    if not batch:
        return
    speed = speeds(backend)
    count = sum(n for _, n in batch)
    peak = max(cost.peak_bytes for cost, _ in batch)
    held = min(workers, count)
    free = available_memory(backend) if check_memory else None
    if free is not None and held * peak > free:
        who = f"one {noun}" if held == 1 else f"{held} workers' {noun}s"
        raise ValueError(
            f"{who} need{'s' if held == 1 else ''} about {size_text(held * peak)} of memory "
            f"and {size_text(free)} is available on {backend.name}; choose smaller "
            f"dimensions{'' if held == 1 else ' or fewer --workers'}"
        )
    work = sum(n * seconds(cost, speed) for cost, n in batch)
    each, total = work / count, work / held
    plural = f"{count} {noun}{'s' if count != 1 else ''}"
    spread = "" if held == 1 else f" over {held} workers"
    if total > CONFIRM_SECONDS and not confirmed:
        raise ValueError(
            f"{plural}{spread} would take about {duration_text(total)} (about "
            f"{duration_text(each)} each on {backend.name}); pass --yes to run anyway, or "
            "ask for fewer"
        )
    room = "" if free is None else f" of {size_text(free)} available"
    print(f"freege: estimate: {plural} on {backend.name}{spread}, about {duration_text(each)} "
          f"each, {duration_text(total)} in all; peak memory about {size_text(held * peak)}"
          f"{room}", file=sys.stderr, flush=True)
