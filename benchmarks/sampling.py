"""Sampling benchmark (issues #4, #8): the streamed pipeline of
``freege.validation.sampling.sample.draw``
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
  SciPy ``eigh(eigvals_only=True)`` with drivers ``ev``, ``evd``, ``evr``, and
  :mod:`freege.validation.sampling.eigensolver`'s in-place one-stage (``?sytrd`` + ``?sterf``) and
  two-stage (band :data:`~freege.validation.sampling.eigensolver.TWO_STAGE_BAND`) routes -- best of
  ``--reps`` on a Gram of rank n/2, with the largest eigenvalue difference to NumPy's over
  the scale;
* ``fused``: one head's ``A^perp V`` per preset, the fused product
  (:func:`freege.validation.sampling.sample.centred_softmax_values`) against
  ``centred_softmax(Q K^T / sqrt(dK)) @ V``;
* ``targets`` (issue 18): each target as a ratio, medians of ``--rounds`` interleaved
  rounds (each round re-measures the dgemm rate next to what it times): a bert-base draw
  and a ``--big-n`` draw (h = 16, dK = dV = n/16, dO = n: the paper's d = n sizes)
  against their FLOP floor (:func:`floor_flops` at the measured 2048^2 dgemm rate) and
  the big draw's peak memory in n^2 doubles; a draw returning learning curves at 50
  times (:func:`freege.validation.sampling.eigensolver.eigenvalues_and_weights`) against an
  eigenvalue-only draw at ``--curve-n``, and the curve's largest difference to a full
  ``eigh``; ``freege validate bert-base --draws 10`` as a process against a
  notebook-style script; a warm ``freege derive moments --case mha --order 6``
  (``--targets`` picks some of them: ``draws``, ``curve``, ``process``, ``derive``);
* ``breakdown`` (issue 18): the CPU time of draws of ``--breakdown`` (presets, or sizes n
  of the d = n, h = 16 configuration) by phase -- random numbers, fused softmax, GE noise,
  Z W^O, outlier, Grams, eigenvalues, the rest -- each against the whole floor and its
  own (:func:`floor_parts`);
* ``table``: the per-draw table of docs/performance.md ("Cost of a draw") as Markdown: the seven
  presets and the paper's d = n sizes (h = 16 and 128 at n = 4096 and 8192), CPU seconds
  (median of ``--table-draws`` draws, one above n = 2048), the ratio to the FLOP floor,
  the measured peak memory, and a GPU time from :func:`gpu_estimate` (a model, stated
  there, until a device measures it); configurations above ``--table-max-n`` are
  estimated (the floor times the ratio measured at the largest measured n with the same
  h; memory from :func:`freege.validation.sampling.cost.draw_cost`);
* ``estimate``: the preflight's per-sample estimate (:mod:`freege.validation.sampling.cost`,
  read by :mod:`freege.cli.budget`) against the measured CPU seconds of draws (h = 8,
  dK = dV = n/8, dO = n) and ladder trials at ``--estimate-sizes``.

BLAS threads: run with ``OPENBLAS_NUM_THREADS=1`` to measure what one sweep worker
sees (``freege sweep`` holds each task to one thread).

Run (from the repository root): ``python -m benchmarks.sampling [--presets ...]
[--draws 3] [--ref-draws 1] [--sections ...] [--eig-sizes 512 1024 2048 4096] [--rounds 3]
[--big-n 4096] [--curve-n 2048] [--estimate-sizes 64 ... 4096] [--ladder-max 2048]
[--targets draws ...] [--breakdown bert-base 2048] [--table-max-n 4096]``.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation import finite_readout
from freege.validation.models.presets import PRESETS
from freege.validation.sampling import cost, eigensolver, sample
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.sample import centred_softmax, centred_softmax_values, draw, thetas

ROOT = Path(__file__).resolve().parent.parent
BK = get_backend("numpy")


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
    tiny = ("from freege.params import Dims\nfrom freege.validation.sampling.sample import draw\n"
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
    if eigensolver.one_stage_driver("float64") is not None:
        drivers["1stage"] = eigensolver.eigvalsh_one_stage
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


def floor_parts(dims: Dims) -> dict[str, float]:
    """The necessary floating-point work of one draw (both models), by phase: ``softmax``
    per head Q K^T and A V (2 n^2 (dK + dV)); ``ge`` per head the GE signal Q (K^T V)
    (4 n dK dV) and noise G L^T (L triangular: n dV min(n, dV)), per K/V group V^T V as
    a symmetric product (n dV^2) and its Cholesky factor (dV^3 / 3); ``output`` both
    models' Z W^O (2 n h dV dO each); ``gram`` both Grams as symmetric products (n^2 dO
    each); ``eig`` both eigenvalue problems by tridiagonal reduction (4/3 n^3 each)."""
    n, h, dk, dv, do = dims.n, dims.h, dims.dK, dims.dV, dims.dO
    return {"softmax": h * 2 * n * n * (dk + dv),
            "ge": h * (4 * n * dk * dv + n * dv * min(n, dv))
            + dims.h_kv * (n * dv * dv + dv**3 / 3),
            "output": 2 * 2 * n * h * dv * do, "gram": 2 * n * n * do,
            "eig": 2 * 4 / 3 * n**3}


def floor_flops(dims: Dims) -> float:
    """The necessary floating-point work of one draw (both models): the sum of
    :func:`floor_parts`. (Until issue 18 the triangular G L^T and the symmetric V^T V
    were counted as full products: 0.5-0.8 % more at bert-base and n = 4096.)"""
    return sum(floor_parts(dims).values())


def big_dims(n: int) -> Dims:
    """The paper's d = n configuration with 16 heads."""
    return Dims(n=n, h=16, dK=n // 16, dV=n // 16, dO=n)


def _curve_draw(dims: Dims, seed: object, times: np.ndarray) -> dict[str, np.ndarray]:
    """A draw that returns each model's gradient-flow curve at ``times`` (theory §5):
    the draw's Grams, then eigenvalues and target weights without eigenvectors."""
    y = finite_readout.target(dims.n, 0)
    curves = {}
    for model, gram in sample._grams(sample.case_for(dims), dims, seed, BK, sample.MODELS):
        vals, weights = eigensolver.eigenvalues_and_weights(gram, y, overwrite=True)
        del gram
        curves[model] = finite_readout.flow_loss_from_weights(vals, weights / (y @ y), times)
    return curves


NOTEBOOK = """
import math
from types import SimpleNamespace
import numpy as np, scipy.stats


def thetas(beta):
    return math.expm1(beta**2), beta**2


Dims = None
{reference}
dims = SimpleNamespace(n=512, h=12, dK=64, dV=64, dO=768, beta=1.0)  # bert-base
w1, ks = [], []
for i in range(10):
    soft, ge = reference_draw(dims, i)
    w1.append(scipy.stats.wasserstein_distance(soft, ge))
    ks.append(scipy.stats.ks_2samp(soft, ge).statistic)
for v in (w1, ks):
    half = scipy.stats.t.ppf(0.975, 9) * np.std(v, ddof=1) / math.sqrt(10)
    print(np.mean(v), half)
"""


def _process_seconds(argv: list[str]) -> float:
    """CPU seconds (user + system) of a child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_rate(size: int = 2048, reps: int = 2) -> float:
    """Best float64 FLOP/s of a size x size product in CPU time (one BLAS thread: CPU time
    is what other processes on a shared machine do not inflate)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    return 2 * size**3 / best_cpu(reps, lambda: a @ b)


def best_cpu(reps: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(reps):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def cpu_seconds(fn: Callable[[], object]) -> float:
    return best_cpu(1, fn)


def section_targets(args: argparse.Namespace) -> None:
    bert, big = PRESETS["bert-base"], big_dims(args.big_n)
    curve_dims = Dims(n=args.curve_n, h=16, dK=args.curve_n // 16, dV=args.curve_n // 16,
                      dO=args.curve_n)
    times = np.geomspace(1e-2, 1e2, 50)
    validate = [sys.executable, "-m", "freege", "validate", "bert-base", "--draws", "10",
                "--backend", "numpy"]
    notebook = [sys.executable, "-c",
                NOTEBOOK.format(reference=inspect.getsource(reference_draw))]
    derive = [sys.executable, "-m", "freege", "derive", "moments", "--case", "mha",
              "--order", "6"]
    want = set(args.targets)
    if "derive" in want:
        _process_seconds(derive)  # warm the caches
    draw(bert, seed=(99,))
    _curve_draw(Dims(n=64, h=2, dK=8, dV=8, dO=64), (99,), times)  # imports scipy.linalg
    ratios: dict[str, list[float]] = {k: [] for k in (
        "bert", "big", "curve", "process", "derive")}
    peak, diff = 0.0, 0.0
    for r in range(args.rounds):
        rate = cpu_rate()
        if "draws" in want:
            bert_s = float(np.median([cpu_seconds(lambda i=i, r=r: draw(bert, seed=(r, i)))
                                      for i in range(3)]))
            ratios["bert"].append(bert_s * rate / floor_flops(bert))
        if "draws" in want and r < args.big_rounds:
            t = time.process_time()
            d = draw(big, seed=(r,))
            big_s = time.process_time() - t
            rate = (rate + cpu_rate()) / 2  # around a long draw
            ratios["big"].append(big_s * rate / floor_flops(big))
            peak = max(peak, d.peak_bytes / (8 * big.n**2))
        if "curve" in want:
            plain = cpu_seconds(lambda r=r: draw(curve_dims, seed=(r,)))
            curve = cpu_seconds(lambda r=r: _curve_draw(curve_dims, (r,), times))
            ratios["curve"].append(curve / plain)
        if "process" in want:
            ratios["process"].append(_process_seconds(validate) / _process_seconds(notebook))
        if "derive" in want:
            ratios["derive"].append(_process_seconds(derive))
    # agreement of one curve with the full eigh route (trace-normalised Gram)
    if "curve" in want:
        _, gram = next(sample._grams("mha", curve_dims, (0,), BK, ("softmax",)))
        gram *= curve_dims.n / np.trace(gram)
        y = finite_readout.target(curve_dims.n, 0)
        vals, vecs = np.linalg.eigh(gram)
        ref = finite_readout.gradient_flow_loss(vals, vecs, y, times)
        lv, lw = eigensolver.eigenvalues_and_weights(gram, y)
        diff = float(np.max(np.abs(finite_readout.flow_loss_from_weights(lv, lw / (y @ y), times)
                                   - ref)))
    med = {k: float(np.median(v)) for k, v in ratios.items() if v}
    print(f"\ntargets (CPU time, medians of {args.rounds} interleaved rounds; the big draw "
          f"{min(args.rounds, args.big_rounds)} round(s); dgemm {rate / 1e9:.1f} GFLOP/s "
          "in CPU time):")
    if "bert" in med:
        print(f"  bert-base draw / FLOP floor ({floor_flops(bert) / 1e9:.3f} GFLOP):    "
              f"{med['bert']:.2f}  (target <= 1.5)")
    if "big" in med:
        print(f"  n = {big.n}, h = 16, dK = {big.dK}, dO = {big.dO} draw / floor "
              f"({floor_flops(big) / 1e9:.0f} GFLOP):  {med['big']:.2f}  (target <= 1.2)")
        print(f"  its peak memory / n^2 doubles:                 {peak:.2f}  "
              "(target <= 4.5)")
    if "curve" in med:
        print(f"  learning-curve draw / eigenvalue draw, n = {curve_dims.n}:   "
              f"{med['curve']:.2f}  (target <= 1.3)")
        print(f"  curve vs full eigh, max |difference|:          {diff:.1e}  "
              "(target <= 1e-12)")
    if "process" in med:
        print(f"  validate bert-base --draws 10 / notebook script: {med['process']:.2f}  "
              "(target <= 0.6)")
    if "derive" in med:
        print(f"  warm derive moments --case mha --order 6:      {med['derive']:.2f} s CPU  "
              "(target <= 0.3)", flush=True)


class PhaseClock:
    """CPU seconds spent inside each of a few functions, exclusive of the others (a call
    nested in another counts for the inner one only), installed by patching them where
    the draw looks them up and removed by :meth:`restore`."""

    def __init__(self, targets: dict[str, tuple[Any, str]]):
        self.seconds = dict.fromkeys(targets, 0.0)
        self.stack: list[list[float]] = []
        self.saved = [(owner, attr, getattr(owner, attr)) for owner, attr in targets.values()]
        for phase, (owner, attr) in targets.items():
            setattr(owner, attr, self._timed(phase, getattr(owner, attr)))

    def _timed(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed_call(*a: Any, **k: Any) -> Any:
            self.stack.append([time.process_time(), 0.0])  # [start, nested seconds]
            try:
                return fn(*a, **k)
            finally:
                start, nested = self.stack.pop()
                spent = time.process_time() - start
                self.seconds[phase] += spent - nested
                if self.stack:
                    self.stack[-1][1] += spent
        return timed_call

    def restore(self) -> None:
        for owner, attr, fn in self.saved:
            setattr(owner, attr, fn)


def breakdown_dims(name: str) -> Dims:
    """A preset by name, or ``n``: the d = n configuration with 16 heads (:func:`big_dims`)."""
    return PRESETS[name] if name in PRESETS else big_dims(int(name))


def section_breakdown(args: argparse.Namespace) -> None:
    """CPU time of a draw by phase against each phase's FLOP floor (:func:`floor_parts`)
    at the measured dgemm rate: random numbers (all of :meth:`Backend.normal`), the fused
    softmax products and exponentials, the GE noise product, Z W^O, the outlier's power
    iteration, the Grams, the eigensolver; ``other`` is the rest (the GE signal, V^T V and
    its Cholesky factor, scaling and copies, the interpreter)."""
    from freege.validation.sampling import backend, eigensolver

    targets = {"rng": (backend.Backend, "normal"),
               "softmax": (sample, "centred_softmax_values"),
               "ge noise": (sample._GEValueNoise, "__call__"),
               "output": (sample, "_apply"), "outlier": (eigensolver, "top_singular_value"),
               "gram": (backend.Backend, "gram"), "eig": (backend.Backend, "eigvalsh")}
    for name in args.breakdown:
        dims = breakdown_dims(name)
        reps = 3 if dims.n <= 1024 else 1
        if dims.n <= 2048:
            draw(dims, seed=(99,))  # warm-up
        clock = PhaseClock(targets)
        try:
            rate, total = cpu_rate(), 0.0
            for i in range(reps):
                total += cpu_seconds(lambda i=i, d=dims: draw(d, seed=(0, i))) / reps
            rate = (rate + cpu_rate()) / 2
        finally:
            clock.restore()
        parts = floor_parts(dims)
        noise = dims.h * dims.n * dims.dV * min(dims.n, dims.dV)
        own = {"softmax": parts["softmax"], "ge noise": noise, "output": parts["output"],
               "gram": parts["gram"], "eig": parts["eig"], "other": parts["ge"] - noise}
        floor = sum(parts.values()) / rate
        print(f"\nbreakdown: {name} (n = {dims.n}, h = {dims.h}, dK = {dims.dK}, "
              f"dO = {dims.dO}), {reps} draw(s), CPU time, dgemm {rate / 1e9:.1f} GFLOP/s: "
              f"{total:.3f} s = {total * rate / sum(parts.values()):.2f} x floor "
              f"({floor:.3f} s)")
        print(f"  {'phase':<10}{'seconds':>10}{'x floor':>9}{'its floor s':>13}"
              f"{'its ratio':>11}")
        rows = {k: v / reps for k, v in clock.seconds.items()}
        rows["other"] = total - sum(rows.values())
        for phase, sec in rows.items():
            mine = own.get(phase, 0.0) / rate
            ratio = f"{sec / mine:>11.2f}" if mine else f"{'-':>11}"
            print(f"  {phase:<10}{sec:>10.3f}{sec / floor:>9.3f}{mine:>13.3f}{ratio}",
                  flush=True)
        # what is left when phases run at their own floors: the random numbers have no
        # FLOP floor, so they stay whatever else is made perfect
        no_eig = (total - rows["eig"] + own["eig"] / rate) / floor
        perfect = (sum(own.values()) / rate + rows["rng"]) / floor
        print(f"  the same draw with the eigenvalues at their floor: {no_eig:.2f} x floor; "
              f"every phase at its floor but the random numbers: {perfect:.2f} x floor",
              flush=True)


def section_estimate(args: argparse.Namespace) -> None:
    from freege.validation import ladder

    speed = cost.speeds(BK)
    print(f"\n{'n':>6}{'draw est s':>12}{'measured':>10}{'ratio':>7}"
          f"{'trial est s':>13}{'measured':>10}{'ratio':>7}   (CPU time; measured / estimate, "
          "median of 3 samples, one at n >= 2048; ladder to --ladder-max)")
    for n in args.estimate_sizes:
        dims = Dims(n=n, h=8, dK=max(n // 8, 1), dV=max(n // 8, 1), dO=n)
        reps = 3 if n < 2048 else 1
        est = cost.seconds(cost.draw_cost(dims), speed)
        got = float(np.median([cpu_seconds(lambda i=i, d=dims: draw(d, seed=(0, i)))
                               for i in range(reps)]))
        row = f"{n:>6}{est:>12.4g}{got:>10.4g}{got / est:>7.2f}"
        if n <= args.ladder_max:
            t_est = cost.seconds(ladder.trial_cost(n), speed)
            t_got = float(np.median([cpu_seconds(lambda i=i, n=n: ladder.trial(n, seed=(0, i)))
                                     for i in range(reps)]))
            row += f"{t_est:>13.4g}{t_got:>10.4g}{t_got / t_est:>7.2f}"
        print(row, flush=True)


#: the GPU model of :func:`gpu_estimate` (one H200-class device, float64)
GPU_PRODUCT_RATE = 40e12  # FLOP/s: 60% of an H200's 67 TFLOP/s FP64 tensor-core peak
GPU_EIG_RATE = 1e12  # FLOP/s: cuSOLVER syevd's reduction is memory-bound
GPU_EIG_MIN_S = 5e-3  # the least an eigenvalue problem takes there
GPU_BANDWIDTH = 3e12  # bytes/s of HBM3e streamed by elementwise kernels
GPU_OPERATION_S = 10e-6  # kernel launch and Python, per array operation


def gpu_estimate(dims: Dims) -> float:
    """Seconds of one draw on a GPU by a model (no device has measured it yet): the
    products and Grams of :func:`floor_parts` at :data:`GPU_PRODUCT_RATE`, each of the two
    eigenvalue problems at :data:`GPU_EIG_RATE` and at least :data:`GPU_EIG_MIN_S`, three
    elementwise passes (read and write) per head over the n x n block at
    :data:`GPU_BANDWIDTH`, and :data:`GPU_OPERATION_S` for each of the draw's array
    operations (:attr:`freege.validation.sampling.cost.Cost.operations`)."""
    parts = floor_parts(dims)
    products = sum(parts.values()) - parts["eig"]
    eig = 2 * max(parts["eig"] / 2 / GPU_EIG_RATE, GPU_EIG_MIN_S)
    passes = 3 * 2 * 8 * dims.h * dims.n**2 / GPU_BANDWIDTH
    return (products / GPU_PRODUCT_RATE + eig + passes
            + cost.draw_cost(dims).operations * GPU_OPERATION_S)


def table_rows() -> list[tuple[str, Dims]]:
    """The configurations of the guide's per-draw table: the presets, then the paper's
    d = n sizes (theory §6.4)."""
    rows = list(PRESETS.items())
    for n in (4096, 8192):
        for h in (16, 128):
            rows.append(("paper, d = n", Dims(n=n, h=h, dK=n // h, dV=n // h, dO=n)))
    return rows


def _cell(value: float, estimated: bool) -> str:
    return f"~{value:.3g} (estimated)" if estimated else f"{value:.3g}"


def section_table(args: argparse.Namespace) -> None:
    """docs/guide.md's per-draw table (module docstring), printed as Markdown."""
    measured: dict[int, float] = {}  # h -> ratio at the largest measured n
    lines = []
    for name, dims in table_rows():
        floor = floor_flops(dims)
        if dims.n <= args.table_max_n:
            reps = args.table_draws if dims.n < 2048 else 1
            if dims.n < 2048:
                draw(dims, seed=(99,))  # warm-up
            rate = cpu_rate()
            runs = []
            for i in range(reps):
                t = time.process_time()
                d = draw(dims, seed=(0, i))
                runs.append((time.process_time() - t, d.peak_bytes))
            rate = (rate + cpu_rate()) / 2
            seconds = float(np.median([r[0] for r in runs]))
            ratio = seconds * rate / floor
            peak, estimated = max(r[1] for r in runs), False
            if name.startswith("paper"):
                measured[dims.h] = ratio
        else:
            rate = cpu_rate()
            ratio = measured[dims.h]
            seconds = ratio * floor / rate
            peak, estimated = cost.draw_cost(dims).peak_bytes, True
        shown = f"({ratio:.2f})" if estimated else f"{ratio:.2f}"
        lines.append(f"| {name} | {dims.n} | {dims.h} | {dims.dK} | {dims.dO} | "
                     f"{floor / 1e9:.3g} | {_cell(seconds, estimated)} | {shown} | "
                     f"{_cell(peak / 2**20, estimated)} | {gpu_estimate(dims):.2g} |")
        print(f"  measured {name} n = {dims.n} h = {dims.h}: {seconds:.3g} s", flush=True)
    print("\n| configuration | n | h | dK = dV | dO | floor GFLOP | CPU s / draw | / floor "
          "| peak MiB | GPU s / draw (estimated) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(lines), flush=True)


TARGETS = ("draws", "curve", "process", "derive")
SECTIONS = ("pipeline", "imports", "dtype", "eig", "fused", "targets", "breakdown",
            "estimate", "table")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+",
                        default=["bert-base", "dinov3-l16", "modernbert-large"])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--ref-draws", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--eig-sizes", nargs="+", type=int, default=[512, 1024, 2048])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big-n", type=int, default=4096)
    parser.add_argument("--big-rounds", type=int, default=1)
    parser.add_argument("--curve-n", type=int, default=2048)
    parser.add_argument("--estimate-sizes", nargs="+", type=int,
                        default=[64, 128, 256, 512, 1024, 2048, 4096])
    parser.add_argument("--ladder-max", type=int, default=2048)
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS),
                        help="which targets --sections targets measures")
    parser.add_argument("--breakdown", nargs="+", default=["bert-base", "2048"],
                        help="presets or sizes n (d = n, h = 16) for --sections breakdown")
    parser.add_argument("--table-max-n", type=int, default=4096,
                        help="--sections table: larger configurations are estimated")
    parser.add_argument("--table-draws", type=int, default=3,
                        help="--sections table: draws per configuration below n = 2048")
    args = parser.parse_args()
    if args.table_max_n < 4096:
        parser.error("--table-max-n must be at least 4096 (the larger rows are estimated "
                     "from the measured n = 4096 rows)")
    rate = matmul_rate()
    from threadpoolctl import threadpool_info

    threads = ", ".join(f"{i['internal_api']} {i['num_threads']}"
                        + (f" ({i['architecture']} kernels)" if i.get("architecture") else "")
                        for i in threadpool_info())
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
          f"float64 matmul (2048^2) {rate:.1f} GFLOP/s, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, OPENBLAS_CORETYPE="
          f"{os.environ.get('OPENBLAS_CORETYPE', 'unset')}, BLAS threads: {threads}")
    for name in args.sections:
        if name == "pipeline":
            section_pipeline(args, rate)
        else:
            globals()[f"section_{name}"](args)


if __name__ == "__main__":
    main()
