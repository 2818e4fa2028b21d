"""The paper run's task plan and its Dask path (theory §6.4): every pending draw exactly
once, the most expensive first, cheap draws grouped by the sweep engine's batching; on
two workers, resumed from a partial store, the same records as in this process."""

from __future__ import annotations

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
