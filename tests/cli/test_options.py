"""Options shared by several sub-commands are defined once, in :mod:`freege.cli.options`:
no other CLI module adds them itself."""

from __future__ import annotations

import re
from pathlib import Path

import freege.cli

SHARED = ("--format", "--dps", "--plot", "--seed", "--backend", "--dtype", "--yes",
          "--certify", "--lam", "--sigma2", "--level", "--case", "--beta")
#: options that mean something else than the law options' there: the sampling temperature
#: of validate, ladder and chain (optional, default 1), derive's case (no law evaluated)
OWN_MEANING = {"validate.py": {"--beta"}, "derive.py": {"--case"}, "chain.py": {"--beta"}}


def test_shared_options_are_added_only_by_the_options_module() -> None:
    folder = Path(freege.cli.__file__).parent
    added = re.compile(r"add_argument\(\s*\"(--[a-z0-9-]+)\"")
    found = {}
    for path in sorted(folder.glob("*.py")):
        if path.name == "options.py":
            continue
        own = OWN_MEANING.get(path.name, set())
        hits = {opt for opt in added.findall(path.read_text(encoding="utf-8"))
                if opt in SHARED and opt not in own}
        if hits:
            found[path.name] = sorted(hits)
    assert found == {}


def test_sampling_commands_close_with_the_run_options() -> None:
    """validate, ladder, chain and sweep end with :func:`freege.cli.options.add_run_options`:
    format, plot, --yes (not chain, which asks nothing) and the verbosity pair, in that
    order."""
    import argparse

    parser = freege.cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("validate", "ladder", "chain", "sweep"):
        options = [a.option_strings[0] for a in commands.choices[name]._actions
                   if a.option_strings]
        tail = ["--format", "--plot"] + (["--yes"] if name != "chain" else []) + [
            "--quiet", "--verbose"]
        assert options[-len(tail):] == tail, (name, options)
