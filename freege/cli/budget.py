"""Preflight of the sampling commands (``validate``, ``ladder``, ``sweep``; theory §6.1,
§6.2): before any sampling, the memory one sample needs against the memory available,
and the time of the whole run against :data:`CONFIRM_SECONDS`.

The cost of a sample is :class:`freege.validation.sampling.sample.Cost` (peak bytes, matrix-product
flops,
elementwise passes, eigenvalue sizes: :func:`freege.validation.sampling.sample.draw_cost`,
:func:`freege.validation.ladder.trial_cost`); its time is that cost at the speeds of this machine
and backend, measured once per process on small problems (about 0.1 s), so the estimate
is rough (measured / estimated 0.7-1.0 in CPU time from n = 64 to 4096,
``benchmarks/sampling.py --sections estimate``) but never off by the orders of magnitude
that matter here. The speeds are one CPU core's, in CPU time (see :func:`speeds`): free
cores make a run faster than announced, a machine busy with other processes slower.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any

#: a run estimated to take longer than this (seconds) needs ``--yes``
CONFIRM_SECONDS = 3600
#: size of the calibration problems (matrix product, eigenvalues, elementwise pass, normals)
CALIBRATION_SIZE = 384
#: a second, smaller eigenvalue problem: the growth of eigenvalue time below
#: :data:`CALIBRATION_SIZE` is fitted between the two (LAPACK's efficiency drops with n)
SMALL_EIG_SIZE = 96


@dataclass(frozen=True)
class Speeds:
    """Measured speeds of a backend: matrix-product flops per second, array elements per
    second of an elementwise exp, seconds of a symmetric eigenvalue problem of size
    :data:`CALIBRATION_SIZE` and the exponent of its growth below that size (n^3 above),
    normal random numbers per second, and seconds per array operation (the interpreter's
    and the library's fixed cost of a call, from a small draw)."""

    matmul: float
    elementwise: float
    eig_seconds: float
    eig_exponent: float = 3.0
    normals: float = float("inf")
    operation_seconds: float = 0.0


def _typical_time(run: Any, sync: Any, clock: Any = time.perf_counter,
                  repeats: int = 3) -> float:
    """Median seconds on ``clock`` of ``repeats`` calls of ``run`` after a warm-up."""
    run()  # warm-up: library handles, caches, kernel compilation
    sync()
    times = []
    for _ in range(repeats):
        start = clock()
        run()
        sync()
        times.append(clock() - start)
    return max(sorted(times)[len(times) // 2], 1e-9)


@cache
def speeds(backend: Any) -> Speeds:
    """Measure :class:`Speeds` of ``backend`` (a
    :class:`freege.validation.sampling.backend.Backend`). On
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
    import math

    import numpy as np

    from freege.params import Dims
    from freege.validation.sampling.sample import draw, draw_cost

    xp, m, k = backend.xp, CALIBRATION_SIZE, SMALL_EIG_SIZE
    # on the CPU, CPU time of one thread: what one core does, whatever other processes
    # take (wall-clock calibrations on the shared machine swung by 10x); a GPU's time is
    # wall time after synchronising
    clock = time.process_time if backend.name == "numpy" else time.perf_counter

    def timed(run: Any) -> float:
        return _typical_time(run, backend.synchronize, clock)

    gen = backend.generator(np.random.SeedSequence(0))
    a = backend.normal(gen, (m, m))
    sym = a @ a.T
    small = sym[:k, :k].copy()
    t_mm = timed(lambda: a @ a)
    t_exp = timed(lambda: xp.exp(a))
    t_eig = timed(lambda: xp.linalg.eigvalsh(sym))
    t_small = timed(lambda: xp.linalg.eigvalsh(small))
    t_rng = timed(lambda: backend.normal(gen, (m, m)))
    exponent = min(3.0, max(1.0, math.log(t_eig / t_small) / math.log(m / k)))
    partial = Speeds(matmul=2 * m**3 / t_mm, elementwise=m * m / t_exp, eig_seconds=t_eig,
                     eig_exponent=exponent, normals=m * m / t_rng)
    small_draw = Dims(n=48, h=4, dK=12, dV=12, dO=48)  # small arrays cost more than tiny ones
    t_draw = timed(lambda: draw(small_draw, seed=0, backend=backend))
    cost = draw_cost(small_draw, backend.dtype)
    work = seconds(cost, partial)
    return Speeds(matmul=partial.matmul, elementwise=partial.elementwise,
                  eig_seconds=t_eig, eig_exponent=exponent, normals=partial.normals,
                  operation_seconds=max(t_draw - work, 0.0) / cost.operations)


def eig_seconds(n: int, speed: Speeds) -> float:
    """Estimated seconds of a symmetric eigenvalue problem of size ``n``: n^3 growth from
    :data:`CALIBRATION_SIZE` on, the fitted exponent below."""
    ratio = n / CALIBRATION_SIZE
    return speed.eig_seconds * ratio ** (3.0 if ratio >= 1 else speed.eig_exponent)


def seconds(cost: Any, speed: Speeds) -> float:
    """Estimated seconds of one sample of ``cost`` at ``speed``: its products, elementwise
    passes, eigenvalue problems, normal draws and array operations."""
    eig = sum(eig_seconds(n, speed) for n in cost.eig_sizes)
    return (cost.matmul_flops / speed.matmul + cost.elementwise / speed.elementwise + eig
            + cost.normals / speed.normals + cost.operations * speed.operation_seconds)


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


#: samples estimated shorter than this (seconds, one core) run on one BLAS thread
ONE_THREAD_BELOW_S = 1.0


def blas_threads(each_seconds: float, backend: Any) -> AbstractContextManager:
    """One BLAS thread for samples under :data:`ONE_THREAD_BELOW_S` on the CPU: threads
    cannot pay for themselves on small problems and on a busy machine cost up to 30x
    (measured: ``freege ladder --n 64`` trials at 5-9 ms on one thread, 160-175 ms on
    two, 2-core machine under load); the BLAS default otherwise."""
    if backend.name != "numpy" or each_seconds >= ONE_THREAD_BELOW_S:
        return nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(1)


def preflight(cost: Any, count: int, noun: str, backend: Any, confirmed: bool,
              each_means: str | None = None) -> float:
    """Refuse a run before it starts, or announce it (one line on stderr).

    ``count`` samples of ``cost`` on ``backend``: a ValueError (one line, exit 2) when one
    sample needs more memory than is available, or when the run is estimated to exceed
    :data:`CONFIRM_SECONDS` and ``confirmed`` (``--yes``) is false; otherwise prints the
    estimated time and memory (``each_means``: what the per-sample time covers). Returns
    the estimated seconds of one sample."""
    return preflight_batch([(cost, count)], noun, backend, confirmed, each_means=each_means)


def preflight_batch(batch: Sequence[tuple[Any, int]], noun: str, backend: Any,
                    confirmed: bool, workers: int = 1, check_memory: bool = True,
                    each_means: str | None = None) -> float:
    """:func:`preflight` of a run of several kinds of samples: ``count`` samples of each
    ``(cost, count)`` of ``batch`` (a sweep: one per grid point), spread over ``workers``
    processes that each hold one sample at a time. The memory is checked (``workers``
    of the largest sample) only when the samples run on this machine
    (``check_memory``). Returns the estimated seconds of one sample (0 when there is
    nothing to run)."""
    batch = [(cost, count) for cost, count in batch if count > 0]
    if not batch:
        return 0.0
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
    what = f" ({each_means})" if each_means else ""
    where = f"{backend.name} at one core's speed" if backend.name == "numpy" else backend.name
    print(f"freege: estimate: {plural} on {where}{spread}, about {duration_text(each)} each"
          f"{what}, {duration_text(total)} in all; peak memory about "
          f"{size_text(held * peak)}"
          f"{room}", file=sys.stderr, flush=True)
    return each
