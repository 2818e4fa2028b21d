"""``--case value`` and ``value-tied`` do not use gO (theory §4): ``--gO`` is optional
there, and required elsewhere (issue 16 item 5)."""

from __future__ import annotations

from tests.cli.helpers import bad, run_cli

LAW = ("--beta", "1", "--h", "4", "--gK", "0.5", "--pdf", "1")


def test_value_laws_need_no_gO(capsys) -> None:
    for case in ("value", "value-tied"):
        code, out, _ = run_cli(capsys, "law", "--case", case, *LAW, "--gV", "0.5")
        assert code == 0
        with_go = run_cli(capsys, "law", "--case", case, *LAW, "--gV", "0.5", "--gO", "3")
        assert with_go[0] == 0
        table = lambda text: text.split("x  pdf")[1]  # noqa: E731 -- the values, not the header
        assert table(out) == table(with_go[1])


def test_mha_still_needs_gO(capsys) -> None:
    assert "--gO" in bad(capsys, "law", "--case", "mha", *LAW, "--gV", "0.5")
