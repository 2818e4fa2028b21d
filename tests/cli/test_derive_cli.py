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
        (["dof", "--case", "mha", "--order", "x"], "order must be an integer in [1, 12] (got 'x')"),
        (["moments", "--case", "mha", "--order", "\uff11"], "[1, 12] (got '\uff11')"),
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


def _form(capsys: pytest.CaptureFixture, form: str, *argv: str) -> tuple[dict, str]:
    """The JSON and the text of ``derive ARGV --form FORM``."""
    code, out, _ = run_cli(capsys, "derive", *argv, "--form", form, "--format", "json",
                           "--quiet")
    assert code == 0
    # --quiet: on a busy machine a derivation past the progress delay shows progress lines
    code, text, err = run_cli(capsys, "derive", *argv, "--form", form, "--quiet")
    assert code == 0 and err == ""
    return json.loads(out), text


def test_forms_are_the_same_expressions_written_readably(capsys: pytest.CaptureFixture) -> None:
    """``--form collected|factored|expanded``: the same rational functions (JSON parses back
    to equal expressions); collected m_4 of mha is at most 60% of the expanded length and
    its text has no line over WIDTH (a 1,500-character line before); the collected
    S-relation of the tied law shows (theta1 - theta2)**2 in its coefficients, which the
    expanded one spreads over three terms each."""
    from freege.cli.derive import WIDTH

    argv = ("moments", "--case", "mha", "--order", "4")
    forms = {f: _form(capsys, f, *argv) for f in ("collected", "factored", "expanded")}
    m4 = {f: parse_back(data["moments"]["4"]) for f, (data, _) in forms.items()}
    assert sp.cancel(m4["collected"] - m4["expanded"]) == 0
    assert sp.cancel(m4["factored"] - m4["expanded"]) == 0
    assert sp.cancel(m4["expanded"] - in_beta(fs.moments("mha", 4)[3])) == 0
    text = forms["collected"][1]
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    joined = text.replace("\n    ", " ").splitlines()
    collected = next(line for line in joined if line.startswith("m_4 = "))
    expanded = next(line for line in forms["expanded"][1].replace("\n    ", " ").splitlines()
                    if line.startswith("m_4 = "))
    assert len(collected) <= 0.6 * len(expanded), (len(collected), len(expanded))
    theta = {sp.Symbol("theta1"): sp.exp(beta**2) - 1, sp.Symbol("theta2"): beta**2}
    back = sp.sympify(collected.removeprefix("m_4 = "), locals={"beta": beta, "h": h, "gK": gK})
    names = {s.name: s for s in m4["expanded"].free_symbols}
    back = back.subs(theta)
    back = back.subs({s: names[s.name] for s in back.free_symbols})
    assert sp.cancel(back - m4["expanded"]) == 0  # the wrapped text reads back
    relation = ("s-transform", "--case", "value-tied")
    assert "(theta1 - theta2)**2" in _form(capsys, "collected", *relation)[1]
    assert "(theta1 - theta2)" not in _form(capsys, "expanded", *relation)[1]


def test_a_slow_derivation_shows_progress(capsys, monkeypatch, tmp_path) -> None:
    """A cold derivation past the delay (here 0 s) says what it derives and puts each
    result in its form as a progress step on stderr; ``--quiet`` silences it."""
    import freege.cli.derive as derive

    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))  # the output cache is cold
    monkeypatch.setattr(derive, "PROGRESS_DELAY_S", 0.0)
    code, out, err = run_cli(capsys, "derive", "cumulants", "--case", "attention", "--order", "3")
    assert code == 0 and out.startswith("# cumulants")
    assert "freege derive cumulants: 1 steps" in err and "deriving kappa_1..kappa_3" in err
    assert "kappa_3 collected" in err.splitlines()[-1], err
    code, _, err = run_cli(capsys, "derive", "cumulants", "--case", "attention", "--order", "3",
                           "--form", "factored", "--quiet")
    assert code == 0 and err == ""
