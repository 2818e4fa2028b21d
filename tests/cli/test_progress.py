"""Progress displays: a bar redrawn with ``\\r`` on a terminal, plain lines without control
characters when stderr is a log file or a pipe (issue 9)."""

from __future__ import annotations

import io
import subprocess
import sys
from types import SimpleNamespace

import pytest

from freege.cli import validate
from tests.cli.helpers import run_cli

SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "3",
         "--backend", "numpy"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _no_control_characters(text: str) -> bool:
    return not any(ord(c) < 32 and c != "\n" for c in text)


@pytest.mark.parametrize("argv", [["validate", *SMALL],
                                  ["ladder", "--n", "40", "--trials", "2", "--backend",
                                   "numpy"]])
def test_captured_stderr_gets_plain_lines(capsys, argv) -> None:
    code, _out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert _no_control_characters(err), repr(err)
    total = "3" if argv[0] == "validate" else "2"
    assert f": {total}/{total}  " in err.splitlines()[-1]


def test_a_terminal_gets_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = validate.Progress("work", 2)
    for done in range(3):
        bar(done)
    text = terminal.getvalue()
    assert text.count("\r") == 3 and text.count("\n") == 1 and text.endswith("\n")
    assert "\rwork [########################] 2/2  " in text


def test_a_log_gets_one_line_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    clock = iter([0.0, 1.0, 5.0, 40.0, 41.0, 42.0])
    monkeypatch.setattr(validate, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    bar = validate.Progress("work", 4)  # t = 0
    bar(0)  # t = 1: nothing done yet
    bar(1)  # t = 5: too soon after the start
    bar(2)  # t = 40: a line
    bar(3)  # t = 41: too soon after it
    bar(4)  # t = 42: the last, always
    assert log.getvalue().splitlines() == ["work: 2/4  20 s each",
                                           "work: 4/4  10.5 s each"]


def test_a_real_process_with_stderr_in_a_pipe() -> None:
    proc = subprocess.run([sys.executable, "-m", "freege", "validate", *SMALL],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _no_control_characters(proc.stderr), repr(proc.stderr)
