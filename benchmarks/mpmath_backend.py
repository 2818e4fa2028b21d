"""mpmath with its GMP backend (gmpy2, a base dependency) against its pure-Python one, on
the working-precision work freege's users wait for.

    python benchmarks/mpmath_backend.py [--rounds 3]

Each task runs in a fresh process (``sys.executable``) twice per round, once as installed
(mpmath imports gmpy2 and reports ``BACKEND == 'gmpy'``) and once with ``MPMATH_NOGMPY=1``
(mpmath's documented switch to its pure-Python integers), interleaved; imports and the
law's construction are inside the clock, on a cache folder the round's first run filled.
CPU time is the child's user plus system time (``wait4``), so the shared machine's load
does not inflate it; medians over the rounds and the ratio gmpy/python are printed with
the load average. Each child prints its answer, and the two backends' answers must agree
to the digits printed (mpmath's arithmetic is correctly rounded in both).

Tasks (theory §7.1's mpmath routes):

* ``cdf30``: the issue-10 tiny-edge MHA law's cdf at dps 30 at two points (a whole
  density integral, tracked in mpmath);
* ``dof60``: the effective degrees of freedom at ``lam = 1e-4`` at dps 60 (theory §5;
  issue 7's law, equal ratios below one);
* ``quantile30``: a dps-30 quantile of ``mp(1/2) * mp(1/3)`` (an algebra expression).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TASKS: dict[str, str] = {
    "cdf30": """
import mpmath
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios
law = CaseLaw("mha", Ratios(beta="0.7", h=3, gK="0.999", gV="1.001", gO="1.0001"),
              normalized=True, dps=30)
with mpmath.workdps(30):
    (a, b), = law.intervals()
    print(mpmath.nstr(law.cdf(b + 1), 25), mpmath.nstr(law.cdf(mpmath.mpf("2.8668")), 25))
""",
    "dof60": """
import mpmath
from freege.numeric import law
from freege.numeric.readout import dof
from freege.params import Ratios
mha = law("mha", Ratios(beta="0.8", h=2, gK="0.3", gV="0.3", gO="0.3"), dps=60)
with mpmath.workdps(60):
    print(mpmath.nstr(dof(mha, "1e-4"), 50))
""",
    "quantile30": """
import mpmath
from freege.algebra import parse
expr_law = parse("mp(1/2) * mp(1/3)").law(dps=30)
with mpmath.workdps(30):
    print(mpmath.nstr(expr_law.ppf(mpmath.mpf("0.3")), 25))
""",
}


def run(task: str, backend: str, cache: str) -> tuple[float, str]:
    """CPU seconds of one fresh process running ``task`` and its printed answer."""
    env = {**os.environ, "FREEGE_CACHE_DIR": cache, "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("MPMATH_NOGMPY", None)
    if backend == "python":
        env["MPMATH_NOGMPY"] = "1"
    code = ("import mpmath.libmp\n"
            f"assert mpmath.libmp.BACKEND == {'gmpy' if backend == 'gmpy' else 'python'!r}\n"
            + TASKS[task])
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        raise SystemExit(f"{task} ({backend}) failed:\n{err}")
    return usage.ru_utime + usage.ru_stime, out.strip()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", nargs="*", choices=sorted(TASKS), default=sorted(TASKS))
    args = p.parse_args(argv)
    print(f"python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="freege-bench-") as root:
        for task in args.only:
            cache = os.path.join(root, task)
            run(task, "gmpy", cache)  # fills the cache: both backends run warm
            times: dict[str, list[float]] = {"gmpy": [], "python": []}
            answers: dict[str, set[str]] = {"gmpy": set(), "python": set()}
            for k in range(args.rounds):
                for backend in (("gmpy", "python") if k % 2 == 0 else ("python", "gmpy")):
                    cpu, answer = run(task, backend, cache)
                    times[backend].append(cpu)
                    answers[backend].add(answer)
            if answers["gmpy"] != answers["python"] or len(answers["gmpy"]) != 1:
                raise SystemExit(f"{task}: the backends' answers differ: {answers}")
            g, py = (statistics.median(times[b]) for b in ("gmpy", "python"))
            print(f"{task:11s} gmpy {g:6.2f} s  python {py:6.2f} s  ratio {g / py:.2f}  "
                  f"answer {answers['gmpy'].pop()}  (load {os.getloadavg()[0]:.2f}, "
                  f"{time.strftime('%H:%M:%S')})", flush=True)


if __name__ == "__main__":
    main()
