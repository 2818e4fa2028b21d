"""Sweep benchmark (issues #8, #18 item 3): ``freege sweep`` against a plain in-process
loop over the same draws, side by side in one run, and the private cluster's start.

* plain loop: :func:`freege.validation.sweep.engine.draw_task` called ``draws`` times in this
  process (the same work and seeds as the sweep's tasks, BLAS on one thread);
* sweep: :func:`freege.validation.sweep.engine.run` into a fresh store (cluster start when there
  is one, task graph, store appends with fsync), with 1 worker (in this process, no
  cluster) and 2 workers (a private local cluster: mutual TLS, forked workers), timed
  whole; the ratio to the plain loop is printed for wall time and for CPU time (this
  process and its finished children: the workers);
* cluster start: :func:`freege.validation.sweep.cluster.start` with 2 workers, until
  both are connected, and the scheduler's cost per empty task on it (TLS included).

Run from the repository root: ``PYTHONPATH=. python benchmarks/sweep.py [--preset bert-base]
[--n N] [--draws 128] [--rounds 1]``. The machine's load average is printed with the
results: on a shared machine the wall-time ratios are only as good as the load is steady.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from freege.progress import QUIET
from freege.validation.models.presets import PRESETS
from freege.validation.sampling.limits import limiting_moments
from freege.validation.sweep import cluster as sweep_cluster
from freege.validation.sweep import engine as sweep
from freege.validation.sweep.grid import Point, expand


def _noop(i: int) -> int:
    return i


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def plain_loop(point: Point, draws: int, m1: float) -> tuple[float, float]:
    """(wall, CPU) seconds for ``draws`` tasks run one after another in this process."""
    start, cpu = time.perf_counter(), _cpu()
    for i in range(draws):
        sweep.draw_task(point.as_dict(), i, 0, "numpy", m1)
    return time.perf_counter() - start, _cpu() - cpu


def swept(point: Point, draws: int, workers: int) -> tuple[float, float]:
    """(wall, CPU) seconds of a whole sweep into a fresh store."""
    with tempfile.TemporaryDirectory() as folder:
        start, cpu = time.perf_counter(), _cpu()
        out = sweep.run([point], draws=draws, store=Path(folder) / "store.jsonl",
                        workers=workers, verbosity=QUIET)
        wall, used = time.perf_counter() - start, _cpu() - cpu
    assert out.ok == draws, out
    return wall, used


def cluster_start(tasks: int) -> tuple[float, float]:
    """Seconds to start a private 2-worker cluster (TLS credentials included) until both
    workers are connected, and seconds per empty task on it."""
    from dask.distributed import Client, wait

    start = time.perf_counter()
    cluster = sweep_cluster.start(2)
    with Client(cluster) as client:
        client.wait_for_workers(2)
        up = time.perf_counter() - start
        begin = time.perf_counter()
        wait([client.submit(_noop, i, pure=False) for i in range(tasks)])
        per_task = (time.perf_counter() - begin) / tasks
    cluster.close()
    return up, per_task


def blas_threads() -> str:
    from threadpoolctl import threadpool_info

    return ", ".join(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bert-base", choices=list(PRESETS))
    parser.add_argument("--n", type=int, default=None, help="tokens (default: the preset's)")
    parser.add_argument("--draws", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=1,
                        help="interleaved rounds of loop / 1 worker / 2 workers")
    parser.add_argument("--noop", type=int, default=200)
    args = parser.parse_args()
    grid = {"preset": [args.preset], **({"n": [args.n]} if args.n else {})}
    point = expand(grid)[0]
    dims = point.dims
    m1 = limiting_moments(point.case, dims, 1)[0]
    print(f"{args.preset}: n={dims.n} h={dims.h} dK=dV={dims.dK} dO={dims.dO}, "
          f"{args.draws} draws; {os.cpu_count()} cores; tasks run with 1 BLAS thread "
          f"(threadpoolctl; this process: {blas_threads()})")
    sweep.draw_task(point.as_dict(), 0, 0, "numpy", m1)  # warm imports and caches
    for r in range(args.rounds):
        load = os.getloadavg()[0]
        loop = plain_loop(point, args.draws, m1)
        one = swept(point, args.draws, 1)
        two = swept(point, args.draws, 2)
        starts = [cluster_start(args.noop) for _ in range(3)]
        print(f"round {r + 1} (load average {load:.1f} -> {os.getloadavg()[0]:.1f}):")
        print(f"  plain loop (1 process):  {loop[0]:6.2f} s wall {loop[1]:6.2f} s CPU "
              f"({loop[0] / args.draws * 1e3:.0f} ms per draw)")
        for name, (wall, cpu) in (("sweep, 1 worker", one), ("sweep, 2 workers", two)):
            print(f"  {name + ':':24s} {wall:6.2f} s wall {cpu:6.2f} s CPU: "
                  f"{wall / loop[0]:.2f}x the loop's wall, {cpu / loop[1]:.2f}x its CPU")
        ups = ", ".join(f"{up:.2f}" for up, _ in starts)
        per_task = sorted(t for _, t in starts)[1]
        print(f"  private cluster start:   {ups} s (3 starts, 2 workers, TLS); "
              f"{per_task * 1e3:.2f} ms per empty task (median, {args.noop} tasks)")


if __name__ == "__main__":
    main()
