"""Sweep grids and seeds (:mod:`freege.validation.sweep.grid`): beta ranges, grid
products and point keys, bad grids, the shipped and user campaigns."""

import json
import re

import pytest

from freege.validation.models.presets import PRESETS
from freege.validation.sweep.grid import (
    Point,
    expand,
    load_campaign,
    parse_range,
    shipped_campaigns,
)
from tests.cli.helpers import bad

SMALL_CFG = {"num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 64,
             "max_position_embeddings": 4096}


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


def test_campaign_config_paths_are_relative_to_the_file(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(json.dumps(SMALL_CFG))
    toml = tmp_path / "c.toml"
    toml.write_text('draws = 2\n[grid]\nconfig = ["model/config.json"]\nn = [48, 64]\n')
    campaign = load_campaign(str(toml))
    pts = expand(campaign.grid)
    assert campaign.draws == 2 and [p.dims.n for p in pts] == [48, 64]
    assert {(p.model, p.dims.h_kv, p.dims.sharing) for p in pts} == {("model", 2, "gqa")}
