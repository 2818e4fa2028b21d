"""Model configurations (:mod:`freege.validation.models.hf_config`): a Hugging Face
``config.json`` to dimensions and back, for the presets and through ``--config``."""

import json

import pytest

from freege.validation.models.hf_config import dims_from_hf_config, hf_config, load_hf_config
from freege.validation.models.presets import PRESET_CONFIGS, PRESETS
from tests.cli.helpers import bad, run_cli

SMALL_CFG = {"num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 64,
             "max_position_embeddings": 4096}


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
