"""``benchmarks/estimates.py`` runs the documented commands word for word (the documented
times come from its table), and reads the estimate line the CLI prints."""

from __future__ import annotations

from benchmarks.estimates import COMMANDS, documented, estimate_seconds
from freege.cli import budget


def test_every_benchmarked_command_is_documented():
    assert all(documented(command) for command, _slow in COMMANDS)
    assert not documented("freege validate --n 3 --never-documented")


def test_the_estimate_line_is_read():
    line = ("freege: estimate: 3 draws on numpy at one core's speed, about 0.01 s each (a; b); "
            f"{budget.duration_text(150.0)} of CPU time in all (1 s spent starting, 0 s after "
            "the draws); peak memory about 2 MiB")
    assert estimate_seconds(f"progress\n{line}\n") == 150.0
    assert estimate_seconds("no estimate here") is None
