"""Sampled conditional Gaussian equivalents with rows and columns against the softmax (issue
39; docs/findings-finite-width.md, section "rows and columns"). Not a timed test.

Per draw, for every head the same ``Q, K, V``, one noise matrix ``W`` (explicit, ``n x n``)
and one ``W^O``; each model's head block ``Y`` (entries on the scale of ``n A - 1``) enters
as ``Y V / n``, and the spectrum is that of the ``n x n`` MHA Gram (theory §1, §2.3):

* ``softmax``: ``n A - 1``;
* ``ge``: ``beta S + sqrt(theta1 - theta2) W`` (theory §2);
* ``ge-row-n``: the row noise ``sqrt(theta_n(x_i) - x_i)`` (theory §2.3, the sampler's model);
* ``rc-n``: each entry its own coefficients given ``(v_i, u_j)``, ``a S + b W`` with
  ``a = E[n A S | v, u] / (v u)`` and ``b^2 = F2 - mu^2 - a^2 v u``
  (:func:`freege.numeric.column_profile.entry_moments` at the configuration's ``n``,
  tabulated on 40 x 40 points of ``(x, u)`` and interpolated);
* ``rc-noise``: the GE's signal ``beta S`` and the entry noise ``F2 - mu^2 - beta^2 v u``;
* ``rc-n-mean``: ``rc-n`` plus the conditional mean ``mu(x_i, u_j) - 1``;
* ``sep-row``: ``D_row [beta S_hat + sqrt(theta1_bar_n - theta2) W]`` with unit-norm
  queries and keys in ``S_hat`` and ``D_row^2 = theta_n(x_i) / theta1_bar_n``: the
  sampled version of the ``fw-n`` law's model;
* ``sep``: ``sep-row`` times ``D_col`` on the right, ``D_col^2 = l_c(u_j) / E l_c``
  (:func:`freege.numeric.column_profile.column_load`): the ``row+column`` law's model.

Reported per configuration: the relative W1 (over the plain limiting mean) of each softmax
draw against the quantiles at ``(i - 1/2)/n`` of every model pooled over the *other* draws
(a model's sampled law, without the draw's own noise), mean ± 95 % CI; the softmax's and
the GE's distance to the plain limit's quantiles; the cut of the softmax's excess
(``1 - (d(softmax, model) - d(GE, limit)) / (d(softmax, limit) - d(GE, limit))``); each
model's ``m1`` (relative to the plain limit), ``m2``, ``m3``; the mean of the lowest 10 %
of the eigenvalues; the paired increase of ``m2`` from ``sep-row`` to ``sep``; the ridge
error (theory §5, ``lambda = 1e-4``, ``sigma^2 = 0.1``, the spectrum divided by the plain
mean, as docs/findings-finite-width.md's 2(c) tables). Seeds
``(0, i, 7)``, one BLAS thread.

    python benchmarks/finite_width_columns.py presets --scale 4 --draws 10 \\
        --only dinov3-l16 bert-base modernbert-large
    python benchmarks/finite_width_columns.py 2c --scale 8 --draws 6 \\
        --only 2c/output/h=16 2c/output/h=32
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's freege

MODELS = ("softmax", "ge", "ge-row-n", "rc-n", "rc-noise", "rc-n-mean", "sep-row", "sep")
#: points of the (x, u) table of the entry moments, each way
TABLE = 40


def tables(dims: Any) -> dict[str, Any]:
    """The entry moments on a ``TABLE x TABLE`` grid of ``(x, u)`` over the chi-square's
    support cut at 1e-7, as interpolators, and the column load."""
    from scipy import special
    from scipy.interpolate import RegularGridInterpolator

    from freege.numeric import column_profile
    from freege.validation.finite_width import finite_n_load

    beta, dk, n = float(dims.beta), dims.dK, dims.n
    b2, k = beta * beta, dk / 2
    lo, hi = special.gammaincinv(k, 1e-7) / k, special.gammainccinv(k, 1e-7) / k
    us = np.linspace(lo, hi, TABLE)
    xs = b2 * us
    mom = np.array([[column_profile.entry_moments(x, u, dk, n, score=True) for u in us]
                    for x in xs])
    mu, f2 = mom[:, :, 0], mom[:, :, 1]
    vu = np.outer(xs / b2, us)
    a = np.sqrt(dk / vu) * mom[:, :, 2]  # E[nA S]/(v u), E[nA S] = sqrt(v u dK) E[nA c]

    def grid(z: np.ndarray) -> Any:
        return RegularGridInterpolator((xs, us), z, bounds_error=False, fill_value=None)

    u_load, load = column_profile.column_load(beta, dk, n)
    mean_load = column_profile.load_moments(u_load, load, dk)[0]
    return {"mu": grid(mu), "a": grid(a), "b2": grid(f2 - mu * mu - a * a * vu),
            "var": grid(f2 - mu * mu), "range": (xs[0], xs[-1], us[0], us[-1]),
            "column": lambda u: np.interp(u, u_load, load) / mean_load,
            "theta_bar": finite_n_load(dims)[0]}


def sample(dims: Any, seed: tuple[int, ...], tab: dict[str, Any]) -> dict[str, np.ndarray]:
    """Every model's MHA spectrum of one draw (module docstring)."""
    from freege.numeric.row_coefficient import theta_n, x_bound

    rng = np.random.default_rng(seed)
    n, h, dk, dv = dims.n, dims.h, dims.dK, dims.dV
    beta = float(dims.beta)
    b2 = beta * beta
    x0, x1, u0, u1 = tab["range"]
    z = {m: np.empty((n, h * dv)) for m in MODELS}
    for r in range(h):
        q, k_, v_ = (rng.standard_normal((n, d)) for d in (dk, dk, dv))
        w = rng.standard_normal((n, n))
        s = q @ k_.T / math.sqrt(dk)
        v, u = (q * q).sum(1) / dk, (k_ * k_).sum(1) / dk
        x = b2 * v
        e = np.exp(beta * s - (beta * s).max(1, keepdims=True))
        blocks = {"softmax": n * e / e.sum(1, keepdims=True) - 1.0,
                  "ge": beta * s + math.sqrt(math.expm1(b2) - b2) * w}
        tn = theta_n(x, n, max(x_bound(beta, dk), 6 * b2))
        blocks["ge-row-n"] = beta * s + np.sqrt(np.maximum(tn - x, 0))[:, None] * w
        pts = np.column_stack([np.repeat(np.clip(x, x0, x1), n), np.tile(np.clip(u, u0, u1), n)])
        a = tab["a"](pts).reshape(n, n)
        b = np.sqrt(np.maximum(tab["b2"](pts).reshape(n, n), 0))
        blocks["rc-n"] = a * s + b * w
        blocks["rc-n-mean"] = blocks["rc-n"] + tab["mu"](pts).reshape(n, n) - 1
        noise = tab["var"](pts).reshape(n, n) - b2 * np.outer(v, u)
        blocks["rc-noise"] = beta * s + np.sqrt(np.maximum(noise, 0)) * w
        unit = (q / np.sqrt(v * dk)[:, None]) @ (k_ / np.sqrt(u * dk)[:, None]).T
        x_hat = beta * math.sqrt(dk) * unit + math.sqrt(tab["theta_bar"] - b2) * w
        blocks["sep-row"] = np.sqrt(tn / tab["theta_bar"])[:, None] * x_hat
        blocks["sep"] = blocks["sep-row"] * np.sqrt(tab["column"](np.clip(u, u0, u1)))
        for m in MODELS:
            z[m][:, r * dv:(r + 1) * dv] = blocks[m] @ v_ / n
    wo = rng.standard_normal((h * dv, dims.dO)) / math.sqrt(h * dv)
    out = {}
    for m in MODELS:
        y = z.pop(m) @ wo
        out[m] = np.linalg.eigvalsh(y @ y.T)
    return out


def run(name: str, dims: Any, draws: int) -> dict[str, Any]:
    from freege.numeric import law
    from freege.validation.finite_readout import ridge_error
    from freege.validation.sampling import metrics
    from freege.validation.sampling.sample import case_for

    t0, c0, load0 = time.time(), time.process_time(), os.getloadavg()[0]
    tab = tables(dims)
    plain = law(case_for(dims), dims)
    m1 = float(plain.mean())
    qs = (np.arange(dims.n) + 0.5) / dims.n
    q_plain = np.asarray(plain.ppf(qs), dtype=float)
    spectra: dict[str, list[np.ndarray]] = {m: [] for m in MODELS}
    for i in range(draws):
        for m, eig in sample(dims, (0, i, 7), tab).items():
            spectra[m].append(eig)
    stats: dict[str, list[float]] = {}

    def put(key: str, values: list[float]) -> None:
        stats[key] = list(metrics.mean_ci(values))

    for m in ("softmax", "ge"):
        put(f"{m}/plain", [metrics.rel_w1(e, q_plain, m1) for e in spectra[m]])
    for m in MODELS:
        if m != "softmax":
            put(f"softmax/{m}", [
                metrics.rel_w1(e, np.quantile(np.concatenate(
                    [f for j, f in enumerate(spectra[m]) if j != i]), qs), m1)
                for i, e in enumerate(spectra["softmax"])])
        put(f"m1/{m}", [float(np.mean(e)) / m1 - 1 for e in spectra[m]])
        for q in (2, 3):
            put(f"m{q}/{m}", [float(np.mean(e ** q)) for e in spectra[m]])
        low = max(1, dims.n // 10)
        put(f"low10/{m}", [float(np.sort(e)[:low].mean()) for e in spectra[m]])
        put(f"ridge/{m}", [float(ridge_error(e / m1, dims.dO / dims.n, [1e-4], 0.1)[0])
                           for e in spectra[m]])
    put("m2/sep-sep-row", [float(np.mean(a ** 2) - np.mean(b ** 2))
                           for a, b in zip(spectra["sep"], spectra["sep-row"], strict=True)])
    ge = stats["ge/plain"][0]
    excess = stats["softmax/plain"][0] - ge
    return {"preset": name, "n": dims.n, "h": dims.h, "dK": dims.dK, "draws": draws,
            "cut": {m: 1 - (stats[f"softmax/{m}"][0] - ge) / excess
                    for m in MODELS if m != "softmax"},
            "stats": stats, "wall": time.time() - t0, "cpu": time.process_time() - c0,
            "load": [load0, os.getloadavg()[0]]}


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from finite_width_law import configurations, selection_parser

    ap = selection_parser(__doc__, draws=10, scale=4.0)
    args = ap.parse_args()
    if args.draws < 3:
        ap.error("--draws must be at least 3 (a pooled model law without the draw)")

    records = []
    for name, dims in configurations(args.which, args.scale, args.only):
        rec = run(name, dims, args.draws)
        records.append(rec)
        print(json.dumps(rec), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(records, indent=1))
    for r in records:
        s = r["stats"]
        print(f"{r['preset']} (n {r['n']}, h {r['h']}, dK {r['dK']}): softmax vs limit "
              f"{100 * s['softmax/plain'][0]:.2f} %, GE vs limit {100 * s['ge/plain'][0]:.2f} %")
        for m, cut in r["cut"].items():
            d = s[f"softmax/{m}"]
            print(f"  {m:10s} {100 * d[0]:.2f} ± {100 * d[1]:.2f} %  cut {100 * cut:+.1f} %")


if __name__ == "__main__":
    main()
