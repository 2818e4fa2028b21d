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


# --columns: the key norms' column profile too (profile row+column, theory §2.3)
@pytest.mark.parametrize("command", [("law",), ("readout", "ridge"), ("readout", "dof")])
def test_columns_refusals(capsys: pytest.CaptureFixture, command: tuple[str, ...]) -> None:
    for argv in ((*DIMS, "--columns"), ("--expr", "mp(1/2)", "--columns")):
        err = bad(capsys, *command, *argv)
        assert "--columns needs --finite-width" in err
    # tied sharing: the law's own refusal, before any work
    tied = (*DIMS, "--sharing", "tied", "--finite-width", "--columns")
    assert "not derived for tied sharing" in bad(capsys, *command, *tied)
    assert "needs the dimensions" in bad(capsys, *command, *RATIOS, "--finite-width",
                                         "--columns")


class _Built(Exception):
    """Raised by the stand-in law constructor: the CLI got as far as building the law."""


@pytest.mark.parametrize("command", [("law",), ("readout", "ridge"), ("readout", "dof")])
@pytest.mark.parametrize(("flags", "profile"), [((), "row"), (("--columns",), "row+column")])
def test_columns_reach_the_law(monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...],
                               flags: tuple[str, ...], profile: str) -> None:
    """The profile (and the row) reach ``freege.numeric.law``; the law is not built."""
    from freege.cli import law as cli_law
    from freege.cli import main

    seen: list[tuple[tuple, dict]] = []

    def record(*args: object, **kwargs: object) -> None:
        seen.append((args, kwargs))
        raise _Built

    monkeypatch.setattr(cli_law, "law", record)
    cli_law._finite_width_law.cache_clear()
    with pytest.raises(_Built):
        main([*command, *DIMS, "--finite-width", "--row", "infinite-n", *flags])
    (args, kwargs), = seen
    assert args[0] == "mha" and args[1].n == 256 and args[1].dK == 32
    assert kwargs["finite_width"] is True and kwargs["row"] == "infinite-n"
    assert kwargs["profile"] == profile
    assert kwargs["normalized"] is (command[0] == "readout")  # readout: the mean-one law


def test_columns_in_the_description() -> None:
    from freege.cli.law import LawSpec, describe
    from freege.params import Dims

    dims = Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1)
    assert "finite-width law (row finite-n, profile row+column)" in describe(
        LawSpec("mha", dims, False, "finite-n", "row+column"))
    assert "finite-width law (row finite-n, profile row)" in describe(
        LawSpec("mha", dims, False, "finite-n"))
    assert "profile" not in describe(LawSpec("mha", dims))


def test_law_answers_with_the_finite_width_support(capsys: pytest.CaptureFixture) -> None:
    """``freege law --finite-width`` at a small configuration answers (the verified support,
    freege/numeric/mult_support.py): one interval from 0 past the plain law's top, and the
    pdf the API's law gives."""
    from freege.numeric import law
    from freege.params import Dims
    from tests.cli.helpers import result_json, run_cli

    small = ("--case", "attention", "--beta", "1", "--h", "1", "--n", "64", "--dk", "16",
             "--dv", "16", "--do", "64")
    code, out, err = run_cli(capsys, "law", *small, "--finite-width", "--pdf", "1",
                             "--format", "json")
    assert code == 0, err
    data = result_json(out, "law")
    dims = Dims(n=64, h=1, dK=16, dV=16, dO=64, beta=1)
    (lo, hi), = data["support"]
    assert lo == 0
    assert hi > float(law("attention", dims).support()[1])
    assert data["x"] == [1.0]
    (p,) = data["pdf"]
    assert p > 0
    assert p == pytest.approx(float(law("attention", dims, finite_width=True).pdf(1.0)),
                              rel=1e-9)
