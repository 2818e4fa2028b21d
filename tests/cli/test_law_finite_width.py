"""``freege law --finite-width`` and ``freege readout ... --finite-width`` (theory §2.3):
the configurations they cannot do are refused in one line, exit 2, before any work."""

from __future__ import annotations

import pytest

from tests.cli.helpers import bad

DIMS = ("--case", "mha", "--beta", "1", "--h", "4", "--n", "256", "--dk", "32", "--dv", "32",
        "--do", "256")
RATIOS = ("--case", "mha", "--beta", "1", "--h", "4", "--gK", "1", "--gV", "1", "--gO", "1")


@pytest.mark.parametrize("command", [("law",), ("readout", "ridge"), ("readout", "dof")])
def test_refusals(capsys: pytest.CaptureFixture, command: tuple[str, ...]) -> None:
    assert "needs the dimensions" in bad(capsys, *command, *RATIOS, "--finite-width")
    assert "float64 only" in bad(capsys, *command, *DIMS, "--finite-width", "--dps", "20")
    assert "not --expr" in bad(capsys, *command, "--expr", "mp(1/2)", "--finite-width")
    err = bad(capsys, *command, *DIMS, "--finite-width", "--row", "n")
    assert "--row" in err and "\n" not in err.strip()


def test_refuses_a_case_it_does_not_build(capsys: pytest.CaptureFixture) -> None:
    err = bad(capsys, "law", *DIMS[2:], "--case", "head-average", "--finite-width")
    assert "case must be one of" in err


def test_refuses_certify(capsys: pytest.CaptureFixture) -> None:
    assert "certified" in bad(capsys, "law", *DIMS, "--finite-width", "--certify")
