"""The paper in float32 against float64 (issue 41): ``freege reproduce paper --measure``
at one scale in both ``--dtype``s with the same seeds, every reported statistic compared
with its own 95% interval, and the two runs' CPU and wall time side by side.

Two sections (``--section``):

``steps`` (a few minutes at S = 4): per panel one configuration, one draw, each step of a
draw (:func:`freege.validation.paper.measure.task`) in both precisions: the products
(:func:`~freege.validation.paper.measure.outputs`: heads, exponentials, ``E V``, ``Z
W^O``) in float64 and float32, with the float32 output's relative error; the Gram ``F
F^T`` in float64, from the float32 output promoted, and in float32; the solver (Cholesky
ridge, eigenvalues and weights, eigenvalues) in float64 and float32; how much each choice
moves the draw's statistic (ridge error; the learning curve at t = 1, 10, 100, 1000;
the spectrum's W1 over its mean), and the CPU seconds of each step. What runs in which
precision (docs/performance.md) was decided from this table.

``run``: the whole command in float64 and in float32 (``--concurrent``: both at once, on a
machine too busy for two runs in a row; CPU time per run from ``os.wait4``, which the
other run's load inflates less than wall time), then every statistic of ``report.json``
that has a 95% interval: a row's ``measured`` with ``[low, high]``, table 2's ``rel_w1``
and ``ks`` with their ``_half_width``; ``|float32 - float64| / half-width`` for each,
the largest per panel and the count at or above 0.1; the statistics without an interval
(maxima, crossovers, D.1's single draws) by their relative change.

Run from the repository root: ``PYTHONPATH=. python benchmarks/paper_dtype.py --section
steps --scale 4`` or ``--section run --scale 4 [--panels ...] [--concurrent] [--out
DIR]`` (a run whose store is in DIR is resumed), or ``--compare F64_DIR F32_DIR`` for two
finished runs (benchmarks/gpu.py's). The machine's load average is printed with every
timing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from freege.validation.paper import run as paper_run

DTYPES = ("float64", "float32")
#: the criterion of issue 41: a statistic moves by less than this fraction of its own
#: 95% half-width
TENTH = 0.1


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _loss(eigs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The learning curve at t = 1, 10, 100, 1000 (theory §5)."""
    x = np.clip(eigs, 0.0, None)
    return np.array([float(np.sum(np.exp(-2 * t * x) * weights))
                     for t in (1.0, 10.0, 100.0, 1000.0)])


def _statistic(kind: str, config: dict[str, Any], gram: np.ndarray, solver: str
               ) -> tuple[np.ndarray, float]:
    """The draw's statistic from ``gram`` with the solver in ``solver``; CPU seconds."""
    from freege.validation import finite_readout
    from freege.validation.sampling.backend import get_backend

    dims = config["dims"]
    a = gram.astype(solver)
    start = time.process_time()
    if kind == "ridge" and solver == "float64":
        stat = np.array([finite_readout.ridge_error_gram(
            a, dims["dO"] / dims["n"], config["lam"], config["sigma2"], overwrite=True)])
    elif kind == "ridge":
        eigs = get_backend("numpy", solver).eigvalsh(a, overwrite=True)
        stat = finite_readout.ridge_error(eigs, dims["dO"] / dims["n"], [config["lam"]],
                                          config["sigma2"])
    elif kind == "flow":
        y = finite_readout.target(dims["n"], config["target_seed"])
        eigs, w = get_backend("numpy", solver).eigenvalues_and_weights(a, y, overwrite=True)
        stat = _loss(eigs, w / float(y @ y))
    else:
        stat = np.sort(get_backend("numpy", solver).eigvalsh(a, overwrite=True))
    return np.asarray(stat, dtype=np.float64), time.process_time() - start


def steps(scale: float) -> None:
    """The ``steps`` section (module docstring)."""
    from freege.extras import blas_threads
    from freege.params import Dims
    from freege.validation.paper import measure
    from freege.validation.paper import panels as paper_panels
    from freege.validation.sampling.backend import get_backend

    configs = paper_panels.configurations(list(paper_panels.SETUPS["paper"]), scale)
    first: dict[str, dict[str, Any]] = {}
    for c in configs:
        if c["kind"] != "ge":  # table 2: the sampler's own float32 route, run section
            first.setdefault(c["panel"], c)
    print(f"steps at S = {scale:g}, one draw per panel, CPU seconds, one BLAS thread")
    print("| panel | kind | products f64 s | f32 s | F rel err | Gram f64 s | f32 s | "
          "route | solver s | statistic moved (relative) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with blas_threads(1):
        get_backend("numpy").eigenvalues_and_weights(np.eye(4), np.ones(4))  # SciPy loaded
        for panel, c in first.items():
            dims, betas = Dims(**c["dims"]), [float(b) for b in c["betas"]]
            entropy = (0, measure.group_word(c["group"]), 0)
            outs, secs = {}, {}
            for dtype in DTYPES:
                start = time.process_time()
                outs[dtype] = [o for _, o in measure.outputs(
                    dims, betas, entropy, get_backend("numpy", dtype),
                    centred=c["kind"] == "spectrum")][-1]
                secs[dtype] = time.process_time() - start
            f64, f32 = outs["float64"], outs["float32"]
            err = float(np.linalg.norm(f32 - f64) / np.linalg.norm(f64))
            mean = measure.limiting_mean(dims, betas[-1])
            start = time.process_time()
            g64 = (f64 @ f64.T) / mean
            t64 = time.process_time() - start
            promoted = f32.astype(np.float64)
            g32p = (promoted @ promoted.T) / mean
            start = time.process_time()
            g32 = (f32 @ f32.T) / np.float32(mean)
            t32 = time.process_time() - start
            ref, _ = _statistic(c["kind"], c, g64, "float64")
            routes = (("f64 products, f64 Gram, f64 solver", g64, "float64"),
                      ("f32 products, f64 Gram, f64 solver", g32p, "float64"),
                      ("f32 products, f32 Gram, f64 solver", g32, "float64"),
                      ("f32 products, f32 Gram, f32 solver", g32, "float32"))
            for i, (route, gram, solver) in enumerate(routes):
                stat, seconds = _statistic(c["kind"], c, gram, solver)
                if c["kind"] == "spectrum":
                    moved = f"W1/mean {np.abs(stat - ref).mean() / ref.mean():.1e}"
                else:
                    moved = " ".join(f"{x:.1e}" for x in np.abs(stat - ref) / np.abs(ref))
                head = (f"| {panel} | {c['kind']} | {secs['float64']:.2f} | "
                        f"{secs['float32']:.2f} | {err:.1e} | {t64:.2f} | {t32:.2f}"
                        if i == 0 else "| | | | | | | ")
                print(f"{head} | {route} | {seconds:.2f} | {moved} |", flush=True)
    ge_steps(configs)
    print(f"load average at end: {load()}")


def ge_steps(configs: list[dict[str, Any]]) -> None:
    """Table 2's draws (theory §6.1, :func:`freege.validation.sampling.sample.draw`): the
    relative W1 and KS of softmax against its GE, one draw per preset, from float64;
    from float32 products with the Gram and eigenvalues in float32 (the sampler's
    ``dtype="float32"``, as ``validate`` and ``sweep`` run it); and from the same float32
    products with the Gram and eigenvalues in float64; CPU seconds of each."""
    from freege.params import Dims
    from freege.validation.paper import measure
    from freege.validation.sampling import metrics
    from freege.validation.sampling.backend import get_backend
    from freege.validation.sampling.sample import draw, mha_features

    print("\ntable 2 (theory §6.1 spectra): one draw per preset, CPU seconds")
    print("| preset n | route | seconds | rel W1 | moved | KS | moved |")
    print("|---|---|---|---|---|---|---|")
    for c in (c for c in configs if c["kind"] == "ge"):
        dims = Dims(**c["dims"])
        seed = (0, measure.group_word(c["group"]), 0)
        m1 = measure.limiting_mean(dims, float(dims.beta))
        rows = []
        for dtype in DTYPES:
            start = time.process_time()
            d = draw(dims, seed=seed, dtype=dtype)
            rows.append((f"{dtype} products, Gram, eigenvalues", time.process_time() - start,
                         d.softmax, d.ge, metrics.zero_tolerance(dtype)))
        start = time.process_time()
        soft, ge = mha_features(dims, seed=seed, dtype="float32")
        bk = get_backend("numpy")
        spectra = [bk.eigvalsh(bk.gram(f.astype(np.float64), lower_only=True), overwrite=True)
                   for f in (soft, ge)]
        rows.append(("float32 products, float64 Gram, eigenvalues",
                     time.process_time() - start, *spectra, metrics.zero_tolerance("float64")))
        ref = None
        for route, seconds, a, b, tol in rows:
            w1, ks = metrics.rel_w1(a, b, m1), metrics.ks(a, b, tol)
            ref = ref or (w1, ks)
            print(f"| {c['label'].get('preset', c['key'])} {dims.n} | {route} | {seconds:.2f} | "
                  f"{w1:.6g} | {abs(w1 - ref[0]) / ref[0]:.1e} rel | {ks:.4g} | "
                  f"{abs(ks - ref[1]) * dims.n:.0f}/n |", flush=True)


def _command(scale: float, panels: str | None, dtype: str, out: Path) -> list[str]:
    """The run in ``dtype`` into ``out`` (continued with ``--resume`` where its store
    exists: the time is then that of the draws left)."""
    argv = [sys.executable, "-m", "freege", "reproduce", "paper", "--measure", "--scale",
            f"{scale:g}", "--dtype", dtype, "--out", str(out), "--yes", "--quiet"]
    resume = ["--resume"] if (out / "store.jsonl").exists() else []
    return argv + resume + (["--panels", panels] if panels else [])


def _finish(proc: subprocess.Popen[str], start: float,
            reaped: tuple[int, Any] | None = None) -> dict[str, float]:
    """Wait for ``proc`` (or take ``reaped``, its ``os.wait4`` status and usage); its CPU
    seconds (user + system, its children's included) and wall seconds."""
    status, usage = reaped or os.wait4(proc.pid, 0)[1:]
    proc.returncode = os.waitstatus_to_exitcode(status)
    times = {"cpu": usage.ru_utime + usage.ru_stime, "wall": time.perf_counter() - start}
    if proc.returncode:  # its store is kept: a rerun resumes it
        raise SystemExit(f"{proc.args} failed (exit {proc.returncode}) after {times}")
    return times


def run(scale: float, panels: str | None, out: Path, concurrent: bool) -> None:
    """The ``run`` section (module docstring)."""
    times: dict[str, dict[str, float]] = {}
    print(f"load average at start: {load()}", flush=True)
    procs = {}
    for dtype in DTYPES:
        folder = out / dtype
        if (folder / "report.json").exists():
            print(f"{dtype}: reusing {folder}/report.json (no timing)", flush=True)
            continue
        argv = _command(scale, panels, dtype, folder)
        print("running: " + " ".join(argv[1:]), flush=True)
        procs[dtype] = (subprocess.Popen(argv, text=True), time.perf_counter())
        if not concurrent:
            times[dtype] = _finish(*procs.pop(dtype))
            print(f"{dtype}: {times[dtype]}, load {load()}", flush=True)
    while procs:  # concurrent: each timed when it ends, whichever ends first
        pid, status, usage = os.wait4(-1, 0)
        dtype = next((d for d, (p, _) in procs.items() if p.pid == pid), None)
        if dtype is None:
            continue
        proc, start = procs.pop(dtype)
        times[dtype] = _finish(proc, start, (status, usage))
        print(f"{dtype}: {times[dtype]}, load {load()}", flush=True)
    if len(times) == 2:
        mode = "concurrently" if concurrent else "one after the other"
        print(f"\nS = {scale:g}, run {mode}: CPU s float64 {times['float64']['cpu']:.0f}, "
              f"float32 {times['float32']['cpu']:.0f} (ratio "
              f"{times['float32']['cpu'] / times['float64']['cpu']:.2f}); wall s float64 "
              f"{times['float64']['wall']:.0f}, float32 {times['float32']['wall']:.0f} "
              f"(ratio {times['float32']['wall'] / times['float64']['wall']:.2f}); "
              f"load at end {load()}")
        (out / "times.json").write_text(json.dumps(times, indent=1) + "\n")
    draws = {d: sum(r.get("seconds", 0.0) for rs in paper_run.records(
        out / d / "store.jsonl").values() for r in rs.values()) for d in DTYPES}
    print(f"the draws' own seconds (wall, summed from the stores): float64 "
          f"{draws['float64']:.0f}, float32 {draws['float32']:.0f} (ratio "
          f"{draws['float32'] / draws['float64']:.2f})")
    reports = {d: json.loads((out / d / "report.json").read_text()) for d in DTYPES}
    compare(reports["float64"], reports["float32"])


def _intervals(report: dict[str, Any]) -> dict[tuple[str, str], tuple[float, float]]:
    """``(panel, label): (value, 95% half-width)`` of every statistic with an interval."""
    found: dict[tuple[str, str], tuple[float, float]] = {}
    for name, panel in report["panels"].items():
        for i, row in enumerate(panel.get("rows", [])):
            label = ", ".join(f"{k}={row[k]}" for k in sorted(row) if k in (
                "h", "t", "dO", "path", "beta", "configuration", "scheme", "preset", "name",
                "facet"))
            if row.get("low") is not None and row.get("high") is not None:
                found[(name, f"{i}: {label}")] = (row["measured"],
                                                 (row["high"] - row["low"]) / 2)
            for key in ("rel_w1_percent", "ks"):
                stem = "rel_w1" if key == "rel_w1_percent" else key
                if key in row and row.get(f"{stem}_half_width") is not None:
                    found[(name, f"{i}: {label} {key}")] = (row[key],
                                                           row[f"{stem}_half_width"])
    return found


def _plain(report: dict[str, Any]) -> dict[tuple[str, str], float]:
    """Every other number the report states: the panels' statistics, and rows without
    an interval (D.1's single draws)."""
    found: dict[tuple[str, str], float] = {}
    for name, panel in report["panels"].items():
        for stat in panel.get("statistics", []):
            if isinstance(stat.get("freege"), (int, float)):
                found[(name, stat["statistic"])] = float(stat["freege"])
        for i, row in enumerate(panel.get("rows", [])):
            if row.get("low") is None and isinstance(row.get("measured"), (int, float)):
                found[(name, f"{i}: {row.get('name', '')} {row.get('facet', '')}")] = float(
                    row["measured"])
    return found


def compare(f64: dict[str, Any], f32: dict[str, Any]) -> None:
    """Print the comparison of the two reports (module docstring)."""
    a, b = _intervals(f64), _intervals(f32)
    worst: dict[str, tuple[float, str]] = {}
    over, count = [], 0
    for key, (value, half) in a.items():
        if key not in b:
            print(f"missing in float32: {key}")
            continue
        moved = abs(b[key][0] - value) / half if half > 0 else (
            0.0 if b[key][0] == value else math.inf)
        count += 1
        if moved >= TENTH:
            over.append((key, value, b[key][0], half, moved))
        if moved >= worst.get(key[0], (-1.0, ""))[0]:
            worst[key[0]] = (moved, key[1])
    print(f"\n{count} statistics with a 95% interval; |float32 - float64| / half-width:")
    print("| panel | statistics | largest moved / half-width | at |")
    print("|---|---|---|---|")
    for panel, (moved, where) in worst.items():
        n = sum(1 for k in a if k[0] == panel)
        print(f"| {panel} | {n} | {moved:.2e} | {where} |")
    print(f"at or above {TENTH} of the half-width: {len(over)}")
    for key, value, other, half, moved in over:
        print(f"  {key}: float64 {value:.6g}, float32 {other:.6g}, half-width {half:.3g}, "
              f"moved {moved:.2f}")
    pa, pb = _plain(f64), _plain(f32)
    rel = [(abs(pb[k] - v) / abs(v) if v else abs(pb[k]), k) for k, v in pa.items() if k in pb]
    rel.sort(reverse=True)
    print(f"\n{len(rel)} statistics without an interval; largest relative changes:")
    for r, key in rel[:8]:
        print(f"  {key}: {pa[key]:.6g} -> {pb[key]:.6g} (relative {r:.1e})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--section", choices=("steps", "run"), default="steps")
    parser.add_argument("--scale", type=float, default=4.0)
    parser.add_argument("--panels", default=None)
    parser.add_argument("--out", default=None, help="folder of the two runs (run section)")
    parser.add_argument("--concurrent", action="store_true")
    parser.add_argument("--compare", nargs=2, metavar=("FLOAT64_DIR", "FLOAT32_DIR"),
                        help="only compare two finished runs' report.json (e.g. a GPU's, "
                        "benchmarks/gpu.py)")
    args = parser.parse_args()
    if args.compare:
        compare(*(json.loads((Path(d) / "report.json").read_text()) for d in args.compare))
        return
    if args.section == "steps":
        steps(args.scale)
        return
    out = Path(args.out or f"paper-dtype-S{args.scale:g}")
    out.mkdir(parents=True, exist_ok=True)
    run(args.scale, args.panels, out, args.concurrent)


if __name__ == "__main__":
    main()
