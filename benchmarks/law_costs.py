"""The cost of each ``Law`` method per precision (issue 28; docs/law-costs.md).

    python benchmarks/law_costs.py [--dps none 30 50] [--timeout 300] [--only METHOD ...]

Each (method, precision) runs in its own process on one BLAS thread, on a FRESH law (the
attention law of issue 28: beta = 1, h = 4, gK = gV = 1/2, gO = 2): the clock covers the
law's construction, its support location and the call (imports and the disk caches of
exact results are warm: a previous run, or the first call, fills them). Printed: wall and
CPU seconds of the process's clock, or ``> timeout`` when the call did not finish; the
machine (CPU model, cores) and its load average before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: method -> the call on a law ``L`` at precision ``dps`` (mpmath arguments when dps)
CALLS = {
    "construct + support": "L.support()",
    "pdf (1 point)": "L.pdf(arg('2'))",
    "pdf (100 points)": "L.pdf([arg(str(0.3 + 0.07 * k)) for k in range(100)])",
    "cdf (1 point)": "L.cdf(arg('2'))",
    "sf (1 point)": "L.sf(arg('2'))",
    "ppf(0.3)": "L.ppf(arg('0.3'))",
    "isf(0.3)": "L.isf(arg('0.3'))",
    "median": "L.median()",
    "interval(0.9)": "L.interval(arg('0.9'))",
    "mean, var": "(L.mean(), L.var())",
    "moment(4)": "L.moment(4)",
    "stats('mvsk')": "L.stats('mvsk')",
    "entropy": "L.entropy()",
    "mass": "L.mass()",
    "expect(x^2)": "L.expect(lambda x: x**2)",
    "stieltjes(1+1j)": "L.stieltjes(carg('1', '1'))",
    "rvs(10^6)": "L.rvs(10**6, random_state=1)",
}

RUN = r"""
import sys, time
import mpmath
from freege.extras import blas_threads
from freege.numeric.case_law import law
from freege.params import Ratios
dps = None if sys.argv[1] == "none" else int(sys.argv[1])
R = Ratios(beta=1, h=4, gK="0.5", gV="0.5", gO=2)
law("attention", R, dps=dps).support()  # warm imports and the disk caches
def arg(s):
    return float(s) if dps is None else mpmath.mpf(s)
def carg(a, b):
    return complex(float(a), float(b)) if dps is None else mpmath.mpc(a, b)
with blas_threads(1), mpmath.workdps(dps or 15):
    w0, c0 = time.perf_counter(), time.process_time()
    L = law("attention", R, dps=dps)
    eval(sys.argv[2])
    print(time.perf_counter() - w0, time.process_time() - c0)
"""


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def measure(call: str, dps: str, timeout: float) -> str:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        proc = subprocess.run([sys.executable, "-c", RUN, dps, call], capture_output=True,
                              text=True, cwd=ROOT, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f}"
    if proc.returncode:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return f"error: {tail[0][:60]}"
    wall, cpu = (float(v) for v in proc.stdout.split()[-2:])
    return f"{wall:.3g} ({cpu:.3g} cpu)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dps", nargs="+", default=["none", "30", "50"])
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--only", nargs="+", choices=sorted(CALLS), default=None)
    args = parser.parse_args()
    print(f"machine: {machine()}; load average before: {load()}")
    names = args.only or list(CALLS)
    head = "| method | " + " | ".join("float64" if d == "none" else f"dps {d}"
                                       for d in args.dps) + " |"
    print(head)
    print("|" + "---|" * (len(args.dps) + 1))
    for name in names:
        cells = [measure(CALLS[name], d, args.timeout) for d in args.dps]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
