"""Sweep building blocks without a cluster: config.json, grids and seeds, the store, the
report's statistics, and that Dask stays off every path but the sweep's."""

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from freege.validation.models.hf_config import dims_from_hf_config, hf_config, load_hf_config
from freege.validation.models.presets import PRESET_CONFIGS, PRESETS
from freege.validation.sampling import metrics
from freege.validation.sweep import report as sweep_report
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import (
    Point,
    expand,
    load_campaign,
    parse_range,
    shipped_campaigns,
)
from tests.cli.helpers import bad, run_cli

SMALL_CFG = {"num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 64,
             "max_position_embeddings": 4096}


# --- config.json ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_config_round_trip(name, tmp_path):
    dims = PRESETS[name]
    cfg = hf_config(dims)
    assert dims_from_hf_config(cfg) == dims
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    assert load_hf_config(path) == dims
    assert dims_from_hf_config(PRESET_CONFIGS[name]) == dims


def test_config_infers_sharing_and_widths():
    gqa = dims_from_hf_config(SMALL_CFG, n=48)
    assert (gqa.sharing, gqa.h, gqa.h_kv, gqa.dK, gqa.dV, gqa.dO, gqa.n) == (
        "gqa", 4, 2, 16, 16, 64, 48)
    mqa = dims_from_hf_config({**SMALL_CFG, "num_key_value_heads": 1}, n=48)
    assert mqa.sharing == "mqa"
    assert dims_from_hf_config({**SMALL_CFG, "head_dim": 8}, n=48).dK == 8
    # context beyond the width: d (parameter counts only) follows n
    assert dims_from_hf_config(SMALL_CFG).d == 4096


def test_validate_config_matches_explicit_options(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(SMALL_CFG))
    common = ["--draws", "2", "--backend", "numpy", "--format", "json"]
    code, out, _ = run_cli(capsys, "validate", "--config", str(path), "--n", "48", *common)
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("n", "h", "h_kv", "dk", "dv", "do")} == {
        "n": 48, "h": 4, "h_kv": 2, "dk": 16, "dv": 16, "do": 64}
    err = bad(capsys, "validate", "--config", str(path), "--h-kv", "1", "--draws", "2")
    assert "--config takes only --n besides (got --h-kv)" in err
    code, out, _ = run_cli(capsys, "validate", "--n", "48", "--h", "4", "--h-kv", "2",
                           "--sharing", "gqa", "--dk", "16", "--do", "64", "--d", "64",
                           *common)
    explicit = json.loads(out)
    assert data["rel_w1"] == explicit["rel_w1"] and data["ks"] == explicit["ks"]


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not valid JSON"),
    ('{"hidden_size": 64}', "missing key(s) num_attention_heads"),
    ('{"num_attention_heads": 5, "hidden_size": 64, "max_position_embeddings": 8}',
     "not a multiple"),
    ('{"num_attention_heads": 4, "hidden_size": 64}', "give n"),
    ('{"num_attention_heads": "4", "hidden_size": 64, "max_position_embeddings": 8}',
     "num_attention_heads must be an integer"),
    ('[1, 2]', "JSON object"),
])
def test_bad_config_json(capsys, tmp_path, text, message):
    path = tmp_path / "config.json"
    path.write_text(text)
    err = bad(capsys, "validate", "--config", str(path), "--draws", "2")
    assert message in err
    err = bad(capsys, "sweep", "--config", str(path), "--draws", "2", "--store",
              str(tmp_path / "s.jsonl"))
    assert message in err
    assert not (tmp_path / "s.jsonl").exists()


# --- grids and seeds -------------------------------------------------------------------

def test_beta_range_is_decimal_exact():
    assert parse_range("0.25:2:0.25") == [0.25 * k for k in range(1, 9)]
    assert parse_range("0.1:0.3:0.1") == [0.1, 0.2, 0.3]
    for text in ("1:0:0.5", "0:1:0", "a:b:c", "1:2"):
        with pytest.raises(ValueError, match="beta range"):
            parse_range(text)


def test_grid_product_overrides_and_keys():
    pts = expand({"preset": ["bert-base"], "n": [128, 1024], "beta": "0.5:1:0.5"})
    assert [(p.dims.n, float(p.dims.beta)) for p in pts] == [(128, 0.5), (128, 1.0),
                                                              (1024, 0.5), (1024, 1.0)]
    assert pts[0].dims.d == 768 and pts[2].dims.d == 1024  # d raised to n (counts only)
    # option strings (the CLI's) give the same points as TOML numbers
    assert expand({"preset": ["bert-base"], "n": ["128", "1024"], "beta": ["0.5", "1"]}) == pts
    falcon = expand({"preset": ["falcon-7b"], "h": [8]})[0].dims
    assert (falcon.h, falcon.h_kv, falcon.sharing) == (8, 1, "mqa")
    wide = expand({"preset": ["bert-base"], "h": [4]})[0].dims
    assert (wide.h, wide.h_kv) == (4, 4)
    # a point's key (and so its seeds) does not depend on the grid around it
    alone = expand({"preset": ["bert-base"], "n": [1024], "beta": [1]})
    assert alone[0].key == pts[3].key
    assert Point.from_dict(pts[3].as_dict()) == pts[3]
    assert len({p.key for p in pts}) == 4


@pytest.mark.parametrize(("grid", "message"), [
    ({"n": [64], "h": [2], "dk": [8], "do": [8], "heads": [3]}, "unknown grid key(s) heads"),
    ({"n": [], "h": [2], "dk": [8], "do": [8]}, "grid key n is empty"),
    ({}, "empty grid"),
    ([], "empty grid"),
    ({"n": [64], "h": [2]}, "missing dk, do"),
    ({"preset": ["kayyam-1.2b"], "case": ["mha"]}, "is case mha-tied"),
    ({"preset": ["bert-base"], "case": ["attn"]}, "case must be one of"),
    ({"preset": ["gpt5"]}, "unknown preset"),
    ({"preset": ["bert-base"], "n": ["many"]}, "n must be a number"),
    ({"preset": ["bert-base"], "beta": [-1]}, "beta must be a finite number > 0"),
])
def test_bad_grids(grid, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        expand(grid)


def test_shipped_campaigns_expand():
    assert set(shipped_campaigns()) >= {"n-scaling", "beta", "heads"}
    ns = expand(load_campaign("n-scaling").grid)
    assert [p.dims.n for p in ns] == [128, 256, 512, 1024, 2048, 4096]
    assert {(p.dims.h, p.dims.dK, p.dims.dO) for p in ns} == {(12, 64, 768)}
    heads = expand(load_campaign("heads").grid)
    assert [p.dims.h for p in heads] == [1, 2, 4, 8, 16, 32, 64]
    assert {p.dims.h * p.dims.dK for p in heads} == {1024}
    beta = expand(load_campaign("beta").grid)
    assert len(beta) == len(PRESETS) * 10
    assert {float(p.dims.beta) for p in beta} == {0.25 * k for k in range(1, 11)}


@pytest.mark.parametrize(("text", "message"), [
    ("[grid\nn = 1", "not valid TOML"),
    ("draws = 2\n[grid]\nn = [64]\nh = 2\ndk = 8\ndo = 8\nsize = 3\n", "unknown grid key"),
    ("draws = 2\n", "empty grid"),
    ("draws = 2\n[grid]\nn = []\nh = 2\ndk = 8\ndo = 8\n", "grid key n is empty"),
    ("draws = 2\nwidth = 3\n[grid]\nn = 64\n", "unknown key(s) width"),
])
def test_bad_campaign_cli(capsys, tmp_path, text, message):
    toml = tmp_path / "c.toml"
    toml.write_text(text)
    store = tmp_path / "s.jsonl"
    err = bad(capsys, "sweep", "--campaign", str(toml), "--store", str(store))
    assert message in err
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


# --- the store -------------------------------------------------------------------------

STORE_POINT = expand({"n": 8, "h": 1, "dk": 2, "do": 4})[0]


def _theory():
    """The theory §4 limits ``[m1, m2]`` of :data:`STORE_POINT`, as a header holds them."""
    from freege.validation.sampling.limits import limiting_moments

    return limiting_moments(STORE_POINT.case, STORE_POINT.dims, 2)


def _record(i):
    """A well-formed, plausible draw record of :data:`STORE_POINT` (schema of
    ``sweep_schema``); ``x`` is an extra key, ignored on reading."""
    return {"type": "draw", "point": STORE_POINT.key, "draw": i, "status": "ok", "w1": 0.1,
            "rel_w1": 0.1 / _theory()[0], "ks": 0.3,
            "moments": {"softmax": [1.0, 2.0], "ge": [1.0, 2.0]},
            "seconds": 0.01, "peak_bytes": None, "x": 0.1 * i}


def _store(path, n_records=3):
    head = {"type": "header", "format": sweep_store.FORMAT,
            "identity": {"points": [STORE_POINT.as_dict()], "draws": n_records, "seed": 0,
                         "backend": "numpy"},
            "theory": {STORE_POINT.key: _theory()}}
    lines = [sweep_store.encode(head)]
    lines += [sweep_store.encode(_record(i)) for i in range(n_records)]
    path.write_bytes(b"".join(lines))
    return lines


def test_store_round_trip_and_checksum(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _store(path)
    contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 1, 2] and contents.dropped == 0
    key = STORE_POINT.key
    assert sweep_store.finished(contents) == {(key, 0), (key, 1), (key, 2)}
    # a flipped digit in the middle is caught by its checksum and skipped, not truncated
    tampered = lines[2].replace(b'"x":0.1', b'"x":0.7')
    assert tampered != lines[2]
    path.write_bytes(lines[0] + lines[1] + tampered + lines[3])
    with pytest.warns(UserWarning, match="in its middle"):
        contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 2]
    assert contents.valid_end == contents.size


def test_store_truncated_tail_is_cut_before_appending(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _store(path)
    whole = b"".join(lines)
    path.write_bytes(whole[:-25])  # the last record cut mid-line (a kill -9 mid-write)
    with pytest.warns(UserWarning, match="at its end"):
        contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 1]
    with sweep_store.open_for_append(path, contents, None) as writer:
        writer.append(_record(2))
    assert path.read_bytes() == whole


def test_store_refuses_foreign_files(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\nmore notes\n")
    with pytest.raises(ValueError, match="no valid sweep header"):
        sweep_store.read(path)
    assert path.read_text() == "my notes\nmore notes\n"


# --- report statistics -----------------------------------------------------------------

def test_mean_ci_matches_metrics():
    values = [0.3, 0.1, 0.25, 0.4]
    got = sweep_report.mean_ci(values)
    assert (got["mean"], got["ci95"]) == pytest.approx(metrics.mean_ci(values), rel=1e-12)
    assert sweep_report.mean_ci([0.5]) == {"mean": 0.5, "ci95": None, "flag": "one_draw"}
    assert sweep_report.mean_ci([]) == {"mean": None, "ci95": None, "flag": None}
    assert sweep_report.mean_ci([0.25] * 3) == {"mean": 0.25, "ci95": 0.0, "flag": "degenerate"}
    overflow = {"mean": None, "ci95": None, "flag": "overflow"}
    assert sweep_report.mean_ci([0.25, math.inf]) == overflow  # an overflowed value
    assert sweep_report.mean_ci([1e308, 1e308]) == overflow  # an overflowing sum
    assert sweep_report.mean_ci([-1e308, 1e308]) == overflow  # an overflowing spread


def test_loglog_fit_recovers_an_exponent():
    n = np.array([128, 256, 512, 1024, 2048])
    exact = sweep_report.loglog_fit(n, 3.0 * n**-0.5)
    assert exact["exponent"] == pytest.approx(-0.5, abs=1e-12)
    assert exact["prefactor"] == pytest.approx(3.0, rel=1e-10) and exact["ci95"] < 1e-10
    # noisy data: the 95% CI covers the true exponent in about 95% of seeded trials
    rng = np.random.default_rng(1)
    trials = 400
    covered = sum(
        abs(f["exponent"] + 0.5) <= f["ci95"]
        for f in (sweep_report.loglog_fit(n, 3.0 * n**-0.5 * np.exp(0.1 * rng.standard_normal(
            n.size))) for _ in range(trials)))
    # binomial(400, 0.95): 3 standard deviations is 13 trials
    assert abs(covered / trials - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / trials)


# --- batching ------------------------------------------------------------------------

def test_batches_group_by_cost_up_to_task_seconds():
    from freege.validation.sweep import engine as sweep

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


def test_campaign_config_paths_are_relative_to_the_file(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(json.dumps(SMALL_CFG))
    toml = tmp_path / "c.toml"
    toml.write_text('draws = 2\n[grid]\nconfig = ["model/config.json"]\nn = [48, 64]\n')
    campaign = load_campaign(str(toml))
    pts = expand(campaign.grid)
    assert campaign.draws == 2 and [p.dims.n for p in pts] == [48, 64]
    assert {(p.model, p.dims.h_kv, p.dims.sharing) for p in pts} == {("model", 2, "gqa")}


def test_unusable_cupy_is_one_line(capsys, tmp_path):
    from freege.validation.sampling.backend import cupy_problem

    if cupy_problem() is None:
        pytest.skip("CuPy is usable here")
    store = tmp_path / "s.jsonl"
    err = bad(capsys, "sweep", "--n", "32", "--h", "2", "--dk", "8", "--do", "24",
              "--draws", "2", "--store", str(store), "--backend", "cupy")
    assert "backend cupy is unusable" in err and not store.exists()
