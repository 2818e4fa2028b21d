"""One-command GPU check: every theory §6.1 preset on CuPy and NumPy side by side.

``python -m freege.validation.gpu_check`` runs ``--draws`` draws per preset on CuPy and
``--numpy-draws`` on NumPy (``--numpy-draws-large`` for presets with n >= 2048, whose
CPU draws take seconds to tens of seconds), then prints per preset: seconds per draw and
peak memory on each backend (what each measures, printed first:
:data:`freege.validation.sampling.backend.PEAK_MEMORY_MEANS`), the speed-up, rel W1 and KS
(mean ± 95% CI) on each, and
their statistical agreement (Welch's t test of the difference of the means at 99.9%,
:func:`freege.validation.sampling.metrics.welch`; the two backends draw different random streams,
so they
are compared statistically, theory §7).
NumPy runs that would start after ``--budget`` seconds are skipped and reported so; the
defaults are sized for about 8 minutes on one H200 with a 16-core host.

Without CuPy or a usable GPU it says so and exits with status 0 (nothing to check).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from freege.params import Dims
from freege.validation.models.presets import PRESETS
from freege.validation.runner import Validation, validate
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import PEAK_MEMORY_MEANS, cupy_problem, get_backend

#: two-sided level of the Welch t test at which two backends are reported as disagreeing
AGREE_LEVEL = 0.999


def _line(name: str, res: Validation) -> str:
    s = res.summary()
    return (f"  {name:<6} {s['draws']:>3} draws  {s['seconds_per_draw']:8.3f} s/draw  "
            f"{s['peak_memory_bytes'] / 2**20:9.1f} MiB  rel W1 {s['rel_w1']['mean']:.4f} ± "
            f"{s['rel_w1']['ci95']:.4f}  KS {s['ks']['mean']:.4f} ± {s['ks']['ci95']:.4f}")


def check_preset(name: str, dims: Dims, draws: int, numpy_draws: int | None, seed: int
                 ) -> bool:
    """Run one preset on both backends and print the comparison; True when they agree
    (or NumPy was skipped)."""
    print(f"{name}: n={dims.n}, h={dims.h}/{dims.h_kv}, dK={dims.dK}, dO={dims.dO}, "
          f"sharing {dims.sharing}", flush=True)
    gpu = validate(dims, draws=draws, seed=seed, backend="cupy")
    print(_line("cupy", gpu), flush=True)
    if numpy_draws is None:
        print("  numpy  skipped (time budget spent)")
        return True
    cpu = validate(dims, draws=numpy_draws, seed=seed + 1, backend="numpy")
    print(_line("numpy", cpu), flush=True)
    speedup = cpu.summary()["seconds_per_draw"] / gpu.summary()["seconds_per_draw"]
    means = {b: [d.softmax.mean() for d in r.draws] for b, r in (("g", gpu), ("c", cpu))}
    tests = {"rel W1": metrics.welch(gpu.rel_w1, cpu.rel_w1, AGREE_LEVEL),
             "KS": metrics.welch(gpu.ks, cpu.ks, AGREE_LEVEL),
             "mean eig": metrics.welch(means["g"], means["c"], AGREE_LEVEL)}
    pooled = metrics.ks(np.concatenate([d.softmax for d in gpu.draws]),
                        np.concatenate([d.softmax for d in cpu.draws]))
    ok = all(t.agree for t in tests.values())
    ts = ", ".join(f"{k} t={t.statistic:+.2f} (p={t.pvalue:.3g})" for k, t in tests.items())
    print(f"  speed-up {speedup:.1f}x; Welch agreement at 99.9% ({ts}); KS of pooled "
          f"softmax spectra cupy vs numpy {pooled:.4f} -> {'AGREE' if ok else 'DISAGREE'}",
          flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m freege.validation.gpu_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--draws", type=int, default=10, help="CuPy draws (default 10)")
    parser.add_argument("--numpy-draws", type=int, default=10,
                        help="NumPy draws for n < 2048 (default 10)")
    parser.add_argument("--numpy-draws-large", type=int, default=2,
                        help="NumPy draws for n >= 2048 (default 2)")
    parser.add_argument("--budget", type=float, default=420.0,
                        help="seconds after which NumPy runs are skipped (default 420)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.draws, args.numpy_draws, args.numpy_draws_large) < 2:
        parser.error("every draw count must be >= 2 (a 95% CI is reported)")
    problem = cupy_problem()
    if problem is not None:
        print(f"gpu_check: no usable GPU ({problem}); nothing to check.")
        return 0
    start = time.perf_counter()
    bk = get_backend("cupy")
    dev = bk.xp.cuda.runtime.getDeviceProperties(bk.xp.cuda.Device().id)
    print(f"gpu_check on {dev['name'].decode()} with CuPy {bk.xp.__version__}, "
          f"NumPy {np.__version__}", flush=True)
    for name, means in PEAK_MEMORY_MEANS.items():
        print(f"  MiB on {name}: {means}", flush=True)
    validate(Dims(n=64, h=2, dK=8, dV=8, dO=64), draws=2, backend=bk)  # warm-up
    failures = []
    for name in args.presets:
        dims = PRESETS[name]
        left = args.budget - (time.perf_counter() - start)
        numpy_draws = args.numpy_draws_large if dims.n >= 2048 else args.numpy_draws
        if not check_preset(name, dims, args.draws, numpy_draws if left > 0 else None,
                            args.seed):
            failures.append(name)
    total = time.perf_counter() - start
    verdict = "all presets agree" if not failures else f"DISAGREE: {', '.join(failures)}"
    print(f"gpu_check done in {total:.0f} s: {verdict}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
