"""Run a sweep: one Dask task per (grid point, draw) of theory §6.1, results to a store.

* Tasks: :func:`draw_task` samples one draw with :func:`freege.validation.sample.draw` (or
  :func:`freege.validation.sample.case_eigenvalues` for another theory §4 case: both models, the
  same seed, so the same weights) and returns its relative W1, KS and first two
  empirical moments per model, BLAS held to one thread (``threadpoolctl``).
* Seeds: draw ``i`` of point ``p`` uses ``SeedSequence((seed, p.seed_word, i))``, the
  point's word being the hash of its canonical form (:class:`freege.validation.sweep_grid.Point`),
  so the results do not depend on the number of workers, the order of completion or
  the other points of the grid.
* Cluster: a ``LocalCluster`` of worker processes with one thread each (as many as
  ``workers``, default: the cores, one for ``cupy``), or an existing scheduler
  (``scheduler`` address; multi-GPU nodes: ``dask-cuda``'s ``LocalCUDACluster`` or
  ``dask-cuda-worker``, one worker per GPU). A failed task is retried once (Dask
  ``retries=1``; a lost worker counts once, ``allowed-failures = 1`` on the local
  cluster) and then recorded as failed; the sweep goes on.
* Store: :mod:`freege.validation.sweep_store`; a rerun skips the finished ``(point, draw)``
  keys, and a store written by a different sweep is refused before anything runs.

Dask, ``threadpoolctl`` and ``tqdm`` (the ``sweep`` extra) are imported only here (tqdm
through :mod:`freege.progress`, on a terminal).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freege.params import DRAWS, MAX_TASKS, WORKERS, parse_number
from freege.progress import NORMAL, Progress
from freege.validation import sweep_store
from freege.validation.backend import check_dtype
from freege.validation.sweep_grid import Point

#: seconds to wait for an existing scheduler before giving up
CONNECT_TIMEOUT = 5.0
SWEEP_BACKENDS: tuple[str, ...] = ("numpy", "cupy")
#: the scheduler's HTTP server (health routes; the dashboard stays off) on a free
#: loopback port: without it Dask binds port 8787 on every interface, and warns when
#: another cluster holds that port
PRIVATE_HTTP: dict[str, str] = {"dashboard_address": "127.0.0.1:0"}


def draw_task(point: dict[str, Any], draw_index: int, seed: int, backend: str,
              limiting_mean: float, dtype: str = "float64") -> dict[str, Any]:
    """Sample draw ``draw_index`` of ``point`` (its canonical dict) in ``dtype`` (float64
    or float32, :mod:`freege.validation.backend`) and return the store
    record: relative W1 (over ``limiting_mean``, theory §6.1), KS (numerical zeros as exact
    zeros, :func:`freege.validation.metrics.ks`), and the first two
    empirical moments of each model's spectrum."""
    from threadpoolctl import threadpool_limits

    from freege.validation import metrics
    from freege.validation.sample import case_eigenvalues, case_for, draw

    p = Point.from_dict(point)
    entropy = (seed, p.seed_word, draw_index)
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        if p.case == case_for(p.dims):
            d = draw(p.dims, seed=entropy, backend=backend, dtype=dtype)
            soft, ge, peak = d.softmax, d.ge, d.peak_bytes
        else:
            soft, ge = (case_eigenvalues(p.case, p.dims, seed=entropy, model=m,
                                         backend=backend, dtype=dtype)
                        for m in ("softmax", "ge"))
            peak = None
    w1 = metrics.w1(soft, ge)
    return {
        "type": "draw", "point": p.key, "draw": draw_index, "status": "ok",
        "w1": w1, "rel_w1": w1 / limiting_mean,
        "ks": metrics.ks(soft, ge, metrics.zero_tolerance(dtype)),
        "moments": {"softmax": metrics.empirical_moments(soft, 2),
                    "ge": metrics.empirical_moments(ge, 2)},
        "seconds": time.perf_counter() - start, "peak_bytes": peak,
    }


def header(points: list[Point], draws: int, seed: int, backend: str,
           dtype: str = "float64") -> dict[str, Any]:
    """The store header: the sweep's identity (dtype included: float32 and float64
    draws never share a store) and each point's theory §4 limiting moments ``[m1, m2]``
    (:func:`freege.validation.theory.limiting_moments`)."""
    from freege.validation.theory import limiting_moments

    theory = {p.key: limiting_moments(p.case, p.dims, 2) for p in points}
    return {"type": "header", "format": sweep_store.FORMAT,
            "identity": _identity(points, draws, seed, backend, dtype), "theory": theory}


def _identity(points: list[Point], draws: int, seed: int, backend: str,
              dtype: str) -> dict[str, Any]:
    return {"points": [p.as_dict() for p in points], "draws": draws, "seed": seed,
            "backend": backend, "dtype": dtype}


def _check_same_sweep(path: str | Path, old: dict[str, Any], new: dict[str, Any]) -> None:
    a, b = old.get("identity", {}), new["identity"]
    a = {"dtype": "float64", **a}  # stores from before the dtype option are float64
    differs = [k for k in ("points", "draws", "seed", "backend", "dtype") if a.get(k) != b[k]]
    if differs:
        raise ValueError(f"store {str(path)!r} was written by a different sweep (its "
                         f"{', '.join(differs)} differ); rerun that sweep or use another "
                         "--store")


def _client(scheduler: str | None, workers: int, backend: str) -> tuple[Any, Any]:
    """``(client, cluster or None)``: attached to ``scheduler``, else a new local
    cluster of ``workers`` single-threaded processes."""
    import dask
    from dask.distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except Exception as exc:  # OSError, TimeoutError, ValueError for a bad address
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r} within "
                             f"{CONNECT_TIMEOUT:g} s ({type(exc).__name__}: {exc})") from None
    if backend == "cupy":
        from freege.validation.backend import get_backend

        get_backend("cupy")  # a ValueError saying why, before any worker starts
    # allowed-failures: a task on a worker that dies is retried once. glibc's trim
    # threshold, which Dask's nanny sets, disables its adaptive mmap threshold: every
    # n x n buffer is then mapped and zeroed afresh, 1.3-1.5x slower draws (measured)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1,
                          "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR,
                               scheduler_kwargs=PRIVATE_HTTP)
    return Client(cluster), cluster


@dataclass(frozen=True)
class Outcome:
    """What a sweep did: tasks of the grid, already in the store, run now (ok, failed)."""

    store: str
    tasks: int
    skipped: int
    ok: int
    failed: int
    workers: int
    seconds: float


def default_workers(backend: str) -> int:
    """One worker per core (NumPy) or one (CuPy: one task per GPU at a time)."""
    return 1 if backend == "cupy" else max(1, os.cpu_count() or 1)


def run(points: list[Point], *, draws: int, store: str | Path, seed: int = 0,
        backend: str = "numpy", dtype: str = "float64", workers: int | None = None,
        scheduler: str | None = None,
        verbosity: int = NORMAL,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        preflight: Callable[[list[tuple[Point, int]], int, bool], None] | None = None,
        ) -> Outcome:
    """Run (or resume) the sweep of ``points`` x ``draws`` into ``store``. Bad input --
    no points, draws outside [1, MAX_DRAWS], more than MAX_TASKS tasks, a store of another
    sweep, an unreachable scheduler -- is a ValueError raised before the store is
    touched. Progress on stderr at ``verbosity`` (:mod:`freege.progress`: a bar on a
    terminal, timestamped lines in a log; ``VERBOSE`` adds a line per task).
    ``preflight(left, workers, local)`` sees the draws left to run per point (``(point,
    count)`` pairs) and the number of workers before any task list is built or worker
    started (``local``: worker processes on this machine) and may refuse with a
    ValueError (:func:`freege.cli.budget.preflight_batch`)."""
    if not points:
        raise ValueError("empty grid: no points to sweep")
    draws = int(parse_number("draws", draws, DRAWS))
    if len(points) * draws > MAX_TASKS:
        raise ValueError(f"{len(points)} point(s) x {draws} draw(s) = {len(points) * draws} "
                         f"tasks; a sweep holds at most {MAX_TASKS} (split it into several "
                         "stores)")
    if workers is not None:
        workers = int(parse_number("workers", workers, WORKERS))
    if backend not in SWEEP_BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(SWEEP_BACKENDS)} (got {backend!r})")
    check_dtype(dtype)
    folder = Path(store).absolute().parent
    if not folder.is_dir():
        raise ValueError(f"store folder {str(folder)!r} does not exist")
    start = time.perf_counter()
    contents = sweep_store.read(store)
    if contents.header is not None:
        _check_same_sweep(store, contents.header,
                          {"identity": _identity(points, draws, seed, backend, dtype)})
    done = sweep_store.finished(contents)
    finished_per_point: dict[str, int] = {}
    for key, _draw in done:
        finished_per_point[key] = finished_per_point.get(key, 0) + 1
    left = [(p, draws - finished_per_point.get(p.key, 0)) for p in points]
    n_left = sum(n for _p, n in left)
    n_workers = workers or min(default_workers(backend), max(1, n_left))
    ok = failed = 0
    client = cluster = None
    if n_left and scheduler is None and preflight is not None:
        preflight(left, n_workers, True)
    new_header = header(points, draws, seed, backend, dtype)
    todo = [(p, i) for p in points for i in range(draws) if (p.key, i) not in done]
    try:
        if todo:
            client, cluster = _client(scheduler, n_workers, backend)
            if scheduler is not None:
                n_workers = len(client.nthreads())
                if preflight is not None:
                    preflight(left, n_workers, False)
        with sweep_store.open_for_append(store, contents, new_header) as writer:
            if todo:
                ok, failed = _execute(client, todo, seed, backend, dtype,
                                      new_header["theory"], writer, verbosity, on_record)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    return Outcome(str(store), len(points) * draws, len(points) * draws - len(todo), ok,
                   failed, n_workers, time.perf_counter() - start)


def _execute(client: Any, todo: list[tuple[Point, int]], seed: int, backend: str, dtype: str,
             theory: dict[str, list[float]], writer: sweep_store.Writer,
             verbosity: int, on_record: Callable[[dict[str, Any]], None] | None
             ) -> tuple[int, int]:
    """Submit every task, append each result (or failure) as it completes."""
    from dask.distributed import as_completed

    futures = []
    for p, i in todo:
        fut = client.submit(draw_task, p.as_dict(), i, seed, backend, theory[p.key][0], dtype,
                            key=f"freege-draw-{p.key}-{seed}-{dtype}-{i}", pure=False, retries=1)
        futures.append(fut)
    where = {fut.key: task for fut, task in zip(futures, todo, strict=True)}
    ok = failed = 0
    with Progress("sweep", len(todo), unit="draw", verbosity=verbosity) as bar:
        for fut in as_completed(futures):
            p, i = where[fut.key]
            if fut.status == "finished":
                record = fut.result()
                ok += 1
            else:
                exc = fut.exception()
                record = {"type": "draw", "point": p.key, "draw": i, "status": "failed",
                          "error": f"{type(exc).__name__}: {exc}"}
                failed += 1
            writer.append(record)
            if on_record is not None:
                on_record(record)
            fut.release()
            bar.note(_task_line(record))
            bar.update()
    return ok, failed


def _task_line(record: dict[str, Any]) -> str:
    """A finished task in one line (``--verbose``)."""
    where = f"point {record['point'][:12]} draw {record['draw']}"
    if record["status"] != "ok":
        return f"{where} failed: {record['error']}"
    return (f"{where}: rel_w1 {record['rel_w1']:.4g}, ks {record['ks']:.4g}, "
            f"{record['seconds']:.2f} s")
