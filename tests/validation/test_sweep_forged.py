"""Issue 17: store lines with a *valid, recomputed* checksum but a wrong shape are checked
against the store schema (:mod:`freege.validation.sweep.schema`) on every read. Fed to
``sweep`` (nothing left to run), ``sweep`` resuming a missing draw, ``sweep --analyse``
and ``sweep-report``: one warning line per forged record naming its line, no
traceback, and the analysis equal to the one of the store without them."""

import re

import pytest

from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand
from tests.cli.helpers import result_json, run_cli
from tests.validation.stores import threads_cluster

GRID = ["--n", "32", "--h", "2", "--dk", "8", "--do", "24", "--beta", "0.5:1:0.5"]
DRAWS = 3


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A finished store written without a cluster: the sweep's header and, per task,
    exactly the record its Dask task returns (``sweep.draw_task``)."""
    points = expand({"n": ["32"], "h": ["2"], "dk": ["8"], "do": ["24"],
                     "beta": ["0.5:1:0.5"]})
    head = sweep.header(points, DRAWS, 0, "numpy")
    lines = [sweep_store.encode(head)]
    for p in points:
        for i in range(DRAWS):
            lines.append(sweep_store.encode(sweep.draw_task(p.as_dict(), i, 0, "numpy",
                                                            head["theory"][p.key][0])))
    path = tmp_path_factory.mktemp("clean") / "store.jsonl"
    path.write_bytes(b"".join(lines))
    return path, lines


def _forgeries(good: dict, repeat: bool) -> list[dict]:
    """Every kind of issue 17: no point, no draw, list values, shapes that only the
    report tripped on, a negative distance, numbers as strings, unknown draws and points,
    and (``repeat``) a second, different copy of the finished draw ``good``."""
    def edit(**changes):
        out = {k: v for k, v in good.items() if k not in changes or changes[k] is not ...}
        out.update({k: v for k, v in changes.items() if v is not ...})
        return out

    return [
        edit(point=...), edit(draw=...), edit(draw=[0]), edit(point=[good["point"]]),
        edit(rel_w1=[0.1]), edit(moments=...), edit(moments={"softmax": [1.0], "ge": [1.0]}),
        edit(seconds=...), edit(ks={"value": 0.1}), edit(status=...),
        edit(rel_w1=-5), edit(rel_w1="0.1"), edit(ks=2.0), edit(draw=DRAWS), edit(draw=-1),
        edit(draw=True), edit(point="0123456789abcdef"), edit(type="header"),
        edit(status="failed", error=["boom"]),
    ] + ([edit(rel_w1=123.0)] if repeat else [])


def _forged_store(path, lines, drop: int | None = None):
    """``lines`` with forged records after the header and at the end (line ``drop``
    removed first, its forgeries standing in for it: then without a repeat, which would
    be a valid record); the forged line numbers."""
    import json

    kept = [line for k, line in enumerate(lines) if k != drop]
    good = json.loads(lines[drop if drop is not None else 1])["payload"]
    forged = [sweep_store.encode(f) for f in _forgeries(good, repeat=drop is None)]
    half = len(forged) // 2
    out = kept[:1] + forged[:half] + kept[1:] + forged[half:]
    numbers = list(range(2, 2 + half))
    numbers += list(range(len(out) - len(forged) + half + 1, len(out) + 1))
    path.write_bytes(b"".join(out))
    return numbers


def _warned_lines(err: str, path) -> list[int]:
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if line.startswith("freege: warning:")]
    assert all(str(path) in w and "record left out" in w for w in warnings), warnings
    return [int(re.search(r": line (\d+): ", w).group(1)) for w in warnings]


def _table(report):
    return {k: v for k, v in report.items() if k not in ("timing", "store")}


def _report(capsys, store):
    code, out, err = run_cli(capsys, "sweep-report", str(store), "--format", "json")
    assert code == 0, err
    return _table(result_json(out, "sweep-report")), err


def test_forged_records_are_reported_and_left_out(capsys, clean, tmp_path):
    path, lines = clean
    expected, _ = _report(capsys, path)
    store = tmp_path / "forged.jsonl"
    forged = _forged_store(store, lines)
    report, err = _report(capsys, store)
    assert _warned_lines(err, store) == forged  # one line each, in file order
    assert report == expected
    assert (report["finished"], report["tasks"]) == (2 * DRAWS, 2 * DRAWS)
    with pytest.warns(UserWarning, match="record left out"):
        assert sweep_store.read(store).rejected == len(forged)
    # the sweep itself: nothing left to run, each bad record said once, store untouched
    before = store.read_bytes()
    code, out, err = run_cli(capsys, "sweep", *GRID, "--draws", str(DRAWS), "--store",
                             str(store), "--format", "json")
    assert code == 0, err
    assert _warned_lines(err, store) == forged
    done = result_json(out, "sweep")
    assert (done["skipped"], done["ok"], done["failed"]) == (2 * DRAWS, 0, 0)
    code, out, err = run_cli(capsys, "sweep", *GRID, "--draws", str(DRAWS), "--store",
                             str(store), "--analyse", "--format", "json")
    assert code == 0 and _warned_lines(err, store) == forged  # once, not once per read
    assert _table(result_json(out, "sweep")) == expected
    assert store.read_bytes() == before


def test_resume_reruns_a_draw_whose_record_was_forged(capsys, clean, tmp_path):
    """The record of draw 0 replaced by forgeries: resuming runs that draw again and
    ends with the table of the clean store."""
    pytest.importorskip("distributed")
    path, lines = clean
    expected, _ = _report(capsys, path)
    store = tmp_path / "resume.jsonl"
    forged = _forged_store(store, lines, drop=1)
    with threads_cluster() as cluster:
        code, out, err = run_cli(capsys, "sweep", *GRID, "--draws", str(DRAWS), "--store",
                                 str(store), "--scheduler", cluster.scheduler_address,
                                 "--format", "json")
    assert code == 0, err
    assert _warned_lines(err, store) == forged
    done = result_json(out, "sweep")
    assert (done["skipped"], done["ok"]) == (2 * DRAWS - 1, 1)
    report, err = _report(capsys, store)
    assert report == expected and _warned_lines(err, store) == forged


@pytest.mark.parametrize("change", [
    {"identity": None}, {"theory": []}, {"identity.points": []},
    {"identity.points": [{"n": "many"}]}, {"identity.draws": "3"}, {"identity.draws": 0},
    {"identity.seed": -1}, {"identity.backend": ["numpy"]}, {"theory.first": [1.0]},
    {"theory.first": [-1.0, 2.0]},
])
def test_forged_header_is_one_line(capsys, clean, tmp_path, change):
    """A checksummed header of the wrong shape makes the store unusable: one line, exit 2,
    for the report and for a resume, the store untouched."""
    import json

    from tests.cli.helpers import bad

    path, lines = clean
    head = json.loads(lines[0])["payload"]
    (where, value), = change.items()
    if where == "theory.first":
        head["theory"][next(iter(head["theory"]))] = value
    elif "." in where:
        head["identity"][where.split(".")[1]] = value
    else:
        head[where] = value
    store = tmp_path / "head.jsonl"
    store.write_bytes(sweep_store.encode(head) + b"".join(lines[1:]))
    before = store.read_bytes()
    assert "malformed header" in bad(capsys, "sweep-report", str(store))
    assert "malformed header" in bad(capsys, "sweep", *GRID, "--draws", str(DRAWS),
                                     "--store", str(store))
    assert store.read_bytes() == before
