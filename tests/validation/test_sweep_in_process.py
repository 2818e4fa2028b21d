"""``freege sweep --workers 1`` (issue 18, item 3) runs its draws in this process with no
cluster at all: the same records as a Dask worker would write, and a failing task is
retried once and then recorded, as on Dask."""

import pytest

from freege.progress import QUIET
from freege.validation.sweep import cluster as sweep_cluster
from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand

POINTS = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})


def _records(store):
    return {(r["point"], r["draw"]): {k: v for k, v in r.items()
                                      if k not in ("seconds", "peak_bytes")}
            for r in sweep_store.read(store).records}


def test_one_worker_needs_no_cluster_and_retries_once(tmp_path, monkeypatch):
    def no_cluster(*args):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(sweep_cluster, "start", no_cluster)
    real = sweep.draw_task
    calls = []

    def flaky(point, draw_index, *args):
        calls.append(draw_index)
        if draw_index == 0 or (draw_index == 1 and calls.count(1) == 1):
            raise RuntimeError(f"boom {draw_index}")
        return real(point, draw_index, *args)

    clean = tmp_path / "clean.jsonl"
    out = sweep.run(POINTS, draws=3, store=clean, workers=1, verbosity=QUIET)
    assert (out.ok, out.failed, out.workers) == (3, 0, 1)
    monkeypatch.setattr(sweep, "draw_task", flaky)
    store = tmp_path / "flaky.jsonl"
    out = sweep.run(POINTS, draws=3, store=store, workers=1, verbosity=QUIET)
    assert (out.ok, out.failed) == (2, 1)
    assert sorted(calls) == [0, 0, 1, 1, 2]  # one retry per failure, none for ok
    records = _records(store)
    key = POINTS[0].key
    assert records[(key, 0)]["status"] == "failed"
    assert records[(key, 0)]["error"] == "RuntimeError: boom 0"
    good = _records(clean)
    assert records[(key, 1)] == good[(key, 1)] and records[(key, 2)] == good[(key, 2)]


def test_cupy_without_a_gpu_is_refused_before_the_store(tmp_path):
    pytest.importorskip("threadpoolctl")
    from freege.validation.sampling.backend import get_backend

    try:
        get_backend("cupy")
    except ValueError:
        pass
    else:
        pytest.skip("a GPU is present")
    store = tmp_path / "gpu.jsonl"
    with pytest.raises(ValueError):
        sweep.run(POINTS, draws=1, store=store, workers=1, backend="cupy")
    assert not store.exists()
