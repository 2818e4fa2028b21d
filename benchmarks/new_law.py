"""A law at parameters never seen (issue 41): what a user scanning beta or a head count in
a shell loop pays at each step.

    python benchmarks/new_law.py [--rounds 3] [--json FILE]

Every measurement runs in a fresh process (``sys.executable``), imports and construction
inside the clock, medians over ``--rounds`` rounds, the kinds interleaved within a round;
the load average is printed with the results. Each round draws new parameters (a seeded
beta with many digits that no earlier round or run used), so the exact results of the
disk cache never answer them.

* ``in-process``: per theory §4 case (``mha-tied`` included) and per law of the peers'
  table of ``benchmarks/algebra.py`` (new numbers in the same shapes), the time from the
  law's construction to its first density (``law(...)`` then ``pdf`` at one point inside
  the support; the algebra parses the text first), wall and CPU time (the CPU time is
  the better guide on a loaded machine), imports timed apart. The disk cache
  holds the generated functions (a first use of each case, in-process and by the
  command, happened at beta = 1; each expression shape was met at two other sets of
  numbers, a scan's first two steps, so its Cauchy polynomial in symbols is on disk) but
  not these parameters.
* ``empty``: the same first density (imports timed apart) in a fresh process with an
  *empty* cache folder, per case and per expression, at new parameters: what a first
  use of freege at parameters never seen pays (shipped generated functions and shipped
  expression shapes, ``python -m freege.numeric.ship_functions``, while they are
  current); ``import + first`` is the in-process total from the first freege import.
  ``--baseline TREE`` runs each of these in another tree first (an earlier commit), with
  the same parameters, and says whether every density agreed to the bit.
* ``cli``: ``freege law --case C ... --pdf X`` at new parameters, then the same command
  again (the exact results now on disk), interleaved: the ratio is new over repeated,
  of wall and of CPU time (the process's, from ``getrusage``).
* ``cold``: the same command with an empty cache folder against
  ``python -c "import numpy, scipy, sympy, mpmath"`` (interleaved): the extra cost of an
  empty cache is cold minus new-parameters. An empty cache reads the generated functions
  shipped with freege (``python -m freege.numeric.ship_functions``) while they are current;
  the run says when the symbolic sources changed under it (a shared working tree).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from freege.cache_key import source_hash  # noqa: E402

CASES = ("attention", "head-average", "head-average-shared-key", "value", "mha", "value-tied",
         "mha-tied")
#: the peers' table of benchmarks/algebra.py with new numbers ({a}, {b} drawn per round)
EXPRESSIONS = ("mp({a})", "mp(1 + {a})", "mp({a}) * mp({b})", "mp({a}/2) * mp({b}/2)",
               "semicircle({a}) + mp({b}/2)")

IN_PROCESS = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
kind, arg = sys.argv[1], json.loads(sys.argv[2])
if kind == "case":
    from freege.numeric import law
    from freege.params import Ratios
else:
    from freege import algebra
t1, c1 = time.perf_counter(), time.process_time()
if kind == "case":
    L = law(arg["case"], Ratios(*arg["ratios"]))
else:
    L = algebra.parse(arg).law()
(lo, hi), *_ = L.intervals()
value = float(L.pdf(lo + 0.37 * (hi - lo)))
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": t1 - t0, "first_density_s": t2 - t1, "import_cpu_s": c1 - c0,
                  "first_density_cpu_s": c2 - c1, "pdf": value}))
"""


def ratios(case: str, beta: str) -> list[str]:
    """``(beta, h, gK, gV, gO)``: gV = gK for the tied cases."""
    return [beta, "3", "1.5", "1.5" if "tied" in case else "1.25", "0.75"]


def cli_args(case: str, beta: str) -> list[str]:
    b, h, gk, gv, go = ratios(case, beta)
    return ["-m", "freege", "law", "--case", case, "--beta", b, "--h", h, "--gK", gk,
            "--gV", gv, "--gO", go, "--pdf", "1.0"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str], env: dict[str, str]) -> tuple[float, str, float]:
    """Wall time of ``python args`` in a fresh process (in the tree ``env``'s
    ``PYTHONPATH`` names), its stdout and its CPU time."""
    t0, c0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=env["PYTHONPATH"], env=env)
    elapsed, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode:
        raise RuntimeError(f"{args}: {proc.stderr.strip()[-400:]}")
    return elapsed, proc.stdout, cpu


def first_use(rows: dict[str, dict[str, list[float]]], name: str, kind: str, arg: Any,
              env: dict[str, str], baseline: str | None) -> None:
    """The first density of ``arg`` in a fresh process with an empty cache folder, into
    ``rows[name]`` (``empty`` in the module docstring); with ``baseline`` (another
    tree), the same there first, into ``rows[name + " (baseline)"]``."""
    trees = ([(f"{name} (baseline)", baseline)] if baseline else []) + [(name, str(ROOT))]
    for label, tree in trees:
        with tempfile.TemporaryDirectory() as empty:
            _, out, _ = timed(["-c", IN_PROCESS, kind, json.dumps(arg)],
                              {**env, "FREEGE_CACHE_DIR": empty, "PYTHONPATH": tree})
        got = json.loads(out)
        row = rows.setdefault(label, {})
        for key in ("import_cpu_s", "first_density_s", "first_density_cpu_s"):
            row.setdefault(key, []).append(got[key])
        row.setdefault("import_and_first_cpu_s", []).append(got["import_cpu_s"]
                                                            + got["first_density_cpu_s"])
        row.setdefault("pdf", []).append(got["pdf"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--baseline", help="another freege tree (e.g. `git archive` of an "
                        "earlier commit, not writable by group or others): its empty-cache "
                        "first uses interleaved with this tree's")
    args = parser.parse_args()
    rng = random.Random(time.time_ns())  # never-seen parameters: a new draw each run
    results: dict[str, Any] = {"load_before": os.getloadavg(),
                               "symbolic_sources_before": source_hash()}
    with tempfile.TemporaryDirectory() as warm:
        env = {**os.environ, "FREEGE_CACHE_DIR": warm, "PYTHONPATH": str(ROOT)}
        for case in CASES:  # a first use: the generated functions on disk
            timed(["-c", IN_PROCESS, "case", json.dumps({"case": case,
                                                         "ratios": ratios(case, "1")})], env)
            timed(cli_args(case, "1"), env)
        for shape in EXPRESSIONS:  # a scan's first two steps: the shape derived once
            for a, b in (("0.25", "0.75"), ("0.5", "0.625")):
                timed(["-c", IN_PROCESS, "expr", json.dumps(shape.format(a=a, b=b))], env)
        rows: dict[str, dict[str, list[float]]] = {}
        for _ in range(args.rounds):
            for case in CASES:
                beta = f"{rng.uniform(0.6, 1.6):.9f}"
                _, out, _ = timed(["-c", IN_PROCESS, "case", json.dumps(
                    {"case": case, "ratios": ratios(case, beta)})], env)
                got = json.loads(out)
                row = rows.setdefault(case, {})
                for key in ("import_s", "first_density_s", "first_density_cpu_s"):
                    row.setdefault(key, []).append(got[key])
                beta = f"{rng.uniform(0.6, 1.6):.9f}"
                new, _, new_cpu = timed(cli_args(case, beta), env)
                again, _, again_cpu = timed(cli_args(case, beta), env)
                row.setdefault("cli_new_s", []).append(new)
                row.setdefault("cli_repeated_s", []).append(again)
                row.setdefault("cli_new_cpu_s", []).append(new_cpu)
                row.setdefault("cli_repeated_cpu_s", []).append(again_cpu)
            for shape in EXPRESSIONS:
                text = shape.format(a=f"{rng.uniform(0.3, 0.9):.6f}",
                                    b=f"{rng.uniform(0.3, 0.9):.6f}")
                _, out, _ = timed(["-c", IN_PROCESS, "expr", json.dumps(text)], env)
                got = json.loads(out)
                row = rows.setdefault(shape, {})
                for key in ("import_s", "first_density_s", "first_density_cpu_s"):
                    row.setdefault(key, []).append(got[key])
            for case in CASES:
                beta = f"{rng.uniform(0.6, 1.6):.9f}"
                first_use(rows, f"empty {case}", "case", {"case": case,
                                                           "ratios": ratios(case, beta)},
                          env, args.baseline)
            for shape in EXPRESSIONS:
                text = shape.format(a=f"{rng.uniform(0.3, 0.9):.6f}",
                                    b=f"{rng.uniform(0.3, 0.9):.6f}")
                first_use(rows, f"empty {shape}", "expr", text, env, args.baseline)
            with tempfile.TemporaryDirectory() as empty:
                beta = f"{rng.uniform(0.6, 1.6):.9f}"
                cold, _, cold_cpu = timed(cli_args("mha", beta),
                                          {**env, "FREEGE_CACHE_DIR": empty})
                stack, _, stack_cpu = timed(["-c", "import numpy, scipy, sympy, mpmath"], env)
                row = rows.setdefault("cold mha", {})
                row.setdefault("cli_empty_cache_s", []).append(cold)
                row.setdefault("import_stack_s", []).append(stack)
                row.setdefault("cli_empty_cache_cpu_s", []).append(cold_cpu)
                row.setdefault("import_stack_cpu_s", []).append(stack_cpu)
    results["load_after"] = os.getloadavg()
    results["symbolic_sources_after"] = source_hash.__wrapped__()
    results["medians"] = {k: {m: statistics.median(v) for m, v in row.items() if m != "pdf"}
                          for k, row in rows.items()}
    results["samples"] = rows
    for name, med in results["medians"].items():
        parts = [f"{m} {v:.3f}" for m, v in med.items()]
        if "cli_new_s" in med:
            parts.append(f"new/repeated {med['cli_new_s'] / med['cli_repeated_s']:.2f} "
                         f"(cpu {med['cli_new_cpu_s'] / med['cli_repeated_cpu_s']:.2f})")
        print(f"{name:<28} " + "  ".join(parts))
    cold = results["medians"]["cold mha"]
    new_mha = results["medians"]["mha"]["cli_new_s"]
    new_cpu = results["medians"]["mha"]["cli_new_cpu_s"]
    print(f"empty cache adds {cold['cli_empty_cache_s'] - new_mha:.2f} s wall, "
          f"{cold['cli_empty_cache_cpu_s'] - new_cpu:.2f} s cpu to `freege law --case mha` "
          f"(new parameters {new_mha:.2f} s wall, {new_cpu:.2f} s cpu); "
          f"numpy+scipy+sympy+mpmath import {cold['import_stack_s']:.2f} s wall, "
          f"{cold['import_stack_cpu_s']:.2f} s cpu")
    empty = {k: v for k, v in results["medians"].items()
             if k.startswith("empty ") and not k.endswith("(baseline)")}
    worst = max(empty, key=lambda k: empty[k]["first_density_cpu_s"])
    print(f"empty cache, new parameters: first density at most "
          f"{empty[worst]['first_density_cpu_s']:.3f} s cpu ({worst[6:]}); imports and first "
          f"density at most {max(v['import_and_first_cpu_s'] for v in empty.values()):.3f} s cpu")
    if args.baseline:
        same = all(rows[k]["pdf"] == rows[f"{k} (baseline)"]["pdf"] for k in empty)
        print(f"empty cache: every density {'equal to' if same else 'NOT equal to'} the "
              f"baseline's, to the bit")
    print(f"load average before {results['load_before']}, after {results['load_after']} "
          f"(2 cores shared)")
    if results["symbolic_sources_after"] != results["symbolic_sources_before"]:
        print("the symbolic sources changed during the run: generated functions were derived "
              "again in some rounds, and shipped ones went stale (results mixed)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
