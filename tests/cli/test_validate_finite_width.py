"""``freege validate --finite-width`` (theory §2.3)."""

from __future__ import annotations

import pytest

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
    assert law["row"] == "finite-n" and law["profile"] == "row"
    assert abs(law["grid_mass"] - 1) <= 1e-3
    for key in ("softmax-law", "softmax-limit", "ge-law", "ge-limit"):
        assert 0 < law[f"rel_w1/{key}"]["mean"] < 1
    from freege.cli.validate import _finite_width_lines

    text = "\n".join(_finite_width_lines(fw, lambda c: f"{c['mean']:.4f}"))
    assert "finite-width law (theory §2.3, row finite-n, profile row)" in text
    code, out, _ = run_cli(capsys, *ARGS, "--format", "json")
    assert "finite_width" not in result_json(out, "validate")


def test_finite_width_refuses_dk_1(capsys):
    err = bad(capsys, "validate", "--n", "64", "--h", "2", "--dk", "1", "--do", "64",
              "--draws", "2", "--finite-width")
    assert "dK must be >= 2" in err


# --columns: the finite-width law with the key norms' column profile (theory §2.3)
def test_columns_refusals(capsys):
    assert "--columns needs --finite-width" in bad(capsys, *ARGS, "--columns")
    err = bad(capsys, *ARGS, "--sharing", "tied", "--finite-width", "--columns")
    assert "--columns" in err and "tied sharing" in err
    err = bad(capsys, "validate", "--weights", "w.npz", "--dk", "8", "--columns")
    assert "(got --columns)" in err


class _Built(Exception):
    """Raised by the stand-in law: validate got as far as building the finite-width law."""


def test_columns_reach_the_law(capsys, monkeypatch):
    """``--columns`` reaches ``freege.numeric.law`` as ``profile="row+column"`` (without
    it, ``row``); the finite-width law is not built."""
    import freege.numeric

    real, seen = freege.numeric.law, []

    def record(*args, **kwargs):
        if not kwargs.get("finite_width"):
            return real(*args, **kwargs)
        seen.append(kwargs)
        raise _Built

    monkeypatch.setattr(freege.numeric, "law", record)
    for flags, profile in (((), "row"), (("--columns",), "row+column")):
        with pytest.raises(_Built):
            run_cli(capsys, *ARGS, "--finite-width", *flags)
        assert seen.pop()["profile"] == profile


def test_profile_in_the_text():
    from freege.cli.validate import _finite_width_lines

    stat = {"mean": 0.1, "ci95": 0.01}
    fw = {"moment_rel_error": {k: {"m1": stat, "m2": stat} for k in ("softmax", "ge_row_n")},
          "limiting_moments": [1.0, 2.0], "rel_w1": stat, "ks": stat,
          "noise_floor": {"rel_w1": stat},
          "law": {"row": "finite-n", "profile": "row+column",
                  **{f"rel_w1/{m}-{t}": stat for m in ("softmax", "ge")
                     for t in ("law", "limit")}}}
    text = "\n".join(_finite_width_lines(fw, lambda c: f"{c['mean']:.4f}"))
    assert "finite-width law (theory §2.3, row finite-n, profile row+column)" in text
