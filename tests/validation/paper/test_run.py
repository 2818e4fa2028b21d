"""The paper run's task plan and its Dask path (theory §6.4): every pending draw exactly
once, the most expensive first, cheap draws grouped by the sweep engine's batching; on
two workers, resumed from a partial store, the same records as in this process."""

from __future__ import annotations

import time

import pytest

from freege.validation.paper import configs as paper_configs
from freege.validation.paper import panels as paper_panels
from freege.validation.paper import run as paper_run
from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.engine import MAX_CHUNK, TASK_SECONDS

RATES = {"matmul": 1e10, "elementwise": 1e9, "eigh": 1e9, "eigvalsh": 3e9}


def test_batches_hold_every_draw_once_largest_first():
    configs = paper_panels.configurations(["2c", "2d", "3b"], 16, draws=3)
    todo = [(c, i) for c in configs for i in range(c["draws"])]
    jobs = list(sweep.batches(paper_run.by_cost(todo, RATES),
                              lambda task: paper_run.draw_seconds(task[0], RATES)))
    flat = [(c["key"], i) for job in jobs for c, i in job]
    assert sorted(flat) == sorted((c["key"], i) for c, i in todo)
    seconds = [[paper_run.draw_seconds(c, RATES) for c, _ in job] for job in jobs]
    order = [s for job in seconds for s in job]
    assert order == sorted(order, reverse=True)
    assert max(order) > TASK_SECONDS > min(order)  # both kinds of job occur below
    for job in seconds:
        assert len(job) <= MAX_CHUNK
        assert len(job) == 1 or sum(job) <= TASK_SECONDS
    assert any(len(job) > 1 for job in seconds)
    assert jobs[0][0][0]["panel"] == "2d"


def _values(store):
    return sorted((r["point"], r["draw"], repr({k: v for k, v in r.items() if k != "seconds"}))
                  for r in sweep_store.read(store, paper_run.store_schema()).records)


def test_dask_run_batches_cheap_draws_and_resumes_to_the_records_of_one_process(
        tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    configs = paper_panels.configurations(["3b"], 64, draws=2)
    whole = tmp_path / "whole.jsonl"
    counts = paper_run.run(configs, whole, seed=0, backend="numpy", scale=64, workers=1,
                           rates=RATES)
    assert counts == {"tasks": 20, "skipped": 0, "ok": 20, "failed": 0}
    part = tmp_path / "part.jsonl"  # a run killed after 6 draws: the header and 6 records
    part.write_bytes(b"".join(whole.read_bytes().splitlines(keepends=True)[:7]))
    log = tmp_path / "batches.txt"  # Dask tasks are pickled: their sizes go to a file
    real = paper_run._limited_chunk

    def logged(items, *args):
        with open(log, "a") as f:
            f.write(f"{len(items)}\n")
        return real(items, *args)

    monkeypatch.setattr(paper_run, "_limited_chunk", logged)
    counts = paper_run.run(configs, part, seed=0, backend="numpy", scale=64, workers=2,
                           rates=RATES)
    assert counts == {"tasks": 20, "skipped": 6, "ok": 14, "failed": 0}
    sizes = [int(s) for s in log.read_text().split()]
    assert sum(sizes) == 14 and len(sizes) < 14  # cheap draws grouped into fewer tasks
    assert _values(part) == _values(whole)


SLOW = {name: rate / 1e9 for name, rate in RATES.items()}  # every draw a Dask task alone


def _overlaps(intervals):
    spans = sorted(intervals)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))


def _timed_run(configs, store, log, monkeypatch, scheduler, memory):
    """A two-worker run on ``scheduler`` with each Dask task's (start, end, peak bytes)
    logged; the big draws' time spans."""
    real = paper_run._limited_chunk

    def timed(items, *args):
        start = time.monotonic()
        out = real(items, *args)
        peak = max(paper_configs.peak_bytes(c) for c, _ in items)
        with open(log, "a") as f:
            f.write(f"{start} {time.monotonic()} {peak}\n")
        return out

    monkeypatch.setattr(paper_run, "_limited_chunk", timed)
    counts = paper_run.run(configs, store, seed=0, backend="numpy", scale=64, workers=2,
                           scheduler=scheduler, rates=SLOW, memory=memory)
    assert counts["ok"] == counts["tasks"] == 24
    return [tuple(map(float, line.split())) for line in log.read_text().splitlines()]


def test_draws_too_big_to_share_memory_run_one_at_a_time(tmp_path, monkeypatch):
    """Scheduled by memory (issue 29): with room for one 2(d) draw and a few small ones,
    no two 2(d) draws run at once on two workers, while without the limit they do."""
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    from tests.validation.stores import threads_cluster

    configs = paper_panels.configurations(["2d", "3b"], 64, draws=2)
    peaks = [paper_configs.peak_bytes(c) for c in configs]
    budget = max(peaks) + 2 * min(peaks)
    big = [p for p in peaks if 2 * p > budget]
    assert len(big) == 2 and len(peaks) > 2  # both 2(d) allocations, and small ones
    assert paper_run.concurrency(configs[0], 2, budget) == 1
    with threads_cluster(workers=2) as cluster:
        spans = {}
        for name, memory in (("limited", budget), ("unlimited", None)):
            tasks = _timed_run(configs, tmp_path / f"{name}.jsonl", tmp_path / f"{name}.log",
                               monkeypatch, cluster.scheduler_address, memory)
            spans[name] = [(s, e) for s, e, peak in tasks if 2 * peak > budget]
            monkeypatch.undo()
    assert len(spans["limited"]) == len(spans["unlimited"]) == 4
    assert not _overlaps(spans["limited"])
    assert _overlaps(spans["unlimited"])  # what the limit prevents does happen without it
    assert _values(tmp_path / "limited.jsonl") == _values(tmp_path / "unlimited.jsonl")


def test_memory_scheduled_local_workers_may_hold_all_of_the_machines_memory():
    """Dask's default lets a worker hold the machine's memory over its cores and restarts
    it past that: a draw the driver scheduled alone could be killed. With shared memory
    each worker's limit is the machine's."""
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    from distributed.system import MEMORY_LIMIT

    def limit(dask_worker):
        return dask_worker.memory_manager.memory_limit

    with sweep.client(None, 1, "numpy", shared_memory=True) as dask_client:
        assert list(dask_client.run(limit).values()) == [MEMORY_LIMIT]
