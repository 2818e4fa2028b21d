"""Bad and odd inputs through the command line (issue 40; docs/algebra.md, Limits).

Runs a generated list of several hundred bad or odd inputs -- bad numbers, absurd
parameters, malformed and costly expressions, bad options of ``freege law``, ``readout``,
``derive``, ``validate``, ``ladder``, ``chain``, ``reproduce``, ``docs`` -- each as
``python -m freege ARGV`` in its own subprocess with a timeout, several at once, and
counts what came back:

* ``refusal``: exit 2 and exactly one line on stderr, no traceback (the contract of every
  bad input);
* ``answer``: exit 0 (a plausible answer: the input was odd but valid);
* ``noisy``: exit 0 or 2 with more than one stderr line or a warning (no traceback; the
  progress lines a long command prints when the machine is slow are not counted);
* ``traceback``: a Python traceback, or an exit status other than 0 and 2;
* ``hang``: killed at the timeout.

Besides the command line, the accepted costly expressions (:data:`COSTLY`: the slowest
laws the limits let through, and issue 40's) are asked, each in its own process through
the Python API, for everything a law answers -- support, atoms, moments, cdf, ppf (the
median), pdf -- and, for a law on ``[0, inf)``, the readouts (:data:`API_SCRIPT`); a
``ValueError`` or ``ConvergenceError`` there is a one-line refusal (exit 2).

Usage::

    python benchmarks/bad_input_harness.py [--jobs 2] [--timeout 20]
        [--costly-timeout 900] [--only SUBSTR ...] [--limit N] [--report bad_input_report.json]
        [--log FILE [--resume]] [--fresh-cache]

(``--costly-timeout``: the timeout of the cases of :data:`COSTLY`, which are meant to
answer; ``--log``: one JSON line per case as it ends, for a run cut short; ``--resume``:
keep the cases already in ``--log`` and run the others; ``--fresh-cache``: each case with
an empty cache folder of its own, cold, else all share the user's cache.)

The report (every case, its class, exit status, wall time, CPU time (the child's user
plus system time, which the machine's load does not inflate), peak memory (the child's
maximum resident set) and last stderr lines, and the counts) is written through
:mod:`freege.safe_files`; the counts, the slowest and the largest answer, and the slowest
(in CPU time) and largest refusal are printed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any

from freege import safe_files

#: bad or odd numbers, typed where a number is asked for
NUMBERS = ["nan", "inf", "-inf", "1e308", "1e-400", "1e400", "0", "-1", "", " ", "abc",
           "1/0", "0x10", "1_000", "\uff11", "1e", "--1", "1/2/3", "9" * 500, "0.1.2",
           "1e-5000", "True", "None", "[1]", "1e-12", "-0", "2**10", "1,5", "1e99999999"]

#: malformed, absurd or costly expressions of the law algebra
EXPRESSIONS = [
    "mp(", "mp()", "mp(1,2)", "foo(1)", "__import__('os')", "mp(1)**2", "mp(x)", "mp(h)",
    "pushforward(mp(1), x^5)", "pushforward(mp(1), y^2)", "pushforward(mp(1))", "atoms()",
    "atoms((1,1/2))", "atoms((1,2))", "atoms((1,1/2),(1,1/2))", "1/0*mp(1)",
    "mp(1)/mp(1)", "mp(1)/0", "-mp(1)*mp(1)", "semicircle(1)*mp(1)", "point(0)*mp(1)",
    "(" * 100 + "mp(1)" + ")" * 100, "mp(1/2)" + " + mp(1/2)" * 300, "mp(1)" * 2,
    "lambda: 0", "[mp(1)]", "mp(1) if 1 else 2", "mp(1).law()", "mp(1)[0]", "mp(1/2) @ 2",
    "mp(1e308)", "mp(1e-400)", "mp(1e-12)", "mp(1e5)", "semicircle(-1)", "semicircle(0)",
    "poisson(0)", "poisson(1e300)", "poisson(2, 3)", "poisson(2, atoms((0, 1)))",
    "point(1e300)", "mp(1/2) + 1e300", "1e-400*mp(1/2)", "mp(1/2)/1e-7", "1e-7*mp(1/2)",
    "mp(1/2) + 100000", "mp(1/2) + 1000000", "mp(1/2) - 1000000", "1000000 - mp(1/2)",
    "1/1000001*mp(1/2) + 1000000/1000001", "pushforward(mp(1), 1e300*x^2)",
    "pushforward(mp(1), (1e300*x)^2)", "pushforward(mp(1), x^4 - x^4)",
    "pushforward(mp(1), 0*x^2 + 3)", "pushforward(semicircle(1), x^3 - x)",
    "pushforward(pushforward(mp(1), x^4), x^4)", "pushforward(pushforward(mp(1/2), x^2), x^4)",
    "atoms(" + ", ".join(f"({i}, 1/50)" for i in range(50)) + ")",
    "atoms(" + ", ".join(f"({i}, 1/150)" for i in range(150)) + ")",
    "pushforward(mp(1), x*" + "(" * 14 + "10" + ")^4" * 14 + ")",
    "pushforward(mp(1), x*" + "(" * 10 + "10" + ")^4" * 10 + ")",
    "pushforward((poisson(2, atoms((1,3/4),(3,1/4)))) + (atoms((-1,2/3),(2,1/3))), x^2)",
    "pushforward(mp(1/2) + atoms((0,1/3),(1,1/3),(2,1/3)), x^2)",
    "mp(1/2)" + " * mp(1/2)" * 30, "semicircle(1)" + " + point(1)" * 260,
    "mp(1/2) * semicircle(1)", "mp(2) * point(0)", "0*mp(1)", "mp(1/2) - mp(1/2)",
    "atoms((0,1/2),(1,1/2)) + atoms((0,1/2),(1,1/2))", "mp(1)*mp(1) + 1", "2*mp(2) + 1",
    "mp(theta1)", "mp(1/2) + h", "x", "1", "1 + 2", "'mp(1)'", "mp(0.1)", "mp(1e-4)",
    "mp(1e4)", "semicircle(1e4) + mp(1e-4)", "1e6*mp(1e4)", "mp(1" + "0" * 600 + ")",
    # one text over each limit (docs/algebra.md, Limits: the refusals measured)
    "atoms((0, 1e-400), (1, 1))", "1*(" * 70 + "mp(1)" + ")" * 70,
    "atoms(" + ", ".join(f"({i}, 1/24)" for i in range(24)) + ") + mp(1/2)",
    "atoms(" + ", ".join(f"({i}, 1/24)" for i in range(24)) + ") + atoms("
    + ", ".join(f"({-i}, 1/24)" for i in range(1, 25)) + ")",
]

#: accepted expressions that cost the most (docs/algebra.md, Limits: the slowest measured
#: within the limits, at each kind of hard point), asked for every answer of a law
COSTLY = [
    "mp(1/2) + atoms((0, 1/4), (1, 1/4), (2, 1/2))",
    "pushforward(mp(1/2), x^2) + atoms((0,1/3),(1,1/3),(2,1/3))",
    "pushforward(mp(1/2), x^2) + pushforward(mp(1/2), x^2 + x)",
    "pushforward(mp(1/2), x^3) + poisson(2, atoms((1,3/4),(3,1/4)))",
    "atoms((0,1/2),(1,1/2)) + atoms((0,1/4),(1,3/4)) + atoms((-1,1/4),(1,1/2),(3,1/4))",
    "pushforward((poisson(2, atoms((1,3/4),(3,1/4)))) + (atoms((-1,2/3),(2,1/3))), x^2)",
    "pushforward(mp(1/2) + atoms((0,1/3),(1,1/3),(2,1/3)), x^2)",
    "atoms(" + ", ".join(f"({i}, 1/24)" for i in range(24)) + ")",
    "mp(1/2) + 1000000", "mp(1/2) + 100000", "1e-6*mp(1/2)", "mp(1e-4)", "mp(1e4)",
    "poisson(1e4)", "semicircle(1e4) + mp(1e-4)", "mp(1)*mp(1)*mp(1)*mp(1)",
]

#: the API run of one expression (argv[1]): every answer of its law; a ValueError or
#: ConvergenceError is one line on stderr and exit 2
API_SCRIPT = """
import sys
from freege import algebra
from freege.errors import ConvergenceError
try:
    law = algebra.parse(sys.argv[1]).law()
    law.support(), law.atoms(), [law.moment(q) for q in (1, 2, 3, 4)]
    law.cdf(law.mean()), law.ppf(0.5), law.pdf(law.ppf(0.25))
    if law.nonnegative:
        from freege.numeric import readout
        readout.dof(law, 1.0), readout.flow_loss(law, 1.0)
except (ValueError, ConvergenceError) as exc:
    print("error:", str(exc).splitlines()[0], file=sys.stderr)
    sys.exit(2)
"""

#: evaluation options paired with a valid expression
EXPR_OPTIONS = [["--pdf", "nan"], ["--pdf", "inf"], ["--pdf", "1e308"], ["--pdf", "x"],
                ["--pdf"], ["--dps", "0"], ["--dps", "14"], ["--dps", "201"], ["--dps", "1e3"],
                ["--dps", "30", "--pdf", "1"], ["--format", "xml"],
                ["--plot", "/nonexistent/x.png"], ["--plot", "x.txt"], ["--xscale", "cubic"],
                ["--normalized"], ["--certify"],
                ["--case", "mha"], ["--beta", "1"], ["--bogus"]]


def cases() -> list[tuple[str, list[str]]]:
    """``(name, argv)`` of every input (argv without ``freege``)."""
    out: list[tuple[str, list[str]]] = []
    law = ["law", "--case", "attention", "--beta", "1", "--h", "1", "--gK", "1/2", "--gO", "1"]
    for number in NUMBERS:
        for option in ("--beta", "--h", "--gK", "--gO"):
            argv = list(law)
            argv[argv.index(option) + 1] = number
            out.append((f"law {option} {number[:20]!r}", argv))
        out.append((f"law --pdf {number[:20]!r}", [*law, "--pdf", number]))
        out.append((f"law --dps {number[:20]!r}", [*law, "--dps", number]))
        out.append((f"law --n {number[:20]!r}", ["law", "--case", "mha", "--beta", "1", "--h",
                                                 "2", "--n", number, "--dk", "8", "--do", "8"]))
        out.append((f"readout dof --lam {number[:20]!r}", ["readout", "dof", "--lam", number,
                                                          "--expr", "mp(1/2)"]))
        out.append((f"readout loss --t {number[:20]!r}", ["readout", "loss", "--t", number,
                                                         "--expr", "mp(1/2)"]))
        out.append((f"readout arrival --level {number[:20]!r}",
                    ["readout", "arrival", "--level", number, "--expr", "mp(1/2)"]))
        out.append((f"readout ridge --sigma2 {number[:20]!r}",
                    ["readout", "ridge", "--lam", "0.1", "--sigma2", number, "--gO", "1",
                     "--expr", "mp(1/2)"]))
        out.append((f"derive moments --order {number[:20]!r}",
                    ["derive", "moments", "--case", "attention", "--order", number]))
        out.append((f"validate --n {number[:20]!r}",
                    ["validate", "--n", number, "--h", "1", "--dk", "4", "--do", "4",
                     "--draws", "2", "--yes", "--quiet"]))
    for text in EXPRESSIONS:
        out.append((f"law --expr {text[:60]!r}", ["law", "--expr", text]))
        out.append((f"readout dof --expr {text[:60]!r}",
                    ["readout", "dof", "--lam", "1", "--expr", text]))
    for number in NUMBERS:  # numbers typed inside expressions and readout options
        short = number[:20]
        for template in ("mp({})", "semicircle({})", "poisson({})", "atoms(({}, 1))",
                         "mp(1/2) + {}", "{}*mp(1/2)", "pushforward(mp(1/2), {}*x^2)"):
            text = template.format(number)
            out.append((f"law --expr {template.format(repr(short))}", ["law", "--expr", text]))
        for option in ("--lam", "--gO"):
            argv = ["readout", "ridge", "--lam", "0.1", "--sigma2", "0.1", "--gO", "1",
                    "--expr", "mp(1/2)"]
            argv[argv.index(option) + 1] = number
            out.append((f"readout ridge {option} {short!r}", argv))
        out.append((f"readout loss --dps {short!r}",
                    ["readout", "loss", "--t", "1", "--expr", "mp(1/2)", "--dps", number]))
    for text in COSTLY:
        out.append((f"api {text[:60]!r}", ["-c", API_SCRIPT, text]))
        out.append((f"law --expr --pdf {text[:60]!r}", ["law", "--expr", text, "--pdf", "0.5",
                                                       "1", "2"]))
        out.append((f"readout loss --expr {text[:60]!r}",
                    ["readout", "loss", "--t", "1", "10", "--expr", text]))
        out.append((f"readout arrival --expr {text[:60]!r}",
                    ["readout", "arrival", "--level", "0.5", "--expr", text]))
    for options in EXPR_OPTIONS:
        out.append((f"law --expr mp(1/2) {' '.join(options)}",
                    ["law", "--expr", "mp(1/2)", *options]))
        out.append((f"law --expr mp(1/2)+1e6 {' '.join(options)}",
                    ["law", "--expr", "mp(1/2) + 1000000", *options]))
    for argv in (["readout"], ["readout", "bogus"], ["readout", "dof"],
                 ["readout", "dof", "--lam", "1"], ["readout", "ridge", "--expr", "mp(1/2)",
                                                    "--lam", "1"],
                 ["readout", "dof", "--lam", "1", "--expr", "semicircle(1)"],
                 ["readout", "dof", "--lam", "1", "--expr", "mp(1/2) - 3"],
                 ["readout", "loss", "--expr", "mp(1/2) + 1000000", "--t", "1", "10"],
                 ["readout", "arrival", "--expr", "mp(2)", "--level", "0.4"],
                 ["readout", "dof", "--lam", "1", "--expr", "mp(1/2)", "--certify"],
                 ["derive"], ["derive", "bogus"], ["derive", "moments"],
                 ["derive", "moments", "--case", "bogus"],
                 ["derive", "cauchy", "--case", "mha", "--form", "bogus"],
                 ["validate"], ["validate", "bogus-preset"], ["validate", "--n", "0"],
                 ["validate", "--draws", "1", "bert-base"],
                 ["validate", "--seed", "-1", "bert-base"],
                 ["validate", "--config", "/nonexistent.json"], ["ladder", "--n", "0"],
                 ["chain", "--n", "-5"], ["reproduce", "bogus"], ["docs", "bogus"],
                 ["sweep-report", "/nonexistent/store"], ["sweep", "--store", "/proc/x"],
                 ["--bogus"], [], ["law"], ["law", "--case", "bogus"],
                 ["law", "--expr", "mp(1)", "--case", "mha", "--beta", "1", "--h", "1"],
                 ["law", "--case", "mha", "--beta", "1", "--h", "2", "--gK", "1", "--gO", "1",
                  "--n", "8", "--dk", "4", "--do", "8"],
                 ["law", "--case", "mha", "--beta", "1", "--h", "2", "--n", "4", "--dk", "2",
                  "--do", "2", "--sharing", "gqa", "--h-kv", "3"]):
        out.append((" ".join(argv)[:80] or "(nothing)", argv))
    return out


#: a progress line of a long command (freege.progress: a UTC time stamp, then ``freege
#: COMMAND:``), printed when the machine is slow: not noise, whatever the load
PROGRESS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ freege [\w -]+: ")


def classify(code: int | None, err: str) -> str:
    lines = [line for line in err.strip("\n").splitlines() if not PROGRESS.match(line)]
    if code is None:
        return "hang"
    if "Traceback (most recent call last)" in err or code not in (0, 2):
        return "traceback"
    if "Warning" in err or (code == 2 and len(lines) != 1) or (code == 0 and lines):
        return "noisy"
    return "refusal" if code == 2 else "answer"


def run_one(name: str, argv: list[str], timeout: float,
            fresh_cache: bool = False) -> dict[str, Any]:
    """``python -m freege ARGV`` (or ``python -c ...`` for an API case) with a timeout:
    its class, exit status, wall and CPU seconds, peak memory (the child's maximum resident
    set; CPU and memory from ``wait4``) and last stderr lines; with ``fresh_cache``, an
    empty cache folder of its own (cold)."""
    if fresh_cache:
        with tempfile.TemporaryDirectory() as cache:
            return _run_one(name, argv, timeout, {"FREEGE_CACHE_DIR": cache})
    return _run_one(name, argv, timeout, {})


def _run_one(name: str, argv: list[str], timeout: float,
             extra_env: dict[str, str]) -> dict[str, Any]:
    start = time.monotonic()
    env = {**os.environ, "PYTHONWARNINGS": "default", "MPLBACKEND": "Agg", **extra_env}
    cmd = [sys.executable, *(argv if argv[:1] == ["-c"] else ["-m", "freege", *argv])]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    chunks: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda k, f: chunks.__setitem__(k, f.read()),
                                args=(k, f)) for k, f in (("out", proc.stdout),
                                                          ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    killed = not timer.is_alive()
    timer.cancel()
    for reader in readers:
        reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    code = None if killed else proc.returncode
    err = chunks.get("err", b"").decode(errors="replace")
    lines = err.strip("\n").splitlines()
    return {"name": name, "argv": argv, "class": classify(code, err), "exit": code,
            "seconds": round(time.monotonic() - start, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_mib": round(usage.ru_maxrss / 1024, 1),
            "stderr_lines": len(lines), "stderr": "\n".join(lines[-3:])[:400]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--costly-timeout", type=float, default=900.0)
    parser.add_argument("--only", action="append", default=None,
                        help="run the cases whose name has this (repeat: any of them)")
    parser.add_argument("--limit", type=int, default=None, help="run the first N cases")
    parser.add_argument("--report", default="bad_input_report.json")
    parser.add_argument("--log", default=None, help="one JSON line per case as it ends")
    parser.add_argument("--resume", action="store_true",
                        help="keep the cases already in --log, run the others")
    parser.add_argument("--fresh-cache", action="store_true",
                        help="each case with an empty cache folder of its own (cold)")
    args = parser.parse_args(argv)
    if args.resume and args.log is None:
        parser.error("--resume needs --log")
    todo = [c for c in cases()
            if args.only is None or any(part in c[0] for part in args.only)][:args.limit]
    todo.sort(key=lambda c: not set(c[1]) & set(COSTLY))  # the long ones first
    safe_files.probe(args.report)
    results: list[dict[str, Any]] = []
    if args.log is not None:
        safe_files.probe(args.log)
    if args.resume and os.path.exists(args.log):
        results = _logged(args.log, {json.dumps(argv) for _, argv in todo})
        done = {json.dumps(r["argv"]) for r in results}
        todo = [c for c in todo if json.dumps(c[1]) not in done]
        print(f"resumed: {len(results)} cases from {args.log}, {len(todo)} to run", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, name, cmd, args.costly_timeout
                               if set(cmd) & set(COSTLY) else args.timeout, args.fresh_cache)
                   for name, cmd in todo]
        for k, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            result = future.result()
            results.append(result)
            if args.log is not None:  # the whole log so far, replaced through safe_files
                safe_files.write_text(args.log, "".join(json.dumps(r) + "\n"
                                                        for r in results))
            if result["class"] in ("traceback", "hang", "noisy"):
                print(f"[{k}/{len(todo)}] {result['class']}: {result['name']} "
                      f"({result['seconds']} s): {result['stderr'][-200:]}", flush=True)
    _summary(args, results)
    return 0


def _logged(log: str, wanted: set[str]) -> list[dict[str, Any]]:
    """The results in ``log`` of the cases in ``wanted`` (argv as JSON); a damaged line
    (a run cut short while writing) is skipped, so its case runs again."""
    out: dict[str, dict[str, Any]] = {}
    with open(log, encoding="utf-8") as handle:
        for line in handle:
            try:
                result = json.loads(line)
                key = json.dumps(result["argv"])
            except (ValueError, KeyError, TypeError):
                continue
            if key in wanted:
                out[key] = result
    return list(out.values())


def _summary(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    """Write the report and print the counts, the slowest and largest answer and refusal."""
    counts = Counter(r["class"] for r in results)
    summary = {k: counts.get(k, 0) for k in ("refusal", "answer", "noisy", "traceback", "hang")}
    results.sort(key=lambda r: r["name"])
    answers = [r for r in results if r["class"] == "answer"]
    slowest = max(answers, key=lambda r: r["seconds"], default=None)
    largest = max(results, key=lambda r: r["peak_mib"], default=None)
    refusals = [r for r in results if r["class"] == "refusal"]
    refusal = {"slowest_cpu": max(refusals, key=lambda r: r.get("cpu_s") or 0, default=None),
               "slowest_wall": max(refusals, key=lambda r: r["seconds"], default=None),
               "largest": max(refusals, key=lambda r: r["peak_mib"], default=None)}
    safe_files.write_text(args.report, json.dumps(
        {"cases": len(results), "timeout_s": args.timeout,
         "costly_timeout_s": args.costly_timeout, "counts": summary,
         "slowest_answer": slowest, "largest": largest, "refusal": refusal,
         "results": results}, indent=1) + "\n")
    print(f"{len(results)} cases: " + ", ".join(f"{v} {k}" for k, v in summary.items()))
    if slowest is not None:
        print(f"slowest answer: {slowest['seconds']} s, {slowest['name']}")
    if largest is not None:
        print(f"largest: {largest['peak_mib']} MiB, {largest['class']}, {largest['name']}")
    for what, r in refusal.items():
        if r is not None:
            print(f"refusal, {what.replace('_', ' ')}: {r.get('cpu_s')} s CPU, "
                  f"{r['seconds']} s wall, {r['peak_mib']} MiB, {r['name']}")


if __name__ == "__main__":
    sys.exit(main())
