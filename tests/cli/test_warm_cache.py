"""Warm-cache runs of ``freege law`` / ``freege readout`` import no sympy and print
exactly what the cold run printed (issue 7, deliverable 4); the exact-results cache
(:mod:`freege.numeric.exact_results`) is exact and ignores files it cannot trust."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from freege.numeric import exact_results
from tests.cache_helpers import content, plant

ROOT = Path(__file__).resolve().parents[2]
LAW = ["--case", "mha", "--beta", "1", "--h", "12", "--gK", "1.5", "--gV", "1.5",
       "--gO", "1.5"]
COMMANDS = [
    ["law", *LAW, "--normalized", "--pdf", "0.5", "1", "2"],
    ["law", *LAW, "--normalized", "--pdf", "0.5", "1", "2", "--dps", "30"],
    ["readout", "ridge", *LAW, "--lam", "1e-4", "--sigma2", "0.1"],
    ["readout", "dof", *LAW, "--lam", "1e-4"],
]
PROGRAM = ("import sys; from freege.cli import main; code = main(sys.argv[1:]); "
           "print('sympy imported:', 'sympy' in sys.modules); sys.exit(code)")


def _run(cache: Path, argv: list[str], trusted: bool = True) -> tuple[str, bool]:
    env = {**os.environ, "FREEGE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", PROGRAM, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    # freege's own entries pass every check of freege.cache_files (issue 17)
    assert not trusted or "warning" not in proc.stderr, proc.stderr
    out, _, flag = proc.stdout.rstrip("\n").rpartition("\n")
    assert flag.startswith("sympy imported: "), proc.stdout
    return out, flag.endswith("True")


@pytest.mark.slow
def test_warm_runs_import_no_sympy_and_match_cold_runs(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = {}
    for argv in COMMANDS:
        cold[tuple(argv)] = out = _run(cache, argv)[0]
        warm, sympy_imported = _run(cache, argv)
        assert warm == out, argv
        assert not sympy_imported, argv
    # untrusted files (corrupt, or another key's result) are recomputed, never read
    exact = sorted((cache / "numeric" / "exact").glob("*.json"))
    assert exact
    other = exact[0].read_text()
    for k, path in enumerate(exact):
        path.write_text("{not json" if k % 2 else other)
    for argv in COMMANDS:
        assert _run(cache, argv, trusted=False)[0] == cold[tuple(argv)], argv


def test_values_round_trip_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    with mpmath.workprec(300):
        value = [mpmath.pi / 7, mpmath.mpc(mpmath.e, -mpmath.sqrt(2)), Fraction(-3, 7),
                 0.1, mpmath.mpf(0)]
    assert exact_results.remember(("round trip",), lambda: value) == value
    again = exact_results.remember(("round trip",), lambda: pytest.fail("not read back"))
    assert again == value
    assert [type(v) for v in again] == [type(v) for v in value]


def test_unreadable_or_mismatched_file_is_recomputed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(tmp_path))
    exact_results.remember(("a",), lambda: [Fraction(1, 3)])
    path, key = exact_results.disk_entry(("a",))
    other = exact_results.disk_entry(("b",))[1]
    for text in ("", "[]", '{"key": 1}', '["q", 1, 0]', '["mpf", 1.5, 0]',
                 '["mpc", ["q", 1, 3], ["q", 1, 3]]', '["list", 1.5]', '["list"]'):
        plant(path, key, text)
        assert exact_results.remember(("a",), lambda: [Fraction(2, 3)]) == [Fraction(2, 3)]
        assert content(path) == '["list", [["q", 2, 3]]]'  # replaced
    plant(path, other, content(path))  # another key's entry
    assert exact_results.remember(("a",), lambda: [Fraction(4, 3)]) == [Fraction(4, 3)]
