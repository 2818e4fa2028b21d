"""Progress of long commands (freege.progress): a tqdm bar on a terminal, timestamped plain
lines at a fixed interval in a log file or a pipe, ``--quiet`` / ``--verbose``."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from freege import progress
from tests.cli.helpers import run_cli

SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "3",
         "--backend", "numpy"]
ROOT = Path(__file__).resolve().parents[2]
#: a progress line: UTC time stamp, the command's label, the count
LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ freege (\S+) .*?: (\d+)/(\d+) (\w+)s")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _no_control_characters(text: str) -> bool:
    return not any(ord(c) < 32 and c != "\n" for c in text)


def _progress_lines(err: str) -> list[tuple[str, int, int, str]]:
    return [(m[1], int(m[2]), int(m[3]), m[4]) for m in map(LINE.match, err.splitlines()) if m]


@pytest.mark.parametrize("argv", [["validate", *SMALL],
                                  ["ladder", "--n", "40", "--trials", "2", "--backend",
                                   "numpy"]])
def test_captured_stderr_gets_timestamped_lines(capsys, argv) -> None:
    code, _out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert _no_control_characters(err), repr(err)
    lines = _progress_lines(err)
    total = 3 if argv[0] == "validate" else 2
    unit = "draw" if argv[0] == "validate" else "trial"
    assert lines[0] == (argv[0], 1, total, unit) and lines[-1] == (argv[0], total, total, unit)


def test_quiet_and_verbose(capsys) -> None:
    code, _out, err = run_cli(capsys, "validate", *SMALL, "--quiet")
    assert code == 0 and "freege validate" not in err
    code, _out, err = run_cli(capsys, "validate", *SMALL, "--verbose")
    assert code == 0
    draws = [line for line in err.splitlines() if re.search(r": draw \d/3: ", line)]
    assert len(draws) == 3 and all(line[:4].isdigit() for line in draws)
    code, _out, err = run_cli(capsys, "validate", *SMALL, "--quiet", "--verbose")
    assert code == 2 and "not allowed with argument" in err


def test_a_terminal_gets_a_tqdm_bar() -> None:
    pytest.importorskip("tqdm")
    terminal = _Terminal()
    with progress.Progress("work", 2, unit="draw", stream=terminal) as bar:
        bar.update()
        bar.note("hidden at the default verbosity")
        bar.update()
    text = terminal.getvalue()
    assert "\r" in text and "2/2" in text and "hidden" not in text


def test_a_log_gets_one_line_per_interval() -> None:
    log = io.StringIO()
    clock = iter([0.0, 5.0, 20.0, 40.0, 41.0, 42.0])
    bar = progress.Progress("work", 5, unit="draw", stream=log, clock=lambda: next(clock))
    bar.update()  # t = 5: the first step, a line
    bar.update()  # t = 20: too soon after it
    bar.update()  # t = 40: a line
    bar.update()  # t = 41: too soon after it
    bar.update()  # t = 42: the last, always
    bar.close()   # nothing more: the last count is written
    lines = [line.split(" ", 1)[1] for line in log.getvalue().splitlines()]
    assert lines == ["freege work: 1/5 draws, 5.00 s each, about 20 s left",
                     "freege work: 3/5 draws, 13.33 s each, about 27 s left",
                     "freege work: 5/5 draws, 8.40 s each"]


def test_an_unknown_total_ends_with_its_count() -> None:
    log = io.StringIO()
    clock = iter([0.0, 1.0, 2.0, 3.0, 4.0])
    with progress.Progress("steps", None, stream=log, clock=lambda: next(clock)) as bar:
        bar.update(status="first")
        bar.update(status="second")
        bar.update(status="third")
    lines = [line.split(" ", 1)[1] for line in log.getvalue().splitlines()]
    assert lines == ["freege steps: 1 steps, 1.00 s each, first",
                     "freege steps: 3 steps, 1.33 s each, third"]


def test_an_error_is_the_last_line() -> None:
    log = io.StringIO()
    with pytest.raises(ValueError), progress.Progress("x", 3, stream=log) as bar:
        bar.update()
        bar.update()
        raise ValueError("bad")
    assert len(log.getvalue().splitlines()) == 1  # the first step's line, no closing count


def test_bad_verbosity() -> None:
    with pytest.raises(ValueError, match="verbosity must be one of"):
        progress.Progress("x", 1, verbosity=3)


def test_a_real_process_redirected_to_a_log(tmp_path: Path) -> None:
    """``freege validate ... > log 2>&1``: the log holds timestamped progress lines,
    without control characters, beside the result."""
    log = tmp_path / "log"
    with log.open("w") as out:
        proc = subprocess.run([sys.executable, "-m", "freege", "validate", *SMALL],
                              stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, timeout=300)
    text = log.read_text()
    assert proc.returncode == 0, text
    assert _no_control_characters(text), repr(text)
    assert _progress_lines(text)[-1] == ("validate", 3, 3, "draw")
    assert "noise floor" in text


def test_a_long_silent_step_says_what_it_does() -> None:
    """``waiting``: a step that reports nothing itself (a sympy derivation) gets a line with
    its status and time so far every interval, then counts as one step."""
    import time

    log = io.StringIO()
    with progress.Progress("derive moments", None, stream=log, interval=0.05) as bar:
        with bar.waiting("deriving m_1..m_12"):
            time.sleep(0.3)
    lines = log.getvalue().splitlines()
    beats = [line for line in lines if line.endswith("so far")]
    assert len(beats) >= 2 and "freege derive moments: deriving m_1..m_12, " in beats[0]
    assert lines[-1].split(": ", 1)[1].startswith("1 steps") and _no_control_characters(
        log.getvalue())


def test_a_quick_command_under_the_delay_stays_silent() -> None:
    """``delay``: nothing at all (no heartbeat, no count, no last line) when the work ends
    first; the same work past the delay is reported."""
    import time

    log = io.StringIO()
    with progress.Progress("derive", None, stream=log, delay=5.0, interval=0.01) as bar:
        with bar.waiting("deriving"):
            time.sleep(0.05)
        bar.update(1, status="m_1 collected")
    assert log.getvalue() == ""
    clock = iter([0.0, 10.0, 10.0, 10.0, 10.0, 10.0])
    with progress.Progress("derive", None, stream=log, delay=5.0,
                           clock=lambda: next(clock)) as bar:
        bar.update(1, status="m_1 collected")
    assert "freege derive: 1 steps" in log.getvalue()
