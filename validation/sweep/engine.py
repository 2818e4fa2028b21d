"""Run a sweep: the (grid point, draw) pairs of theory §6.1 as Dask tasks, results to a
store.

* Tasks: :func:`draw_task` samples one draw with :func:`freege.validation.sampling.sample.draw` (or
  :func:`freege.validation.sampling.sample.case_eigenvalues` for another theory §4 case: both
  models, the
  same seed, so the same weights) and returns its relative W1, KS and first two
  empirical moments per model, BLAS held to one thread (``threadpoolctl``).
* Batching (:func:`run_batches`, also the paper run's): a Dask task holds as many draws
  as take about :data:`TASK_SECONDS` by their estimated cost or, without an estimate,
  the measured seconds of the latest finished task (:func:`batches`; the first tasks,
  untimed, hold one draw each), so the scheduler's cost per task stays a few percent of
  cheap draws; results are still yielded one per draw as each task completes, and two
  tasks per worker are in flight.
* Seeds: draw ``i`` of point ``p`` uses ``SeedSequence((seed, p.seed_word, i))``, the
  point's word being the hash of its canonical form (:class:`freege.validation.sweep.grid.Point`),
  so the results do not depend on the number of workers, the order of completion or
  the other points of the grid.
* Cluster: one worker runs the tasks in this process, one after another, with no cluster
  at all; more start a private local cluster (:mod:`freege.validation.sweep.cluster`:
  mutual TLS with temporary in-memory credentials, no HTTP server) of worker processes
  with one thread each (as many as ``workers``, default: the cores, one for ``cupy``); or
  the tasks go to an existing scheduler (``scheduler`` address, ``tls://`` through Dask's
  ``distributed.comm.tls`` settings; multi-GPU nodes: ``dask-cuda``'s
  ``LocalCUDACluster`` or ``dask-cuda-worker``, one worker per GPU). A draw that raises
  is retried once and then recorded as failed; a task whose worker dies is retried once
  (Dask ``retries=1``, ``allowed-failures = 1`` on the local cluster) and then its draws
  are recorded as failed; the sweep goes on.
* Store: :mod:`freege.validation.sweep.store`; a rerun skips the finished ``(point, draw)``
  keys, and a store written by a different sweep is refused before anything runs.

Dask, ``threadpoolctl`` and ``tqdm`` (the ``sweep`` extra) are imported only here (tqdm
through :mod:`freege.progress`, on a terminal), and only Dask is needed: without the extra
a sweep runs in one process (the default workers are then 1; more workers or a
``scheduler`` are refused in one line, :func:`freege.extras.require`), BLAS at its own
thread count.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from freege.extras import blas_threads, installed, require
from freege.params import DRAWS, MAX_TASKS, WORKERS, parse_number
from freege.progress import NORMAL, Progress
from freege.validation.sampling.backend import NAMES, backend_kind, check_dtype, get_backend
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import Point

#: seconds to wait for an existing scheduler before giving up
CONNECT_TIMEOUT = 5.0
SWEEP_BACKENDS: tuple[str, ...] = NAMES


def draw_task(point: dict[str, Any], draw_index: int, seed: int, backend: str,
              limiting_mean: float, dtype: str = "float64") -> dict[str, Any]:
    """Sample draw ``draw_index`` of ``point`` (its canonical dict) in ``dtype`` (float64
    or float32, :mod:`freege.validation.sampling.backend`) and return the store
    record: relative W1 (over ``limiting_mean``, theory §6.1), KS (numerical zeros as exact
    zeros, :func:`freege.validation.sampling.metrics.ks`), the first two
    empirical moments of each model's spectrum, and under ``floor`` the same two
    distances between the GE and the noise floor's second GE (same weights, fresh noise:
    :data:`freege.validation.sampling.sample.FLOOR_MODEL`)."""
    from freege.validation.sampling import metrics
    from freege.validation.sampling.sample import FLOOR_MODEL, case_eigenvalues, case_for, draw

    p = Point.from_dict(point)
    entropy = (seed, p.seed_word, draw_index)
    start = time.perf_counter()
    with blas_threads(1):
        if p.case == case_for(p.dims):
            d = draw(p.dims, seed=entropy, backend=backend, dtype=dtype, floor=True)
            soft, ge, second, peak = d.softmax, d.ge, d.ge_floor, d.peak_bytes
        else:
            soft, ge, second = (case_eigenvalues(p.case, p.dims, seed=entropy, model=m,
                                                 backend=backend, dtype=dtype)
                                for m in ("softmax", "ge", FLOOR_MODEL))
            peak = None
    w1 = metrics.w1(soft, ge)
    tol = metrics.zero_tolerance(dtype)
    return {
        "type": "draw", "point": p.key, "draw": draw_index, "status": "ok",
        "w1": w1, "rel_w1": w1 / limiting_mean,
        "ks": metrics.ks(soft, ge, tol),
        "floor": {"rel_w1": metrics.w1(second, ge) / limiting_mean,
                  "ks": metrics.ks(second, ge, tol)},
        "moments": {"softmax": metrics.empirical_moments(soft, 2),
                    "ge": metrics.empirical_moments(ge, 2)},
        "seconds": time.perf_counter() - start, "peak_bytes": peak,
    }


def header(points: list[Point], draws: int, seed: int, backend: str,
           dtype: str = "float64") -> dict[str, Any]:
    """The store header: the sweep's identity (dtype included: float32 and float64
    draws never share a store) and each point's theory §4 limiting moments ``[m1, m2]``
    (:func:`freege.validation.sampling.limits.limiting_moments`)."""
    from freege.validation.sampling.limits import limiting_moments

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


@contextmanager
def client(scheduler: str | None, workers: int, backend: str,
           shared_memory: bool = False) -> Iterator[Any]:
    """A Dask client attached to ``scheduler`` (TLS through Dask's
    ``distributed.comm.tls`` settings), else to a new private local cluster of ``workers``
    single-threaded processes (:mod:`freege.validation.sweep.cluster`; with
    ``shared_memory`` each may hold all of the machine's memory, else Dask's default
    share); the client, and
    the cluster it started, are closed on exit. ValueError when the scheduler cannot be
    reached within :data:`CONNECT_TIMEOUT` or speaks TLS without settings;
    :class:`~freege.extras.MissingExtraError` without Dask."""
    Client = require("distributed", "sweep", "a Dask client").Client

    if scheduler is not None:
        if scheduler.startswith("tls://"):
            from distributed.security import Security

            tls = Security()
            if not (tls.tls_ca_file and tls.tls_client_cert):
                raise ValueError(
                    f"the scheduler {scheduler!r} speaks TLS but Dask has no TLS settings: "
                    "set distributed.comm.tls.ca-file, distributed.comm.tls.client.cert "
                    "and distributed.comm.tls.client.key in the Dask configuration (or "
                    "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, ...__CLIENT__CERT, ...__CLIENT__KEY)")
        try:
            attached = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except Exception as exc:  # OSError, TimeoutError, ValueError for a bad address
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r} within "
                             f"{CONNECT_TIMEOUT:g} s ({type(exc).__name__}: {exc})") from None
        with attached:
            yield attached
        return
    from freege.validation.sweep import cluster as sweep_cluster

    with sweep_cluster.start(workers, backend, shared_memory) as cluster, \
            Client(cluster) as own:
        yield own


def need_dask(scheduler: str | None, workers: int) -> None:
    """Refuse (:class:`~freege.extras.MissingExtraError`, one line naming the ``sweep``
    extra) a run on a Dask ``scheduler`` or on more than one worker when Dask is not
    installed; one worker and no scheduler need nothing."""
    if scheduler is not None:
        require("distributed", "sweep", "--scheduler")
    elif workers > 1:
        require("distributed", "sweep", f"--workers {workers} (1 runs without it)")


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
    """One worker per core for a backend on the CPU (NumPy), else one (a device: one task
    per GPU at a time); one without Dask (the ``sweep`` extra), whose workers run in this
    process."""
    if not backend_kind(backend).on_cpu or not installed("distributed"):
        return 1
    return max(1, os.cpu_count() or 1)


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
    if scheduler is None:
        get_backend(backend)  # an unusable backend: a ValueError saying why, before any task
    folder = Path(store).absolute().parent
    if not folder.is_dir():
        raise ValueError(f"store folder {str(folder)!r} does not exist")
    start = time.perf_counter()
    contents = sweep_store.read(store, resume=True)
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
    new_header = header(points, draws, seed, backend, dtype)  # points the theory refuses
    if n_left:  # before any estimate
        need_dask(scheduler, n_workers)
    if n_left and scheduler is None and preflight is not None:  # are refused before this
        preflight(left, n_workers, True)
    todo = [(p, i) for p in points for i in range(draws) if (p.key, i) not in done]
    with ExitStack() as stack:
        dask_client = None
        if todo and (scheduler is not None or n_workers > 1):
            dask_client = stack.enter_context(client(scheduler, n_workers, backend))
            if scheduler is not None:
                n_workers = len(dask_client.nthreads())
                if preflight is not None:
                    preflight(left, n_workers, False)
        with sweep_store.open_for_append(store, contents, new_header) as writer:
            if todo:
                args = (seed, backend, dtype, new_header["theory"])
                results = (_in_process(todo, *args) if dask_client is None
                           else _on_dask(dask_client, todo, *args))
                ok, failed = _record(results, len(todo), writer, verbosity, on_record)
    return Outcome(str(store), len(points) * draws, len(points) * draws - len(todo), ok,
                   failed, n_workers, time.perf_counter() - start)


def _failure(key: str, i: int, exc: BaseException) -> dict[str, Any]:
    return {"type": "draw", "point": key, "draw": i, "status": "failed",
            "error": f"{type(exc).__name__}: {exc}"}


def _attempt(p: Point, i: int, seed: int, backend: str, m1: float,
             dtype: str) -> dict[str, Any]:
    """Draw ``i`` of ``p``, tried twice before its error is recorded (Dask's
    ``retries=1`` for one draw)."""
    record: dict[str, Any] = {}
    for _ in range(2):
        try:
            return draw_task(p.as_dict(), i, seed, backend, m1, dtype)
        except Exception as exc:  # the task's own error, recorded like Dask's
            record = _failure(p.key, i, exc)
    return record


def draw_chunk(items: list[tuple[dict[str, Any], int, float]], seed: int, backend: str,
               dtype: str) -> list[dict[str, Any]]:
    """Several draws in one Dask task: ``(point dict, draw index, limiting mean)`` each,
    every one retried once (:func:`_attempt`); their store records, in order."""
    return [_attempt(Point.from_dict(d), i, seed, backend, m1, dtype) for d, i, m1 in items]


def _in_process(todo: list[tuple[Point, int]], seed: int, backend: str, dtype: str,
                theory: dict[str, list[float]]) -> Iterator[dict[str, Any]]:
    """One worker: the draws run in this process, in order, with no cluster at all."""
    for p, i in todo:
        yield _attempt(p, i, seed, backend, theory[p.key][0], dtype)


#: wall seconds a Dask task aims at once a draw's cost is known: the scheduler costs the
#: driver 10-20 ms of CPU per task (TLS included), so cheap draws go several to a task;
#: a killed sweep loses at most the tasks in flight, two per worker
TASK_SECONDS = 1.0
MAX_CHUNK = 64

T = TypeVar("T")
R = TypeVar("R")


def batches(tasks: Iterable[T], cost: Callable[[T], float | None]) -> Iterator[list[T]]:
    """``tasks`` in order, grouped: each batch is its first task, then the next ones while
    their summed ``cost`` (seconds) stays within :data:`TASK_SECONDS` and the batch below
    :data:`MAX_CHUNK`; a task of unknown cost (``None``) goes alone. Lazy: ``cost`` is
    asked when a batch is formed, so a cost that is measured as tasks finish applies to
    the batches formed after."""
    queue = deque(tasks)
    while queue:
        batch = [queue.popleft()]
        spent = cost(batch[0])
        while spent is not None and queue and len(batch) < MAX_CHUNK:
            seconds = cost(queue[0])
            if seconds is None or spent + seconds > TASK_SECONDS:
                break
            batch.append(queue.popleft())
            spent += seconds
        yield batch


def run_batches(dask_client: Any, tasks: Iterable[T], run: Callable[..., list[R]],
                args: tuple[Any, ...], *, name: Callable[[list[T]], str],
                failed: Callable[[T, BaseException], R],
                cost: Callable[[T], float] | None = None,
                seconds: Callable[[R], float | None] | None = None,
                memory: Callable[[T], int] | None = None,
                budget: int | None = None) -> Iterator[R]:
    """Run ``tasks`` on ``dask_client`` in :func:`batches`, each a Dask task
    ``run(batch, *args)`` (a module-level function returning one result per task, in
    order) named ``name(batch)``, retried once when its worker dies (``retries=1``) and
    then answered by ``failed(task, exception)`` per task; yield each result as its batch
    completes. Two batches per worker are in flight, the next submitted as one finishes.
    A task's cost is ``cost(task)`` (estimated seconds) or, without it, the median of
    ``seconds(result)`` (measured; ``None`` for an untimed result) over the latest
    finished batch: until a batch has finished, one task per batch.

    Scheduled by memory when ``memory(task)`` (a task's peak bytes) and ``budget`` (the
    bytes the workers share: one machine's) are given: a batch, which holds its largest
    task's bytes, is submitted only while the batches in flight, queued ones included,
    leave it room, so the tasks running at any time never need more than ``budget``
    together. A batch that must wait lets later ones that fit go first, and goes first
    itself once there is room; with nothing in flight a batch always goes (one larger
    than ``budget`` is the caller's to refuse). Dask's own worker resources cannot say
    this: they are counted per worker, while local workers share one memory."""
    from dask.distributed import as_completed

    measured: float | None = None
    plan = batches(tasks, cost if cost is not None else lambda _task: measured)
    where: dict[str, list[T]] = {}
    held: dict[str, int] = {}
    waiting: list[list[T]] = []
    done = as_completed()
    slots = 2 * max(1, len(dask_client.nthreads()))

    def need(batch: list[T]) -> int:
        return max(map(memory, batch)) if memory is not None and budget is not None else 0

    def fits(batch: list[T]) -> bool:
        return not held or budget is None or sum(held.values()) + need(batch) <= budget

    def pick() -> list[T] | None:
        for k, batch in enumerate(waiting):
            if fits(batch):
                return waiting.pop(k)
        for batch in plan:
            if fits(batch):
                return batch
            waiting.append(batch)
        return None

    def fill() -> None:
        while len(where) < slots and (batch := pick()) is not None:
            fut = dask_client.submit(run, batch, *args, key=name(batch), pure=False,
                                     retries=1)
            where[fut.key], held[fut.key] = batch, need(batch)
            done.add(fut)

    fill()
    for fut in done:
        batch = where.pop(fut.key)
        held.pop(fut.key)
        if fut.status == "finished":
            results = fut.result()
        else:  # the task's worker died twice
            exc = fut.exception()
            results = [failed(task, exc) for task in batch]
        fut.release()
        timed = sorted(t for t in map(seconds, results) if t is not None) if seconds else []
        if timed:
            measured = timed[len(timed) // 2]
        fill()
        yield from results


def _on_dask(dask_client: Any, todo: list[tuple[Point, int]], seed: int, backend: str,
             dtype: str, theory: dict[str, list[float]]) -> Iterator[dict[str, Any]]:
    """The draws on Dask in :func:`run_batches` of :func:`draw_chunk`, sized by the draws'
    measured seconds; yield each record (or failure) as its task completes."""

    def name(batch: list[tuple[dict[str, Any], int, float]]) -> str:
        (first, i), (last, j) = batch[0][:2], batch[-1][:2]
        return (f"freege-draws-{_key(first)}-{i}-{_key(last)}-{j}-{len(batch)}"
                f"-{seed}-{dtype}")

    tasks = [(p.as_dict(), i, theory[p.key][0]) for p, i in todo]
    return run_batches(
        dask_client, tasks, draw_chunk, (seed, backend, dtype), name=name,
        failed=lambda task, exc: _failure(_key(task[0]), task[1], exc),
        seconds=lambda record: record["seconds"] if record["status"] == "ok" else None)


def _key(point: dict[str, Any]) -> str:
    return Point.from_dict(point).key


def _record(results: Iterator[dict[str, Any]], total: int, writer: sweep_store.Writer,
            verbosity: int, on_record: Callable[[dict[str, Any]], None] | None
            ) -> tuple[int, int]:
    """Append each record to the store as it comes; ``(ok, failed)``. Progress on stderr
    at ``verbosity`` (a line per draw with ``VERBOSE``)."""
    ok = failed = 0
    with Progress("sweep", total, unit="draw", verbosity=verbosity) as bar:
        for record in results:
            if record["status"] == "ok":
                ok += 1
            else:
                failed += 1
            writer.append(record)
            if on_record is not None:
                on_record(record)
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
