"""CI step on a plain install (issue 30): the documented commands with no extra installed.

``python .ci/plain_install.py VENV`` -- ``VENV`` holds ``pip install .`` and nothing else;
this script runs from the checkout's test environment (it reads the commands of README.md
and docs/guide.md as ``tests/test_docs.py`` does) and calls ``VENV/bin/freege`` in a
temporary folder outside the checkout, so that the checkout cannot shadow the install.

* A documented command that needs an extra (:func:`needed_extra`: ``--plot`` and
  ``reproduce paper`` matplotlib, ``--certify`` python-flint, ``--workers N`` /
  ``--scheduler`` Dask, ``--backend cupy`` CuPy) must refuse before any work: exit 2, one
  line on stderr naming ``pip install 'freege[EXTRA]'``. Expensive ones are checked too
  (the refusal is immediate).
* Every other command that is not marked expensive must run (exit 0; its documented
  output, when the docs show one, exactly), and so must the guide's sweep example at small
  sizes on one worker and its CSV report.

Exit 1 with the failures listed when any check fails.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_docs import GUIDE, README, Command, commands  # noqa: E402

#: seconds one command may take (a refusal takes about one)
TIMEOUT = 120
#: the guide's sweep example, small, on a plain install: it runs in this process
EXTRA_RUNS = (
    "freege sweep --n 64 96 --h 2 --dk 16 --do 32 --draws 2 --store small.jsonl",
    "freege sweep-report small.jsonl --format csv",
)
#: refusals of options the docs show only in prose
EXTRA_REFUSALS = (
    "freege sweep --n 64 --h 2 --dk 16 --do 32 --draws 2 --store w.jsonl --workers 2",
    "freege law --case mha --beta 1 --h 4 --gK 1 --gV 1 --gO 2 --certify",
    "freege validate --n 64 --h 2 --dk 16 --do 32 --draws 2 --backend cupy",
)


def needed_extra(argv: list[str]) -> str | None:
    """The extra ``argv`` needs on a plain install, or None."""
    if "--plot" in argv or (argv[:2] == ["reproduce", "paper"]  # the paper draws figures
                            and "--estimate" not in argv):  # (its estimate alone draws none)
        return "plot"
    if "--certify" in argv:
        return "certify"
    if "--backend" in argv and argv[argv.index("--backend") + 1] == "cupy":
        return "gpu"
    if "--scheduler" in argv or (
            "--workers" in argv and int(argv[argv.index("--workers") + 1]) > 1):
        return "sweep"
    return None


def check(freege: Path, folder: Path, command: Command) -> str | None:
    """Run ``command``; None when it behaves as a plain install must, else why not."""
    argv = command.argv
    extra = needed_extra(argv)
    try:
        proc = subprocess.run([str(freege), *argv], cwd=folder, capture_output=True,
                              text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"still running after {TIMEOUT} s"
    err = proc.stderr.strip().splitlines()
    if extra is not None:
        hint = f"pip install 'freege[{extra}]'"
        if proc.returncode != 2 or len(err) != 1 or hint not in err[0]:
            return f"exit {proc.returncode}, expected one line naming {hint}:\n{proc.stderr}"
        return None
    if proc.returncode != 0:
        return f"exit {proc.returncode}:\n{proc.stderr}"
    if command.expected is not None and proc.stdout != command.expected:
        return "output differs from the docs"
    return None


def main(venv: str) -> int:
    freege = Path(venv).absolute() / "bin" / "freege"
    documented = commands(README) + commands(GUIDE)
    extra = [Command("plain_install.py", k, text, False)
             for k, text in enumerate(EXTRA_RUNS + EXTRA_REFUSALS, 1)]
    chosen = [c for c in documented + extra
              if not c.expensive or needed_extra(c.argv) is not None]
    failures, refused = [], 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="freege-plain-") as tmp:
        for command in chosen:
            began = time.perf_counter()
            problem = check(freege, Path(tmp), command)
            extra_name = needed_extra(command.argv)
            refused += extra_name is not None
            verdict = "FAIL" if problem else (f"refused [{extra_name}]" if extra_name
                                              else "ran")
            print(f"{verdict:>18}  {time.perf_counter() - began:5.1f} s  {command}: "
                  f"{shlex.join(command.argv)[:90]}", flush=True)
            if problem:
                failures.append(f"{command}: {command.text}: {problem}")
    skipped = len(documented) + len(extra) - len(chosen)
    print(f"plain install: {len(chosen) - refused} ran, {refused} refused naming their extra, "
          f"{skipped} expensive not run, {len(failures)} failed, "
          f"{time.perf_counter() - start:.0f} s")
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python .ci/plain_install.py VENV")
    sys.exit(main(sys.argv[1]))
