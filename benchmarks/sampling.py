"""Sampling benchmark (issue #4): the streamed pipeline of ``validation.sample.draw`` vs
a plain NumPy reference, on the CPU, side by side in one run.

The reference is what a notebook would do: materialise every head (h x n x n scores,
attention and GE noise), build MHA^perp and MHA^G, and take a full SVD of each
(``numpy.linalg.svd`` with U and V). Both produce the same two spectra (SPEC §6.1).

Reported per preset: seconds per draw and peak memory (tracemalloc: NumPy buffers) for
both, their ratios, and the pipeline's achieved GFLOP/s from a flop count of its
dominant operations, against this machine's measured float64 matrix-multiply rate.

Run: ``python benchmarks/sampling.py [--presets ...] [--draws 3] [--ref-draws 1]``.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import tracemalloc

import numpy as np

from freege.params import Dims
from validation.presets import PRESETS
from validation.sample import draw, thetas


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+",
                        default=["bert-base", "dinov3-l16", "modernbert-large"])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--ref-draws", type=int, default=1)
    args = parser.parse_args()
    rate = matmul_rate()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
          f"float64 matmul (2048^2) {rate:.1f} GFLOP/s")
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


if __name__ == "__main__":
    main()
