"""The finite-width study of docs/findings-finite-width.md (theory §2.3), rerunnable.

Runs :func:`freege.validation.finite_width.measure` (softmax against the plain and the
conditional Gaussian equivalent, and against the plain and finite-width limits, on the
same draws) over one set of configurations and prints Markdown tables:

    python benchmarks/finite_width.py presets --scale 4 --draws 4 --json out.json
    python benchmarks/finite_width.py 2c --scale 8 --draws 4
    python benchmarks/finite_width.py presets --only bert-base dinov3-l16 --draws 4

``presets``: the theory §6.1 presets (``freege validate``'s table) with every width
divided by ``--scale`` as ``freege reproduce paper --scale`` does; ``2c``: panel 2(c) of
the paper at ``--scale`` (:func:`freege.validation.paper.panels.panel_2c`). Each
configuration's record is written to ``--json`` as soon as it is done, with the machine's
load average before and after and the wall time. One BLAS thread (set before NumPy loads).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's freege

from freege.params import Dims  # noqa: E402


def configurations(which: str, scale: float, only: list[str] | None) -> list[tuple[str, Dims]]:
    """``(label, Dims)`` of the chosen set at ``scale``."""
    from freege.validation.paper import panels

    if which == "presets":
        from freege.validation.models.presets import PRESETS

        names = only or list(PRESETS)
        unknown = sorted(set(names) - set(PRESETS))
        if unknown:
            raise SystemExit(f"finite_width: unknown preset(s) {', '.join(unknown)}")
        return [(name, panels.scale_dims(PRESETS[name], scale)) for name in names]
    configs = panels.panel_2c(scale)
    out = [(c["key"], Dims(**c["dims"])) for c in configs]
    return [(k, d) for k, d in out if not only or k in only]


def _pm(x: dict[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    mean = x["mean"] * scale
    if x["ci95"] is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {x['ci95'] * scale:.{digits}f}"


def rows(records: list[dict[str, Any]]) -> str:
    """The Markdown tables of the findings page for ``records``."""
    head1 = ("| configuration | dK | θ̄1/θ1 − 1 | rel W1 GE | rel W1 cond. GE | paired GE − "
             "cond. GE | rel W1 realised | paired GE − realised | floor GE | KS GE | "
             "KS cond. GE | KS realised | floor KS |")
    head2 = ("| configuration | m1 softmax vs limit | vs fw limit | cond. GE vs fw | "
             "realised vs limit | m2 softmax vs limit | vs fw limit | cond. GE vs fw | "
             "realised vs limit |")
    head3 = ("| configuration | E softmax | E GE | E cond. GE | E realised | E limit | "
             "E shifted limit |")
    t1, t2, t3 = [head1, "|" + "---|" * 13], [head2, "|" + "---|" * 9], [head3, "|" + "---|" * 7]
    for r in records:
        s, f = r["stats"], r["noise_floor"]
        label = r["label"]
        excess = 100 * (r["theta1_bar"] / r["theta1"] - 1)
        t1.append(f"| {label} | {r['dims']['dK']} | {excess:.1f} % | "
                  f"{_pm(s['rel_w1/ge'], 100, 2)} % | {_pm(s['rel_w1/ge_row'], 100, 2)} % | "
                  f"{_pm(s['rel_w1/ge-ge_row'], 100, 2)} % | "
                  f"{_pm(s['rel_w1/ge_realised'], 100, 2)} % | "
                  f"{_pm(s['rel_w1/ge-ge_realised'], 100, 2)} % | "
                  f"{_pm(f['ge']['rel_w1'], 100, 2)} % | "
                  f"{_pm(s['ks/ge'], 1, 4)} | {_pm(s['ks/ge_row'], 1, 4)} | "
                  f"{_pm(s['ks/ge_realised'], 1, 4)} | {_pm(f['ge']['ks'], 1, 4)} |")
        t2.append(f"| {label} | {_pm(s['m1/softmax/plain'], 100, 2)} % | "
                  f"{_pm(s['m1/softmax/fw'], 100, 2)} % | {_pm(s['m1/ge_row/fw'], 100, 2)} % | "
                  f"{_pm(s['m1/ge_realised/plain'], 100, 2)} % | "
                  f"{_pm(s['m2/softmax/plain'], 100, 2)} % | {_pm(s['m2/softmax/fw'], 100, 2)} % | "
                  f"{_pm(s['m2/ge_row/fw'], 100, 2)} % | "
                  f"{_pm(s['m2/ge_realised/plain'], 100, 2)} % |")
        lim = r["ridge_limit"]
        t3.append(f"| {label} | {_pm(s['ridge/softmax'], 1, 4)} | {_pm(s['ridge/ge'], 1, 4)} | "
                  f"{_pm(s['ridge/ge_row'], 1, 4)} | {_pm(s['ridge/ge_realised'], 1, 4)} | "
                  f"{lim['plain']:.4f} | {lim['shifted']:.4f} |")
    return "\n\n".join("\n".join(t) for t in (t1, t2, t3)) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("set", choices=("presets", "2c"))
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--draws", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", nargs="*", default=None, help="preset names or 2(c) keys")
    p.add_argument("--json", default=None, help="write the records here")
    args = p.parse_args(argv)
    from freege.validation import finite_width

    configs = configurations(args.set, args.scale, args.only)
    meta = {"set": args.set, "scale": args.scale, "draws": args.draws, "seed": args.seed,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                       f"{platform.python_version()}",
            "load_before": os.getloadavg(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    start = time.perf_counter()
    records: list[dict[str, Any]] = []
    for label, dims in configs:
        t0 = time.perf_counter()
        try:
            rec = finite_width.measure(dims, draws=args.draws, seed=args.seed)
        except ValueError as exc:  # dK <= 4 beta^2: no finite-width moments
            print(f"{label}: skipped ({exc})", file=sys.stderr)
            continue
        rec.update(label=label, seconds=time.perf_counter() - t0, load=os.getloadavg())
        records.append(rec)
        print(f"{label}: {rec['seconds']:.1f} s, load {rec['load'][0]:.2f}", file=sys.stderr)
        if args.json:
            meta.update(load_after=os.getloadavg(), wall_s=time.perf_counter() - start)
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump({"meta": meta, "records": records}, fh, indent=1)
    meta.update(load_after=os.getloadavg(), wall_s=time.perf_counter() - start)
    print(f"set {args.set}, scale {args.scale:g}, {args.draws} draws, seed {args.seed}; "
          f"{meta['machine']}; load {meta['load_before'][0]:.2f} -> "
          f"{meta['load_after'][0]:.2f}; wall {meta['wall_s']:.0f} s\n")
    print(rows(records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
