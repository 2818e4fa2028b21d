"""Shared helpers of the CLI tests: run ``freege`` in-process and capture its output."""

from __future__ import annotations

import pytest

from freege.cli import main


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``freege ARGV``."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def bad(capsys: pytest.CaptureFixture, *argv: str) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one line on stderr."""
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (argv, out, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("freege: error:"), err
    return err
