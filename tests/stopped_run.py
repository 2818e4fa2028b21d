"""The child process of the interruption tests: ``freege ARGV`` with ``STOP`` (a
statement) run once, right after the first draw record is in the store (the sweep's
tests/validation/test_sweep.py and the paper run's tests/cli/test_reproduce_paper.py)."""

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
