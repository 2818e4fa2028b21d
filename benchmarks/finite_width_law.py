"""The finite-width law against sampled softmax spectra (issue 39; docs/findings-finite-width.md,
section 2026-12-07). Not a timed test.

For each preset (theory §6.1, at ``--scale``) and draw (the theory §6.1 draw,
:func:`freege.validation.sampling.sample.draw`, seeds ``(0, i)``), the relative W1
(:func:`freege.validation.sampling.metrics.rel_w1`, over the plain limiting mean) of

* the softmax's spectrum and the GE's against the plain limit's quantiles at
  ``(i - 1/2)/n`` (``freege.numeric.law(case, dims).ppf``);
* both against the quantiles of the finite-width law
  (``freege.numeric.law(case, dims, finite_width=True)``), with the finite-n row
  coefficient ``theta_n`` (``fw-n``, the default) and with ``theta = e^x - 1``
  (``fw``, ``row="infinite-n"``).

The finite-width law's quantiles come from
:func:`freege.numeric.finite_width_law.grid_quantiles` (its density on :data:`GRID` points
graded toward 0 up to :data:`REACH` times the plain limit's top quantile, mass-checked to
1e-3; the law's own ``ppf`` needs the mass-checked support: minutes per law).

``presets`` (default): the theory §6.1 presets at ``--scale`` (Table 2's configurations);
``2c``: panel 2(c)'s 19 configurations at ``--scale``
(:func:`freege.validation.paper.panels.panel_2c.build`). ``--rows finite-n`` builds the
``fw-n`` law only; ``--columns`` adds the row+column finite-n law (``fw-nc``,
``law(case, dims, finite_width=True, profile="row+column")``, theory §2.3). Each record
is written to ``--json`` as soon as it is done, with the
machine's load and the CPU seconds of the laws; a rerun with the same ``--json`` skips the
configurations already there (resume after a crash).

    python benchmarks/finite_width_law.py --draws 10 --json s1.json
    python benchmarks/finite_width_law.py 2c --scale 8 --rows finite-n --draws 10 --json c8.json
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's freege

#: density grid points of the finite-width law
GRID = 2000
#: the grid's top, in units of the plain limit's top quantile
REACH = 2.5


def run(name: str, dims: Any, draws: int, case: str | None = None,
        rows: tuple[str, ...] = ("infinite-n", "finite-n"), columns: bool = False
        ) -> dict[str, Any]:
    from freege.errors import ConvergenceError
    from freege.numeric import law as case_law
    from freege.numeric.finite_width_law import grid_quantiles
    from freege.validation.sampling import metrics
    from freege.validation.sampling.sample import case_eigenvalues, case_for, draw

    case = case or case_for(dims)
    plain = case_law(case, dims)
    m1 = float(plain.mean())
    q_plain = plain.ppf((np.arange(dims.n) + 0.5) / dims.n)
    top = REACH * float(q_plain[-1])
    n, dk = dims.n, dims.dK
    t0, c0 = time.time(), time.process_time()
    fw = case_law(case, dims, finite_width=True, row="infinite-n") if "infinite-n" in rows \
        else None
    fwn = case_law(case, dims, finite_width=True) if "finite-n" in rows else None
    law_cpu_row = time.process_time() - c0
    fwc = case_law(case, dims, finite_width=True, profile="row+column") if columns else None
    qs = (np.arange(n) + 0.5) / n

    def quantiles(law: Any) -> tuple[Any, float]:
        if law is None:
            return None, float("nan")
        try:
            return grid_quantiles(law, qs, top, GRID)
        except ConvergenceError as exc:  # recorded as failed, the run goes on
            print(f"{name}: {law}: {exc}", file=sys.stderr)
            return None, float("nan")

    q_fw, mass_fw = quantiles(fw)
    q_fwn, mass_fwn = quantiles(fwn)
    q_fwc, mass_fwc = quantiles(fwc)
    law_seconds, law_cpu = time.time() - t0, time.process_time() - c0
    out: dict[str, list[float]] = {}
    t1 = time.time()
    m3: dict[str, list[float]] = {}
    for i in range(draws):
        if case == case_for(dims):
            d = draw(dims, seed=(0, i))
            spectra = {"softmax": d.softmax, "ge": d.ge}
        else:
            spectra = {m: case_eigenvalues(case, dims, seed=(0, i), model=m)
                       for m in ("softmax", "ge")}
        m3.setdefault("softmax", []).append(float(np.mean(spectra["softmax"] ** 3)))
        for model, eigs in spectra.items():
            for target, q in (("plain", q_plain), ("fw", q_fw), ("fwn", q_fwn),
                              ("fwc", q_fwc)):
                if q is None:
                    continue
                out.setdefault(f"{model}/{target}", []).append(metrics.rel_w1(eigs, q, m1))
    stats = {k: dict(zip(("mean", "ci95"), metrics.mean_ci(v), strict=True))
             for k, v in out.items()}
    return {"preset": name, "case": case, "draws": draws, "n": n, "dK": dk, "h": dims.h,
            "mass_fw": mass_fw, "mass_fwn": mass_fwn,
            **({"mass_fwc": mass_fwc, "law_cpu_seconds_row_laws": law_cpu_row}
               if columns else {}),
            "law_seconds": law_seconds,
            "law_cpu_seconds": law_cpu, "draw_seconds": time.time() - t1,
            "moments": {"plain": [m1, float(plain.moment(2))],
                        **{k: [float(law.moment(1)), float(law.moment(2))]
                           for k, law in (("fw", fw), ("fwn", fwn), ("fwc", fwc))
                           if law is not None}},
            "m3": {**{f"law_{k}": float(law.moment(3))
                      for k, law in (("fw", fw), ("fwn", fwn), ("fwc", fwc))
                      if law is not None},
                   "plain": float(plain.moment(3)),
                   **{k: dict(zip(("mean", "ci95"), metrics.mean_ci(v), strict=True))
                      for k, v in m3.items()}},
            "stats": stats}


def table(records: list[dict[str, Any]]) -> str:
    lines = ["| preset | softmax vs limit | GE vs limit | excess | softmax vs fw | excess fw "
             "| softmax vs fw-n | excess fw-n | GE vs fw-n | softmax vs fw-nc | excess fw-nc "
             "| GE vs fw-nc |", "|" + "---|" * 12]
    for r in records:
        s = r["stats"]

        def pm(k: str, s: dict[str, Any] = s, r: dict[str, Any] = r) -> str:
            if k not in s:
                return "–" if k.endswith("fwc") and "mass_fwc" not in r else "failed"
            return f"{100 * s[k]['mean']:.2f} ± {100 * s[k]['ci95']:.2f} %"

        ge = s["ge/plain"]["mean"]
        ex = [f"{100 * (s[f'softmax/{t}']['mean'] - ge):.2f}" if f"softmax/{t}" in s
              else "–" for t in ("plain", "fw", "fwn", "fwc")]
        lines.append(f"| {r['preset']} (n {r['n']}, h {r['h']}) | {pm('softmax/plain')} | "
                     f"{pm('ge/plain')} | {ex[0]} | {pm('softmax/fw')} | {ex[1]} | "
                     f"{pm('softmax/fwn')} | {ex[2]} | {pm('ge/fwn')} | "
                     f"{pm('softmax/fwc')} | {ex[3]} | {pm('ge/fwc')} |")
    return "\n".join(lines)


def configurations(which: str, scale: float, only: list[str] | None) -> list[tuple[str, Any]]:
    """``(label, Dims)`` of the presets or of panel 2(c) at ``scale``."""
    from freege.params import Dims
    from freege.validation.models.presets import PRESETS
    from freege.validation.paper import configs as paper_configs
    from freege.validation.paper.panels import panel_2c

    if which == "presets":
        return [(name, paper_configs.scale_dims(PRESETS[name], scale))
                for name in only or list(PRESETS)]
    out = [(c["key"], Dims(**c["dims"])) for c in panel_2c.build(scale)]
    return [(k, d) for k, d in out if not only or k in only]


def selection_parser(doc: str, draws: int, scale: float) -> argparse.ArgumentParser:
    """The options both finite-width benchmarks take: which configurations (``presets``
    or ``2c``, ``--only``), ``--draws``, ``--scale`` and the ``--json`` record file."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("which", nargs="?", choices=("presets", "2c"), default="presets")
    ap.add_argument("--draws", type=int, default=draws)
    ap.add_argument("--scale", type=float, default=scale)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    return ap


def main() -> None:
    ap = selection_parser(__doc__, draws=4, scale=1.0)
    ap.add_argument("--rows", nargs="*", choices=("infinite-n", "finite-n"),
                    default=["infinite-n", "finite-n"])
    ap.add_argument("--case", help="the theory §4 case (default: the preset's MHA case)")
    ap.add_argument("--columns", action="store_true",
                    help="also the row+column finite-n law (fw-nc, profile='row+column')")
    args = ap.parse_args()
    records = []
    if args.json and Path(args.json).exists():
        records = json.loads(Path(args.json).read_text())
    done = {r["preset"] for r in records}
    for name, dims in configurations(args.which, args.scale, args.only):
        if name in done:
            continue
        t = time.time()
        load0 = os.getloadavg()
        rec = run(name, dims, args.draws, args.case, tuple(args.rows), args.columns)
        rec["wall"] = time.time() - t
        rec["load"] = [load0, os.getloadavg()]
        rec["scale"] = args.scale
        records.append(rec)
        print(json.dumps(rec), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(records, indent=1))
    print(table(records))


if __name__ == "__main__":
    main()
