"""The finite-width study of docs/findings-finite-width.md (theory §2.3), rerunnable.

Runs :func:`freege.validation.finite_width.measure` (softmax against the plain and the
conditional Gaussian equivalent, and against the plain and finite-width limits, on the
same draws) over one set of configurations and prints Markdown tables:

    python benchmarks/finite_width.py presets --scale 4 --draws 4 --json out.json
    python benchmarks/finite_width.py 2c --scale 8 --draws 4
    python benchmarks/finite_width.py presets --only bert-base dinov3-l16 --draws 4

``presets``: the theory §6.1 presets (``freege validate``'s table) with every width
divided by ``--scale`` as ``freege reproduce paper --scale`` does; ``2c``: panel 2(c) of
the paper at ``--scale`` (:func:`freege.validation.paper.panels.panel_2c.build`). Each
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
    from freege.validation.paper import configs as paper_configs
    from freege.validation.paper.panels import panel_2c

    if which == "presets":
        from freege.validation.models.presets import PRESETS

        names = only or list(PRESETS)
        unknown = sorted(set(names) - set(PRESETS))
        if unknown:
            raise SystemExit(f"finite_width: unknown preset(s) {', '.join(unknown)}")
        return [(name, paper_configs.scale_dims(PRESETS[name], scale)) for name in names]
    configs = panel_2c.build(scale)
    out = [(c["key"], Dims(**c["dims"])) for c in configs]
    return [(k, d) for k, d in out if not only or k in only]


def _pm(x: dict[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    mean = x["mean"] * scale
    if x["ci95"] is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {x['ci95'] * scale:.{digits}f}"


def rows(records: list[dict[str, Any]]) -> str:
    """The Markdown tables of the findings page for ``records``: distances, moments,
    ridge errors."""
    t1 = ["| configuration | dK | θ̄1/θ1 − 1 | θ̄1,n/θ1 − 1 | rel W1 GE | cond. GE | "
          "cond. GE, finite n | realised | paired GE − cond. GE, finite n | floor | KS GE | "
          "KS cond. GE | KS cond. GE, finite n | KS realised | floor KS |", "|" + "---|" * 15]
    t2 = ["| configuration | m1 softmax vs limit | vs fw limit | vs fw limit, finite n | "
          "m2 softmax vs limit | vs fw limit | vs fw limit, finite n | cond. GE vs fw (m1, m2) "
          "| cond. GE, finite n vs fw, finite n (m1, m2) |", "|" + "---|" * 9]
    t3 = ["| configuration | E softmax | E GE | E cond. GE | E cond. GE, finite n | E realised | "
          "E limit | E shifted | E shifted, finite n |", "|" + "---|" * 9]
    for r in records:
        s, f, lab = r["stats"], r["noise_floor"], r["label"]
        ex = 100 * (r["theta1_bar"] / r["theta1"] - 1)
        exn = 100 * (r["theta1_bar_n"] / r["theta1"] - 1)
        t1.append(f"| {lab} | {r['dims']['dK']} | {ex:.1f} % | {exn:.1f} % | "
                  + " | ".join(f"{_pm(s[f'rel_w1/{m}'], 100, 2)} %"
                               for m in ("ge", "ge_row", "ge_row_n", "ge_realised"))
                  + f" | {_pm(s['rel_w1/ge-ge_row_n'], 100, 2)} % | "
                  f"{_pm(f['ge']['rel_w1'], 100, 2)} % | "
                  + " | ".join(_pm(s[f"ks/{m}"], 1, 4)
                               for m in ("ge", "ge_row", "ge_row_n", "ge_realised"))
                  + f" | {_pm(f['ge']['ks'], 1, 4)} |")
        t2.append(f"| {lab} | "
                  + " | ".join(f"{_pm(s[f'm{q}/softmax/{k}'], 100, 2)} %"
                               for q in (1, 2) for k in ("plain", "fw", "fwn"))
                  + f" | {_pm(s['m1/ge_row/fw'], 100, 1)} %, {_pm(s['m2/ge_row/fw'], 100, 1)} % | "
                  f"{_pm(s['m1/ge_row_n/fwn'], 100, 1)} %, {_pm(s['m2/ge_row_n/fwn'], 100, 1)} % |")
        lim = r["ridge_limit"]
        t3.append(f"| {lab} | "
                  + " | ".join(_pm(s[f"ridge/{m}"], 1, 4)
                               for m in ("softmax", "ge", "ge_row", "ge_row_n", "ge_realised"))
                  + f" | {lim['plain']:.4f} | {lim['shifted']:.4f} | {lim['shifted_n']:.4f} |")
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
