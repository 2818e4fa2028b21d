"""``freege chain`` (theory §2.2, §4.1): output contract, resumable store, bad input; the
outlier in ``freege law``."""

import pytest

from tests.cli.helpers import bad, result_json, run_cli

SMALL = ("--n", "32", "64", "128", "--h", "2", "--dk", "8", "--do", "32", "--draws", "2")


def test_chain_json_and_resume(capsys, tmp_path):
    store = tmp_path / "chain.jsonl"
    code, out, err = run_cli(capsys, "chain", *SMALL, "--format", "json", "--store", str(store))
    assert code == 0 and "2/2" in err
    data = result_json(out, "chain")
    assert list(data["sizes"]) == ["32", "64", "128"] and len(data["steps"]) == 6
    size = data["sizes"]["64"]
    assert set(size["distances"]) == {"1-2", "2-3", "3-4", "4-5", "5-6", "1-3", "1-4", "1-5",
                                      "1-6"}
    assert set(size["distances"]["1-2"]) >= {"rel_w1", "ks", "dm1", "dm4", "abs_dm4"}
    assert size["outlier"]["limit"] == 1.0 and size["outlier"]["ci95"] > 0
    assert {r["what"] for r in data["rates"]} >= {"1-2", "control", "outlier"}
    lines = store.read_text().splitlines()
    assert len(lines) == 1 + 3 * 2
    code, again, _ = run_cli(capsys, "chain", *SMALL, "--format", "json", "--store", str(store))
    assert code == 0 and result_json(again, "chain")["sizes"] == data["sizes"]
    assert len(store.read_text().splitlines()) == len(lines)  # nothing sampled again
    err = bad(capsys, "chain", *SMALL, "--seed", "5", "--store", str(store))
    assert "another chain run" in err
    err = bad(capsys, "chain", *SMALL, "--dtype", "float32", "--store", str(store))
    assert "holds a --dtype float64 run, not float32" in err and len(err.splitlines()) == 1
    # a forged record with a valid checksum is reported and left out, never used
    import json

    from freege.validation.sweep import store as sweep_store

    forged = json.loads(lines[1])["payload"]
    forged["record"]["outlier"] = "1e9"
    with store.open("ab") as fh:
        fh.write(sweep_store.encode({**forged, "draw": 1}))
        fh.write(sweep_store.encode({**json.loads(lines[2])["payload"], "point": "n=64"}))
    code, third, err = run_cli(capsys, "chain", *SMALL, "--format", "json", "--store",
                               str(store))
    assert code == 0 and result_json(third, "chain")["sizes"] == data["sizes"]
    warned = [line for line in err.splitlines() if line.startswith("freege: warning:")]
    assert len(warned) == 2 and "line 8" in warned[0] and "finite number" in warned[0]
    assert "line 9" in warned[1] and "under point n=64" in warned[1]


def test_chain_text_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "chain.png"
    code, out, _ = run_cli(capsys, "chain", "--n", "32", "--h", "2", "--dk", "8", "--do", "32",
                           "--draws", "2", "--sharing", "mqa", "--plot", str(target))
    assert code == 0 and target.stat().st_size > 0
    assert "control 4-5" in out and "s_1(MHA)^2/n" in out and "decay" not in out


@pytest.mark.parametrize("argv,message", [
    (("--n", "32", "32"), "distinct"),
    (("--n", "32", "33"), "n must keep dK"),
    (("--n", "32", "--draws", "1"), "draws must be"),
    (("--n", "32", "--sharing", "tied", "--dv", "4"), "tied sharing needs dV == dK"),
])
def test_chain_bad_input(capsys, argv, message):
    err = bad(capsys, "chain", "--h", "2", "--dk", "8", "--do", "32", *argv)
    assert message in err


@pytest.mark.slow
def test_law_prints_the_outlier_of_mha(capsys):
    """The law options of tests/cli/test_law_cli.py (their derivations are cached)."""
    dims = ["--beta", "1", "--h", "8", "--n", "2048", "--dk", "512", "--dv", "512", "--do",
            "4096"]
    ratios = ["--beta", "1", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"]
    code, out, _ = run_cli(capsys, "law", "--case", "mha", *dims, "--format", "json")
    top = result_json(out, "law")["outlier"]
    assert code == 0 and top["limit"] == 2.0 and top["finite_n_mean"] > 2.0 and top["sd"] > 0
    code, out, _ = run_cli(capsys, "law", "--case", "mha-tied", *ratios)
    assert code == 0 and "outlier s_1(MHA)^2/n -> 2.0" in out


def test_validate_reports_the_outlier(capsys):
    code, out, _ = run_cli(capsys, "validate", "--n", "48", "--h", "3", "--dk", "8", "--do",
                           "40", "--draws", "2", "--backend", "numpy", "--format", "json")
    top = result_json(out, "validate")["outlier"]
    assert code == 0 and top["limit"] == pytest.approx(40 / 48) and "agree" in top


def test_chain_prints_a_verdict_per_size_and_for_the_rates(capsys):
    code, out, _ = run_cli(capsys, "chain", "--n", "24", "32", "40", "--h", "2", "--dk", "6",
                           "--do", "24", "--draws", "2", "--quiet")
    assert code == 0
    verdicts = [line.strip() for line in out.splitlines()
                if line.strip().startswith("verdict:")]
    assert len(verdicts) == 4  # one per size against the floor, one for the decay rates
    assert "verdict = pair 1-6 (softmax vs GE) against its noise floor, pair 5-6" in out
    assert "fitted: exponent b of mean ~ C n^b" in out and "pair k-l:" in out


def test_store_planted_or_shared_is_refused_in_one_line(capsys, tmp_path):
    """Issue 40: a link planted at --store (by uid 65534 when root) is not followed, and a
    store folder others may write (not sticky) is refused before any draw."""
    import os

    victim = tmp_path / "victim.jsonl"
    victim.write_bytes(b"")
    link = tmp_path / "chain.jsonl"
    os.symlink(victim, link)
    if os.geteuid() == 0:
        os.lchown(link, 65534, 65534)
    err = bad(capsys, "chain", *SMALL, "--store", str(link))
    assert err.startswith(f"freege: error: store {link} is a symbolic link: refused")
    assert victim.read_bytes() == b""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    err = bad(capsys, "chain", *SMALL, "--store", str(shared / "chain.jsonl"))
    assert err == (f"freege: error: store folder {shared} is writable by group or others "
                   "(mode 777 and not sticky): refused\n")
    assert list(shared.iterdir()) == []
