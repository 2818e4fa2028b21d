"""Every ``--format json`` output starts with ``freege_version`` and the run's ``inputs``
(the command and every option after defaults), written in one place
(:func:`freege.cli.common.emit`)."""

from __future__ import annotations

import json

import pytest

import freege
from tests.cli.helpers import run_cli

RATIOS = ["--beta", "1", "--h", "2", "--gK", "2", "--gV", "2", "--gO", "2"]
SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "2",
         "--backend", "numpy"]

#: argv, an option given (dest, value as parsed: numbers the command checks itself stay
#: text), an option left at its default (dest, value)
RUNS = [
    (["derive", "moments", "--case", "mha", "--order", "2"], ("order", 2),
     ("normalized", False)),
    (["law", "--case", "mha", *RATIOS], ("gK", "2"), ("dps", None)),
    (["readout", "dof", *RATIOS, "--lam", "0.5"], ("lam", "0.5"), ("certify", False)),
    (["validate", *SMALL], ("n", "48"), ("seed", "0")),
    (["ladder", "--n", "40", "--trials", "1", "--backend", "numpy"], ("trials", "1"),
     ("plot", None)),
]


@pytest.mark.parametrize(("argv", "given", "default"), RUNS,
                         ids=[" ".join(argv[:2]) for argv, _g, _d in RUNS])
def test_json_output_records_version_and_inputs(capsys, argv, given, default) -> None:
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data)[:2] == ["freege_version", "inputs"]
    assert data["freege_version"] == freege.__version__
    inputs = data["inputs"]
    assert inputs["command"] == argv[0] and inputs["format"] == "json"
    assert "func" not in inputs
    for dest, value in (given, default):
        assert inputs[dest] == value, dest


def test_text_output_is_unchanged(capsys) -> None:
    code, out, _ = run_cli(capsys, "derive", "moments", "--case", "mha", "--order", "2")
    assert code == 0
    assert "freege_version" not in out and "inputs" not in out
