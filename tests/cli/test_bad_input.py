"""Every bad input gets one line (issue 11): extreme parameters, runaway work, impossible
sizes and output failures are refused early -- one line ``freege: error: ...`` on stderr,
exit status 2, nothing on stdout, no traceback, no file written -- or, for a closed pipe,
a quiet exit.

Parameter, size and plot-path reproducers run in-process under an alarm (a regression
that hangs fails instead of stalling the suite); the output failures (/dev/full, a closed
standard output, a closed pipe) and a memory limit need a real process.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from freege.cli import COMMANDS, build_parser
from tests.cli.helpers import bad

ROOT = Path(__file__).resolve().parents[2]
#: seconds an in-process refusal may take on a loaded 2-core machine ("a few seconds")
REFUSAL_SECONDS = 30
MHA = ["--case", "mha", "--h", "12", "--gK", "1", "--gV", "1", "--gO", "1"]
LAW = ["law", *MHA, "--beta", "1"]


@contextmanager
def deadline(seconds: int):
    """Fail (instead of hanging) when the block runs longer than ``seconds``."""
    def expire(*_: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# (argv, words the one line must contain) -- issue 11's reproducers, and their neighbours
REFUSED = [
    # extreme temperature or ratios: outside the supported domain of freege.params
    (["law", *MHA, "--beta", "30"], "beta must be in [0.001, 4]"),
    (["law", *MHA, "--beta", "1e-300"], "beta must be in"),
    (["law", *MHA, "--beta", "1e308"], "beta must be in"),
    (["law", *MHA[:4], "--gK", "1e300", "--gV", "1", "--gO", "1", "--beta", "1"],
     "gK must be in [0.0001, 10000]"),
    (["law", *MHA[:4], "--gK", "1e-300", "--gV", "1", "--gO", "1", "--beta", "1"], "gK must be"),
    (["law", "--case", "mha", "--h", "100000", "--gK", "1", "--gV", "1", "--gO", "1",
      "--beta", "1"], "h must be in [0.0001, 10000]"),
    (["validate", "--n", "128", "--h", "2", "--dk", "64", "--do", "128", "--beta", "50",
      "--draws", "2"], "beta must be in"),
    (["ladder", "--n", "100", "--trials", "1", "--beta", "50"], "beta must be in"),
    # runaway work: precision capped, times in range, long runs need --yes
    ([*LAW, "--dps", "100000"], "dps must be an integer in [15, "),
    ([*LAW, "--dps", "2000"], "dps must be"),
    (["readout", "ridge", *MHA, "--beta", "1", "--dps", "2000"], "dps must be"),
    (["readout", "loss", *MHA, "--beta", "1", "--t", "1", "--dps", "2000"], "dps must be"),
    (["readout", "loss", *MHA, "--beta", "1", "--t", "1e300"], "--t must be in"),
    (["readout", "loss", *MHA, "--beta", "1", "--t", "1e-300"], "--t must be in"),
    (["readout", "arrival", *MHA, "--beta", "1", "--level", "1e-300"],
     "--level must be above L(t = 1e+06)"),
    (["reproduce", "headcount", "--times", "1e300", "--quiet"], "--times must be in"),
    (["reproduce", "temperature", "--betas", "50", "--quiet"], "beta must be in"),
    (["validate", "bert-base", "--draws", "1000000000", "--backend", "numpy"], "--yes"),
    (["ladder", "--n", "3000", "--trials", "1000000", "--backend", "numpy"], "--yes"),
    # impossible sizes: the memory of one sample against the memory available
    (["validate", "--n", "10000000", "--h", "1", "--dk", "1", "--do", "1", "--draws", "2",
      "--backend", "numpy"], "PiB of memory"),
    (["ladder", "--n", "10000000", "--backend", "numpy"], "PiB of memory"),
]


@pytest.mark.parametrize(("argv", "words"), REFUSED, ids=lambda a: " ".join(a)[:60])
def test_refused_in_one_line(capsys, argv, words):
    start = time.perf_counter()
    with deadline(REFUSAL_SECONDS):
        err = bad(capsys, *argv)
    assert words in err, err
    assert time.perf_counter() - start < REFUSAL_SECONDS


PLOT_COMMANDS = {
    "law": [*LAW, "--plot"],
    "reproduce": ["reproduce", "temperature", "--betas", "1", "--quiet", "--plot"],
    "validate": ["validate", "--n", "16", "--h", "2", "--dk", "4", "--do", "8", "--draws",
                 "2", "--backend", "numpy", "--plot"],
    "ladder": ["ladder", "--n", "16", "--trials", "1", "--backend", "numpy", "--plot"],
}
PLOT_TARGETS = [
    ("missing/x.png", "does not exist"),
    ("/proc/x.png", "cannot be written"),
    ("x.jpg", "must end in .png"),
    (".", "must end in .png"),
    ("dir.png", "is a folder"),
]


@pytest.mark.parametrize("command", PLOT_COMMANDS)
@pytest.mark.parametrize(("target", "words"), PLOT_TARGETS)
def test_bad_plot_target_refused_before_the_work(capsys, tmp_path, monkeypatch, command,
                                                 target, words):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir.png").mkdir()
    with deadline(REFUSAL_SECONDS):
        err = bad(capsys, *PLOT_COMMANDS[command], target)
    assert words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.png"]  # nothing written


def _freege(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``freege ARGV`` in a fresh process importing this checkout's package."""
    return subprocess.run([sys.executable, "-m", "freege", *argv], cwd=ROOT,
                          capture_output=kwargs.pop("capture", True), text=True,
                          timeout=kwargs.pop("timeout", 120), **kwargs)


def _one_line(proc: subprocess.CompletedProcess, words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("freege: error:"), proc.stderr
    assert words in lines[0], lines[0]


DERIVE = ["derive", "moments", "--case", "mha", "--order", "3"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_is_one_line():
    with open("/dev/full", "w") as full:
        proc = _freege(DERIVE, capture=False, stdout=full, stderr=subprocess.PIPE)
    _one_line(proc, "no space left on device")


def test_closed_stdout_is_one_line():
    proc = _freege(DERIVE, capture=False, stdout=None, stderr=subprocess.PIPE,
                   preexec_fn=lambda: os.close(1))
    _one_line(proc, "standard output is closed")


def test_closed_pipe_exits_quietly():
    """``freege ... | head -c 1``: the reader is gone before the output is written (the
    deterministic form of head exiting early); no traceback, no message, exit 1."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = _freege(["derive", "cauchy", "--case", "mha-tied", "--format", "json"],
                       capture=False, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert proc.returncode == 1 and proc.stderr == ""


def test_memory_limit_refuses_before_sampling():
    """``--n 30000`` under a memory limit (``ulimit -v 4 GiB``) is refused up front with
    the estimate and the room left, instead of stalling."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))

    proc = _freege(["validate", "--n", "30000", "--h", "1", "--dk", "1", "--do", "1",
                    "--draws", "2", "--backend", "numpy"], capture=False,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
    _one_line(proc, "GiB of memory and")
    assert proc.stdout == ""


def test_help_imports_no_heavy_library():
    """``freege --help`` registers no sub-command module: sympy, mpmath, numpy stay
    unloaded (the help is fast)."""
    code = ("import sys; from freege.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('sympy', 'mpmath', 'numpy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("[]"), proc.stdout


def test_command_summaries_are_the_modules_own():
    """The summaries ``freege --help`` shows without importing the modules are the help
    strings the modules register, and every registered command has one."""
    full = build_parser()
    sub = next(a for a in full._actions if a.dest == "command")
    registered = {a.dest: a.help for a in sub._choices_actions}
    assert registered == {name: summary for name, (_, summary) in COMMANDS.items()}


@pytest.mark.parametrize(("error", "words"), [
    ("no_convergence", "did not converge"),
    (MemoryError, "out of memory"),
    (OverflowError("math range error"), "math range error"),
])
def test_dispatcher_turns_failures_into_one_line(capsys, monkeypatch, error, words):
    """Whatever escapes a handler unverified -- mpmath's NoConvergence (not an
    ArithmeticError), memory exhaustion, an ArithmeticError -- is one line, exit 2."""
    import mpmath

    from freege.cli import law

    if error == "no_convergence":
        error = mpmath.libmp.NoConvergence("Didn't converge in maxsteps=200 steps.")

    def handler(_args):
        raise error

    monkeypatch.setattr(law, "run", handler)
    assert words in bad(capsys, *LAW)


def test_argparse_errors_name_the_program_once(capsys):
    """Issue 9: no doubled prefix (``freege: error: freege law: ...``)."""
    from tests.cli.helpers import bad

    err = bad(capsys, "law", "--case", "mha", "--beta", "1", "--h", "4", "--gK", "1", "--gV",
              "1", "--gO", "1", "--dps", "10")
    assert err.startswith("freege: error: law: argument --dps") and "freege law" not in err
