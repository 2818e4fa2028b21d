"""Benchmark of the law and readout evaluations (theory §4, §5, §7), with peers, in one run.

    python benchmarks/law.py [--json FILE] [--freealg-python PATH] [--n 2000]

freege side (normalized MHA law, beta = 1, h = 8, gK = gV = gO = 2, and its tied
counterpart):
  * density on 1,000 points at float64, dps 30 and dps 50 (accuracy: largest difference
    to the dps 50 values); the one-time law construction and support/atom location are
    timed separately (``build_s``, ``support_atoms_s``, float64) and excluded there;
  * one w(lam) solve (lam = 1e-4), float64 and dps 30;
  * L(t) at 100 times, one arrival time (level 0.1);
  * the tied-law density on 1,000 points (float64);
  * issue 7's setup (normalized MHA, beta = 1, h = 12, gK = gV = gO = 1.5): float64
    density at 400 Chebyshev nodes against dps 40, side by side with a hand-written numpy
    baseline (float64 coefficients lambdified from the same polynomial, batched companion
    eigenvalues, branch followed along x); and the whole ``freege law ... --pdf`` process
    (warm cache) against that baseline as a process;
  * a hard edge (gK = gV = 1, gO = 2): float64 density, cdf and mass against dps 30;
  * issue 16 (also alone with ``--issue16``): float64 pdf at 1,000 points on a fresh and a
    reused Law against a batched companion-matrix density written here, both against 30
    digits; ``flow_loss`` at 100 times on a fresh Law against a 512-node Gauss-Legendre.
Peers, on the same law:
  * a dense random-matrix estimate: softmax MHA at n = 2,000 tokens with the same ratios
    (dK = dV = 500, dO = 4,000; one draw), eigenvalues of its Gram by ``eigvalsh``;
    accuracy of the empirical law against the theory (KS distance, m2, w(lam), binned
    density);
  * ``freealg`` (not a freege dependency: pass the python of a throwaway venv where it is
    installed). It cannot build a free multiplicative convolution of given laws from
    parameters, so it cannot express the theory §4 law itself; what it can do is fit its
    algebraic surrogate (``AlgebraicForm``) to the n = 2,000 eigenvalues. That fit is
    timed and its density compared with the theory.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from freege.numeric import readout  # noqa: E402
from freege.numeric.law import law  # noqa: E402
from freege.params import Dims, Ratios  # noqa: E402

RATIOS = Ratios(beta=1, h=8, gK=2, gV=2, gO=2)
ISSUE7 = Ratios(beta=1, h=12, gK="1.5", gV="1.5", gO="1.5")
HARD = Ratios(beta=1, h=8, gK=1, gV=1, gO=2)

NUMPY_BASELINE = r"""
import sys, time
import numpy as np, sympy as sp
from freege.numeric import _symbolic
t0 = time.perf_counter()
poly = _symbolic.cauchy_polynomial("mha", True)
b2 = 1.0
vals = dict(zip(_symbolic.PARAMETERS, (np.expm1(b2), b2, 12.0, 1.5, 1.5, 1.5)))
nG, nz = poly.degree(poly.gens[0]) + 1, poly.degree(poly.gens[1]) + 1
A = np.zeros((nG, nz))
for (i, j), c in poly.terms():
    A[i, j] = float(sp.lambdify(_symbolic.PARAMETERS, c)(*vals.values()))
xs = np.array([float(v) for v in sys.argv[1].split(",")])


def all_roots(zs):
    C = np.stack([np.polyval(A[i, ::-1], zs) for i in range(nG)], axis=1)
    comp = np.zeros((zs.size, nG - 1, nG - 1), dtype=complex)
    comp[:, 1:, :-1] = np.eye(nG - 2)
    comp[:, :, -1] = -C[:, :-1] / C[:, -1:]
    return np.linalg.eigvals(comp)


# follow the branch G ~ 1/z from right of the support leftwards, just above the axis
order = np.argsort(-xs)
start = 1.5 * xs.max()
path = np.concatenate([[start], xs[order]]) + 1e-9j
above = all_roots(path)
prev = 1 / start
tracked = np.empty(xs.size, dtype=complex)
for k in range(path.size):
    prev = above[k][np.argmin(np.abs(above[k] - prev))]
    if k:
        tracked[order[k - 1]] = prev
on_axis = all_roots(xs + 0j)
g = on_axis[np.arange(xs.size), np.argmin(np.abs(on_axis - tracked[:, None]), axis=1)]
pdf = np.abs(g.imag) / np.pi
print(time.perf_counter() - t0)
print(",".join(repr(float(v)) for v in pdf))
"""
TIED = Ratios(beta=1, h=8, gK=2, gV=2, gO=2, sharing="tied")
LAM = 1e-4
LEVEL = 0.1

FREEALG_SCRIPT = r"""
import json, sys, time, numpy as np
import freealg
eig = np.load(sys.argv[1]); xs = np.load(sys.argv[2])
out = {"version": freealg.__version__}
try:
    t0 = time.perf_counter()
    af = freealg.AlgebraicForm(eig)
    af.fit(deg_m=int(sys.argv[3]), deg_z=int(sys.argv[4]))
    t1 = time.perf_counter()
    rho = np.asarray(af.density(xs), dtype=float)
    t2 = time.perf_counter()
    out.update(fit_s=t1 - t0, density_s=t2 - t1, density=rho.tolist())
except Exception as exc:  # report, do not hide, what freealg could not do
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """Result of ``fn`` and its best wall time over ``repeat`` runs (seconds)."""
    best, value = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return value, best


def max_abs_diff(a: Any, b: Any) -> float:
    with mpmath.workdps(60):
        return float(max(abs(mpmath.mpf(u) - mpmath.mpf(v)) for u, v in zip(a, b, strict=True)))


def freege_side(report: dict[str, Any]) -> tuple[Any, np.ndarray, np.ndarray]:
    """Time the theory evaluations; return the float64 law, the points and the density."""
    f64, report["build_s"] = timed(lambda: law("mha", RATIOS, normalized=True))
    support, report["support_atoms_s"] = timed(lambda: (f64.intervals(), f64.atoms()))
    lo, hi = support[0][0]
    xs = np.linspace(lo, hi, 1002)[1:-1]
    pdf64, report["pdf_1000_float64_s"] = timed(lambda: f64.pdf(xs), repeat=3)
    values = {}
    for dps in (30, 50):
        mp_law = law("mha", RATIOS, normalized=True, dps=dps)
        mp_law.intervals()
        values[dps], report[f"pdf_1000_dps{dps}_s"] = timed(lambda m=mp_law: m.pdf(xs))
    report["pdf_float64_max_err_vs_dps50"] = max_abs_diff(pdf64, values[50])
    report["pdf_dps30_max_err_vs_dps50"] = max_abs_diff(values[30], values[50])
    report["w_lam"], report["w_lam_float64_s"] = timed(lambda: readout.dof(f64, LAM), repeat=3)
    mp30 = law("mha", RATIOS, normalized=True, dps=30)
    w30, report["w_lam_dps30_s"] = timed(lambda: readout.dof(mp30, LAM))
    report["w_lam_float64_err"] = abs(float(w30) - report["w_lam"])
    times = np.logspace(-2, 2, 100)
    _, report["loss_100_times_s"] = timed(lambda: [readout.flow_loss(f64, t) for t in times])
    report["arrival_t"], report["arrival_s"] = timed(lambda: readout.arrival_time(f64, LEVEL))
    tied = law("mha", TIED, normalized=True)
    tlo, thi = tied.intervals()[0]
    txs = np.linspace(tlo, thi, 1002)[1:-1]
    _, report["tied_pdf_1000_float64_s"] = timed(lambda: tied.pdf(txs), repeat=3)
    return f64, xs, pdf64


def issue7_side(report: dict[str, Any]) -> None:
    """Issue 7's setup: float64 density at 400 Chebyshev nodes vs dps 40, freege against a
    hand-written numpy baseline, in-process and as whole processes (warm caches)."""
    f64 = law("mha", ISSUE7, normalized=True)
    (a, b), = f64.intervals()
    k = np.arange(400)
    xs = a + (b - a) * (1 - np.cos((k + 0.5) * np.pi / 400)) / 2
    pdf, report["issue7_pdf_400_float64_s"] = timed(lambda: f64.pdf(xs), repeat=3)
    ref_law = law("mha", ISSUE7, normalized=True, dps=40)
    with mpmath.workdps(40):
        ref = np.array([float(v) for v in ref_law.pdf([mpmath.mpf(v) for v in xs])])
    scale = float(np.max(ref))
    report["issue7_pdf_float64_max_err_rel_to_scale"] = float(np.max(np.abs(pdf - ref))) / scale
    arg = ",".join(repr(float(v)) for v in xs)
    root = str(Path(__file__).resolve().parents[1])
    out, report["issue7_numpy_baseline_process_s"] = timed(lambda: subprocess.run(
        [sys.executable, "-c", NUMPY_BASELINE, arg], capture_output=True, text=True,
        cwd=root, check=True).stdout.splitlines())
    report["issue7_numpy_baseline_density_s"] = float(out[0])
    base = np.array([float(v) for v in out[1].split(",")])
    report["issue7_numpy_baseline_max_err_rel_to_scale"] = float(np.max(np.abs(base - ref))
                                                                 ) / scale
    cli = ("from freege.cli import main; import sys; main(['law', '--case', 'mha', '--beta', "
           "'1', '--h', '12', '--gK', '1.5', '--gV', '1.5', '--gO', '1.5', '--normalized', "
           "'--pdf', *sys.argv[1].split(',')])")
    _, report["issue7_freege_law_process_s"] = timed(lambda: subprocess.run(
        [sys.executable, "-c", cli, arg], capture_output=True, text=True, cwd=root,
        check=True), repeat=2)


def companion_density(A: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The hand-written peer of issue 16: the float64 density at real ``xs`` (sorted) from
    the coefficient matrix ``A[i, j]`` of ``G^i z^j``, batched companion eigenvalues at
    ``x + 1e-9 i`` for all points and at ``x`` itself, the branch ``G ~ 1/z`` followed
    from right of the support leftwards (nearest root), then the nearest root on the axis."""
    n = A.shape[0] - 1

    def all_roots(zs: np.ndarray) -> np.ndarray:
        c = np.stack([np.polyval(A[i, ::-1], zs) for i in range(n + 1)], axis=1)
        comp = np.zeros((zs.size, n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        comp[:, :, -1] = -c[:, :-1] / c[:, -1:]
        return np.linalg.eigvals(comp)

    start = 1.5 * xs[-1]
    path = np.concatenate([[start], xs[::-1]]) + 1e-9j
    above = all_roots(path)
    prev, tracked = 1 / start, np.empty(xs.size, dtype=complex)
    for k in range(1, path.size):
        prev = above[k][np.argmin(np.abs(above[k] - prev))]
        tracked[xs.size - k] = prev
    on_axis = all_roots(xs + 0j)
    g = on_axis[np.arange(xs.size), np.argmin(np.abs(on_axis - tracked[:, None]), axis=1)]
    return np.abs(g.imag) / np.pi


def issue16_side(report: dict[str, Any]) -> None:
    """Issue 16 item 2, side by side: float64 pdf at 1,000 points (a fresh Law, its
    construction and support location not timed, and the same Law again) against
    :func:`companion_density` on the same coefficient matrix, both against 30 digits away
    from the edges; ``flow_loss`` at 100 times on a fresh Law against a 512-node
    Gauss-Legendre rule in ``x = (a + b)/2 - (b - a)/2 cos(pi s)`` over the density."""
    def fresh() -> Any:
        the_law = law("mha", RATIOS, normalized=True)
        the_law.intervals()
        return the_law

    first = fresh()
    (a, b), = first.intervals()
    xs = np.linspace(a, b, 1002)[1:-1]
    pdf_fresh, report["i16_pdf_1000_fresh_law_s"] = timed(lambda: first.pdf(xs))
    _, report["i16_pdf_1000_reused_law_s"] = timed(lambda: first.pdf(xs), repeat=3)
    A = first.equation.A
    base, report["i16_companion_pdf_1000_s"] = timed(lambda: companion_density(A, xs),
                                                     repeat=3)
    ref_law = law("mha", RATIOS, normalized=True, dps=30)
    away = (xs > a + 1e-3 * (b - a)) & (xs < b - 1e-3 * (b - a))
    with mpmath.workdps(30):
        ref = np.array([float(v) for v in ref_law.pdf([mpmath.mpf(v) for v in xs[away]])])
    report["i16_pdf_max_rel_err_freege"] = float(np.max(np.abs(pdf_fresh[away] / ref - 1)))
    report["i16_pdf_max_rel_err_companion"] = float(np.max(np.abs(base[away] / ref - 1)))
    report["i16_pdf_fresh_over_companion"] = (report["i16_pdf_1000_fresh_law_s"]
                                              / report["i16_companion_pdf_1000_s"])
    report["i16_pdf_reused_over_companion"] = (report["i16_pdf_1000_reused_law_s"]
                                               / report["i16_companion_pdf_1000_s"])
    times = np.logspace(-2, 2, 100)
    loss_law = fresh()
    loss, report["i16_flow_loss_100_fresh_law_s"] = timed(
        lambda: [readout.flow_loss(loss_law, t) for t in times])

    gl_law = fresh()  # built and its support located outside the timing, like loss_law

    def gauss_legendre() -> np.ndarray:
        s, w = np.polynomial.legendre.leggauss(512)
        s, w = (s + 1) / 2, w / 2
        x = (a + b) / 2 - (b - a) / 2 * np.cos(np.pi * s)
        weight = w * gl_law.pdf(x) * (b - a) / 2 * np.pi * np.sin(np.pi * s)
        return np.array([np.sum(weight * np.exp(-2 * t * x)) for t in times])

    gl, report["i16_gauss_legendre_512_s"] = timed(gauss_legendre)
    report["i16_flow_loss_over_gauss_legendre"] = (report["i16_flow_loss_100_fresh_law_s"]
                                                   / report["i16_gauss_legendre_512_s"])
    report["i16_flow_loss_max_diff_vs_gauss_legendre"] = float(np.max(np.abs(
        np.array(loss) - gl)))


def hard_edge_side(report: dict[str, Any]) -> None:
    """A hard edge at 0 (gK = gV = 1): float64 density, cdf and mass against dps 30."""
    f64 = law("mha", HARD, normalized=True)
    ref = law("mha", HARD, normalized=True, dps=30)
    (a, b), = f64.intervals()
    xs = np.array([b * t for t in (1e-14, 1e-10, 1e-6, 1e-3, 0.1, 0.5, 0.9)])
    with mpmath.workdps(30):
        mx = [mpmath.mpf(v) for v in xs]
        dens = np.array([float(v) for v in ref.pdf(mx)])
        cdf = np.array([float(v) for v in ref.cdf(mx)])
    report["hard_edge_pdf_float64_max_rel_err"] = float(np.max(np.abs(f64.pdf(xs) / dens - 1)))
    report["hard_edge_cdf_float64_max_err"] = float(np.max(np.abs(f64.cdf(xs) - cdf)))
    report["hard_edge_mass_float64_err"] = abs(f64.mass() - 1)
    _, report["hard_edge_cdf_7_float64_s"] = timed(lambda: law(
        "mha", HARD, normalized=True).cdf(xs))


def dense_side(report: dict[str, Any], the_law: Any, n: int, xs: np.ndarray) -> np.ndarray:
    """Softmax MHA at n tokens with the benchmark's ratios: eigenvalues of the Gram,
    normalized by the limiting mean; accuracy against the theory."""
    from freege.validation.sampling.sample import case_eigenvalues

    r = RATIOS
    dk = int(r.gK * n / r.h)
    dims = Dims(n=n, h=r.h, dK=dk, dV=int(r.gV * n / r.h), dO=int(r.gO * n), beta=1)
    eig, report["dense_s"] = timed(
        lambda: case_eigenvalues("mha", dims, seed=1, model="softmax"))
    mean = float(r.gO) * math.expm1(1.0)  # theory §4: m1 = gO theta1
    eig = np.sort(eig) / mean
    report["dense_n"] = n
    report["dense_m2_rel_err"] = abs(np.mean(eig**2) / the_law.moment(2) - 1)
    cdf = the_law.cdf(eig)
    steps = np.arange(1, n + 1) / n
    report["dense_ks"] = float(max(np.max(steps - cdf), np.max(cdf - (steps - 1 / n))))
    report["dense_w_lam_rel_err"] = abs(np.mean(eig / (eig + 0.1)) / readout.dof(the_law, 0.1)
                                        - 1)
    edges = np.linspace(xs[0], xs[-1], 41)
    hist, _ = np.histogram(eig, bins=edges, density=False)
    centers = (edges[1:] + edges[:-1]) / 2
    binned = hist / (n * np.diff(edges))
    report["dense_density_L1"] = float(np.sum(np.abs(binned - the_law.pdf(centers))
                                              * np.diff(edges)))
    return eig


def freealg_side(report: dict[str, Any], python: str | None, eig: np.ndarray, xs: np.ndarray,
                 pdf: np.ndarray) -> None:
    """Fit freealg's algebraic surrogate to the dense eigenvalues (degrees of the exact
    Cauchy polynomial) and compare its density with the theory."""
    from freege.numeric import _symbolic
    from freege.symbolic.symbols import G, z

    if not python:
        report["freealg"] = "not run (no --freealg-python)"
        return
    poly = _symbolic.cauchy_polynomial("mha", True)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/eig.npy", eig)
        np.save(f"{tmp}/xs.npy", xs)
        proc = subprocess.run(
            [python, "-c", FREEALG_SCRIPT, f"{tmp}/eig.npy", f"{tmp}/xs.npy",
             str(poly.degree(G)), str(poly.degree(z))],
            capture_output=True, text=True, timeout=1200,
        )
    if proc.returncode:
        report["freealg"] = f"failed: {proc.stderr.strip().splitlines()[-1:]}"
        return
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    report["freealg_version"] = out["version"]
    if "error" in out:
        report["freealg"] = f"fit failed: {out['error']}"
        return
    rho = np.array(out["density"])
    dx = xs[1] - xs[0]
    report["freealg_fit_s"] = out["fit_s"]
    report["freealg_density_1000_s"] = out["density_s"]
    report["freealg_density_L1_vs_theory"] = float(np.sum(np.abs(rho - pdf)) * dx)
    report["freealg_density_max_err_vs_theory"] = float(np.max(np.abs(rho - pdf)))


def summary(r: dict[str, Any]) -> str:
    lines = ["freege law benchmark: normalized MHA law, beta=1 h=8 gK=gV=gO=2", ""]
    for key, value in r.items():
        lines.append(f"  {key:<36} {value:.4g}" if isinstance(value, float)
                     else f"  {key:<36} {value}")
    lines += ["", "ratios:"]
    f64 = r["pdf_1000_float64_s"]
    lines.append(f"  density dps30 / float64 time          {r['pdf_1000_dps30_s'] / f64:.3g}")
    lines.append(f"  density dps50 / float64 time          {r['pdf_1000_dps50_s'] / f64:.3g}")
    lines.append(f"  issue7 freege law process / numpy baseline process  "
                 f"{r['issue7_freege_law_process_s'] / r['issue7_numpy_baseline_process_s']:.3g}")
    if "dense_s" in r:
        lines.append(f"  dense n={r['dense_n']} / theory density time  {r['dense_s'] / f64:.3g}")
        lines.append(f"  dense / (build + support + density)    "
                     f"{r['dense_s'] / (r['build_s'] + r['support_atoms_s'] + f64):.3g}")
    if "freealg_fit_s" in r:
        lines.append(f"  freealg (fit + density) / theory density time  "
                     f"{(r['freealg_fit_s'] + r['freealg_density_1000_s']) / f64:.3g}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--freealg-python", help="python of a venv with freealg installed")
    parser.add_argument("--n", type=int, default=2000, help="tokens of the dense estimate")
    parser.add_argument("--issue16", action="store_true",
                        help="only the issue 16 comparisons (pdf and flow_loss vs peers)")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    if args.issue16:
        issue16_side(report)
        print("\n".join(f"  {k:<44} {v:.4g}" for k, v in report.items()))
        return
    the_law, xs, pdf = freege_side(report)
    issue7_side(report)
    issue16_side(report)
    hard_edge_side(report)
    eig = dense_side(report, the_law, args.n, xs)
    freealg_side(report, args.freealg_python, eig, xs, pdf)
    print(summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=float))


if __name__ == "__main__":
    main()
