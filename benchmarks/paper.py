"""Paper-reproduction benchmark (issue #15): wall time of
``freege reproduce paper --measure --scale S`` and of its parts, beside the run's own
pre-run estimate.

Per panel it times (a) one draw of the panel's most expensive configuration, measured
in this process with BLAS on one thread, and reports the panel's predicted measurement
time (that draw's time times the panel's cost ratio under the model), and (b) the model
alone (:func:`paper_run.estimate` at this machine's measured rates, as the command
prints before it starts); then,
with ``--run``, the whole command into a fresh folder (measurement, theory, statistics,
figures), timed end to end.

Run from the repository root: ``PYTHONPATH=. python benchmarks/paper.py [--scale 8]
[--panels 2a,2c,...] [--workers 2] [--run]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

from freege.validation import paper_measure, paper_panels, paper_run


def per_panel(scale: float, panels: list[str], rates: dict[str, float]) -> float:
    """Predicted measurement seconds per panel from one timed draw each; their sum."""
    configs = paper_panels.configurations(panels, scale)
    total = 0.0
    print(f"scale S = {scale:g}: one timed draw per panel, scaled to the panel's draws")
    print(f"{'panel':>7} {'config':>24} {'draw s':>8} {'panel s':>8} {'model s':>8}")
    for panel in panels:
        mine = [c for c in configs if c["panel"] == panel]
        if not mine:
            continue
        def model(cs: list[dict], draws: int | None = None) -> float:
            todo = [(c, i) for c in cs for i in range(draws or c["draws"])]
            return paper_run.estimate(cs, todo, rates, 1)["seconds"]

        worst = max(mine, key=lambda c: model([c], 1))
        with threadpool_limits(limits=1):
            start = time.perf_counter()
            paper_measure.task(worst, 0, 0)
            one = time.perf_counter() - start
        share = model(mine) / model([worst], 1)
        total += one * share
        print(f"{panel:>7} {worst['key']:>24} {one:8.2f} {one * share:8.0f} "
              f"{model(mine):8.0f}")
    return total


def whole(scale: float, panels: list[str], workers: int) -> float:
    """Seconds of the whole command into a fresh folder."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "freege", "reproduce", "paper", "--measure",
                        "--scale", f"{scale:g}", "--panels", ",".join(panels), "--out",
                        str(out), "--workers", str(workers), "--yes", "--quiet"], check=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=8.0)
    parser.add_argument("--panels", default=",".join(paper_panels.PANELS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--run", action="store_true", help="also time the whole command")
    args = parser.parse_args()
    panels = paper_panels.check_panels(args.panels.split(","))
    rates = paper_run.measure_rates()
    print("rates (one thread): " + ", ".join(f"{k} {v:.3g}/s" for k, v in rates.items()))
    total = per_panel(args.scale, panels, rates)
    print(f"measurement, one worker: about {total / 60:.1f} min; with {args.workers} "
          f"workers about {total / args.workers / 60:.1f} min (plus theory and figures)")
    if args.run:
        seconds = whole(args.scale, panels, args.workers)
        print(f"whole command, {args.workers} workers: {seconds:.0f} s ({seconds / 60:.1f} min)")


if __name__ == "__main__":
    main()
