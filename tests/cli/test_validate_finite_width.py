"""``freege validate --finite-width`` (theory §2.3)."""

from __future__ import annotations

from tests.cli.helpers import bad, result_json, run_cli

ARGS = ("validate", "--n", "96", "--h", "4", "--dk", "8", "--do", "64", "--draws", "2",
        "--quiet")


def test_finite_width_block_in_json_and_text(capsys):
    code, out, _ = run_cli(capsys, *ARGS, "--finite-width", "--format", "json")
    assert code == 0
    fw = result_json(out, "validate")["finite_width"]
    assert fw["model"] == "ge-row-n"
    assert set(fw["moment_rel_error"]) == {"softmax", "ge_row_n"}
    assert len(fw["limiting_moments"]) == 2 and 0 <= fw["ks"]["mean"] <= 1
    law = fw["law"]  # the finite-width law's quantiles (issue 39)
    assert law["row"] == "finite-n" and abs(law["grid_mass"] - 1) <= 1e-3
    for key in ("softmax-law", "softmax-limit", "ge-law", "ge-limit"):
        assert 0 < law[f"rel_w1/{key}"]["mean"] < 1
    from freege.cli.validate import _finite_width_lines

    text = "\n".join(_finite_width_lines(fw, lambda c: f"{c['mean']:.4f}"))
    assert "finite-width law (theory §2.3, row finite-n)" in text
    code, out, _ = run_cli(capsys, *ARGS, "--format", "json")
    assert "finite_width" not in result_json(out, "validate")


def test_finite_width_refuses_dk_1(capsys):
    err = bad(capsys, "validate", "--n", "64", "--h", "2", "--dk", "1", "--do", "64",
              "--draws", "2", "--finite-width")
    assert "dK must be >= 2" in err
