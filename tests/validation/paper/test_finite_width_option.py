"""``reproduce paper --measure --finite-width`` below the CLI (theory §2.3, §6.4; issue 29):
table 2's draws also measure softmax against ``ge-row-n`` without changing the softmax
and GE numbers, the report sets its columns beside the GE's, the option is part of the
run's identity, and the estimate counts the extra model."""

from __future__ import annotations

import copy
import math

import pytest

from freege.validation.paper import configs as paper_configs
from freege.validation.paper import measure as paper_measure
from freege.validation.paper import panels as paper_panels
from freege.validation.paper import run as paper_run
from freege.validation.paper import stats as paper_stats
from freege.validation.paper.panels import panel_table2
from freege.validation.sweep import store as sweep_store

SCALE = 32  # the largest scale where every table 2 preset keeps dK >= 2
SMALL = ("table2/dinov3-l16", "table2/bert-base")  # n = 8 and 16 at S = 32


def _small(finite_width: bool, draws: int = 3) -> list[dict]:
    configs = paper_panels.configurations(["table2"], SCALE, draws, finite_width)
    return [c for c in configs if c["key"] in SMALL]


def test_the_option_marks_only_ge_configurations():
    plain = paper_panels.configurations(["2c", "table2"], SCALE, 2)
    marked = paper_panels.configurations(["2c", "table2"], SCALE, 2, finite_width=True)
    for a, b in zip(plain, marked, strict=True):
        assert ("finite_width" in b) == (b["kind"] == "ge")
        assert {k: v for k, v in b.items() if k != "finite_width"} == a


def test_ge_row_n_leaves_the_softmax_and_ge_numbers_of_the_seed_unchanged():
    for plain, marked in zip(_small(False), _small(True), strict=True):
        for draw in range(2):
            a = paper_measure.task(plain, draw, seed=5)
            b = paper_measure.task(marked, draw, seed=5)
            assert (b["rel_w1"], b["ks"]) == (a["rel_w1"], a["ks"])
            assert "ge_row_n" not in a
            row_n = b["ge_row_n"]
            assert math.isfinite(row_n["rel_w1"]) and row_n["rel_w1"] >= 0
            assert 0 <= row_n["ks"] <= 1
            assert row_n["rel_w1"] != b["rel_w1"]  # another model, not the GE again


def test_table2_prints_the_ge_row_n_columns_beside_the_ges():
    configs = _small(True)
    recs = {c["key"]: {i: paper_measure.task(c, i, seed=0) for i in range(c["draws"])}
            for c in configs}
    panel = panel_table2.summarize(configs, recs, {})
    for c, row in zip(configs, panel["rows"], strict=True):
        draws = list(recs[c["key"]].values())
        w1 = paper_stats.student([100 * d["ge_row_n"]["rel_w1"] for d in draws])
        ks = paper_stats.student([d["ge_row_n"]["ks"] for d in draws])
        assert (row["row_n_rel_w1_percent"], row["row_n_rel_w1_half_width"]) == (w1.estimate,
                                                                                 w1.bar)
        assert (row["row_n_ks"], row["row_n_ks_half_width"]) == (ks.estimate, ks.bar)
        plain = paper_stats.student([100 * d["rel_w1"] for d in draws])
        assert row["rel_w1_percent"] == plain.estimate
    lines = panel_table2.table(panel)
    assert lines[0] == panel_table2.TABLE2_ROW_N_NOTE
    assert "theory §2.3" in lines[0] and "docs/findings-finite-width.md" in lines[0]
    assert "| ge-row-n rel W1 % | ge-row-n KS |" in lines[2]
    first = panel["rows"][0]
    assert (f"| {first['row_n_rel_w1_percent']:.3g} ± {first['row_n_rel_w1_half_width']:.2g} "
            f"| {first['row_n_ks']:.3g} ± {first['row_n_ks_half_width']:.2g} |") in lines[4]
    # without the option: no such column, no note
    plain_configs = _small(False)
    plain_recs = {k: {i: {x: v for x, v in d.items() if x != "ge_row_n"} for i, d in r.items()}
                  for k, r in recs.items()}
    plain_lines = panel_table2.table(panel_table2.summarize(plain_configs, plain_recs, {}))
    assert not any("ge-row-n" in line for line in plain_lines)


@pytest.mark.parametrize("written_with", [False, True])
def test_a_store_is_not_resumed_across_the_option(tmp_path, written_with):
    store = tmp_path / "store.jsonl"
    configs = [c for c in _small(written_with, draws=2) if c["key"] == SMALL[0]]
    counts = paper_run.run(configs, store, seed=0, backend="numpy", scale=SCALE,
                           finite_width=written_with)
    assert counts["ok"] == 2
    other = [c for c in _small(not written_with, draws=2) if c["key"] == SMALL[0]]
    with pytest.raises(ValueError, match="finite_width"):
        paper_run.check_store(store, paper_run.header(other, 0, "numpy", SCALE,
                                                      not written_with))
    with pytest.raises(ValueError, match="finite_width"):
        paper_run.run(other, store, seed=0, backend="numpy", scale=SCALE,
                      finite_width=not written_with)
    same = paper_run.run(configs, store, seed=0, backend="numpy", scale=SCALE,
                         finite_width=written_with)
    assert same["skipped"] == 2 and same["ok"] == 0


def test_a_store_from_before_the_option_resumes_without_it(tmp_path):
    store = tmp_path / "store.jsonl"
    configs = [c for c in _small(False, draws=2) if c["key"] == SMALL[0]]
    old = copy.deepcopy(paper_run.header(configs, 0, "numpy", SCALE))
    del old["identity"]["finite_width"]  # the header written before the option existed
    with sweep_store.open_for_append(store, sweep_store.read(store, paper_run.store_schema()),
                                     old):
        pass
    paper_run.check_store(store, paper_run.header(configs, 0, "numpy", SCALE))
    marked = [c for c in _small(True, draws=2) if c["key"] == SMALL[0]]
    with pytest.raises(ValueError, match="finite_width"):
        paper_run.check_store(store, paper_run.header(marked, 0, "numpy", SCALE, True))


def test_the_estimate_counts_the_extra_model():
    for plain, marked in zip(_small(False), _small(True), strict=True):
        a, b = paper_configs.cost(plain), paper_configs.cost(marked)
        for key in ("matmul", "elementwise", "eig"):  # softmax and GE, then one more GE
            assert b[key] == pytest.approx(a[key] * 3 / 2)
        d = plain["dims"]
        assert (paper_configs.peak_bytes(marked) - paper_configs.peak_bytes(plain)
                == 8 * d["n"] * d["h"] * d["dV"])


def test_dK_below_two_or_no_table2_is_refused():
    with pytest.raises(ValueError, match=r"dK >= 2 \(got dK = 1"):
        paper_configs.check_finite_width(paper_panels.configurations(["table2"], 64, 2, True))
    with pytest.raises(ValueError, match="table2"):
        paper_configs.check_finite_width(paper_panels.configurations(["2c"], SCALE, 2, True))
    paper_configs.check_finite_width(paper_panels.configurations(["table2"], SCALE, 2, True))


def test_the_estimate_counts_the_row_coefficient_tables():
    rates = {"matmul": 1e10, "elementwise": 1e9, "eigh": 1e9, "eigvalsh": 3e9}
    plain, marked = _small(False, draws=2), _small(True, draws=2)
    todo = [(c, i) for c in marked for i in range(2)]
    assert paper_run.table_seconds([(c, i) for c in plain for i in range(2)], rates, 1) == 0
    one = paper_run.table_seconds(todo, rates, 1)
    assert one > 0
    # each worker process builds its own table: two workers, two draws each, twice the work
    assert paper_run.table_seconds(todo, rates, 2) == pytest.approx(2 * one)
    est = paper_run.estimate(marked, todo, rates, 1)
    assert est["seconds"] == pytest.approx(
        sum(paper_run.draw_seconds(c, rates) for c, _ in todo) + one)


def test_the_law_columns_measure_the_gap_the_finite_width_law_explains():
    """Table 2's finite-width law columns (theory §2.3): the distances of each draw to the
    two laws' quantiles, their means and half-widths, and the share of the softmax's
    excess over the GE's distance to the limit that the law removes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    limit, fw = np.linspace(0.1, 2.0, 50), np.linspace(0.2, 1.9, 50)
    assert paper_measure.law_distances(limit, fw, (limit, fw), 1.0) == pytest.approx({
        "softmax_limit": 0.0, "softmax_fw": float(np.mean(np.abs(limit - fw))),
        "ge_limit": float(np.mean(np.abs(limit - fw))), "ge_fw": 0.0})
    law = [{"softmax_limit": 0.05 + e, "softmax_fw": 0.03 + e, "ge_limit": 0.01 + e,
            "ge_fw": 0.04 + e} for e in (-1e-3, 0.0, 1e-3)]
    draws = [{"rel_w1": 0.02, "ks": 0.01, "ge_row_n": {"rel_w1": 0.015, "ks": 0.01},
              "law": d} for d in law]
    fields = panel_table2.law_fields(draws)
    assert fields["law_softmax_limit_percent"] == pytest.approx(5.0)
    assert fields["law_softmax_fw_half_width"] == pytest.approx(
        paper_stats.student([100 * d["softmax_fw"] for d in law]).bar)
    # excess 5 - 1 = 4 points, 3 - 1 = 2 left: half explained
    assert fields["law_gap_explained_percent"] == pytest.approx(50.0)
    assert panel_table2.law_fields([{k: v for k, v in d.items() if k != "law"}
                                    for d in draws]) == {}
    row = {"preset": "dinov3-l16", "n": 33, "rel_w1_percent": 2.0, "rel_w1_half_width": 0.1,
           "ks": 0.01, "ks_half_width": 0.001, "row_n_rel_w1_percent": 1.5,
           "row_n_rel_w1_half_width": 0.1, "row_n_ks": 0.01, "row_n_ks_half_width": 0.001,
           "paper": None, **fields}
    plain = {**{k: v for k, v in row.items() if not k.startswith("law_")}, "preset": "x"}
    md = panel_table2.table({"rows": [row, plain]})
    assert panel_table2.TABLE2_LAW_NOTE in md
    assert any("gap explained by the law" in line for line in md)
    assert any(line.startswith("| dinov3-l16") and "+50 %" in line for line in md)
    fig = plt.figure()
    panel_table2.draw(fig, {"rows": [row, plain]})
    labels = fig.axes[0].get_legend_handles_labels()[1]
    ylabel = fig.axes[0].get_ylabel()
    plt.close(fig)
    assert "softmax vs finite-width law" in labels and "softmax vs limiting law" in labels
    assert ylabel == "relative W1 (%)"


def test_the_estimate_counts_the_finite_width_laws():
    rates = {"matmul": 1e10, "elementwise": 1e9, "eigh": 1e9, "eigvalsh": 3e9}
    marked = [c for c in paper_panels.configurations(["table2"], 8, 2, True)
              if c["key"] in SMALL]
    todo = [(c, i) for c in marked for i in range(2)]
    assert paper_run.law_seconds([(c, i) for c in _small(True, 2) for i in range(2)],
                                 rates, 2) == 0  # dK = 2: no law
    one = paper_run.law_seconds(todo, rates, 1)
    assert one == pytest.approx(len(marked) * paper_run.LAW_WORK / rates["elementwise"])
    assert paper_run.law_seconds(todo, rates, 2) == pytest.approx(2 * one)
    est = paper_run.estimate(marked, todo, rates, 1)
    assert est["seconds"] == pytest.approx(
        sum(paper_run.draw_seconds(c, rates) for c, _ in todo)
        + paper_run.table_seconds(todo, rates, 1) + one)
