"""Sampling benchmark (issues #4, #8): the streamed pipeline of ``freege.validation.sample.draw``
vs a plain NumPy reference, and the cheaper-draw options, on the CPU, side by side in
one run (a shared machine is noisy: compare the ratios, not the times).

The reference is what a notebook would do: materialise every head (h x n x n scores,
attention and GE noise), build MHA^perp and MHA^G, and take a full SVD of each
(``numpy.linalg.svd`` with U and V). Both produce the same two spectra (theory §6.1).

Reported per preset: seconds per draw and peak memory (tracemalloc: NumPy buffers) for
both, their ratios, and the pipeline's achieved GFLOP/s from a flop count of its
dominant operations, against this machine's measured float64 matrix-multiply rate.

Sections (``--sections``, default all):

* ``pipeline``: the streamed draw against the reference (above);
* ``imports``: a fresh interpreter running one tiny draw, against the same with the
  ``sympy`` and ``scipy.stats`` imports the sampling path no longer makes;
* ``dtype``: float64 against float32 draws per preset (seconds, peak memory);
* ``eig``: the symmetric eigenvalue drivers at ``--eig-sizes`` -- NumPy ``eigvalsh``,
  SciPy ``eigh(eigvals_only=True)`` with drivers ``ev``, ``evd``, ``evr``, and LAPACK's
  two-stage ``syevd_2stage`` (:mod:`freege.validation.eigensolver`) -- best of ``--reps`` on
  a Gram of rank n/2, with the largest eigenvalue difference to NumPy's over the scale;
* ``fused``: one head's ``A^perp V`` per preset, the fused product
  (:func:`freege.validation.sample.centred_softmax_values`) against
  ``centred_softmax(Q K^T / sqrt(dK)) @ V``.

BLAS threads: run with ``OPENBLAS_NUM_THREADS=1`` to measure what one sweep worker
sees (``freege sweep`` holds each task to one thread).

Run: ``python benchmarks/sampling.py [--presets ...] [--draws 3] [--ref-draws 1]
[--sections ...] [--eig-sizes 512 1024 2048 4096]``.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from freege.params import Dims
from freege.validation import eigensolver, sample
from freege.validation.presets import PRESETS
from freege.validation.sample import centred_softmax, centred_softmax_values, draw, thetas


def reference_draw(dims: Dims, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """All heads at once and full SVDs: squared singular values of MHA^perp and
    MHA^G / sqrt(n), descending."""
    rng = np.random.default_rng(seed)
    n, h, dk, dv, do = dims.n, dims.h, dims.dK, dims.dV, dims.dO
    beta = float(dims.beta)
    t1, t2 = thetas(beta)
    q = rng.standard_normal((h, n, dk))
    k = rng.standard_normal((h, n, dk))
    v = rng.standard_normal((h, n, dv))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(dk)
    e = np.exp(beta * s - (beta * s).max(axis=2, keepdims=True))
    a_perp = e / e.sum(axis=2, keepdims=True) - 1.0 / n
    wo = rng.standard_normal((h * dv, do)) / math.sqrt(h * dv)
    mha = np.concatenate(list(a_perp @ v), axis=1) @ wo
    y = (math.sqrt(t2) * s + math.sqrt(t1 - t2) * rng.standard_normal((h, n, n))) / math.sqrt(n)
    mha_g = np.concatenate(list(y @ v), axis=1) @ wo
    _, sv, _ = np.linalg.svd(mha)
    _, sv_g, _ = np.linalg.svd(mha_g / math.sqrt(n))
    return sv**2, sv_g**2


def pipeline_flops(dims: Dims) -> float:
    """Flops of one streamed draw's dominant operations (both models): per head QK^T,
    A V, the GE signal Q (K^T V) and noise G L^T; then Z W^O and the Gram for each model;
    eigenvalues by tridiagonalisation (4/3 n^3 each)."""
    n, h, dk, dv, do = dims.n, dims.h, dims.dK, dims.dV, dims.dO
    per_head = 2 * n * n * dk + 2 * n * n * dv + 4 * n * dk * dv + 2 * n * dv * dv
    groups = dims.h_kv * (2 * n * dv * dv + dv**3 / 3)
    return h * per_head + groups + 2 * (2 * n * h * dv * do + 2 * n * n * do + 4 / 3 * n**3)


def matmul_rate(size: int = 2048, reps: int = 5) -> float:
    """Best measured float64 GFLOP/s of a size x size matrix product."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    a @ b
    best = math.inf
    for _ in range(reps):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2 * size**3 / best / 1e9


def timed(fn, *args, **kwargs) -> tuple[float, int]:  # noqa: ANN001
    tracemalloc.start()
    t = time.perf_counter()
    fn(*args, **kwargs)
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def best(reps: int, fn: Callable[..., object], *args: object) -> float:
    """Best wall time of ``reps`` calls ``fn(*args)`` (the least disturbed by other load)."""
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times)


def section_pipeline(args: argparse.Namespace, rate: float) -> None:
    header = (f"{'preset':<18}{'pipeline s':>11}{'MiB':>8}{'reference s':>13}{'MiB':>8}"
              f"{'speed-up':>10}{'memory x':>10}{'GFLOP/s':>9}{'% matmul':>10}")
    print(header)
    for name in args.presets:
        dims = PRESETS[name]
        draw(dims, seed=(99,))  # warm-up
        runs = [timed(draw, dims, seed=(0, i)) for i in range(args.draws)]
        ref = [timed(reference_draw, dims, i) for i in range(args.ref_draws)]
        p_s, p_m = float(np.mean([r[0] for r in runs])), max(r[1] for r in runs)
        r_s, r_m = float(np.mean([r[0] for r in ref])), max(r[1] for r in ref)
        gflops = pipeline_flops(dims) / p_s / 1e9
        print(f"{name:<18}{p_s:>11.3f}{p_m / 2**20:>8.1f}{r_s:>13.3f}{r_m / 2**20:>8.1f}"
              f"{r_s / p_s:>10.1f}{r_m / p_m:>10.1f}{gflops:>9.1f}{100 * gflops / rate:>9.0f}%",
              flush=True)


def section_imports(args: argparse.Namespace) -> None:
    """Fresh-interpreter wall time of one tiny draw, without and with the imports."""
    tiny = ("from freege.params import Dims\nfrom freege.validation.sample import draw\n"
            "draw(Dims(n=24, h=2, dK=6, dV=6, dO=16), seed=0)\n")
    old = "import sympy, scipy.stats\n" + tiny

    def run(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t

    light = min(run(tiny) for _ in range(args.reps))
    heavy = min(run(old) for _ in range(args.reps))
    print(f"\nfresh process, one tiny draw: {light:.2f} s; with sympy + scipy.stats "
          f"imported: {heavy:.2f} s ({heavy / light:.2f}x)", flush=True)


def section_dtype(args: argparse.Namespace) -> None:
    print(f"\n{'preset':<18}{'float64 s':>10}{'MiB':>8}{'float32 s':>11}{'MiB':>8}"
          f"{'speed-up':>10}{'memory /':>10}")
    for name in args.presets:
        dims = PRESETS[name]
        draw(dims, seed=(99,), dtype="float32")  # warm-up
        res = {}
        for dtype in ("float64", "float32"):
            runs = [timed(draw, dims, seed=(0, i), dtype=dtype) for i in range(args.draws)]
            res[dtype] = (min(r[0] for r in runs), max(r[1] for r in runs))
        (s64, m64), (s32, m32) = res["float64"], res["float32"]
        print(f"{name:<18}{s64:>10.3f}{m64 / 2**20:>8.1f}{s32:>11.3f}{m32 / 2**20:>8.1f}"
              f"{s64 / s32:>10.2f}{m64 / m32:>10.2f}", flush=True)


def section_eig(args: argparse.Namespace) -> None:
    import scipy.linalg

    drivers: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "numpy": np.linalg.eigvalsh,
        **{f"scipy-{d}": (lambda a, d=d: scipy.linalg.eigh(a, eigvals_only=True, driver=d))
           for d in ("ev", "evd", "evr")},
    }
    if eigensolver.two_stage_driver("float64") is not None:
        drivers["2stage"] = eigensolver.eigvalsh_two_stage
    print(f"\n{'n':>6}" + "".join(f"{d:>11}" for d in drivers)
          + f"{'numpy/2stage':>14}{'max diff/scale':>16}   (seconds, best of {args.reps})")
    for n in args.eig_sizes:
        m = np.random.default_rng(n).standard_normal((n, n // 2))
        g = m @ m.T
        ref = np.linalg.eigvalsh(g)
        times, diff = {}, 0.0
        for name, fn in drivers.items():
            times[name] = best(args.reps, fn, g)
            diff = max(diff, float(np.max(np.abs(np.sort(fn(g)) - ref))) / ref[-1])
        ratio = times["numpy"] / times["2stage"] if "2stage" in times else math.nan
        print(f"{n:>6}" + "".join(f"{times[d]:>11.3f}" for d in drivers)
              + f"{ratio:>14.2f}{diff:>16.1e}", flush=True)


def plain_softmax_values(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                         beta: float) -> np.ndarray:
    """``A^perp V`` the plain way: the whole centred softmax, then the product."""
    return centred_softmax(np, q @ k.T / math.sqrt(q.shape[1]), beta) @ v


def fused(q: np.ndarray, k: np.ndarray, v: np.ndarray, beta: float) -> np.ndarray:
    return centred_softmax_values(np, q, k, v, beta)


def section_fused(args: argparse.Namespace) -> None:
    print(f"\n{'preset (one head)':<18}{'plain ms':>10}{'fused ms':>10}{'speed-up':>10}"
          f"{'max diff':>10}{'draw plain s':>14}{'fused s':>9}{'speed-up':>10}")
    for name in args.presets:
        dims = PRESETS[name]
        rng = np.random.default_rng(0)
        q, k = rng.standard_normal((dims.n, dims.dK)), rng.standard_normal((dims.n, dims.dK))
        v = rng.standard_normal((dims.n, dims.dV))
        inputs = (q, k, v, float(dims.beta))
        reps = 5 * args.reps
        t_plain, t_fused = best(reps, plain_softmax_values, *inputs), best(reps, fused, *inputs)
        diff = float(np.max(np.abs(plain_softmax_values(*inputs) - fused(*inputs))))
        draws = {}
        for route in ("plain", "fused"):
            # the whole draw with the plain route swapped in for the fused product
            sample.centred_softmax_values = (
                centred_softmax_values if route == "fused"
                else lambda _xp, q, k, v, beta: plain_softmax_values(q, k, v, beta))
            try:
                draws[route] = min(timed(draw, dims, seed=(0, i))[0] for i in range(args.draws))
            finally:
                sample.centred_softmax_values = centred_softmax_values
        print(f"{name:<18}{1e3 * t_plain:>10.2f}{1e3 * t_fused:>10.2f}"
              f"{t_plain / t_fused:>10.2f}{diff:>10.1e}{draws['plain']:>14.3f}"
              f"{draws['fused']:>9.3f}{draws['plain'] / draws['fused']:>10.2f}", flush=True)


SECTIONS = ("pipeline", "imports", "dtype", "eig", "fused")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+",
                        default=["bert-base", "dinov3-l16", "modernbert-large"])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--ref-draws", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--eig-sizes", nargs="+", type=int, default=[512, 1024, 2048])
    args = parser.parse_args()
    rate = matmul_rate()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
          f"float64 matmul (2048^2) {rate:.1f} GFLOP/s, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    for name in args.sections:
        if name == "pipeline":
            section_pipeline(args, rate)
        else:
            globals()[f"section_{name}"](args)


if __name__ == "__main__":
    main()
