"""Shared helpers of the CLI tests: run ``freege`` in-process and capture its output."""

from __future__ import annotations

import json
from typing import Any

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


def result_json(out: str, command: str) -> dict[str, Any]:
    """The result part of a ``--format json`` output of ``command``: checks and strips the
    record of what made it (``freege_version``, ``inputs``)."""
    from freege import __version__

    data = json.loads(out)
    assert data.pop("freege_version") == __version__
    assert data.pop("inputs")["command"] == command
    return data
