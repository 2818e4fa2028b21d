"""Shifted laws against the unshifted one (issue 40): ``mp(1/2) + 10^k`` must answer its cdf,
quantiles and readouts as fast as ``mp(1/2)``.

    python benchmarks/shifted_laws.py [--rounds 3] [--shifts 0 100000 1000000]
        [--only TASK ...] [--json FILE]

Each measurement runs in a fresh process (``sys.executable``), imports, parsing and the
law's construction inside the clock, CPU time (user plus system of the child, from
``wait4``: the shared machine's load does not inflate it) and wall time, medians over
``--rounds`` rounds, the shifts interleaved within a round; the load average is printed
with the results. The baseline is the unshifted law ``mp(1/2)`` (shift 0), measured in
the same rounds; the ratio is shifted over unshifted CPU time.

* ``api`` tasks, through :mod:`freege.algebra` and :mod:`freege.numeric.readout`: ``cdf``
  at the mean, ``ppf`` of 0.5, and the readouts of theory §5 (``dof`` at ``lam = 1``,
  ``loss`` at ``t = 1``, ``ridge`` at ``lam = 0.1``, ``sigma2 = 0.1``, ``gO = 1``,
  ``arrival`` at level 0.5), each after the law is built;
* ``cli`` tasks: ``freege law --expr TEXT --pdf MEAN`` and ``freege readout
  dof|loss|ridge|arrival --expr TEXT`` with the same arguments.

Each is run ``cold`` (an empty cache folder) and ``warm`` (the cache folder a first cold
run of the same task and shift filled). The answers are printed beside the times (the
cdf and the quantile's offset from the shift do not depend on it; the readouts take the
law divided by its mean, which does).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from freege import safe_files

#: the API run of one task: argv[1] the task, argv[2] the expression; prints the answer
API = r"""
import sys
task, text = sys.argv[1], sys.argv[2]
from freege import algebra
from freege.numeric import readout
law = algebra.parse(text).law()
answer = {
    "cdf": lambda: law.cdf(law.mean()),
    "ppf": lambda: law.ppf(0.5),
    "dof": lambda: readout.dof(law, 1.0),
    "loss": lambda: readout.flow_loss(law, 1.0),
    "ridge": lambda: readout.ridge_error(law, 0.1, 0.1, gO=1),
    "arrival": lambda: readout.arrival_time(law, 0.5),
}[task]()
print(repr(float(answer)))
"""

API_TASKS = ("cdf", "ppf", "dof", "loss", "ridge", "arrival")
CLI_TASKS = ("law", "readout dof", "readout loss", "readout ridge", "readout arrival")


def command(kind: str, task: str, shift: int) -> list[str]:
    """The argv of one measurement of ``task`` on ``mp(1/2) + shift``."""
    text = "mp(1/2)" if shift == 0 else f"mp(1/2) + {shift}"
    if kind == "api":
        return [sys.executable, "-c", API, task, text]
    extra = {"law": ["--pdf", str(shift + 1)], "readout dof": ["--lam", "1"],
             "readout loss": ["--t", "1"], "readout ridge": ["--lam", "0.1", "--sigma2",
                                                             "0.1", "--gO", "1"],
             "readout arrival": ["--level", "0.5"]}[task]
    return [sys.executable, "-m", "freege", *task.split(), "--expr", text, *extra]


def run_child(argv: list[str], cache: str) -> dict[str, Any]:
    """One fresh process with ``cache`` as its cache folder: its CPU seconds (the child's
    own rusage, from ``wait4``) and wall seconds, exit status, last lines of output (the
    answer) and of stderr."""
    start = time.monotonic()
    env = {**os.environ, "FREEGE_CACHE_DIR": cache, "MPLBACKEND": "Agg"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env,
                                stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").strip().splitlines()
        return {"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall,
                "exit": proc.returncode, "answer": " | ".join(lines[-3:])[:200],
                "stderr": err.read().decode(errors="replace").strip()[-300:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shifts", type=int, nargs="+", default=[0, 100000, 1000000])
    parser.add_argument("--only", action="append", default=None,
                        help="run the tasks whose name has this (repeat: any of them)")
    parser.add_argument("--json", default=None, help="write every measurement here")
    args = parser.parse_args(argv)
    if args.shifts[0] != 0:
        parser.error("the first shift is the baseline and must be 0")
    if args.json is not None:
        safe_files.probe(args.json)
    tasks = [(kind, task) for kind, names in (("api", API_TASKS), ("cli", CLI_TASKS))
             for task in names
             if args.only is None or any(part in f"{kind} {task}" for part in args.only)]
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[tuple[str, str, str, int], list[dict[str, Any]]] = {}
    for _ in range(args.rounds):
        for kind, task in tasks:
            for shift in args.shifts:  # interleaved: the baseline beside each shift
                with tempfile.TemporaryDirectory() as cache:
                    argv_ = command(kind, task, shift)
                    for mode in ("cold", "warm"):
                        result = run_child(argv_, cache)
                        if result["exit"] != 0:
                            print(f"{kind} {task} +{shift} {mode}: exit {result['exit']}: "
                                  f"{result['stderr']}", flush=True)
                        runs.setdefault((kind, task, mode, shift), []).append(result)
    load = os.getloadavg()[0]
    print(f"load average after: {load:.1f}; CPU s (wall s), medians of {args.rounds}")
    head = "".join(f"{'+' + str(s) if s else 'mp(1/2)':>22}" for s in args.shifts)
    print(f"{'task':24}{'mode':6}{head}  ratio (CPU) to mp(1/2)")
    rows = []
    for kind, task in tasks:
        for mode in ("cold", "warm"):
            cpu = [statistics.median(r["cpu_s"] for r in runs[kind, task, mode, s])
                   for s in args.shifts]
            wall = [statistics.median(r["wall_s"] for r in runs[kind, task, mode, s])
                    for s in args.shifts]
            ratios = [c / cpu[0] for c in cpu[1:]]
            cells = "".join(f"{c:>13.2f} ({w:5.1f})" for c, w in zip(cpu, wall, strict=True))
            print(f"{kind + ' ' + task:24}{mode:6}{cells}  "
                  + ", ".join(f"{r:.2f}" for r in ratios), flush=True)
            rows.append({"kind": kind, "task": task, "mode": mode, "cpu_s": cpu,
                         "wall_s": wall, "ratios": ratios,
                         "answers": [runs[kind, task, mode, s][-1]["answer"]
                                     for s in args.shifts]})
    for row in rows:
        if row["mode"] == "cold":
            print(f"{row['kind']} {row['task']}: " + "; ".join(
                f"{'+' + str(s) if s else 'mp(1/2)'}: {a}"
                for s, a in zip(args.shifts, row["answers"], strict=True)))
    if args.json is not None:
        safe_files.write_text(args.json, json.dumps(
            {"shifts": args.shifts, "rounds": args.rounds, "load_after": load, "rows": rows,
             "runs": [{"kind": k, "task": t, "mode": m, "shift": s, "results": v}
                      for (k, t, m, s), v in runs.items()]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
