"""``freege law --expr``: the law algebra from the command line (docs/algebra.md) -- the
same numbers as ``expr.law()``, one-line errors (exit 2) for bad expressions, ``--expr``
and the case options mutually exclusive."""

from __future__ import annotations

import mpmath
import pytest

from freege import algebra
from tests.cli.helpers import bad, result_json, run_cli


def test_expression_law_json_matches_the_python_law(capsys):
    text = "mp(1/2) * mp(1/2)"
    code, out, _ = run_cli(capsys, "law", "--expr", text, "--pdf", "0.5", "1",
                           "--format", "json")
    assert code == 0
    data = result_json(out, "law")
    law = algebra.parse(text).law()
    assert data["support"] == [list(law.intervals()[0])]
    assert data["pdf"] == list(law.pdf([0.5, 1.0]))
    assert data["mean"] == 1.0 and data["atoms"] == []


def test_atoms_anywhere_and_digits(capsys):
    code, out, _ = run_cli(capsys, "law", "--expr", "2*mp(2) + 1", "--dps", "20")
    assert code == 0
    assert "mass 0.50000000000000000000 at 1.0000000000000000000" in out
    code, out, _ = run_cli(capsys, "law", "--expr", "semicircle(1)", "--pdf", "0",
                           "--dps", "20")
    assert code == 0
    with mpmath.workdps(20):
        assert mpmath.nstr(1 / mpmath.pi, 20, strip_zeros=False) in out
    assert "mbar2   -" in out  # mean 0: no m2/m1^2


@pytest.mark.parametrize(("argv", "names"), [
    (["--expr", "mp(1/2) ** 2"], "expression"),
    (["--expr", "__import__('os')"], "unknown function"),
    (["--expr", "mp(0)"], "ratio"),
    (["--expr", "mp(1) *"], "expression"),
    (["--expr", "mp(1)", "--case", "mha"], "mutually exclusive"),
    (["--expr", "mp(1)", "--beta", "1"], "mutually exclusive"),
    (["--expr", "mp(1)", "--gO", "2"], "--expr and --gO are mutually exclusive"),
    (["--expr", "mp(gK)"], "--expr: mp(gK) has free parameters (gK)"),
    (["--expr", "semicircle(1)", "--normalized"], "mean 0"),
    (["--beta", "1", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--case"),
    (["--case", "mha", "--h", "8", "--gK", "2", "--gV", "2", "--gO", "2"], "--beta"),
])
def test_bad_expression_input_is_one_line_exit_2(capsys, argv, names):
    assert names in bad(capsys, "law", *argv)
