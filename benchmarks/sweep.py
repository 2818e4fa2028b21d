"""Sweep benchmark (issue #8): draws per second of ``freege sweep`` with 1 and 2 Dask
worker processes against a plain in-process loop over the same tasks, in one run, and
the scheduler's cost per task.

* plain loop: :func:`freege.validation.sweep.draw_task` called ``draws`` times in this process
  (the same work and seeds as the sweep's tasks, BLAS on one thread);
* sweep: :func:`freege.validation.sweep.run` into a fresh store (cluster start, task graph,
  store appends with fsync), timed whole and without the cluster start;
* scheduler overhead: ``--noop`` empty tasks on a 1-worker local cluster, wall time per
  task once the cluster is up (submission, scheduling, result transfer).

Run from the repository root: ``PYTHONPATH=. python benchmarks/sweep.py [--preset bert-base]
[--n N] [--draws 16]``.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from freege.progress import QUIET
from freege.validation import sweep
from freege.validation.presets import PRESETS
from freege.validation.sweep_grid import Point, expand
from freege.validation.theory import limiting_moments


def _noop(i: int) -> int:
    return i


def plain_loop(point: Point, draws: int, m1: float) -> float:
    """Seconds for ``draws`` tasks run one after another in this process."""
    start = time.perf_counter()
    for i in range(draws):
        sweep.draw_task(point.as_dict(), i, 0, "numpy", m1)
    return time.perf_counter() - start


def cluster_start(workers: int) -> float:
    """Seconds to start (and close) a local cluster of ``workers`` processes."""
    from dask.distributed import Client, LocalCluster

    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(workers)
        up = time.perf_counter() - start
    return up


def scheduler_overhead(tasks: int) -> float:
    """Seconds per empty task on a running 1-worker cluster."""
    from dask.distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(1)
        start = time.perf_counter()
        wait([client.submit(_noop, i, pure=False) for i in range(tasks)])
        return (time.perf_counter() - start) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bert-base", choices=list(PRESETS))
    parser.add_argument("--n", type=int, default=None, help="tokens (default: the preset's)")
    parser.add_argument("--draws", type=int, default=16)
    parser.add_argument("--noop", type=int, default=500)
    args = parser.parse_args()
    grid = {"preset": [args.preset], **({"n": [args.n]} if args.n else {})}
    point = expand(grid)[0]
    dims = point.dims
    m1 = limiting_moments(point.case, dims, 1)[0]
    print(f"{args.preset}: n={dims.n} h={dims.h} dK=dV={dims.dK} dO={dims.dO}, {args.draws} draws")
    sweep.draw_task(point.as_dict(), 0, 0, "numpy", m1)  # warm imports and caches
    loop = plain_loop(point, args.draws, m1)
    print(f"  plain loop (1 process):     {args.draws / loop:7.2f} draws/s "
          f"({loop / args.draws:.3f} s per draw)")
    for workers in (1, 2):
        startup = cluster_start(workers)
        with tempfile.TemporaryDirectory() as folder:
            out = sweep.run([point], draws=args.draws, store=Path(folder) / "store.jsonl",
                            workers=workers, verbosity=QUIET)
        busy = out.seconds - startup
        print(f"  sweep, {workers} worker(s):        {args.draws / out.seconds:7.2f} draws/s "
              f"whole, {args.draws / busy:7.2f} draws/s without the cluster start "
              f"({startup:.1f} s)")
    per_task = scheduler_overhead(args.noop)
    print(f"  scheduler overhead:         {per_task * 1e3:7.2f} ms per task "
          f"({args.noop} empty tasks, 1 worker)")


if __name__ == "__main__":
    main()
