"""The sweep engine (:mod:`freege.validation.sweep.engine`) without a cluster:
``freege sweep --workers 1`` (issue 18, item 3) runs its draws in this process with no
cluster at all (the same records as a Dask worker would write, and a failing task is
retried once and then recorded, as on Dask), its options, batching, a draw task, and that
Dask stays off every path but the sweep's. Runs without Dask (the ``sweep`` extra); the
engine on real clusters: test_engine_dask.py."""

import subprocess
import sys

import pytest

from freege.progress import QUIET
from freege.validation.sampling import metrics
from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand
from tests.cli.helpers import bad

SWEEP_EXTRA = "needs the 'sweep' extra: pip install '.[sweep]'"

POINTS = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})


def _records(store):
    return {(r["point"], r["draw"]): {k: v for k, v in r.items()
                                      if k not in ("seconds", "peak_bytes")}
            for r in sweep_store.read(store).records}


def test_one_worker_needs_no_cluster_and_retries_once(tmp_path, monkeypatch):
    def no_cluster(*args):
        raise AssertionError("a cluster was started")

    try:  # the cluster module imports Dask; without it no cluster can start at all
        from freege.validation.sweep import cluster as sweep_cluster
    except ImportError:
        pass
    else:
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
    pytest.importorskip("threadpoolctl", reason=SWEEP_EXTRA)
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


def test_bad_sweep_options(capsys, tmp_path):
    store = tmp_path / "s.jsonl"
    assert "give --draws" in bad(capsys, "sweep", "--preset", "bert-base", "--store", str(store))
    assert "empty grid" in bad(capsys, "sweep", "--draws", "2", "--store", str(store))
    assert "unrecognized" in bad(capsys, "sweep", "--heads", "2", "--store", str(store))
    assert "--plot must end" in bad(capsys, "sweep", "--preset", "bert-base", "--draws", "2",
                                    "--store", str(store), "--analyse", "--plot", "x.gif")
    assert "does not exist" in bad(capsys, "sweep-report", str(tmp_path / "none.jsonl"))
    assert "store folder" in bad(capsys, "sweep", "--preset", "bert-base", "--draws", "2",
                                 "--store", str(tmp_path / "no" / "s.jsonl"))
    assert "is a folder" in bad(capsys, "sweep", "--preset", "bert-base", "--draws", "2",
                                "--store", str(tmp_path))
    assert not store.exists()


# --- batching ------------------------------------------------------------------------

def test_batches_group_by_cost_up_to_task_seconds():
    costs = [0.6, 0.3, 0.3, 0.2, 2.0, 0.1, 0.9]
    got = list(sweep.batches(range(len(costs)), costs.__getitem__))
    assert got == [[0, 1], [2, 3], [4], [5, 6]]  # sums 0.9, 0.5, 2.0 alone, 1.0
    assert [len(b) for b in sweep.batches(range(200), lambda _: 0.0)] == [64, 64, 64, 8]
    assert list(sweep.batches(range(3), lambda _: None)) == [[0], [1], [2]]
    cost = {"seconds": None}  # asked lazily: a cost measured later sizes later batches
    plan = sweep.batches(range(10), lambda _: cost["seconds"])
    assert next(plan) == [0]
    cost["seconds"] = 0.25
    assert next(plan) == [1, 2, 3, 4]
    assert list(sweep.batches([], lambda _: 0.0)) == []


# --- Dask only on the sweep path -------------------------------------------------------

def test_no_dask_or_tqdm_outside_the_sweep():
    code = ("import sys\nfrom freege.cli import build_parser\nbuild_parser()\n"
            "import freege.validation.sweep.grid, freege.validation.sweep.report\n"
            "import freege.validation.sweep.engine\n"
            "bad = [m for m in ('dask', 'distributed', 'tqdm', 'threadpoolctl', 'matplotlib')"
            " if m in sys.modules]\nassert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_task_path_loads_neither_sympy_nor_scipy_stats():
    code = ("import sys\nfrom freege.validation.sweep.engine import draw_task\n"
            "from freege.validation.sweep.grid import expand\n"
            "p = expand({'n': 32, 'h': 2, 'dk': 8, 'do': 24})[0]\n"
            "rec = draw_task(p.as_dict(), 0, 0, 'numpy', 1.0)\n"
            "assert rec['status'] == 'ok'\n"
            "bad = [m for m in ('sympy', 'scipy.stats', 'dask') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_other_cases_sample_both_models_from_one_seed():
    """A ``--case`` other than the configuration's MHA case runs both models of that case
    (same seed, so the same weights) and its metrics use that case's limiting mean."""
    from freege.validation.sampling.limits import limiting_moments
    from freege.validation.sampling.sample import case_eigenvalues
    from freege.validation.sweep.engine import draw_task

    point = expand({"n": 40, "h": 2, "dk": 8, "do": 24, "case": "value"})[0]
    m1 = limiting_moments("value", point.dims, 1)[0]
    rec = draw_task(point.as_dict(), 1, 7, "numpy", m1)
    entropy = (7, point.seed_word, 1)
    soft = case_eigenvalues("value", point.dims, seed=entropy, model="softmax")
    ge = case_eigenvalues("value", point.dims, seed=entropy, model="ge")
    assert rec["rel_w1"] == metrics.w1(soft, ge) / m1
    assert rec["moments"]["ge"] == metrics.empirical_moments(ge, 2)


def test_unusable_cupy_is_one_line(capsys, tmp_path):
    from freege.validation.sampling.backend import cupy_problem

    if cupy_problem() is None:
        pytest.skip("CuPy is usable here")
    store = tmp_path / "s.jsonl"
    err = bad(capsys, "sweep", "--n", "32", "--h", "2", "--dk", "8", "--do", "24",
              "--draws", "2", "--store", str(store), "--backend", "cupy")
    assert "backend cupy is unusable" in err and not store.exists()
