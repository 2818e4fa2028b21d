"""The cost model of the sampler (theory §6.1, §6.2): what one sample costs, how long it
takes on this machine and backend, and how much memory is left for it. Every estimate
made before sampling reads it (the CLI's preflight, :mod:`freege.cli.budget`; the
benchmarks).

* :class:`Cost` -- one sample's peak bytes, matrix-product flops, elementwise passes,
  eigenvalue sizes, normal random numbers and array operations: :func:`draw_cost` for a
  draw of :mod:`freege.validation.sampling.sample`, :func:`freege.validation.ladder.trial_cost`
  for a ladder trial;
* :func:`speeds` -- the speeds of this machine and backend, measured once per process on
  small problems (about 0.1 s), and :func:`seconds`, a cost's time at them. On a GPU the
  estimate of a run comes from the device at the run's own size (:func:`device_speeds`,
  :func:`run_speeds`): its eigensolver grows far slower than n^3 at these sizes, so a
  small problem's timing scaled up would be 10-50x too high. The estimate
  is rough (measured / estimated 0.7-1.0 in CPU time from n = 64 to 4096,
  ``benchmarks/sampling.py --sections estimate``) but never off by the orders of
  magnitude that matter here. The speeds are one CPU core's, in CPU time (see
  :func:`speeds`): free cores make a run faster than estimated, a machine busy with other
  processes slower;
* :func:`available_memory` -- the bytes the sampler can still allocate;
* :func:`blas_threads` -- one BLAS thread for samples too small to pay for more.
"""

from __future__ import annotations

import math
import os
import resource
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.sampling import eigensolver
from freege.validation.sampling.backend import Backend
from freege.validation.sampling.sample import draw, output_rows
from freege.validation.sampling.solvers import solvers

#: bytes a sample allocates besides its arrays (interpreter objects, generator state)
COST_OVERHEAD_BYTES = 2**20
#: array operations of a draw: per head and per draw (counted in
#: :mod:`freege.validation.sampling.sample`: the weights, the fused softmax, the GE
#: terms, the values' column means; generators, W^O, Grams, eigenvalues, and the softmax
#: outlier's power iteration: about a dozen operations a step, at most ~10 steps at the
#: presets)
DRAW_OPERATIONS = (81, 220)
#: the floor model's extra array operations, per head and per draw (its term, noise and
#: store per head; its product, Gram and eigenvalues)
FLOOR_OPERATIONS = (6, 40)
#: power-iteration steps of the outlier counted in :func:`draw_cost` (each two n x dO
#: matrix-vector products)
OUTLIER_STEPS = 10


@dataclass(frozen=True)
class Cost:
    """What one sample (a draw, a ladder trial) costs, estimated before running it: peak
    bytes of its float64 arrays, matrix-product flops, elements passed through
    elementwise operations (exp, scaling), and the sizes of its symmetric eigenvalue
    problems; the normal random numbers it draws and the array operations it makes (each
    costs the interpreter and NumPy a few microseconds: what small samples are made of).
    Counts are upper bounds up to lower-order terms (tests check the memory against the
    measured peak; ``benchmarks/sampling.py --sections estimate`` the time)."""

    peak_bytes: int
    matmul_flops: float
    elementwise: float
    eig_sizes: tuple[int, ...]
    normals: float = 0.0
    operations: float = 0.0


def draw_cost(dims: Dims, dtype: str = "float64", floor: bool = False,
              extra_models: int = 0) -> Cost:
    """The :class:`Cost` of :func:`freege.validation.sampling.sample.draw` for ``dims`` in
    working precision ``dtype`` (that module's docstring: heads streamed, then one model
    at a time); ``floor``: with the noise floor's third model (``draw(..., floor=True)``:
    one more n x h dV block, product, Gram and eigenvalue problem, and its noise).

    Peak arrays, the largest of four phases: the heads (both models' n x h dV blocks,
    one n x n score matrix, Q/K/V of two consecutive heads and the fused softmax's and the
    Gaussian equivalent's n x dV temporaries, the dV x dV Cholesky factor); the first
    model's output (both blocks, W^O held whole and the n x dO product; with several
    blocks, one row block of W^O, both models' n x dO sums and one partial product); the
    first model's Gram and eigenvalues (the other model's block and W^O when held, else
    the other model's product; the product or, where the LAPACK driver is not found
    (:func:`freege.validation.sampling.eigensolver.eigvalsh`), NumPy's n x n copy, the
    Gram); the second model's output. Below float64 one random
    draw is also staged in float64 (:meth:`Backend.normal`). Plus
    :data:`COST_OVERHEAD_BYTES`. ``extra_models``: further Gaussian equivalents of the
    same draw (``draw(extra=...)``, theory §2.3), each one more n x h dV block in every
    phase, its own product with W^O, Gram and eigenvalues (their noise is shared)."""
    n, h, dK, dV, dO = dims.n, dims.h, dims.dK, dims.dV, dims.dO
    itemsize = np.dtype(dtype).itemsize
    rows, step = h * dV, output_rows(dims)
    block = n * rows
    k = 3 if floor else 2  # models
    heads = k * block + n * n + 6 * n * (dK + 1) + 10 * n * (dV + 1) + dV * dV + dK * dV
    held = rows * dO if step >= rows else 0
    # held: one model's product at a time; blocks: both models' sums and one partial
    output = ((k - 1) * block + held + n * dO if held
              else k * block + step * dO + (k + 1) * n * dO)
    driver = (eigensolver.two_stage_driver if n >= eigensolver.TWO_STAGE_MIN_N
              else eigensolver.one_stage_driver)
    in_place = driver(np.dtype(dtype).name) is not None
    gram = (((k - 1) * block + held) if held else (k - 1) * n * dO) + n * n \
        + max(n * dO, 0 if in_place else n * n)
    staging = 0 if itemsize >= 8 else 8 * max(n * max(dK, dV), step * dO)
    per_head = 2 * n * n * (dK + dV + 2) + 4 * n * dK * dV + (k + 2) * n * dV * dV
    # the Grams are symmetric products (syrk): half a product's flops at 2/3-1 of its
    # rate (benchmarks/sampling.py), counted as 3/4 of a product
    matmul = (h * per_head + k * 2 * n * rows * dO + k * 1.5 * n * n * dO
              + OUTLIER_STEPS * 4 * n * dO)
    groups = h if dims.sharing == "none" else dims.h_kv
    values = 0 if dims.sharing == "tied" else dV
    normals = (h * n * dK + groups * n * (dK + values) + (k - 1) * h * n * min(n, dV)
               + rows * dO)
    more = extra_models * block
    matmul += extra_models * (h * 2 * n * dK * dV + 2 * n * rows * dO + 1.5 * n * n * dO)
    return Cost(peak_bytes=itemsize * (max(heads, output, gram) + more) + staging
                + COST_OVERHEAD_BYTES, matmul_flops=float(matmul),
                elementwise=float(h * n * n + 6 * k * h * n * (dK + dV)),
                eig_sizes=(n,) * (k + extra_models),
                normals=float(normals),
                operations=float(DRAW_OPERATIONS[0] * h + DRAW_OPERATIONS[1]
                                 + (FLOOR_OPERATIONS[0] * h + FLOOR_OPERATIONS[1]
                                    if floor else 0)))


#: size of the calibration problems (matrix product, eigenvalues, elementwise pass, normals)
CALIBRATION_SIZE = 384
#: a second, smaller eigenvalue problem: the growth of eigenvalue time below
#: :data:`CALIBRATION_SIZE` is fitted between the two (LAPACK's efficiency drops with n)
SMALL_EIG_SIZE = 96


@dataclass(frozen=True)
class Speeds:
    """Measured speeds of a backend: matrix-product flops per second, array elements per
    second of an elementwise exp, seconds of a symmetric eigenvalue problem of size
    ``size`` (:data:`CALIBRATION_SIZE`, or the run's n on a GPU) and the exponent of its
    growth below that size (n^3 above), normal random numbers per second, and seconds per
    array operation (the interpreter's and the library's fixed cost of a call, from a
    small draw)."""

    matmul: float
    elementwise: float
    eig_seconds: float
    eig_exponent: float = 3.0
    normals: float = float("inf")
    operation_seconds: float = 0.0
    #: the size of the eigenvalue problem timed as ``eig_seconds``
    size: int = CALIBRATION_SIZE


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
def speeds(backend: Backend) -> Speeds:
    """Measure :class:`Speeds` of ``backend``, once per process. On the CPU the BLAS runs
    on one thread while measuring (threadpoolctl, when installed): on a shared machine
    multi-threaded timings of small problems swing by 100x (measured on the 2-core
    machine: 1.4 to 43 GFLOP/s, eigenvalues 2.4 to 600 ms), one thread's do not
    (50 GFLOP/s, 2.0 ms, five runs)."""
    from freege.extras import blas_threads as one_thread

    with one_thread(1):
        return _measure(backend)


def _measure(backend: Backend) -> Speeds:
    """The speeds of ``backend`` on problems of :data:`CALIBRATION_SIZE` (and
    :data:`SMALL_EIG_SIZE`), and the per-operation time from a small draw."""
    xp, m, k = backend.xp, CALIBRATION_SIZE, SMALL_EIG_SIZE
    # Backend.clock: on the CPU this process's CPU time (here on one BLAS thread), what
    # one core does whatever other processes take; a GPU's time is wall time

    def timed(run: Any) -> float:
        return _typical_time(run, backend.synchronize, backend.clock)

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


#: n x n arrays the device probe holds at once: a matrix, its symmetric product, the
#: exp of the matrix and the eigensolver's copy of the product
PROBE_ARRAYS = 4


@cache
def device_speeds(backend: Backend, n: int) -> Speeds | str:
    """:class:`Speeds` of a GPU measured on the device at the run's own size ``n``
    (theory §6.1, §7): one n x n normal draw, product, exp and symmetric eigenvalue
    problem, each timed once and synchronised after :func:`speeds` has warmed the device's
    libraries, so that :func:`eig_seconds` at ``n`` is the measured time, not a small
    problem's scaled by n^3; the per-operation time and the eigenvalue growth below ``n``
    are :func:`speeds`'. Once per process and size. When no probe is possible, the
    reason (one line): its :data:`PROBE_ARRAYS` arrays do not fit in the free device
    memory, or it failed."""
    base = speeds(backend)
    need = PROBE_ARRAYS * n * n * np.dtype(backend.dtype).itemsize
    free = available_memory(backend)
    if free is not None and need > free:
        return f"a device probe at n = {n} needs {need} bytes and {free} are free"

    def timed(run: Any) -> tuple[float, Any]:
        start = time.perf_counter()
        out = run()
        backend.synchronize()
        return max(time.perf_counter() - start, 1e-9), out

    try:
        gen = backend.generator(np.random.SeedSequence(0))
        t_rng, a = timed(lambda: backend.normal(gen, (n, n)))
        t_mm, sym = timed(lambda: a @ a.T)
        t_exp, _ = timed(lambda: backend.xp.exp(a))
        t_eig, _ = timed(lambda: solvers(backend.xp).eigvalsh(sym))
    except Exception as exc:  # out of device memory, a failed solver: no estimate
        return f"the device probe at n = {n} failed ({type(exc).__name__}: {exc})"
    return Speeds(matmul=2 * n**3 / t_mm, elementwise=n * n / t_exp, eig_seconds=t_eig,
                  eig_exponent=base.eig_exponent, normals=n * n / t_rng,
                  operation_seconds=base.operation_seconds, size=n)


def run_speeds(cost: Cost, backend: Backend) -> Speeds | str:
    """The speeds to estimate samples of ``cost`` on ``backend`` at: this CPU's
    (:func:`speeds`) on NumPy; on a GPU the device's at the sample's largest eigenvalue
    size (:func:`device_speeds`; its reason when no probe is possible)."""
    if backend.on_cpu:
        return speeds(backend)
    return device_speeds(backend, max(cost.eig_sizes, default=CALIBRATION_SIZE))


def eig_seconds(n: int, speed: Speeds) -> float:
    """Estimated seconds of a symmetric eigenvalue problem of size ``n``: the measured
    time at ``speed.size``, n^3 growth above it, the fitted exponent below."""
    ratio = n / speed.size
    return speed.eig_seconds * ratio ** (3.0 if ratio >= 1 else speed.eig_exponent)


def seconds(cost: Cost, speed: Speeds) -> float:
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


def available_memory(backend: Backend) -> int | None:
    """Bytes the sampler can still allocate: a device's free memory
    (:meth:`Backend.free_device_memory`); on the host the
    least of MemAvailable (/proc/meminfo, or sysconf), a cgroup limit's room and the
    ``ulimit -v`` room. None when nothing can be read."""
    free = backend.free_device_memory()
    if free is not None:
        return free
    known = [b for b in (_meminfo_available(), _cgroup_available(), _address_space_available())
             if b is not None]
    return min(known) if known else None


#: samples estimated shorter than this (seconds, one core) run on one BLAS thread
ONE_THREAD_BELOW_S = 10.0
#: the CPU work of one figure after the samples (a theory §4 density at a few hundred
#: points, histograms, rendering to a file) in units of :attr:`Speeds.operation_seconds`:
#: 0.5-0.9 s on the 2-core machine, whose operation takes 4-7 us
#: (``benchmarks/estimates.py`` checks the totals)
FIGURE_OPERATIONS = 1.5e5


#: the CPU work of starting a private Dask cluster (:mod:`freege.validation.sweep.cluster`)
#: per process (the scheduler and each worker: imports, TLS credentials, connection), in
#: units of :attr:`Speeds.operation_seconds`: about 1 s for two workers on the 2-core
#: machine (``benchmarks/estimates.py``)
CLUSTER_PROCESS_OPERATIONS = 7e4


def cluster_seconds(workers: int, speed: Speeds) -> float:
    """Estimated CPU seconds of starting a private cluster of ``workers`` processes."""
    return (workers + 1) * CLUSTER_PROCESS_OPERATIONS * speed.operation_seconds


def figure_seconds(speed: Speeds) -> float:
    """Estimated CPU seconds of one figure (:data:`FIGURE_OPERATIONS`) at ``speed``."""
    return FIGURE_OPERATIONS * speed.operation_seconds


def blas_threads(each_seconds: float, backend: Backend) -> AbstractContextManager:
    """One BLAS thread for samples under :data:`ONE_THREAD_BELOW_S` on the CPU: threads
    cannot pay for themselves on small problems and on a busy machine cost up to 30x
    (measured: ``freege ladder --n 64`` trials at 5-9 ms on one thread, 160-175 ms on
    two, 2-core machine under load); at a second a sample (``ladder --n 1000``) two
    threads still spent 3-4x the CPU time of one under load (issue 30), so the estimate
    in one core's CPU time holds only on one thread. The BLAS default from
    :data:`ONE_THREAD_BELOW_S` on, where threads pay on free cores."""
    if not backend.on_cpu or each_seconds >= ONE_THREAD_BELOW_S:
        return nullcontext()
    from freege.extras import blas_threads as one_thread

    return one_thread(1)
