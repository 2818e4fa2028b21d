"""Issues 17 and 27: store lines with a *valid, recomputed* checksum but a wrong shape or
an implausible value (out of its range, beyond what the record's spectra can give,
``rel_w1`` not ``w1 / m1``) are checked against the store schema
(:mod:`freege.validation.sweep.schema`) on every read. Fed to ``sweep`` (nothing left to
run), ``sweep`` resuming a missing draw, ``sweep --analyse`` and ``sweep-report``: one
warning line per forged record naming its line, no traceback, and the analysis equal to
the one of the store without them. A header whose theory is not a fresh derivation or
whose identity is larger than a sweep accepts is refused in one line; plausible but huge
values never print an overflowed number."""

import re

import pytest

from freege.params import MAX_DRAWS, MAX_POINTS
from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand
from tests.cli.helpers import result_json, run_cli
from tests.validation.stores import threads_cluster

SWEEP_EXTRA = "needs the 'sweep' extra: pip install '.[sweep]'"

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


def _forgeries(good: dict, limit: float, repeat: bool) -> list[dict]:
    """Every kind of issue 17: no point, no draw, list values, shapes that only the
    report tripped on, a negative distance, numbers as strings, unknown draws and points,
    and (``repeat``) a second, different copy of the finished draw ``good``; and of
    issue 27 (``limit``: the point's limiting m1): an absurd ``rel_w1``, one off
    ``w1 / limit`` by more than rounding, a ``w1`` beyond the spectra's bound or below
    the gap of their means (``rel_w1`` consistent), ``m1 > sqrt(m2)``, an impossible
    byte count."""
    (s1, s2), (g1, g2) = good["moments"]["softmax"], good["moments"]["ge"]
    far, gap = s2**0.5 + g2**0.5, abs(s1 - g1)
    assert gap > 0

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
        edit(rel_w1=1e300), edit(rel_w1=good["rel_w1"] * (1 + 1e-12)),
        edit(w1=1e3 * far, rel_w1=1e3 * far / limit),
        edit(w1=gap / 2, rel_w1=gap / 2 / limit),
        edit(moments={**good["moments"], "ge": [2.0, 3.0]}), edit(peak_bytes=2**64),
    ] + ([edit(rel_w1=123.0)] if repeat else [])


def _forged_store(path, lines, drop: int | None = None):
    """``lines`` with forged records after the header and at the end (line ``drop``
    removed first, its forgeries standing in for it: then without a repeat, which would
    be a valid record); the forged line numbers."""
    import json

    kept = [line for k, line in enumerate(lines) if k != drop]
    good = json.loads(lines[drop if drop is not None else 1])["payload"]
    limit = json.loads(lines[0])["payload"]["theory"][good["point"]][0]
    forged = [sweep_store.encode(f) for f in _forgeries(good, limit, repeat=drop is None)]
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
    pytest.importorskip("distributed", reason=SWEEP_EXTRA)
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
    # issue 27: plausible shapes, implausible content
    {"theory.first": "doubled"}, {"theory.first": "one ulp"},
    {"identity.points": "twice"}, {"identity.points": "too many"},
    {"identity.draws": MAX_DRAWS},
])
def test_forged_header_is_one_line(capsys, clean, tmp_path, change):
    """A checksummed header of the wrong shape, whose theory is not a fresh derivation
    (a doubled limit; one ulp off is rounding and accepted) or whose identity is larger
    than a sweep accepts (a point twice, more than MAX_POINTS points, more than MAX_TASKS
    tasks) makes the store unusable: one line, exit 2, for the report and for a resume,
    the store untouched."""
    import json
    import math

    from tests.cli.helpers import bad

    path, lines = clean
    head = json.loads(lines[0])["payload"]
    (where, value), = change.items()
    first = next(iter(head["theory"]))
    points = head["identity"]["points"]
    if value == "doubled":
        head["theory"][first] = [2 * v for v in head["theory"][first]]
    elif value == "one ulp":
        head["theory"][first] = [math.nextafter(v, 0) for v in head["theory"][first]]
    elif value in ("twice", "too many"):
        head["identity"]["points"] = [points[0]] * (2 if value == "twice" else MAX_POINTS + 1)
    elif where == "theory.first":
        head["theory"][first] = value
    elif "." in where:
        head["identity"][where.split(".")[1]] = value
    else:
        head[where] = value
    store = tmp_path / "head.jsonl"
    store.write_bytes(sweep_store.encode(head) + b"".join(lines[1:]))
    if value == "one ulp":  # rounding: every record is read, none is refused
        report, err = _report(capsys, store)
        assert (report["finished"], err) == (2 * DRAWS, "")
        return
    before = store.read_bytes()
    assert "malformed header" in bad(capsys, "sweep-report", str(store))
    assert "malformed header" in bad(capsys, "sweep", *GRID, "--draws", str(DRAWS),
                                     "--store", str(store))
    assert store.read_bytes() == before


def test_huge_plausible_records_print_no_overflowed_number(capsys, clean, tmp_path):
    """Records within every bound but huge -- distances near 1e150, ``m2 = 1e308`` in
    every draw of a point -- are accepted, and the report shows them in scientific
    notation and flags the statistics that overflow float64: no 300-digit number, no
    ``inf``, no non-finite value in the JSON."""
    import json

    path, lines = clean
    head = json.loads(lines[0])["payload"]
    records = [json.loads(line)["payload"] for line in lines[1:]]
    first = records[0]["point"]
    for r in records:
        if r["point"] == first:
            r["w1"] = 1e150 * (r["draw"] + 1)
            r["rel_w1"] = r["w1"] / head["theory"][first][0]
            r["moments"] = {"softmax": [r["w1"], 1e308], "ge": [0.0, 0.0]}
    store = tmp_path / "huge.jsonl"
    store.write_bytes(lines[0] + b"".join(sweep_store.encode(r) for r in records))
    report, err = _report(capsys, store)
    assert err == "" and report["finished"] == 2 * DRAWS
    entry = next(e for e in report["points"] if e["rel_w1"]["mean"] > 1e100)
    assert entry["softmax_m2"] == {"mean": None, "ci95": None, "flag": "overflow"}
    assert entry["softmax_m2_rel_error"]["flag"] == "overflow"

    def numbers(x):
        if isinstance(x, dict):
            return [v for item in x.values() for v in numbers(item)]
        if isinstance(x, list):
            return [v for item in x for v in numbers(item)]
        return [x]

    leaves = numbers(report)
    assert not any(isinstance(v, str) and v.lower() in ("inf", "-inf", "nan") for v in leaves)
    assert all(v == v and abs(v) != float("inf") for v in leaves if isinstance(v, float))
    code, out, err = run_cli(capsys, "sweep-report", str(store))
    assert code == 0 and err == ""
    assert "inf" not in out.replace("info", "") and not re.search(r"\d{20}", out)
    assert re.search(r" \d\.\d{3}e\+150 ± \d\.\d{3}e\+15\d ", out), out


def test_fit_whose_prefactor_overflows_is_flagged():
    """A log-log fit whose prefactor ``C`` is beyond float64 gives ``C = None`` flagged
    ``overflow`` (no OverflowError), and the text shows neither ``inf`` nor a long
    number for it."""
    from freege.validation.sweep import report as sweep_report

    fit = sweep_report.loglog_fit([1e9 - 2, 1e9 - 1, 1e9], [1e300, 1.0, 1e-300])
    assert fit["prefactor"] is None and "overflow" in fit["flags"]
    text = sweep_report.render_text({
        "store": "s.jsonl", "finished": 0, "tasks": 0, "failed": 0, "backend": "numpy",
        "seed": 0, "points": [], "errors": [],
        "fits": {"n_scaling": [{"group": {"model": None}, "n": [1, 2, 3],
                                "metrics": {"rel_w1": fit}}]}})
    assert "C = -" in text and "overflow: beyond the float64 range" in text
    assert "inf" not in text and not re.search(r"\d{20}", text)


def test_chain_and_paper_records_are_checked_for_range():
    """The measurement tables of ``freege chain`` and the paper run share the schema's
    ranges: a KS above 1 or a negative relative W1 anywhere in a record is named, with
    its place; the same records in range pass."""
    from freege.validation import chain
    from freege.validation.paper import run as paper_run

    row = {"rel_w1": 0.1, "ks": 0.2, "dm1": -0.3}
    rec = {"distances": {"1-2": row}, "controls": {"c": 1.0}, "outlier": 2.0, "n": 32}
    payload = {"type": "draw", "point": "n=32", "draw": 0, "status": "ok", "record": rec}
    check = chain.store_schema().record
    assert check(payload, None) is None
    for key, value, why in (("ks", 2.0, "in [0, 1]"), ("rel_w1", -0.1, ">= 0")):
        forged = {**payload, "record": {**rec, "distances": {"1-2": {**row, key: value}}}}
        assert check(forged, None) == f"record.distances.1-2.{key} must be {why} (got {value})"
    draw = {"type": "draw", "point": "c", "draw": 0, "status": "ok", "seconds": 0.5,
            "values": [{"rel_w1": 0.1, "ks": 0.2}]}
    check = paper_run.store_schema().record
    assert check(draw, {"c": 1}) is None
    assert "seconds must be >= 0" in check({**draw, "seconds": -1.0}, {"c": 1})
    assert "ks must be in [0, 1]" in check({**draw, "values": [{"ks": 1.5}]}, {"c": 1})


def test_chain_summary_refuses_an_overflowing_mean():
    """Chain records each finite but whose mean overflows float64 are refused in one line,
    never summarised as ``inf``."""
    from freege.validation import chain

    rec = {"distances": {"1-2": {"rel_w1": 1e308, "ks": 0.5}}, "controls": {"c": 1.0},
           "outlier": 2.0, "n": 32}
    with pytest.raises(ValueError, match="overflows float64"):
        chain.summarise([rec, rec])
    fine = {**rec, "distances": {"1-2": {"rel_w1": 1e150, "ks": 0.5}}}
    assert chain.summarise([fine, fine])["distances"]["1-2"]["rel_w1"]["mean"] == 1e150


def test_non_finite_record_is_dropped_naming_its_line(capsys, clean, tmp_path):
    """A record holding ``NaN`` (valid JSON to Python, not to the store's strict encoding)
    is dropped as a corrupt line, and the warning names that line."""
    import json

    path, lines = clean
    bad = lines[2].replace(b'"ks":', b'"ks":NaN,"was":', 1)
    assert bad != lines[2]
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"".join(lines[:2] + [bad] + lines[3:]))
    report, err = _report(capsys, store)
    dropped = [w for w in err.splitlines() if "dropped 1 corrupt" in w]
    assert len(dropped) == 1 and "(line 3)" in dropped[0] and str(store) in dropped[0]
    assert "NaN" not in json.dumps(report)
