"""Paper-reproduction benchmark (issue #15): wall time of
``freege reproduce paper --measure --scale S`` per panel and in total, beside the run's
own pre-run estimate.

Without ``--run`` (about a minute): per panel one draw of its most expensive
configuration, timed in this process with BLAS on one thread (wall and CPU seconds: on
a shared machine the CPU time is the one to compare), scaled to the panel's draws by the
cost model (:func:`paper_run.estimate` at this machine's measured rates,
the estimate the command prints before it starts), and the model alone.

With ``--run``: the whole command into a fresh folder (or ``--out``), timed end to end,
then per panel: its draws' summed seconds (from the store), its share of the measured
wall time, the wall time of its theory, statistics and figure (printed by the command),
and the two added; and the total.

Run from the repository root: ``PYTHONPATH=. python benchmarks/paper.py [--scale 8]
[--panels 2a,2c,...] [--workers 2] [--run [--out DIR]]``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from freege.validation.paper import measure as paper_measure
from freege.validation.paper import panels as paper_panels
from freege.validation.paper import run as paper_run


def per_panel(scale: float, panels: list[str], rates: dict[str, float]) -> float:
    """Predicted measurement seconds per panel from one timed draw each; their sum."""
    configs = paper_panels.configurations(panels, scale)
    total = 0.0
    print(f"scale S = {scale:g}: one timed draw per panel, scaled to the panel's draws")
    print(f"{'panel':>7} {'config':>24} {'draw s':>8} {'cpu s':>7} {'panel s':>8} "
          f"{'model s':>8}")
    for panel in panels:
        mine = [c for c in configs if c["panel"] == panel]
        if not mine:
            continue
        def model(cs: list[dict], draws: int | None = None) -> float:
            todo = [(c, i) for c in cs for i in range(draws or c["draws"])]
            return paper_run.estimate(cs, todo, rates, 1)["seconds"]

        worst = max(mine, key=lambda c: model([c], 1))
        with paper_run.one_thread([worst]):
            start, cpu = time.perf_counter(), time.process_time()
            paper_measure.task(worst, 0, 0)
            one, cpu = time.perf_counter() - start, time.process_time() - cpu
        share = model(mine) / model([worst], 1)
        total += one * share
        print(f"{panel:>7} {worst['key']:>24} {one:8.2f} {cpu:7.2f} {one * share:8.0f} "
              f"{model(mine):8.0f}")
    return total


def whole(scale: float, panels: list[str], workers: int, out: Path | None) -> None:
    """Run the whole command into a fresh folder; print per panel and total wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = out or Path(tmp) / "run"
        command = [sys.executable, "-m", "freege", "reproduce", "paper", "--measure",
                   "--scale", f"{scale:g}", "--panels", ",".join(panels), "--out",
                   str(folder), "--workers", str(workers), "--yes"]
        print("running: " + " ".join(command[1:]), flush=True)
        start = time.perf_counter()
        lines = []
        with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as proc:
            for line in proc.stderr or []:  # the command's progress, echoed and kept
                print(line, end="", file=sys.stderr, flush=True)
                lines.append(line)
        if proc.returncode:
            raise SystemExit(f"the command failed (exit {proc.returncode})")
        seconds = time.perf_counter() - start
        recs = paper_run.records(folder / "store.jsonl")
    stderr = "".join(lines)
    measured = re.search(r"measurement took (\d+) s", stderr)
    wall = float(measured.group(1)) if measured else float("nan")
    theory = {m.group(1): float(m.group(2)) for m in re.finditer(
        r"panel (\S+): theory, statistics and figure took ([\d.]+) s", stderr)}
    configs = paper_panels.configurations(panels, scale)
    panel_of = {c["key"]: c["panel"] for c in configs}
    draw_s = dict.fromkeys(panels, 0.0)
    for key, draws in recs.items():
        draw_s[panel_of[key]] += sum(r["seconds"] for r in draws.values())
    total_draw_s = max(sum(draw_s.values()), 1e-9)
    print(f"{'panel':>7} {'draws s':>8} {'measure s':>10} {'theory s':>9} {'panel s':>8}")
    for panel in panels:
        share = wall * draw_s[panel] / total_draw_s
        print(f"{panel:>7} {draw_s[panel]:8.0f} {share:10.0f} {theory.get(panel, 0.0):9.1f} "
              f"{share + theory.get(panel, 0.0):8.0f}")
    print(f"whole command, {workers} workers: {seconds:.0f} s ({seconds / 60:.1f} min): "
          f"measurement {wall:.0f} s, theory, statistics and figures "
          f"{sum(theory.values()):.0f} s, the rest (start, rates, store) "
          f"{seconds - wall - sum(theory.values()):.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=8.0)
    parser.add_argument("--panels", default=",".join(paper_panels.NAMES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--run", action="store_true", help="also time the whole command")
    parser.add_argument("--out", type=Path, default=None,
                        help="with --run: the run's folder (kept; must be new)")
    args = parser.parse_args()
    panels = paper_panels.check_panels(args.panels.split(","))
    rates = paper_run.measure_rates()
    print("rates (one thread): " + ", ".join(f"{k} {v:.3g}/s" for k, v in rates.items()))
    total = per_panel(args.scale, panels, rates)
    print(f"measurement, one worker: about {total / 60:.1f} min; with {args.workers} "
          f"workers about {total / args.workers / 60:.1f} min (plus theory and figures)")
    if args.run:
        whole(args.scale, panels, args.workers, args.out)


if __name__ == "__main__":
    main()
