"""Run the measured configurations of the paper reproduction (theory §6.4) on the sweep
engine: one task per (configuration, draw), results appended to a checksummed JSON-lines
store (:mod:`freege.validation.sweep.store`) as they complete, so a killed run resumes
where it stopped and the finished records are never recomputed.

With one worker and no scheduler the tasks run in this process; otherwise they go to the
sweep engine's Dask client and batching (:func:`freege.validation.sweep.engine.client`,
:func:`freege.validation.sweep.engine.run_batches`): the most expensive draws first, cheap
ones grouped into Dask tasks of about
:data:`freege.validation.sweep.engine.TASK_SECONDS` by their estimated cost
(:func:`draw_seconds`). Either way BLAS runs one thread per
worker: on a loaded machine a multi-threaded ``eigh`` was measured 10x slower than a
single-threaded one (spinning threads), so parallelism comes from ``--workers``. Each
task's seeds depend only on the configuration's group and the draw index
(:mod:`freege.validation.paper.measure`), so the records do not depend on the number of
workers or the order of completion.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from freege.validation.paper import measure as paper_measure
from freege.validation.sweep import store as sweep_store

#: the identity a store must match to be resumed
IDENTITY_KEYS: tuple[str, ...] = ("configs", "seed", "backend", "scale", "finite_width",
                                   "dtype")
#: the value of an identity key a store written before that key existed holds
IDENTITY_DEFAULTS: dict[str, Any] = {"finite_width": False, "dtype": "float64"}


def header(configs: list[dict[str, Any]], seed: int, backend: str, scale: float,
           finite_width: bool = False, dtype: str = "float64") -> dict[str, Any]:
    """The store header of a paper run (its identity; ``finite_width``: ``--finite-width``,
    table 2's draws also sample ``ge-row-n``, theory §2.3; ``dtype``: ``--dtype``, the
    products' precision, :func:`freege.validation.paper.measure.task`)."""
    return {"type": "header", "format": sweep_store.FORMAT,
            "identity": {"kind": "freege-paper", "configs": configs, "seed": seed,
                         "backend": backend, "scale": scale, "finite_width": finite_width,
                         "dtype": dtype}}


def _store_header(header: dict[str, Any], source: str) -> dict[str, int]:
    """Draws per configuration key of a paper store's header; ValueError when it is not
    one."""
    identity = header.get("identity")
    configs = identity.get("configs") if isinstance(identity, dict) else None
    if (not isinstance(identity, dict) or identity.get("kind") != "freege-paper"
            or not isinstance(configs, list)
            or not all(isinstance(c, dict) and isinstance(c.get("key"), str)
                       and isinstance(c.get("draws"), int) and not isinstance(c["draws"], bool)
                       for c in configs)):
        raise ValueError(f"{source} is not a freege paper store (malformed header)")
    return {c["key"]: c["draws"] for c in configs}


def _store_record(record: dict[str, Any], draws: dict[str, int]) -> str | None:
    """Why a stored task record is unusable (None when it is usable): ``point`` a
    configuration of the run, ``draw`` an integer in its range, ``status`` ``failed`` with
    an ``error`` text or ``ok`` with every measured value a finite number."""
    from freege.validation.sweep.schema import finite_tree_problem

    point, draw = record.get("point"), record.get("draw")
    if record.get("type") != "draw":
        return f"unknown record type {record.get('type')!r:.40}"
    if not isinstance(point, str) or point not in draws:
        return f"point {point!r:.40} is not a configuration of this run"
    if isinstance(draw, bool) or not isinstance(draw, int) or not 0 <= draw < draws[point]:
        return f"draw must be an integer in [0, {draws[point] - 1}] (got {draw!r:.40})"
    if record.get("status") == "failed":
        return None if isinstance(record.get("error"), str) else "error must be text"
    if record.get("status") != "ok":
        return f"status must be ok or failed (got {record.get('status')!r:.40})"
    values = {k: v for k, v in record.items() if k not in ("type", "point", "draw", "status")}
    return finite_tree_problem(values)


def store_schema() -> Any:
    """The :class:`freege.validation.sweep.schema.Schema` of a paper store."""
    from freege.validation.sweep.schema import Schema

    return Schema(_store_header, _store_record)


def check_store(path: Path, new: dict[str, Any]) -> sweep_store.Contents:
    """The store's contents; ValueError when it was written by another run."""
    contents = sweep_store.read(path, store_schema(), resume=True)
    if contents.header is not None:
        old = contents.header.get("identity", {})
        differs = [k for k in ("kind", *IDENTITY_KEYS)
                   if old.get(k, IDENTITY_DEFAULTS.get(k)) != new["identity"][k]]
        if differs:
            raise ValueError(f"{str(path)!r} holds a different run (its {', '.join(differs)} "
                             "differ); choose another --out")
    return contents


def pending(configs: list[dict[str, Any]], contents: sweep_store.Contents
            ) -> list[tuple[dict[str, Any], int]]:
    """The (configuration, draw) tasks without an ``ok`` record."""
    done = sweep_store.finished(contents)
    return [(c, i) for c in configs for i in range(c["draws"]) if (c["key"], i) not in done]


def one_thread(configs: list[dict[str, Any]]) -> Any:
    """A context holding BLAS to one thread. ``threadpoolctl`` limits only the libraries
    loaded when it is entered, and learning-curve and ridge draws first load SciPy's
    LAPACK (a separate OpenBLAS:
    :func:`freege.validation.sampling.eigensolver.eigenvalues_and_weights`,
    :func:`freege.validation.finite_readout.ridge_error_gram`): left at its default
    threads, such draws were measured 3-4x slower on the loaded 2-core machine. So
    SciPy's LAPACK is loaded first when such a draw is among ``configs``. Without
    threadpoolctl (a plain install) BLAS keeps its own threads
    (:func:`freege.extras.blas_threads`)."""
    from freege.extras import blas_threads

    if any(c["kind"] in ("flow", "ridge") for c in configs):
        import scipy.linalg.lapack  # noqa: F401
    return blas_threads(1)


def run(configs: list[dict[str, Any]], store: Path, *, seed: int, backend: str,
        scale: float, workers: int = 1, scheduler: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        rates: dict[str, float] | None = None, memory: int | None = None,
        finite_width: bool = False, dtype: str = "float64") -> dict[str, int]:
    """Run (or resume) every pending task into ``store``; returns counts
    ``{"tasks", "skipped", "ok", "failed"}``. A failed task is recorded as failed and
    run again on the next resume. ``rates`` (:func:`measure_rates`, measured when not
    given) order and group the tasks on Dask (:func:`by_cost`). ``memory``: the bytes
    the workers share (this machine's, :func:`freege.validation.sampling.cost.available_memory`;
    None: unlimited): on Dask the draws are scheduled so that those running at once
    never need more together (:func:`freege.validation.sweep.engine.run_batches`, each
    draw's :func:`freege.validation.paper.configs.peak_bytes`), and each local worker may
    hold all of the machine's. ``finite_width``: part of the run's identity
    (:func:`header`; the ``ge`` configurations carry it,
    :func:`freege.validation.paper.panels.configurations`). ``dtype``: the products'
    precision (:func:`freege.validation.paper.measure.task`), part of the identity too."""
    new = header(configs, seed, backend, scale, finite_width, dtype)
    contents = check_store(store, new)
    todo = pending(configs, contents)
    total = sum(c["draws"] for c in configs)
    counts = {"tasks": total, "skipped": total - len(todo), "ok": 0, "failed": 0}
    with sweep_store.open_for_append(store, contents, new) as writer:
        def record(rec: dict[str, Any]) -> None:
            writer.append(rec)
            counts["ok" if rec["status"] == "ok" else "failed"] += 1
            if progress is not None:
                progress(counts["ok"] + counts["failed"], len(todo))

        if workers <= 1 and scheduler is None:
            with one_thread([c for c, _ in todo]):
                for config, i in todo:
                    record(_guarded(config, i, seed, backend, dtype))
        elif todo:
            _dask(todo, seed, backend, workers, scheduler, rates or measure_rates(dtype),
                  record, memory, dtype)
    return counts


def _guarded(config: dict[str, Any], draw: int, seed: int, backend: str,
             dtype: str = "float64") -> dict[str, Any]:
    try:
        return paper_measure.task(config, draw, seed, backend, dtype)
    except (ArithmeticError, MemoryError, RuntimeError, ValueError) as exc:
        return _failed(config, draw, exc)


def _failed(config: dict[str, Any], draw: int, exc: BaseException) -> dict[str, Any]:
    return {"type": "draw", "point": config["key"], "draw": draw, "status": "failed",
            "error": f"{type(exc).__name__}: {exc}"}


def by_cost(todo: list[tuple[dict[str, Any], int]], rates: dict[str, float],
            dtype: str = "float64") -> list[tuple[dict[str, Any], int]]:
    """The tasks the most expensive first (by :func:`draw_seconds`; ties in their order),
    so the last Dask tasks to finish are short ones and no worker idles long at the end."""
    return sorted(todo, key=lambda task: -draw_seconds(task[0], rates, dtype))


def _limited_chunk(items: list[tuple[dict[str, Any], int]], seed: int, backend: str,
                   dtype: str = "float64") -> list[dict[str, Any]]:
    """A Dask task: its draws' records, each draw run by :func:`_guarded` with BLAS held
    to one thread."""
    with one_thread([c for c, _ in items]):
        return [_guarded(c, i, seed, backend, dtype) for c, i in items]


def _dask(todo: list[tuple[dict[str, Any], int]], seed: int, backend: str, workers: int,
          scheduler: str | None, rates: dict[str, float],
          record: Callable[[dict[str, Any]], None], memory: int | None = None,
          dtype: str = "float64") -> None:
    """Run the tasks on the sweep engine's Dask client, batched by their estimated cost
    (:func:`freege.validation.sweep.engine.run_batches` over :func:`by_cost`) and, with
    ``memory``, scheduled by their peak bytes within it; record each draw as its Dask
    task completes (a killed run loses only the tasks in flight)."""
    from freege.validation.paper import configs as paper_configs
    from freege.validation.sweep import engine as sweep

    def name(batch: list[tuple[dict[str, Any], int]]) -> str:
        (config, draw), size = batch[0], len(batch)
        return f"freege-paper-{seed}-{dtype}-{config['key']}-{draw}-{size}"

    # scheduled by memory: a local worker may hold all of the machine's
    with sweep.client(scheduler, workers, backend, memory is not None) as dask_client:
        for rec in sweep.run_batches(
                dask_client, by_cost(todo, rates, dtype), _limited_chunk, (seed, backend, dtype),
                name=name, failed=lambda task, exc: _failed(task[0], task[1], exc),
                cost=lambda task: draw_seconds(task[0], rates, dtype),
                memory=lambda task: paper_configs.peak_bytes(task[0]), budget=memory):
            record(rec)


def records(store: Path) -> dict[str, dict[int, dict[str, Any]]]:
    """The ``ok`` records of a store by configuration key and draw (the last one wins)."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for rec in sweep_store.read(store, store_schema()).records:
        if rec.get("status") == "ok":
            out.setdefault(rec["point"], {})[rec["draw"]] = rec
    return out


def concurrency(config: dict[str, Any], workers: int, memory: int | None) -> int:
    """How many draws of ``config`` run at once on ``workers`` sharing ``memory`` bytes
    (None: unlimited): as many as fit, at most ``workers``; 0 when not even one fits."""
    from freege.validation.paper import configs as paper_configs

    if memory is None:
        return workers
    return min(workers, memory // paper_configs.peak_bytes(config))


def estimate(configs: list[dict[str, Any]], todo: list[tuple[dict[str, Any], int]],
             rates: dict[str, float] | str, workers: int, memory: int | None = None,
             dtype: str = "float64") -> dict[str, Any]:
    """Pre-run estimate: ``seconds``, the pending draws' work at the measured ``rates``
    (:func:`measure_rates`, or :func:`device_rates`) with each configuration's draws
    :func:`concurrency` at a time in ``memory``, plus the row-coefficient tables of
    ``finite_width`` draws (:func:`table_seconds`) and their finite-width laws
    (:func:`law_seconds`) (NaN, with the reason as ``unknown``,
    when ``rates`` is a probe's reason; the products priced at ``dtype``'s rates,
    :func:`draw_seconds`); ``peak_bytes`` of the largest draw; ``serial``,
    the panels whose draws run fewer than ``workers`` at a time, as ``(panel, fewest at
    once, its largest draw's peak bytes)`` (0 at once: one draw does not fit)."""
    from freege.validation.paper import configs as paper_configs

    at_once: dict[str, tuple[int, int]] = {}  # panel: its fewest at once, largest draw
    for c, _ in todo:
        k, peak = concurrency(c, workers, memory), paper_configs.peak_bytes(c)
        least, most = at_once.get(c["panel"], (k, peak))
        at_once[c["panel"]] = (min(least, k), max(most, peak))
    unknown = rates if isinstance(rates, str) else None
    seconds = math.nan if unknown is not None else sum(
        draw_seconds(c, rates, dtype)  # type: ignore[arg-type]
        / max(1, concurrency(c, workers, memory))
        for c, _ in todo) + table_seconds(todo, rates, workers)  # type: ignore[arg-type]
    seconds += 0.0 if unknown is not None else law_seconds(todo, rates,  # type: ignore[arg-type]
                                                           workers)
    work = sum(paper_configs.cost(c)["matmul"] for c, _ in todo)
    peak = max((paper_configs.peak_bytes(c) for c in configs), default=0)
    serial = [(panel, k, peak) for panel, (k, peak) in at_once.items() if k < workers]
    return {"seconds": seconds, "unknown": unknown, "peak_bytes": float(peak),
            "gflop": work / 1e9, "serial": serial}


def table_seconds(todo: list[tuple[dict[str, Any], int]], rates: dict[str, float],
                  workers: int) -> float:
    """Seconds of the finite-n row coefficient tables the pending ``finite_width`` draws
    build (theory §2.3, :func:`freege.numeric.row_coefficient.table_work`),
    one per ``(n, x_max)``, built once per worker process that draws it (at most
    ``workers`` or its pending draws), at the elementwise rate."""
    from freege.numeric import row_coefficient
    from freege.params import Dims

    draws: dict[tuple[int, float], int] = {}  # (n, x_max): pending draws
    for c, _ in todo:
        if c.get("finite_width"):
            dims = Dims(**c["dims"])
            key = (dims.n, row_coefficient.x_bound(float(dims.beta), dims.dK))
            draws[key] = draws.get(key, 0) + 1
    return sum(min(workers, k) * row_coefficient.table_work(x_max)
               for (_, x_max), k in draws.items()) / rates["elementwise"]


#: elementwise-operation equivalents of one finite-width law's quantiles (Table 2's
#: ``--finite-width`` law columns, :func:`freege.validation.paper.theory.law_quantiles`):
#: the limit's ``ppf`` and the law's 2,000-point density grid took 5-6 s of CPU at
#: elementwise rates of 0.6-1.4e9/s (load 8.5, 2 cores; presets at S = 4, issue 39)
LAW_WORK = 4e9


def law_seconds(todo: list[tuple[dict[str, Any], int]], rates: dict[str, float],
                workers: int) -> float:
    """Seconds of the finite-width laws' quantiles the pending ``finite_width`` ``ge``
    draws compute (Table 2's law columns, where ``dK > 4 beta^2``): one per
    configuration, once per worker process that draws it (at most ``workers`` or its
    pending draws), :data:`LAW_WORK` at the elementwise rate."""
    from freege.params import Dims
    from freege.validation.paper import theory

    draws: dict[str, int] = {}  # configuration: pending draws
    for c, _ in todo:
        if c.get("finite_width") and c["kind"] == "ge" and theory.has_finite_width_law(
                Dims(**c["dims"])):
            draws[c["key"]] = draws.get(c["key"], 0) + 1
    return sum(min(workers, k) for k in draws.values()) * LAW_WORK / rates["elementwise"]


def draw_seconds(config: dict[str, Any], rates: dict[str, float], dtype: str = "float64"
                 ) -> float:
    """Predicted seconds of one draw of ``config`` at ``rates`` (:func:`measure_rates`;
    work from :func:`freege.validation.paper.configs.cost`): below float64 its products
    and elementwise passes at ``dtype``'s rates (``matmul_float32``, ...), its work in
    double (the cost's ``double``: Gram and Cholesky,
    :func:`freege.validation.paper.measure.task`) and eigenproblems at float64's."""
    from freege.validation.paper import configs as paper_configs

    w = paper_configs.cost(config)
    eig_rate = rates["eigh"] if w["vectors"] else rates["eigvalsh"]
    if dtype == "float64":
        return (w["matmul"] / rates["matmul"] + w["elementwise"] / rates["elementwise"]
                + w["eig"] / eig_rate)
    return ((w["matmul"] - w["double"]) / rates[f"matmul_{dtype}"]
            + w["double"] / rates["matmul"]
            + w["elementwise"] / rates[f"elementwise_{dtype}"] + w["eig"] / eig_rate)


def device_rates(configs: list[dict[str, Any]], host: dict[str, float],
                 dtype: str = "float64") -> dict[str, float] | str:
    """The draws' rates on CuPy, probed on the device at the run's largest n
    (:func:`freege.validation.sampling.cost.device_speeds`, as ``validate``, ``ladder``
    and ``sweep`` estimate; theory §6.1): its product, exp and eigenvalue speeds; the
    probe times eigenvalues without vectors, so a learning-curve draw's ``eigh`` is priced
    at that rate divided by the ratio of the two measured on this CPU (``host``,
    :func:`measure_rates`). Draws at a smaller n run at the largest one's rates, which
    flatters a GPU's small problems. Below float64 (``dtype``) the product and exp speeds
    are probed in that dtype too (``matmul_float32``, ...: :func:`draw_seconds`). The
    probe's reason (one line) when it cannot run."""
    from freege.validation.sampling import cost
    from freege.validation.sampling.backend import get_backend

    n = max(c["dims"]["n"] for c in configs)
    speed = cost.device_speeds(get_backend("cupy"), n)
    if isinstance(speed, str):
        return speed
    eigvalsh = speed.size**3 / speed.eig_seconds
    rates = {"matmul": speed.matmul, "elementwise": speed.elementwise, "eigvalsh": eigvalsh,
             "eigh": eigvalsh * host["eigh"] / host["eigvalsh"]}
    if dtype != "float64":
        low = cost.device_speeds(get_backend("cupy", dtype), n)
        if isinstance(low, str):
            return low
        rates.update({f"matmul_{dtype}": low.matmul, f"elementwise_{dtype}": low.elementwise})
    return rates


def measure_rates(size: int = 384, dtype: str = "float64") -> dict[str, float]:
    """This machine's speed now (about a second of CPU time, one BLAS thread), at a size
    like a run's blocks: matrix product flop/s, elementwise passes (elements/s: exp, max,
    sum, scale on an n x n block), and ``n^3`` per second of a symmetric eigensolve with
    and without vectors, all in float64; below float64 (``dtype``) the product and
    elementwise rates in that dtype too (``matmul_float32``, ``elementwise_float32``)."""
    import numpy as np

    from freege.extras import blas_threads

    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size))
    with blas_threads(1):
        timings = _timings(a, size)
        low = {} if dtype == "float64" else _timings(a.astype(dtype), size, solvers=False)
    rates = {"matmul": 2 * size**3 / timings["matmul"],
             "elementwise": 5 * size**2 / timings["elementwise"],
             "eigh": size**3 / timings["eigh"], "eigvalsh": size**3 / timings["eigvalsh"]}
    if low:
        rates.update({f"matmul_{dtype}": 2 * size**3 / low["matmul"],
                      f"elementwise_{dtype}": 5 * size**2 / low["elementwise"]})
    return rates


def _timings(a: Any, size: int, solvers: bool = True) -> dict[str, float]:
    """CPU seconds of a product and an elementwise pass on ``a`` (in its dtype), and with
    ``solvers`` of the two symmetric eigensolves."""
    import numpy as np

    from freege.validation.sampling import backend

    timings = {}
    jobs = [("matmul", lambda: a @ a.T),
            ("elementwise", lambda: np.exp(a * 0.5 - a.max(axis=1, keepdims=True))
             .sum(axis=1))]
    if solvers:
        jobs += [("eigh", lambda: np.linalg.eigh(a + a.T)),
                 ("eigvalsh", lambda: backend.get_backend("numpy").eigvalsh(a + a.T))]
    for name, job in jobs:
        start = time.process_time()  # CPU time: what a busy machine's load does not inflate
        for _ in range(3):
            job()
        timings[name] = max((time.process_time() - start) / 3, 1e-9)
    return timings

