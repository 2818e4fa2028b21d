"""The one prepared device check (theory §6.1, §6.4, §7): ``python -m benchmarks.gpu OUT``
runs, in order and each within what is left of ``--budget`` seconds (default 420, about
8 minutes with the start on one large GPU):

1. ``python -m freege.validation.gpu_check`` on every preset;
2. ``pytest -m gpu`` (the GPU tests on the real device);
3. a per-draw table: seconds and peak memory of one draw for n = 512 to 8192 (d = n,
   16 heads) in float64 and float32 on CuPy;
4. ``freege reproduce paper --measure --scale 1 --backend cupy`` for panels 3(b), then
   Table 2, as time allows, each in ``--dtype float64`` and then ``float32`` (the same
   seeds): the summary prints each panel's float32/float64 time ratio (issue 41), and
   ``python benchmarks/paper_dtype.py --compare OUT/paper-3b-float64 OUT/paper-3b-float32``
   compares their statistics with their own 95% intervals afterwards.

It writes ``OUT/gpu.json`` (every step's output, exit status and seconds, and the table)
and ``OUT/summary.txt`` (one line per step and the table). Without CuPy or a usable GPU
it writes the reason to both files and exits with status 0 (nothing to check).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from freege.params import Dims
from freege.validation.sampling.backend import cupy_problem

#: n of the per-draw table (d = n, 16 heads)
TABLE_SIZES: tuple[int, ...] = (512, 1024, 2048, 4096, 8192)
PAPER_PANELS: tuple[str, ...] = ("3b", "table2")
#: the precisions each paper panel is measured in, float64 first
PAPER_DTYPES: tuple[str, ...] = ("float64", "float32")


def _step(name: str, argv: list[str], left: float, out: Path) -> dict[str, Any]:
    """Run ``argv`` with at most ``left`` seconds; its output, status and seconds."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=max(left, 1.0))
        status, text = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        status, text = "timeout", str(exc.stdout or "")
    (out / f"{name}.log").write_text(text)
    return {"step": name, "argv": argv, "status": status,
            "seconds": round(time.perf_counter() - start, 1), "tail": text[-2000:]}


def draw_table(left: float) -> list[dict[str, Any]]:
    """One warm draw per (n, dtype) on CuPy while time is left: seconds, peak bytes."""
    from freege.validation.sampling.sample import draw

    rows, start = [], time.perf_counter()
    for dtype in ("float64", "float32"):
        draw(Dims(n=256, h=16, dK=16, dV=16, dO=256), seed=0, backend="cupy", dtype=dtype)
        for n in TABLE_SIZES:
            if time.perf_counter() - start > left:
                rows.append({"n": n, "dtype": dtype, "skipped": "time budget spent"})
                continue
            d = draw(Dims(n=n, h=16, dK=n // 16, dV=n // 16, dO=n), seed=1, backend="cupy",
                     dtype=dtype)
            rows.append({"n": n, "dtype": dtype, "seconds": round(d.seconds, 4),
                         "peak_mib": round(d.peak_bytes / 2**20, 1)})
    return rows


def dtype_ratios(steps: list[dict[str, Any]]) -> list[str]:
    """One line per paper panel measured in both precisions: the float32/float64 ratio of
    the whole command's seconds (start-up and report included)."""
    done = {s["step"]: s["seconds"] for s in steps if s["status"] == 0}
    lines = []
    for panel in PAPER_PANELS:
        f64, f32 = (done.get(f"paper_{panel}_{dtype}") for dtype in PAPER_DTYPES)
        if f64 and f32:
            lines.append(f"paper {panel} at S = 1: float32 {f32} s / float64 {f64} s = "
                         f"{f32 / f64:.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="folder for gpu.json, summary.txt and the step logs")
    parser.add_argument("--budget", type=float, default=420.0)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    problem = cupy_problem()
    if problem is not None:
        result: dict[str, Any] = {"skipped": f"no usable GPU ({problem})"}
        (out / "gpu.json").write_text(json.dumps(result, indent=1) + "\n")
        (out / "summary.txt").write_text(f"benchmarks.gpu: {result['skipped']}\n")
        print(f"benchmarks.gpu: {result['skipped']}; nothing to check.")
        return 0
    start = time.perf_counter()

    def left() -> float:
        return args.budget - (time.perf_counter() - start)

    py = sys.executable
    steps = [_step("gpu_check", [py, "-m", "freege.validation.gpu_check", "--budget",
                                 str(0.35 * args.budget)], left(), out),
             _step("pytest_gpu", [py, "-m", "pytest", "-q", "-n", "0", "-m", "gpu"],
                   left(), out)]
    table = draw_table(0.2 * args.budget)
    for panel in PAPER_PANELS:
        for dtype in PAPER_DTYPES:
            steps.append(_step(f"paper_{panel}_{dtype}", [
                py, "-m", "freege", "reproduce", "paper", "--measure", "--scale", "1",
                "--backend", "cupy", "--dtype", dtype, "--yes", "--quiet", "--panels", panel,
                "--out", str(out / f"paper-{panel}-{dtype}")], left(), out))
    (out / "gpu.json").write_text(json.dumps({"steps": steps, "table": table}, indent=1)
                                  + "\n")
    lines = [f"{s['step']}: status {s['status']} in {s['seconds']} s" for s in steps]
    lines += dtype_ratios(steps)
    lines += [f"draw n={r['n']} {r['dtype']}: " + (r.get("skipped") or
              f"{r['seconds']} s, {r['peak_mib']} MiB peak") for r in table]
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
