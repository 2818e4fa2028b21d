"""``float32`` draws (issue 8, item 5): the same weights as float64 to rounding, and a
relative W1 / KS that the precision moves by far less than the softmax-GE distance
itself; the dtype-aware atom at 0; the dtype in a sweep's identity."""

import json

import numpy as np
import pytest

from freege.params import Dims
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.limits import limiting_moments
from freege.validation.sampling.sample import case_for, draw, mha_features
from freege.validation.sweep import engine as sweep
from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand
from tests.cli.helpers import bad, run_cli

EPS32 = float(np.finfo(np.float32).eps)
CONFIGS = [Dims(n=128, h=4, dK=16, dV=16, dO=64),
           Dims(n=128, h=4, h_kv=1, dK=16, dV=16, dO=64, sharing="mqa"),
           Dims(n=96, h=4, dK=16, dV=16, dO=64, sharing="tied"),
           Dims(n=128, h=4, dK=32, dV=32, dO=128)]  # square, full rank


def test_float32_works_in_float32_and_returns_float64_eigenvalues():
    soft, ge = mha_features(CONFIGS[0], seed=1, dtype="float32")
    assert soft.dtype == np.float32 and ge.dtype == np.float32
    d = draw(CONFIGS[0], seed=1, dtype="float32")
    assert d.softmax.dtype == np.float64 and np.all(np.diff(d.softmax) >= 0)
    with pytest.raises(ValueError, match="dtype must be one of float64, float32"):
        draw(CONFIGS[0], seed=1, dtype="float16")
    with pytest.raises(ValueError, match="dtype must be one of"):
        get_backend("numpy", "half")


@pytest.mark.parametrize("dims", CONFIGS, ids=lambda d: f"{d.sharing}-dO{d.dO}")
@pytest.mark.parametrize("seed", [0, 1])
def test_float32_moves_rel_w1_and_ks_by_far_less_than_the_distance(dims, seed):
    """Same seed, so the same weights up to float32 rounding. W1 of sorted samples is
    1-Lipschitz in each sample's sup-norm shift, so |relW1_32 - relW1_64| <= (max|d
    lambda_soft| + max|d lambda_GE|) / m1, with each shift a small multiple of eps32
    times the largest eigenvalue (Weyl's bound for a backward-stable float32 pipeline;
    measured 0.3-3 eps32). The resulting bound is < 1% of relW1_64 itself, and KS with
    the atom at 0 compared as an atom is unchanged (no eigenvalue crosses another
    model's: the shifts are 1e-7 of the scale, the gaps between models 1e-2)."""
    m1 = limiting_moments(case_for(dims), dims, 1)[0]
    d64, d32 = draw(dims, seed=seed), draw(dims, seed=seed, dtype="float32")
    shift_soft = np.max(np.abs(d32.softmax - d64.softmax))
    shift_ge = np.max(np.abs(d32.ge - d64.ge))
    assert shift_soft <= 16 * EPS32 * d64.softmax[-1]
    assert shift_ge <= 16 * EPS32 * d64.ge[-1]
    r64, r32 = metrics.rel_w1(d64.softmax, d64.ge, m1), metrics.rel_w1(d32.softmax, d32.ge, m1)
    bound = (shift_soft + shift_ge) / m1
    assert abs(r32 - r64) <= bound * (1 + 1e-6)
    assert bound < 0.01 * r64
    ks64 = metrics.ks(d64.softmax, d64.ge, metrics.zero_tolerance("float64"))
    ks32 = metrics.ks(d32.softmax, d32.ge, metrics.zero_tolerance("float32"))
    assert ks32 == ks64 > 0


def test_the_atom_at_zero_needs_the_float32_tolerance():
    """rank(MHA) = h dV = 64 < n = 128: 64 exact zeros. float32 puts them at ~1e-8 of
    the largest eigenvalue, above the float64 tolerance but far below float32's."""
    dims = CONFIGS[0]
    d32 = draw(dims, seed=0, dtype="float32")
    rank = dims.h * dims.dV
    for eigs in (d32.softmax, d32.ge):
        _, frac = metrics.split_zero_atom(eigs, metrics.zero_tolerance("float32"))
        assert frac == (dims.n - rank) / dims.n
        _, frac64 = metrics.split_zero_atom(eigs, metrics.zero_tolerance("float64"))
        assert frac64 < frac
    d64 = draw(dims, seed=0)
    _, frac = metrics.split_zero_atom(d64.softmax, metrics.zero_tolerance("float64"))
    assert frac == (dims.n - rank) / dims.n
    with pytest.raises(ValueError, match="dtype must be one of"):
        metrics.zero_tolerance("float16")


def test_a_float32_sweep_never_mixes_into_a_float64_store(tmp_path):
    points = expand({"n": 32, "h": 2, "dk": 8, "do": 24})
    store = tmp_path / "s.jsonl"
    head = sweep.header(points, 2, 0, "numpy", "float64")
    assert head["identity"]["dtype"] == "float64"
    store.write_bytes(sweep_store.encode(head))
    before = store.read_bytes()
    with pytest.raises(ValueError, match="its dtype differ"):
        sweep.run(points, draws=2, store=store, dtype="float32")
    assert store.read_bytes() == before
    with pytest.raises(ValueError, match="dtype must be one of"):
        sweep.run(points, draws=2, store=tmp_path / "t.jsonl", dtype="float16")
    # a store from before the option recorded no dtype: it was float64
    old = {**head, "identity": {k: v for k, v in head["identity"].items() if k != "dtype"}}
    sweep._check_same_sweep(store, old, head)
    with pytest.raises(ValueError, match="its dtype differ"):
        sweep._check_same_sweep(store, old, sweep.header(points, 2, 0, "numpy", "float32"))


def test_float32_draw_task_record():
    p = expand({"n": 32, "h": 2, "dk": 8, "do": 24})[0]
    r64 = sweep.draw_task(p.as_dict(), 0, 0, "numpy", 1.0)
    r32 = sweep.draw_task(p.as_dict(), 0, 0, "numpy", 1.0, "float32")
    assert r32["status"] == "ok" and r32["ks"] == r64["ks"]
    assert abs(r32["w1"] - r64["w1"]) < 1e-3 * r64["w1"]


def test_cli_dtype_option(capsys):
    small = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "2",
             "--backend", "numpy", "--format", "json"]
    code, out, _ = run_cli(capsys, "validate", *small, "--dtype", "float32")
    assert code == 0 and json.loads(out)["dtype"] == "float32"
    code, out, _ = run_cli(capsys, "validate", *small)
    assert code == 0 and json.loads(out)["dtype"] == "float64"
    assert "float16" in bad(capsys, "validate", *small, "--dtype", "float16")
    assert "float16" in bad(capsys, "sweep", "--n", "32", "--h", "2", "--dk", "8", "--do",
                            "24", "--draws", "2", "--store", "s.jsonl", "--dtype", "float16")


def test_float32_sweep_end_to_end(capsys, tmp_path):
    """``freege sweep --dtype float32`` records its dtype in the store's identity; the
    same grid in float64 on that store is refused and leaves it untouched."""
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    store = tmp_path / "f32.jsonl"
    grid = ["--n", "32", "--h", "2", "--dk", "8", "--do", "24", "--draws", "2",
            "--workers", "1", "--store", str(store)]
    code, out, _ = run_cli(capsys, "sweep", *grid, "--dtype", "float32", "--format", "json")
    assert code == 0 and json.loads(out)["ok"] == 2
    contents = sweep_store.read(store)
    assert contents.header["identity"]["dtype"] == "float32"
    before = store.read_bytes()
    assert "its dtype differ" in bad(capsys, "sweep", *grid)
    assert store.read_bytes() == before
