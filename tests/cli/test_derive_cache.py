"""``freege derive`` prints from its output cache when warm (issue 18): the same text as
a fresh derivation, a corrupt entry recomputed, and no sympy import in a warm process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from freege import cache_files
from tests.cli.helpers import run_cli

#: ``--quiet``: stderr is compared (a cold derivation past the progress delay on a busy
#: machine would print progress lines; issue 40)
ARGV = ("derive", "moments", "--case", "attention", "--order", "2", "--quiet")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One cache folder for the module: the derivation itself is made once."""
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("fmt", ["text", "latex", "json"])
def test_cached_output_equals_the_derivation_and_survives_corruption(capsys, monkeypatch,
                                                                     cache, fmt):
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(cache))
    before = set((cache / "derive").glob("*.json"))
    first = run_cli(capsys, *ARGV, "--format", fmt)
    files = list(set((cache / "derive").glob("*.json")) - before)
    assert first[0] == 0 and len(files) == 1
    assert run_cli(capsys, *ARGV, "--format", fmt) == first
    for junk in ("{not json", json.dumps({"data": [], "text": 3})):
        files[0].write_text(junk)
        cache_files._WARNED.clear()
        code, out, err = run_cli(capsys, *ARGV, "--format", fmt)
        assert (code, out) == first[:2]
        assert err.count("\n") == 1 and "ignoring cache file" in err, err


def test_a_warm_derive_imports_no_sympy(capsys, monkeypatch, cache):
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(cache))
    warm = run_cli(capsys, *ARGV)  # fills the cache when this test runs alone
    code = ("import sys\nfrom freege.cli import main\n"
            f"main({list(ARGV)!r})\nprint('sympy' in sys.modules, file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ,
                         "FREEGE_CACHE_DIR": str(cache)}, capture_output=True, text=True,
                         timeout=300, check=True)
    assert (run.stdout, run.stderr.strip()) == (warm[1], "False")
