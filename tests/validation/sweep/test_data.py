"""Data out of a sweep store (``sweep-report --format csv``, ``freege.validation.load_store``)
and the report's sanity flags and metric names (a store written without Dask,
:mod:`tests.validation.stores`)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from freege.validation.sweep import data as sweep_data
from freege.validation.sweep import report as sweep_report
from freege.validation.sweep import store as sweep_store
from tests.cli.helpers import result_json, run_cli
from tests.validation.stores import write_store

DATA_EXTRA = "needs the 'data' extra: pip install '.[data]'"

DRAWS = 3


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Three n values x 3 draws; the last draw of the first point failed."""
    return write_store(tmp_path_factory.mktemp("data") / "store.jsonl", draws=DRAWS,
                       failed=True)


def test_csv_and_load_store_round_trip(capsys, store):
    pd = pytest.importorskip("pandas", reason=DATA_EXTRA)
    from freege.validation import load_store

    frame = load_store(store)
    assert list(frame.columns) == list(sweep_data.COLUMNS)
    assert len(frame) == 3 * DRAWS  # one row per draw, the failed one included
    code, out, err = run_cli(capsys, "sweep-report", str(store), "--format", "csv")
    assert code == 0, err
    back = pd.read_csv(io.StringIO(out))
    pd.testing.assert_frame_equal(back, frame, check_dtype=False, check_exact=True)
    failed = frame[frame["status"] == "failed"]
    assert len(failed) == 1 and failed["error"].iloc[0] == "RuntimeError: boom"
    assert failed["rel_w1"].isna().all()
    # the rows are the store's records
    records = {(r["point"], r["draw"]): r for r in sweep_store.read(store).records}
    for row in frame[frame["status"] == "ok"].itertuples():
        r = records[(row.point, row.draw)]
        assert (row.rel_w1, row.ks, row.ge_m2) == (r["rel_w1"], r["ks"], r["moments"]["ge"][1])
        assert row.ge_m2_rel_error == pytest.approx(r["moments"]["ge"][1] / row.limit_m2 - 1,
                                                    rel=1e-15)


def test_report_means_are_the_frame_means(store):
    pytest.importorskip("pandas", reason=DATA_EXTRA)
    from freege.validation import load_store

    frame = load_store(store)
    report = sweep_report.summarise(store)
    ok = frame[frame["status"] == "ok"]
    for entry in report["points"]:
        mine = ok[ok["n"] == entry["n"]]
        assert entry["draws"] == len(mine)
        for name in ("rel_w1", "ks", "softmax_m1", "ge_m2_rel_error"):
            assert entry[name]["mean"] == pytest.approx(mine[name].mean(), rel=1e-12)


def test_one_name_per_metric(capsys, store):
    """Every metric has one name in the report JSON, the CSV columns and the fits."""
    code, out, _ = run_cli(capsys, "sweep-report", str(store), "--format", "json")
    report = result_json(out, "sweep-report")
    for entry in report["points"]:
        assert set(sweep_report.METRICS) <= set(entry)
    assert set(sweep_report.METRICS) <= set(sweep_data.COLUMNS)
    (fit,) = report["fits"]["n_scaling"]
    assert set(fit["metrics"]) <= set(sweep_report.METRICS)
    assert set(sweep_report.PLOT_LABELS) <= set(sweep_report.METRICS)


def test_load_store_refuses_a_missing_store(tmp_path):
    pytest.importorskip("pandas", reason=DATA_EXTRA)
    from freege.validation import load_store

    with pytest.raises(ValueError, match="does not exist"):
        load_store(tmp_path / "none.jsonl")


# --- flags -----------------------------------------------------------------------------

def test_degenerate_and_single_intervals_are_flagged():
    assert sweep_report.mean_ci([0.25, 0.25, 0.25])["flag"] == "degenerate"
    assert sweep_report.mean_ci([0.25, 0.25, 0.25])["ci95"] == 0.0
    assert sweep_report.mean_ci([0.5]) == {"mean": 0.5, "ci95": None, "flag": "one_draw"}
    assert sweep_report.mean_ci([0.25, 0.3])["flag"] is None


def test_fits_are_flagged_when_they_resolve_nothing():
    n = np.array([128, 256, 512])
    few = sweep_report.loglog_fit(n, 3.0 * n**-0.5 * np.exp([0.05, -0.05, 0.02]))
    assert few["points"] == 3 and "few_points" in few["flags"]
    flat = sweep_report.loglog_fit([128, 256, 512, 1024, 2048], [1.0, 1.2, 0.9, 1.1, 1.0])
    assert abs(flat["exponent"]) <= flat["ci95"] and flat["flags"] == ["spans_zero"]
    clear = sweep_report.loglog_fit([128, 256, 512, 1024, 2048],
                                    [2.0 * k**-0.5 * (1 + 0.01 * (-1) ** j)
                                     for j, k in enumerate([128, 256, 512, 1024, 2048])])
    assert clear["flags"] == [] and math.isclose(clear["exponent"], -0.5, abs_tol=0.02)


def test_text_report_shows_and_explains_the_flags(capsys, store):
    code, out, _ = run_cli(capsys, "sweep-report", str(store))
    assert code == 0
    assert "few_points" in out and "fewer than 4 n values" in out
    report = sweep_report.summarise(store)
    degenerate = [e for e in report["points"] if e["ks"]["flag"] == "degenerate"]
    if degenerate:  # KS is quantised in steps of 1/n: equal draws happen at these sizes
        assert "(degenerate)" in out and "all values equal" in out
