"""The finite-width law against sampled softmax spectra (issue 39; docs/findings-finite-width.md,
section 2026-12-07). Not a timed test.

For each preset (theory §6.1, at ``--scale``) and draw (the theory §6.1 draw,
:func:`freege.validation.sampling.sample.draw`, seeds ``(0, i)``), the relative W1
(:func:`freege.validation.sampling.metrics.rel_w1`, over the plain limiting mean) of

* the softmax's spectrum and the GE's against the plain limit's quantiles at
  ``(i - 1/2)/n`` (``freege.numeric.law(case, dims).ppf``);
* both against the quantiles of the finite-width law
  (:func:`freege.numeric.finite_width_law.finite_width_law`), with ``theta = e^x - 1``
  (``fw``) and with the finite-n row coefficient ``theta_n`` (``fw-n``).

The finite-width law's quantiles come from its density ``-Im G(x + i0)/pi`` on a grid of
:data:`GRID` points (the engine's ⊠ solve at each point, float64), integrated by the
trapezoid rule and inverted by interpolation: the engine's own ``ppf`` needs the support
edges, and its edge finder fails on these products (``support edge: no real solution
outside the support``). The grid's missing mass is printed.

    python benchmarks/finite_width_law.py --draws 4 --only bert-base dinov3-l16 --json out.json
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
GRID = 2500


def grid_quantiles(law: Any, n: int, top: float) -> tuple[np.ndarray, float]:
    """Quantiles at ``(i - 1/2)/n`` of ``law`` from its density on ``[0, top]`` (module
    docstring), and the grid's mass."""
    xs = np.linspace(0.0, top, GRID)
    xs[0] = top * 1e-9
    g = law.root.cauchy_f64(xs + 0j)[0]
    p = np.maximum(-g.imag / np.pi, 0.0)
    cdf = np.concatenate([[0.0], np.cumsum((p[1:] + p[:-1]) / 2 * np.diff(xs))])
    mass = float(cdf[-1])
    qs = (np.arange(n) + 0.5) / n
    return np.interp(qs * mass, cdf, xs), mass


def run(name: str, dims: Any, draws: int, case: str | None = None) -> dict[str, Any]:
    from freege.numeric import law as case_law
    from freege.numeric.finite_width_law import finite_width_law
    from freege.validation.sampling import metrics
    from freege.validation.sampling.row_coefficient import theta_n, x_bound
    from freege.validation.sampling.sample import case_eigenvalues, case_for, draw

    case = case or case_for(dims)
    plain = case_law(case, dims)
    m1 = float(plain.mean())
    q_plain = plain.ppf((np.arange(dims.n) + 0.5) / dims.n)
    top = 1.6 * float(q_plain[-1])
    t0 = time.time()
    fw = finite_width_law(case, dims)
    q_fw, mass_fw = grid_quantiles(fw, dims.n, top)
    beta, dk, n = float(dims.beta), dims.dK, dims.n
    x_max = max(x_bound(beta, dk), beta * beta * 6.0)
    fwn = finite_width_law(case, dims, coefficient=lambda x: theta_n(x, n, x_max))
    from freege.errors import ConvergenceError

    try:  # the engine's nested ⊠ does not always converge (docs/findings-finite-width.md)
        q_fwn, mass_fwn = grid_quantiles(fwn, dims.n, top)
    except ConvergenceError as exc:
        print(f"{name}: fw-n law failed: {exc}", file=sys.stderr)
        q_fwn, mass_fwn = None, float("nan")
    law_seconds = time.time() - t0
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
        rown = case_eigenvalues(case, dims, seed=(0, i), model="ge-row-n")
        m3.setdefault("ge-row-n", []).append(float(np.mean(rown**3)))
        m3.setdefault("softmax", []).append(float(np.mean(spectra["softmax"] ** 3)))
        for model, eigs in spectra.items():
            for target, q in (("plain", q_plain), ("fw", q_fw), ("fwn", q_fwn)):
                if q is None:
                    continue
                out.setdefault(f"{model}/{target}", []).append(metrics.rel_w1(eigs, q, m1))
    stats = {k: dict(zip(("mean", "ci95"), metrics.mean_ci(v), strict=True))
             for k, v in out.items()}
    return {"preset": name, "case": case, "draws": draws, "n": n, "dK": dk, "h": dims.h,
            "mass_fw": mass_fw, "mass_fwn": mass_fwn, "law_seconds": law_seconds,
            "draw_seconds": time.time() - t1,
            "moments": {"plain": [m1, float(plain.moment(2))],
                        "fw": [float(fw.moment(1)), float(fw.moment(2))],
                        "fwn": [float(fwn.moment(1)), float(fwn.moment(2))]},
            "m3": {"law_fwn": float(fwn.moment(3)), "law_fw": float(fw.moment(3)),
                   "plain": float(plain.moment(3)),
                   **{k: dict(zip(("mean", "ci95"), metrics.mean_ci(v), strict=True))
                      for k, v in m3.items()}},
            "stats": stats}


def table(records: list[dict[str, Any]]) -> str:
    lines = ["| preset | softmax vs limit | GE vs limit | excess | softmax vs fw | excess fw "
             "| softmax vs fw-n | excess fw-n | GE vs fw-n |", "|" + "---|" * 9]
    for r in records:
        s = r["stats"]

        def pm(k: str, s: dict[str, Any] = s) -> str:
            if k not in s:
                return "failed"
            return f"{100 * s[k]['mean']:.2f} ± {100 * s[k]['ci95']:.2f} %"

        ge = s["ge/plain"]["mean"]
        ex = [f"{100 * (s[f'softmax/{t}']['mean'] - ge):.2f}" if f"softmax/{t}" in s
              else "–" for t in ("plain", "fw", "fwn")]
        lines.append(f"| {r['preset']} (n {r['n']}, h {r['h']}) | {pm('softmax/plain')} | "
                     f"{pm('ge/plain')} | {ex[0]} | {pm('softmax/fw')} | {ex[1]} | "
                     f"{pm('softmax/fwn')} | {ex[2]} | {pm('ge/fwn')} |")
    return "\n".join(lines)


def main() -> None:
    from freege.validation.models.presets import PRESETS
    from freege.validation.paper import configs as paper_configs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--case", help="the theory §4 case (default: the preset's MHA case)")
    args = ap.parse_args()
    records = []
    for name in args.only or list(PRESETS):
        dims = paper_configs.scale_dims(PRESETS[name], args.scale)
        t = time.time()
        rec = run(name, dims, args.draws, args.case)
        rec["wall"] = time.time() - t
        rec["load"] = os.getloadavg()
        records.append(rec)
        print(json.dumps(rec), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(records, indent=1))
    print(table(records))


if __name__ == "__main__":
    main()
