"""``freege derive``: JSON round trip through sympify, text/LaTeX, bad input (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sympy as sp

import freege.symbolic as fs
from freege.symbolic.equations import cauchy_polynomial
from freege.symbolic.symbols import PARAM_NAMES, G, S, beta, gK, h, in_beta, lam, parse, w
from tests.cli.helpers import run_cli


def parse_back(text: str) -> sp.Expr:
    """The JSON contract: plain ``sympy.sympify`` (no locals) parses every expression, and
    the only free names are the parameters beta, h, gK, gV, gO and the equation's
    variables. Returned with freege's symbols and assumptions."""
    names = [*PARAM_NAMES, "S", "w", "G", "z", "lam"]
    plain = sp.sympify(text)
    assert {s.name for s in plain.free_symbols} <= set(names)
    parsed = parse(text)
    assert sp.simplify(plain.subs({s: sp.Symbol(s.name) for s in plain.free_symbols})
                       - parsed.subs({s: sp.Symbol(s.name) for s in parsed.free_symbols})) == 0
    return parsed


@pytest.mark.parametrize("normalized", [False, True])
def test_moments_json_parses_back(capsys: pytest.CaptureFixture, normalized: bool) -> None:
    argv = ["derive", "moments", "--case", "mha", "--order", "3", "--format", "json"]
    code, out, _ = run_cli(capsys, *argv, *(["--normalized"] if normalized else []))
    assert code == 0
    data = json.loads(out)
    assert data["case"] == "mha" and data["symbols"] == list(PARAM_NAMES)
    assert sorted(data["moments"]) == ["1", "2", "3"]
    for q, expected in enumerate(fs.moments("mha", 3, normalized), 1):
        assert sp.simplify(parse_back(data["moments"][str(q)]) - in_beta(expected)) == 0


def test_cumulants_and_dof_json(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_cli(capsys, "derive", "cumulants", "--case", "value-tied", "--order", "2",
                           "--format", "json")
    assert code == 0
    kappa = json.loads(out)["cumulants"]
    assert sp.simplify(parse_back(kappa["1"]) - in_beta(fs.moments("value-tied", 1)[0])) == 0
    code, out, _ = run_cli(capsys, "derive", "dof", "--case", "attention", "--order", "3",
                           "--format", "json")
    data = json.loads(out)
    assert parse_back(data["dof"]["1"]) == 1
    series = parse_back(data["series"])
    assert sp.simplify(series.coeff(lam, -2) - parse_back(data["dof"]["2"])) == 0


def test_s_transform_json_and_latex(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_cli(capsys, "derive", "s-transform", "--case", "attention", "--format",
                           "json")
    data = json.loads(out)
    explicit, relation = parse_back(data["s_transform"]), parse_back(data["relation"])
    point = {beta: sp.Rational(1, 2), h: 3, gK: 2, w: sp.Rational(1, 5)}
    value = sp.N(explicit.subs(point), 40)
    assert abs(sp.N(relation.subs(point).subs(S, value), 40)) < 1e-30
    code, out, _ = run_cli(capsys, "derive", "s-transform", "--case", "attention", "--format",
                           "latex")
    assert code == 0 and r"\sqrt{" in out and "S(w) =" in out


def test_text_output(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_cli(capsys, "derive", "moments", "--case", "attention", "--order", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == "m_1 = theta1"
    assert lines[-1].startswith("m_2 = ")


def test_cauchy_json(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_cli(capsys, "derive", "cauchy", "--case", "attention", "--format", "json")
    assert code == 0
    data = json.loads(out)
    poly = parse_back(data["polynomial"])
    assert data["variables"] == ["G", "z"] and poly.has(G)
    expected = cauchy_polynomial("attention", True).as_expr()
    code, out, _ = run_cli(capsys, "derive", "cauchy", "--case", "attention", "--normalized",
                           "--format", "json")
    assert code == 0
    assert sp.expand(parse_back(json.loads(out)["polynomial"]) - in_beta(expected)) == 0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["moments", "--case", "softmax", "--order", "2"], "choose from 'attention'"),
        (["moments", "--case", "mha", "--order", "0"], "order must be an integer in [1, 12]"),
        (["cumulants", "--case", "mha", "--order", "13"], "[1, 12]"),
        (["dof", "--case", "mha", "--order", "x"], "invalid int value"),
        (["moments", "--case", "mha", "--order", "2", "--format", "xml"], "invalid choice"),
        (["s-transform"], "--case"),
    ],
)
def test_bad_input_one_line_exit_2(capsys: pytest.CaptureFixture, argv: list[str],
                                   needle: str) -> None:
    code, out, err = run_cli(capsys, "derive", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("freege: error:") and needle in err, err


def test_console_script_bad_case_has_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "freege", "derive", "moments", "--case", "nope", "--order", "2"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "head-average-shared-key" in proc.stderr
