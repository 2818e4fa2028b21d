"""Estimates against measured time, cold cache and warm (issue 30 item 3, issue 42 item 3):
run the documented commands of README.md and docs/guide.md that announce an estimate, as a
user would, each in a fresh process in an empty working folder, and print the estimate
beside the measured CPU time.

Each command runs twice with ``FREEGE_CACHE_DIR`` pointing at a fresh temporary folder:
first with the folder empty (*cold*: what a newcomer meets, laws derived and cached on
the way), then again with what the first run cached (*warm*: every later run). For each
run the table shows the announced estimate (``freege: estimate: ... N s of CPU time in
all`` of validate, ladder, chain and sweep; ``estimated N`` of ``reproduce paper``), the
measured CPU time of the process and its children (``resource.getrusage``: a sweep's
cluster workers included), the wall time, and the ratio measured CPU / estimate (the 2x
check: within [0.5, 2]). The load average before and after each run is printed beside
it: on a shared machine wall times are only as good as the load was steady, CPU times
much better.

The commands are the documented ones, word for word (``--plot`` files and ``--out``
folders land in the temporary working folder); each must still appear in README.md or
docs/guide.md, so the list cannot drift from the docs. Documented commands that take
longer than a benchmark should (:data:`TOO_LONG`) are named in the output, not run.
``--only`` picks commands by a substring, ``--state`` one of the two states.

Run from the repository root: ``nice python benchmarks/estimates.py [--only chain]
[--state cold]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", ROOT / "docs" / "guide.md")

#: (documented command, over a minute on the 2-core machine)
COMMANDS: tuple[tuple[str, bool], ...] = (
    ("freege validate --n 128 --h 4 --dk 32 --dv 32 --do 64 --draws 3 --plot spectrum.png",
     False),
    ("freege validate --n 128 --h 4 --h-kv 2 --dk 32 --dv 32 --do 128 --sharing gqa "
     "--draws 2 --format json", False),
    ("freege validate --n 64 --h 2 --dk 16 --do 32 --draws 2 --verbose", False),
    ("freege validate bert-base", False),
    ("freege validate bert-base --draws 10 --plot bert.png", False),
    ("freege validate --n 1024 --h 16 --h-kv 4 --dk 64 --dv 64 --do 1024 --sharing gqa "
     "--format json", False),
    ("freege ladder --n 64 --trials 1", False),
    ("freege ladder --n 1000 --trials 3", False),
    ("freege chain --n 64 --h 4 --dk 16 --do 64 --draws 2 --sharing mqa", False),
    ("freege chain --n 512 --h 8 --dk 64 --dv 64 --do 512 --draws 10 --plot chain.png",
     False),
    ("freege chain --n 128 256 512 1024 --h 8 --dk 16 --do 128 --draws 6 --store chain.jsonl",
     True),
    ("freege sweep --n 64 96 128 192 --h 2 --dk 16 --do 32 --draws 4 --store small.jsonl",
     False),
    ("freege validate --n 128 --h 8 --dk 8 --do 64 --draws 3 --finite-width", False),
    ("freege reproduce paper --measure --scale 64 --draws 2 --panels 3b --out paper-demo "
     "--quiet", False),
)
#: documented commands with an estimate that this benchmark does not run, and why
TOO_LONG: tuple[tuple[str, str], ...] = (
    ("freege reproduce paper --measure --scale 4 --workers 2 --out paper-S4",
     "about 6 min on two free cores, twice"),
    ("freege reproduce paper --measure --scale 1 --backend cupy --yes --out paper-S1",
     "a GPU"),
    ("freege sweep --preset bert-base --n 128 256 512 1024 --draws 50 --store n.jsonl",
     "expensive: tens of minutes"),
)

_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0, "years": 365.25 * 86400}
_ESTIMATE = re.compile(r"^freege: estimate: .*?; ([0-9.e+-]+) (s|min|h|days|years) of CPU time "
                       r"in all", re.M)
_PAPER = re.compile(r"^freege: paper: .*?: estimated ([0-9.e+-]+) (s|min|h|days|years) ", re.M)


def documented(command: str) -> bool:
    """Whether ``command`` is a command line of a ``bash`` block of README.md or
    docs/guide.md, word for word (a trailing comment aside, or after ``&&``; the guide's
    table of these measurements does not count)."""
    for path in DOCS:
        for block in re.findall(r"^```bash\n(.*?)^```$", path.read_text(), re.S | re.M):
            if any(part.strip() == command for line in block.splitlines()
                   for part in line.split("#")[0].split("&&")):
                return True
    return False


def estimate_seconds(stderr: str) -> float | None:
    """The CPU seconds of the whole run announced on ``stderr`` (None when absent)."""
    match = _ESTIMATE.search(stderr) or _PAPER.search(stderr)
    return None if match is None else float(match.group(1)) * _UNITS[match.group(2)]


def run(command: str, cache: str | None) -> dict[str, Any]:
    """Run ``command`` in a fresh process in an empty folder: its estimate, CPU and wall
    seconds, the load average before and after, and ``failed`` (None, or why)."""
    env = dict(os.environ)
    if cache is not None:
        env["FREEGE_CACHE_DIR"] = cache
    env["PYTHONPATH"] = str(ROOT)  # the checkout's freege, as from the repository root
    argv = [sys.executable, "-m", "freege", *shlex.split(command)[1:]]
    with tempfile.TemporaryDirectory() as folder:
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_after = os.getloadavg()[0]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"estimate": estimate_seconds(done.stderr), "cpu": cpu, "wall": wall,
            "load_before": load_before, "load_after": load_after,
            "failed": None if done.returncode == 0 else
            f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1][:300]}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=None, help="substrings of commands")
    parser.add_argument("--skip-slow", action="store_true", help="leave out the slow ones")
    parser.add_argument("--state", choices=("cold", "warm", "both"), default="both",
                        help="which cache states to report (warm runs after a cold one)")
    args = parser.parse_args()
    chosen = [c for c, slow in COMMANDS if not (slow and args.skip_slow)
              and (args.only is None or any(s in c for s in args.only))]
    missing = [c for c in chosen + [c for c, _ in TOO_LONG] if not documented(c)]
    if missing:
        raise SystemExit("no longer documented: " + "; ".join(missing))
    print(f"# {platform.node()}: {os.cpu_count()} cores, {platform.processor() or '?'}, "
          f"Python {platform.python_version()}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; load average at start "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    for command, why in TOO_LONG:
        print(f"# not run ({why}): {command}")
    print(f"{'state':>6}{'estimate s':>11}{'CPU s':>9}{'wall s':>9}{'CPU/est':>9}{'load':>12}"
          "  command", flush=True)
    worst = {"cold": 1.0, "warm": 1.0}
    failed: list[str] = []
    for command in chosen:
        with tempfile.TemporaryDirectory() as cache:
            for state in ("cold", "warm"):
                r = run(command, cache)
                if args.state not in (state, "both"):
                    continue
                if r["failed"] is not None:  # reported, and the benchmark goes on
                    failed.append(f"{state}: {command}: {r['failed']}")
                    print(f"{state:>6}  FAILED ({r['failed']})  {command}", flush=True)
                    continue
                est = r["estimate"]
                ratio = None if not est else r["cpu"] / est
                if ratio is not None:
                    worst[state] = max(worst[state], ratio, 1 / ratio)
                print(f"{state:>6}{est if est is not None else float('nan'):>11.3g}"
                      f"{r['cpu']:>9.3g}{r['wall']:>9.3g}"
                      f"{ratio if ratio is not None else float('nan'):>9.2f}"
                      f"{r['load_before']:>6.2f}-{r['load_after']:<5.2f}  {command}",
                      flush=True)
    print(f"# worst ratio (either way): cold {worst['cold']:.2f}, warm {worst['warm']:.2f}; "
          f"load average at end {os.getloadavg()[0]:.2f}")
    if failed:
        raise SystemExit("failed:\n" + "\n".join(failed))


if __name__ == "__main__":
    main()
