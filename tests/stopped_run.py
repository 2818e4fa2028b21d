"""The child process of the interruption tests: ``freege ARGV`` with ``STOP`` (a
statement) run once, right after the first draw record is in the store (the sweep's
tests/validation/sweep/test_engine_dask.py and the paper run's
tests/cli/test_reproduce_paper.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STOPPED_RUN = """
import os, signal, sys
from freege.cli import main
from freege.validation.sweep import store
append = store.Writer.append
def append_then_stop(self, payload):
    append(self, payload)
    if payload["type"] == "draw":
        store.Writer.append = append
        {stop}
store.Writer.append = append_then_stop
sys.exit(main({argv!r}))
"""


def run_stopped(argv: list[str], stop: str) -> tuple[int, str]:
    """Run :data:`STOPPED_RUN` for ``freege ARGV`` in its own process group; return its exit
    code and standard error. Whatever of the group is left afterwards is killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPED_RUN.format(stop=stop, argv=argv)], cwd=ROOT,
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=300)  # a hang guard, not a deadline
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, err
