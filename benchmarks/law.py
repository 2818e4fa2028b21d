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
  * issue 28 (also alone with ``--fresh``), as a user meets it: construction and support
    location inside the clock, baselines hand-written numpy (never freege's pdf), cases
    interleaved ``--repeat`` times, medians, one BLAS thread: float64 pdf at 1,000
    Chebyshev points on a fresh law against a batched companion-matrix density written
    here (its coefficients computed outside the clock, and a variant that computes them
    inside), both against 30 digits; ``flow_loss`` at 100 times on a fresh law against a
    hand-written 512-node Gauss-Legendre over that density; ``rvs(10^6)`` (fresh and
    reused law) against ``scipy.stats.gamma(2).rvs(10^6)``.
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

from freege.extras import blas_threads  # noqa: E402
from freege.numeric import readout  # noqa: E402
from freege.numeric.case_law import law  # noqa: E402
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


def hand_coefficients() -> np.ndarray:
    """The coefficient matrix ``A[i, j]`` of ``G^i z^j`` of issue 28's law (normalized
    MHA, beta = 1, h = 12, ratios 1.5) by hand: the exact polynomial's coefficients
    (sympy expressions in the parameters) evaluated at float64 parameter values."""
    from freege.numeric import _symbolic

    poly = _symbolic.cauchy_polynomial("mha", True)
    values = dict(zip(_symbolic.PARAMETERS, (math.expm1(1.0), 1.0, 12.0, 1.5, 1.5, 1.5),
                      strict=True))
    A = np.zeros((poly.degree(poly.gens[0]) + 1, poly.degree(poly.gens[1]) + 1))
    for (i, j), c in poly.terms():
        A[i, j] = float(c.evalf(subs=values))
    return A


def interleaved(cases: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median wall time of each case, the cases run in turn ``repeat`` times (so a change
    of the machine's load hits them alike)."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(ts)) for name, ts in times.items()}


def fresh_side(report: dict[str, Any], repeat: int = 7) -> None:
    """Issue 28, measured as a user meets it, side by side (interleaved, medians): on a
    FRESH normalized MHA law (beta = 1, h = 12, ratios 1.5; its construction and support
    location inside the clock) the float64 pdf at 1,000 Chebyshev points of the support
    against :func:`companion_density` (hand-written numpy; its coefficient matrix
    :func:`hand_coefficients` built outside the clock, and a variant that builds it inside);
    ``flow_loss`` at 100 times on a fresh law against a hand-written 512-node
    Gauss-Legendre rule in ``x = (a + b)/2 - (b - a)/2 cos(pi s)`` over
    :func:`companion_density` (the support's ends given to the baseline, not located);
    ``rvs(10^6)`` on a fresh and on a reused law against ``scipy.stats.gamma(2).rvs(10^6)``.
    Accuracy: both densities against 30 digits away from the edges."""
    import scipy.stats

    ref = law("mha", ISSUE7, normalized=True)
    (a, b), = ref.intervals()
    k = np.arange(1000)
    xs = np.sort(a + (b - a) * (1 - np.cos((k + 0.5) * np.pi / 1000)) / 2)
    A = hand_coefficients()
    times = np.logspace(-2, 2, 100)
    s, w = np.polynomial.legendre.leggauss(512)
    s, w = (s + 1) / 2, w / 2
    gx = (a + b) / 2 - (b - a) / 2 * np.cos(np.pi * s)
    gw = w * (b - a) / 2 * np.pi * np.sin(np.pi * s)
    order = np.argsort(gx)

    def hand_loss(coeffs: np.ndarray) -> np.ndarray:
        dens = np.empty(gx.size)
        dens[order] = companion_density(coeffs, gx[order])
        weight = gw * dens
        return np.array([np.sum(weight * np.exp(-2 * t * gx)) for t in times])

    reused = law("mha", ISSUE7, normalized=True)
    reused.rvs(10, random_state=0)  # its table built before the clock
    out: dict[str, Any] = {}
    cases = {
        "pdf_1000_fresh_law": lambda: out.__setitem__(
            "pdf", law("mha", ISSUE7, normalized=True).pdf(xs)),
        "companion_pdf_1000": lambda: out.__setitem__("base", companion_density(A, xs)),
        "companion_pdf_1000_with_coefficients": lambda: companion_density(
            hand_coefficients(), xs),
        "flow_loss_100_fresh_law": lambda: out.__setitem__("loss", [
            readout.flow_loss(fl, t) for fl in [law("mha", ISSUE7, normalized=True)]
            for t in times]),
        "gauss_legendre_512": lambda: out.__setitem__("gl", hand_loss(A)),
        "gauss_legendre_512_with_coefficients": lambda: hand_loss(hand_coefficients()),
        "rvs_1e6_fresh_law": lambda: law("mha", ISSUE7, normalized=True).rvs(
            10**6, random_state=1),
        "rvs_1e6_reused_law": lambda: reused.rvs(10**6, random_state=1),
        "scipy_gamma2_rvs_1e6": lambda: scipy.stats.gamma(2).rvs(10**6, random_state=1),
    }
    for name, value in interleaved(cases, repeat).items():
        report[f"i28_{name}_s"] = value
    r = report
    r["i28_pdf_fresh_over_companion"] = r["i28_pdf_1000_fresh_law_s"] / r[
        "i28_companion_pdf_1000_s"]
    r["i28_pdf_fresh_over_companion_with_coefficients"] = r["i28_pdf_1000_fresh_law_s"] / r[
        "i28_companion_pdf_1000_with_coefficients_s"]
    r["i28_flow_loss_fresh_over_gauss_legendre"] = r["i28_flow_loss_100_fresh_law_s"] / r[
        "i28_gauss_legendre_512_s"]
    r["i28_flow_loss_fresh_over_gauss_legendre_with_coefficients"] = r[
        "i28_flow_loss_100_fresh_law_s"] / r["i28_gauss_legendre_512_with_coefficients_s"]
    r["i28_rvs_fresh_over_gamma"] = r["i28_rvs_1e6_fresh_law_s"] / r["i28_scipy_gamma2_rvs_1e6_s"]
    r["i28_rvs_reused_over_gamma"] = r["i28_rvs_1e6_reused_law_s"] / r[
        "i28_scipy_gamma2_rvs_1e6_s"]
    ref30 = law("mha", ISSUE7, normalized=True, dps=30)
    away = (xs > a + 1e-3 * (b - a)) & (xs < b - 1e-3 * (b - a))
    with mpmath.workdps(30):
        exact = np.array([float(v) for v in ref30.pdf([mpmath.mpf(v) for v in xs[away]])])
    r["i28_pdf_max_rel_err_freege"] = float(np.max(np.abs(out["pdf"][away] / exact - 1)))
    r["i28_pdf_max_rel_err_companion"] = float(np.max(np.abs(out["base"][away] / exact - 1)))
    r["i28_flow_loss_max_diff_vs_gauss_legendre"] = float(np.max(np.abs(
        np.array(out["loss"]) - out["gl"])))


def fresh_table(r: dict[str, Any]) -> str:
    """The issue 28 comparisons as a table (medians of interleaved runs)."""
    rows = [("pdf at 1,000 points, fresh law", "pdf_1000_fresh_law", "companion_pdf_1000",
             "companion_pdf_1000_with_coefficients"),
            ("flow_loss at 100 times, fresh law", "flow_loss_100_fresh_law",
             "gauss_legendre_512", "gauss_legendre_512_with_coefficients"),
            ("rvs(10^6), fresh law", "rvs_1e6_fresh_law", "scipy_gamma2_rvs_1e6", None),
            ("rvs(10^6), reused law", "rvs_1e6_reused_law", "scipy_gamma2_rvs_1e6", None)]
    lines = [f"{'call':<36} {'freege s':>9} {'baseline s':>10} {'ratio':>6} "
             f"{'baseline+coeffs s':>17} {'ratio':>6}"]
    for label, ours, base, with_coeffs in rows:
        mine, theirs = r[f"i28_{ours}_s"], r[f"i28_{base}_s"]
        line = f"{label:<36} {mine:>9.4f} {theirs:>10.4f} {mine / theirs:>6.2f}"
        if with_coeffs:
            both = r[f"i28_{with_coeffs}_s"]
            line += f" {both:>17.4f} {mine / both:>6.2f}"
        lines.append(line)
    lines.append(f"pdf max rel err vs 30 digits: freege "
                 f"{r['i28_pdf_max_rel_err_freege']:.2e}, companion "
                 f"{r['i28_pdf_max_rel_err_companion']:.2e}; flow_loss vs Gauss-Legendre "
                 f"{r['i28_flow_loss_max_diff_vs_gauss_legendre']:.2e}")
    return "\n".join(lines)


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
    parser.add_argument("--fresh", action="store_true",
                        help="only the issue 28 comparisons (fresh law vs hand-written peers)")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved repetitions")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with blas_threads(1):
        if args.fresh:
            fresh_side(report, args.repeat)
            print(fresh_table(report))
            return
        the_law, xs, pdf = freege_side(report)
        issue7_side(report)
        fresh_side(report, args.repeat)
        hard_edge_side(report)
        eig = dense_side(report, the_law, args.n, xs)
        freealg_side(report, args.freealg_python, eig, xs, pdf)
    print(summary(report))
    print()
    print(fresh_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=float))


if __name__ == "__main__":
    main()
