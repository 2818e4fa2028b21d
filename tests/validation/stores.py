"""Small sweep stores written without Dask: the records of
:func:`freege.validation.sweep.engine.draw_task` appended through the store's writer, as a sweep
appends them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand


def write_store(path: Path, ns: tuple[int, ...] = (24, 32, 48), draws: int = 3,
                failed: bool = False) -> Path:
    """A store of the grid n in ``ns``, h = 2, dK = 8, dO = 16 with ``draws`` draws per
    point; with ``failed``, the last draw of the first point is a failure record."""
    points = expand({"n": list(ns), "h": 2, "dk": 8, "do": 16})
    head = sweep.header(points, draws, 0, "numpy")
    with sweep_store.open_for_append(path, sweep_store.read(path), head) as writer:
        for p in points:
            for i in range(draws):
                if failed and p is points[0] and i == draws - 1:
                    writer.append({"type": "draw", "point": p.key, "draw": i,
                                   "status": "failed", "error": "RuntimeError: boom"})
                else:
                    writer.append(sweep.draw_task(p.as_dict(), i, 0, "numpy",
                                                  head["theory"][p.key][0]))
    return path


def threads_cluster(workers: int = 1) -> Any:
    """An in-process Dask cluster (``workers`` workers of one thread) to attach to with
    ``--scheduler``; its HTTP server on a free loopback port (else Dask binds 8787 and
    warns when it is taken)."""
    from dask.distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=False,
                        dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
