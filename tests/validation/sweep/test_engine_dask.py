"""``freege sweep`` on real Dask clusters, tiny sizes: 1 and 2 worker processes give the
same table, a killed sweep resumes to the uninterrupted result, a corrupt tail is
dropped and rerun, a failing task is retried once then recorded, and a store of
another sweep or an unreachable scheduler is refused with the store untouched."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SWEEP_EXTRA = "needs the 'sweep' extra: pip install '.[sweep]'"

# Dask and the TLS credentials of a private cluster (cryptography) are the 'sweep' extra's
pytest.importorskip("distributed", reason=SWEEP_EXTRA)
pytest.importorskip("cryptography", reason=SWEEP_EXTRA)

from freege.validation.sweep import engine as sweep  # noqa: E402
from freege.validation.sweep import store as sweep_store  # noqa: E402
from freege.validation.sweep.grid import Point  # noqa: E402
from tests.cli.helpers import bad, result_json, run_cli  # noqa: E402
from tests.stopped_run import run_stopped  # noqa: E402
from tests.validation.stores import threads_cluster as make_threads_cluster  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GRID = ["--n", "32", "48", "--h", "2", "--dk", "8", "--do", "24", "--beta", "0.5:1:0.5"]
DRAWS = "2"


def _sweep(capsys, store, *extra, grid=GRID, draws=DRAWS):
    code, out, err = run_cli(capsys, "sweep", *grid, "--draws", draws, "--store", str(store),
                             "--format", "json", *extra)
    assert code == 0, err
    return result_json(out, "sweep")


def _report(capsys, store):
    code, out, err = run_cli(capsys, "sweep-report", str(store), "--format", "json")
    assert code == 0, err
    return result_json(out, "sweep-report"), err


def _table(report):
    """The deterministic part of a report (everything but wall times and the path)."""
    return {k: v for k, v in report.items() if k not in ("timing", "store")}


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    """A sweep on a single worker process, run once for the module."""
    store = tmp_path_factory.mktemp("one") / "store.jsonl"
    from freege.cli import main

    assert main(["sweep", *GRID, "--draws", DRAWS, "--store", str(store), "--workers", "1",
                 "--format", "json"]) == 0
    return store


def _records(store):
    return {(r["point"], r["draw"]): {k: v for k, v in r.items() if k not in
                                      ("seconds", "peak_bytes")}
            for r in sweep_store.read(store).records}


def test_two_workers_same_table_as_one(capsys, one_worker, tmp_path):
    capsys.readouterr()
    store = tmp_path / "two.jsonl"
    out = _sweep(capsys, store, "--workers", "2")
    assert (out["tasks"], out["ok"], out["failed"], out["workers"]) == (8, 8, 0, 2)
    assert _records(store) == _records(one_worker)
    one, _ = _report(capsys, one_worker)
    two, _ = _report(capsys, store)
    assert _table(one) == _table(two)
    assert [p["draws"] for p in two["points"]] == [2, 2, 2, 2]
    assert {(p["n"], p["beta"]) for p in two["points"]} == {(32, 0.5), (32, 1.0), (48, 0.5),
                                                            (48, 1.0)}
    # rerunning the same command skips every finished key
    again = _sweep(capsys, store)
    assert (again["skipped"], again["ok"]) == (8, 0)


def test_worker_results_equal_a_plain_loop(one_worker):
    """Each stored record is what the task computes in this process for its seed."""
    head = sweep_store.read(one_worker).header
    stored = _records(one_worker)
    pd = head["identity"]["points"][3]
    key = Point.from_dict(pd).key
    for i in range(int(DRAWS)):
        rec = sweep.draw_task(pd, i, 0, "numpy", head["theory"][key][0])
        rec = {k: v for k, v in rec.items() if k not in ("seconds", "peak_bytes")}
        assert rec == stored[(key, i)]


KILL_GRID = ["--n", "64", "--h", "2", "--dk", "8", "--do", "48"]
KILL_DRAWS = "40"


def test_kill_and_resume_matches_uninterrupted_run(capsys, tmp_path):
    store = tmp_path / "killed.jsonl"
    argv = ["sweep", *KILL_GRID, "--draws", KILL_DRAWS, "--store", str(store),
            "--workers", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-c", f"from freege.cli import main; main({argv!r})"],
        cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if store.exists() and store.read_bytes().count(b"\n") >= 3:  # header + 2 draws
                break
            time.sleep(0.005)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the sweep and its worker processes
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    partial = len(sweep_store.read(store).records)
    assert 2 <= partial < int(KILL_DRAWS), partial
    resumed = _sweep(capsys, store, grid=KILL_GRID, draws=KILL_DRAWS)
    assert resumed["skipped"] == partial and resumed["ok"] == int(KILL_DRAWS) - partial
    whole = tmp_path / "whole.jsonl"
    _sweep(capsys, whole, "--workers", "1", grid=KILL_GRID, draws=KILL_DRAWS)
    assert _records(store) == _records(whole)
    assert _table(_report(capsys, store)[0]) == _table(_report(capsys, whole)[0])


STOPS = {  # a terminal's Ctrl-C reaches the whole process group; `kill PID` one process
    "ctrl-c": ("os.killpg(0, signal.SIGINT)", 130, "freege: interrupted"),
    "sigterm": ("os.kill(os.getpid(), signal.SIGTERM)", 143, "freege: terminated"),
}


@pytest.mark.parametrize("how", STOPS)
def test_stopped_sweep_says_one_line_and_resumes(capsys, one_worker, tmp_path, how):
    """A sweep on a 2-worker cluster stopped after its first record (issue 27): one line on
    stderr, no traceback from any process (the pipe closes once every process holding it
    has exited), and a resume completes the store to the records of an uninterrupted
    run."""
    stop, code, line = STOPS[how]
    store = tmp_path / "stopped.jsonl"
    argv = ["sweep", *GRID, "--draws", DRAWS, "--store", str(store), "--workers", "2",
            "--quiet"]
    returncode, err = run_stopped(argv, stop)
    assert returncode == code, err
    said = [x for x in err.splitlines() if not x.startswith("freege: estimate:")]
    assert said == [line], err
    partial = len(sweep_store.read(store).records)
    assert 1 <= partial < 8, partial
    resumed = _sweep(capsys, store, "--workers", "1")
    assert (resumed["skipped"], resumed["ok"]) == (partial, 8 - partial)
    assert _records(store) == _records(one_worker)
    assert _table(_report(capsys, store)[0]) == _table(_report(capsys, one_worker)[0])


@pytest.fixture(scope="module")
def threads_cluster():
    """An in-process Dask cluster, attached to with --scheduler."""
    with make_threads_cluster() as cluster:
        yield cluster.scheduler_address


def test_corrupt_tail_is_dropped_and_rerun(capsys, one_worker, tmp_path, threads_cluster):
    capsys.readouterr()
    store = tmp_path / "corrupt.jsonl"
    shutil.copy(one_worker, store)
    data = store.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    store.write_bytes(data[:last] + data[last:last + 40])  # the last record half-written
    report, err = _report(capsys, store)
    assert "freege: warning:" in err and "at its end" in err
    assert report["finished"] == 7
    out = _sweep(capsys, store, "--scheduler", threads_cluster)
    assert (out["skipped"], out["ok"], out["workers"]) == (7, 1, 1)
    assert _records(store) == _records(one_worker)
    assert _table(_report(capsys, store)[0]) == _table(_report(capsys, one_worker)[0])


def test_failed_task_is_retried_once_then_recorded(capsys, tmp_path, threads_cluster,
                                                   monkeypatch):
    log = tmp_path / "calls.txt"  # tasks are pickled, so calls are counted in a file
    real = sweep.draw_task

    def flaky(point, draw_index, *args):
        with open(log, "a") as f:
            f.write(f"{draw_index}\n")
        tries = log.read_text().split().count(str(draw_index))
        if draw_index == 0 or (draw_index == 1 and tries == 1):
            raise RuntimeError(f"boom {draw_index}")
        return real(point, draw_index, *args)

    monkeypatch.setattr(sweep, "draw_task", flaky)
    store = tmp_path / "flaky.jsonl"
    grid = ["--n", "32", "--h", "2", "--dk", "8", "--do", "24"]
    out = _sweep(capsys, store, "--scheduler", threads_cluster, grid=grid, draws="3")
    assert (out["ok"], out["failed"]) == (2, 1)
    calls = log.read_text().split()
    assert sorted(calls) == ["0", "0", "1", "1", "2"]  # one retry per failure, none for ok
    report, _ = _report(capsys, store)
    assert report["failed"] == 1 and "RuntimeError: boom 0" in report["errors"][0]
    assert report["points"][0]["draws"] == 2
    # a rerun retries the failed key (here it fails again) and keeps the rest
    again = _sweep(capsys, store, "--scheduler", threads_cluster, grid=grid, draws="3")
    assert (again["skipped"], again["failed"]) == (2, 1)


def _timed(batch, fail):
    """A task of :func:`sweep.run_batches`: a result per item with its batch's size and a
    measured 10 ms; a batch holding ``fail`` raises."""
    if fail in batch:
        raise RuntimeError(f"boom {fail}")
    return [{"item": item, "size": len(batch), "seconds": 0.01} for item in batch]


def test_run_batches_groups_timed_tasks_and_answers_a_failed_batch(threads_cluster):
    from distributed import Client

    items = range(300)
    with Client(threads_cluster, timeout=10) as client:
        results = list(sweep.run_batches(
            client, items, _timed, (299,), name=lambda b: f"test-batches-{b[0]}-{len(b)}",
            failed=lambda item, exc: {"item": item, "error": str(exc)},
            seconds=lambda result: result.get("seconds")))
    assert sorted(r["item"] for r in results) == list(items)  # each exactly once
    size = {r["item"]: r["size"] for r in results if "size" in r}
    assert size[0] == size[1] == 1  # untimed: one per task, two in flight on one worker
    assert max(size.values()) == sweep.MAX_CHUNK  # then 10 ms draws: 100 per 1 s, capped
    failed = [r for r in results if "error" in r]
    assert failed and failed[-1]["item"] == 299 and len(failed) < sweep.MAX_CHUNK
    assert all(r["error"] == "boom 299" for r in failed)  # retried, then one per task


def test_store_of_another_sweep_is_refused_untouched(capsys, one_worker, tmp_path):
    capsys.readouterr()
    store = tmp_path / "other.jsonl"
    shutil.copy(one_worker, store)
    before = store.read_bytes()
    for extra in (["--draws", "3"], ["--seed", "1", "--draws", DRAWS]):
        err = bad(capsys, "sweep", *GRID, *extra, "--store", str(store))
        assert "different sweep" in err
    err = bad(capsys, "sweep", *GRID[:-1], "0.5", "--draws", DRAWS, "--store", str(store))
    assert "its points differ" in err
    assert store.read_bytes() == before


def test_unreachable_scheduler(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "CONNECT_TIMEOUT", 0.5)
    store = tmp_path / "never.jsonl"
    err = bad(capsys, "sweep", *GRID, "--draws", DRAWS, "--store", str(store),
              "--scheduler", "tcp://127.0.0.1:9")
    assert "cannot reach the Dask scheduler" in err
    assert not store.exists()


def test_analyse_with_plot(capsys, one_worker, tmp_path):
    pytest.importorskip("matplotlib")
    capsys.readouterr()
    store = tmp_path / "plot.jsonl"
    shutil.copy(one_worker, store)
    svg = tmp_path / "sweep.svg"
    code, out, _ = run_cli(capsys, "sweep", *GRID, "--draws", DRAWS, "--store", str(store),
                           "--analyse", "--plot", str(svg))
    assert code == 0 and "rel_w1" in out and svg.read_text().lstrip().startswith("<?xml")
