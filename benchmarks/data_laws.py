"""Laws from data: speed and accuracy of MP ⊠ empirical, beside freealg (issue 38).

The operand is an empirical spectrum of ``--atoms`` values (default 10^4): the quantiles
of uniform(1, 3) at (i - 1/2)/N, so the population law is known. The law is
``MP_{1/2} ⊠ empirical`` and ``--points`` densities (default 1,000) are asked on a grid.

Each timing runs in a fresh Python process (everything but the interpreter's start inside
the clock: imports, the operand's construction, the support, its mass check and the
densities; ``cold``) and then again in the same process (``warm``: a new law of the same
operand, nothing kept), side by side in one run. BLAS runs on one thread
(``OPENBLAS_NUM_THREADS=1`` and its kin: on one core, as the target says), and freege's
rows also give the process's CPU time (``*_cpu_s``, less sensitive to the machine's load
than the wall clock); the machine's load average is printed with them:

* freege, Cauchy transform only: ``DataLaw(...).cauchy_pair_f64(x + 0j)`` (the engine);
* freege, pdf: ``DataLaw(...).pdf(x)`` (the support found and its mass verified first);
* freealg (a benchmark-only dependency, run by ``--peers-python``, a Python where
  ``pip install freealg`` was run; default: this one): ``FreeForm(eigs).fit()`` then
  ``density(x)`` on the eigenvalues of one sampled matrix ``C^{1/2} X X^T C^{1/2}/m`` of
  size ``--matrix`` with the same population spectrum (the sampling outside the clock).

Accuracy is measured against ``MP_{1/2} ⊠ uniform(1, 3)`` computed by freege's density
operand (a different operand and code path; the empirical operand differs from it by
its quantisation, ``O(1/N)``): the largest absolute density error on the grid's interior,
over the largest density.

    python benchmarks/data_laws.py [--atoms 10000] [--points 1000] [--matrix 2000]
        [--peers-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

FREEGE = """
import time, numpy as np
t0, c0 = time.perf_counter(), time.process_time()
from fractions import Fraction
from freege.numeric.data_law import DataLaw
N, P, WHAT = {atoms}, {points}, {what!r}
eigs = 1 + 2 * (np.arange(N) + 0.5) / N
x = np.linspace(0.1, 7.5, P)
def run():
    law = DataLaw(("mult", ("mp", Fraction(1, 2)), ("empirical", eigs.astype("<f8").tobytes(),
                                                      None)))
    if WHAT == "cauchy":
        g = law.cauchy_pair_f64(x + 0j)[0]
        return np.maximum(-g.imag / np.pi, 0)
    return law.pdf(x)
dens = run()
cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
t1, c1 = time.perf_counter(), time.process_time()
run()
warm, warm_cpu = time.perf_counter() - t1, time.process_time() - c1
np.save({out!r}, dens)
print(cold, warm, cold_cpu, warm_cpu)
"""

FREEALG = """
import time, numpy as np
t0, c0 = time.perf_counter(), time.process_time()
if not hasattr(np, "trapz"):  # freealg 0.12 calls np.trapz, removed in NumPy 2
    np.trapz = np.trapezoid
from freealg import FreeForm
N, P, M = {atoms}, {points}, {matrix}
s0, sc0 = time.perf_counter(), time.process_time()
rng = np.random.default_rng(0)
pop = 1 + 2 * (np.arange(M) + 0.5) / M
x = np.linspace(0.1, 7.5, P)
X = rng.standard_normal((M, 2 * M))
W = (np.sqrt(pop)[:, None] * X) @ (np.sqrt(pop)[:, None] * X).T / (2 * M)
eigs = np.linalg.eigvalsh(W)
t_sample, c_sample = time.perf_counter() - s0, time.process_time() - sc0
def run():
    ff = FreeForm(eigs)
    ff.fit()
    return ff.density(x)
dens = run()
cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
t1, c1 = time.perf_counter(), time.process_time()
run()
warm, warm_cpu = time.perf_counter() - t1, time.process_time() - c1
np.save({out!r}, dens)
print(cold - t_sample, warm, cold_cpu - c_sample, warm_cpu, t_sample)
"""

#: one BLAS thread in every timed process
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS")}


def _run(code: str, python: str = sys.executable) -> list[float]:
    done = subprocess.run([python, "-c", code], capture_output=True, text=True,
                          timeout=3600, env={**os.environ, **ONE_THREAD})
    if done.returncode:
        raise SystemExit(done.stderr.strip().splitlines()[-1])
    return [float(v) for v in done.stdout.strip().splitlines()[-1].split()]  # the last line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--matrix", type=int, default=2000)
    parser.add_argument("--peers-python", default=sys.executable,
                        help="a Python with freealg installed (default: this one)")
    args = parser.parse_args()
    import tempfile

    import numpy as np

    from freege.numeric.data_law import DataLaw
    from freege.numeric.density_operand import scipy_spec

    with tempfile.TemporaryDirectory() as tmp:
        from fractions import Fraction

        import scipy.stats as st

        x = np.linspace(0.1, 7.5, args.points)
        t0 = time.perf_counter()
        ref = DataLaw(("mult", ("mp", Fraction(1, 2)), scipy_spec(st.uniform(1, 2)))).pdf(x)
        t_ref = time.perf_counter() - t0
        rows = {}
        for what in ("cauchy", "pdf"):
            out = f"{tmp}/{what}.npy"
            cold, warm, cold_cpu, warm_cpu = _run(FREEGE.format(
                atoms=args.atoms, points=args.points, what=what, out=out))
            err = float(np.max(np.abs(np.load(out) - ref)) / ref.max())
            rows[f"freege {what}"] = {"cold_s": cold, "warm_s": warm, "cold_cpu_s": cold_cpu,
                                      "warm_cpu_s": warm_cpu, "rel_err": err}
        try:
            out = f"{tmp}/freealg.npy"
            cold, warm, cold_cpu, warm_cpu, t_sample = _run(FREEALG.format(
                atoms=args.atoms, points=args.points, matrix=args.matrix, out=out),
                args.peers_python)
            err = float(np.max(np.abs(np.load(out) - ref)) / ref.max())
            rows["freealg FreeForm"] = {"cold_s": cold, "warm_s": warm, "cold_cpu_s": cold_cpu,
                                        "warm_cpu_s": warm_cpu, "rel_err": err,
                                        "sampling_s": t_sample}
        except SystemExit as exc:
            rows["freealg FreeForm"] = {"skipped": str(exc)}
    print(json.dumps({"atoms": args.atoms, "points": args.points, "reference_s": t_ref,
                      "load_average": os.getloadavg(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
