"""The multi-head equivalence chain of theory §2.2, sampled step by step.

Six n x hn matrices lead from centred softmax attention to its Gaussian equivalent
(head blocks side by side; ``f(t) = exp(beta t - beta^2/2) - 1``):

1. ``sqrt(n) A^perp``;
2. ``Y^f = [f(S_r)]_r / sqrt(n)`` -- the row normalisers ``D_i`` replaced by 1;
3. ``Y^f_c = Y^f - E[Y^f | keys]`` -- the conditional row mean
   (:func:`freege.validation.sampling.conditional.row_mean`) subtracted;
4. ``Y^G[Sigma_f]`` -- Gaussian rows with the exact conditional covariance ``Sigma_f``;
5. ``Y^G[Sigma_G]`` -- ``Sigma_f`` replaced by ``Sigma_G``;
6. ``Y^G`` -- theory §2's GE with the original queries and independent noise.

Each is multiplied by the same ``T_n = n^{-1/2} V_+ W^O`` (``V_+`` block-diagonal in the
values), so step 1 gives ``MHA^perp`` and step 6 ``MHA^G / sqrt(n)``; their n x n Gram
spectra are compared (relative W1 over the theory §4 limiting mean, KS, differences of
m1..m4 over the limiting moments).

Shared randomness, as the chain shares it: every step has the same keys, values and
``W^O``; steps 1-3 the same queries (the same scores); steps 4 and 5 the same Gaussian
matrix ``G`` (rows of ``Y^G[Sigma] V / sqrt(n)`` are ``N(0, V^T Sigma V / n^2)`` given the
keys and values, sampled exactly in law as ``G (V^T Sigma V)^{1/2} / n``); step 6 fresh
noise, its ``W_r V_r`` sampled exactly in law the same way (as in
:mod:`freege.validation.sampling.sample`). Seeds: a draw's seed (``(seed, n, i)`` for draw ``i``
of :func:`run` at size n) spawns weights, ``W^O`` and noise streams; the weights are drawn
in the order of :mod:`freege.validation.sampling.sample` (Q_r, then K and V when head r opens a K/V
group), so step 1 of :func:`draw` with seed ``s`` is the softmax ``MHA^perp`` of
:func:`freege.validation.sampling.sample.draw` with seed ``s``.

Each step's own control (theory §2.2): the operator norm of the part of step 1 - step 2
that is not of rank <= h, ``||[diag(1/D_r - 1) Y^f_c,r]_r||`` (the rest,
``[diag(1/D_r - 1) (1 1^T + 1 mu_r^T) / sqrt(n)]_r``, has rank <= h); the row normalisers'
``max |D_i - 1|``; the operator norm of the rank-one mean removed in step 3; the
normalised Frobenius distance ``||Sigma_f - Sigma_G||_F / sqrt(n)`` (averaged over K/V
groups); steps 5 and 6 are equal in law given the keys (control 0). And the leading
singular value (theory §4.1): ``s_1(MHA)^2 / n`` of the uncentred MHA, with
``MHA - MHA^perp = 1 vbar^T``, ``vbar = W^O^T [V_r^T 1 / n]_r``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.sampling import conditional, metrics, verdict
from freege.validation.sampling.backend import Backend, get_backend
from freege.validation.sampling.cost import COST_OVERHEAD_BYTES, OUTLIER_STEPS, Cost
from freege.validation.sampling.eigensolver import top_singular_value
from freege.validation.sampling.outlier import weights
from freege.validation.sampling.sample import Seed, case_for, output_weights, thetas
from freege.validation.sampling.solvers import solvers

STEPS: tuple[str, ...] = (
    "sqrt(n) A^perp", "Y^f", "Y^f_c", "Y^G[Sigma_f]", "Y^G[Sigma_G]", "Y^G",
)
#: moments compared (m1..m4)
ORDERS = 4
#: pairs of steps compared (0-based): consecutive steps, then each step against step 1
PAIRS: tuple[tuple[int, int], ...] = (
    tuple((k, k + 1) for k in range(5)) + tuple((0, k) for k in range(2, 6))
)
CONTROLS: tuple[str, ...] = ("op_norm_1_2", "max_normalizer_dev", "mean_op_norm_2_3",
                             "sigma_frob_4_5")


def pair_name(pair: tuple[int, int]) -> str:
    """``"k-l"`` with 1-based step numbers."""
    return f"{pair[0] + 1}-{pair[1] + 1}"


#: the decay in n each distance is guaranteed (theory §2.2): exponent b and the power a
#: of log n in the bound ``n^b (log n)^a``; a step's bound is its slowest, a pair ``1-k``
#: the slowest step on the way
STEP_RATES: dict[str, tuple[float, float]] = {
    "1-2": (-0.5, 0.5),   # ||E|| <= max|1/D - 1| ||Y^f|| plus a rank <= h part (1/n)
    "2-3": (-1.0, 0.0),   # a rank-one difference: KS <= 1/n, W1 and moments O(1/n)
    "3-4": (-0.5, 0.0),   # row-wise Gaussian replacement (Lindeberg): n^(-1/2)
    "4-5": (-0.5, 0.5),   # ||Sigma_f - Sigma_G||_F / sqrt(n) = O(sqrt(log n / n))
    "5-6": (-1.0, 1.0),   # equal in law: only sampling noise, n^(-1) up to logs
}
CONTROL_RATES: dict[str, tuple[float, float]] = {
    "op_norm_1_2": (-0.5, 0.5), "max_normalizer_dev": (-0.5, 0.5),
    "sigma_frob_4_5": (-0.5, 0.5),
}


#: rounding allowance of the comparison of a fitted exponent with its bound (a KS that
#: equals 1/n exactly fits -1 up to rounding)
SLACK = 1e-9


def guaranteed_rate(pair: tuple[int, int]) -> tuple[float, float]:
    """``(b, a)`` of :data:`STEP_RATES` for a pair of steps: the slowest step between."""
    steps = [f"{k + 1}-{k + 2}" for k in range(pair[0], pair[1])]
    return max((STEP_RATES[s] for s in steps), key=lambda r: (r[0], r[1]))


def effective_exponent(rate: tuple[float, float], ns: list[int]) -> float:
    """The least-squares slope of ``log(n^b (log n)^a)`` against ``log n`` over ``ns``:
    the exponent a fit over these sizes can show when the bound is attained."""
    x = np.log(np.asarray(ns, dtype=np.float64))
    y = rate[0] * x + rate[1] * np.log(x)
    return float(np.polyfit(x, y, 1)[0])


def _sqrtm_psd(xp: Any, m: Any) -> Any:
    """Symmetric square root of a symmetric positive semi-definite matrix (eigenvalues
    below 0 by rounding are set to 0)."""
    w, u = solvers(xp).eigh((m + m.T) / 2)
    return (u * xp.sqrt(xp.clip(w, 0, None))) @ u.T


def draw_cost(dims: Dims) -> Cost:
    """The :class:`freege.validation.sampling.cost.Cost` of one :func:`draw` at ``dims``
    (float64), counted from the code: per head the scores and their exp, ``zeta V``, the
    GE's ``S V`` and two noise products, and the n x n Gram of the 1-2 control
    (``zeta zeta^T``, 2 n^3: the chain's largest term); per K/V group ``Sigma_K``,
    ``Sigma_f``, ``Sigma_G`` (n x n, several elementwise passes) and the three dV x dV
    square roots; then six products with ``W^O``, six full n x n Grams, seven eigenvalue
    problems of size n (six spectra and the control) and the outlier's power iteration.
    Peak: the six n x h dV blocks, the control's Gram and about six n x n temporaries."""
    n, h, dK, dV, dO = dims.n, dims.h, dims.dK, dims.dV, dims.dO
    groups = len({dims.kv_group(r) for r in range(h)})
    per_head = (2 * n * n * dK + 2 * n * n * dV + 2 * n * n * dV + 4 * n * dV * dV
                + 2 * n**3)
    per_group = 2 * n * n * dK + 4 * (2 * n * n * dV + 2 * n * dV * dV) + 3 * 10 * dV**3
    rows = h * dV
    steps = len(STEPS)
    matmul = h * per_head + groups * per_group + steps * (2 * n * rows * dO + 2 * n * n * dO) \
        + OUTLIER_STEPS * 4 * n * dO
    weights = h * n * dK + groups * n * (dK + dV)  # all heads' Q, K, V are drawn first
    peak = 8 * (weights + steps * n * rows + 7 * n * n + n * dO + rows * dO) \
        + COST_OVERHEAD_BYTES
    return Cost(peak_bytes=peak, matmul_flops=float(matmul),
                elementwise=float(h * 8 * n * n + groups * 12 * n * n),
                eig_sizes=(n,) * (steps + 1), normals=float(
                    h * n * dK + groups * n * (dK + dV) + 2 * h * n * min(n, dV) + rows * dO),
                operations=float(60 * h + 40 * groups + 30 * steps + 200))


@dataclass(frozen=True)
class ChainDraw:
    """One draw: ascending Gram eigenvalues per step (after ``T_n``), the controls and the
    leading singular value ``s_1(MHA)^2 / n``."""

    spectra: dict[str, np.ndarray]
    controls: dict[str, float]
    outlier: float


def draw(dims: Dims, *, seed: Seed, backend: str | Backend = "numpy",
         dtype: str | None = None) -> ChainDraw:
    """Sample the six steps of the chain (module docstring) once for ``dims``. ``dtype``:
    the precision of the per-head products and of the steps' products with ``W^O``
    (default: the backend's, float64); the 1-2 control's Gram accumulates in float64, and
    each step's Gram and eigenvalues are float64 whatever it (:func:`_spectrum`)."""
    bk = get_backend(backend, dtype)
    xp = bk.xp
    n, h, dV, beta = dims.n, dims.h, dims.dV, float(dims.beta)
    t1, t2 = thetas(beta)
    weights_seq, output_seq, noise_seq = np.random.SeedSequence(seed).spawn(3)
    ngen = bk.generator(noise_seq)
    blocks = {step: bk.empty((n, h * dV)) for step in STEPS}
    e_gram = xp.zeros((n, n))
    mean_sq, frob, max_dev, colmeans = 0.0, [], 0.0, []
    root_f = root_g = root_v = None
    for r, (q, k, v, new) in enumerate(weights(bk, bk.generator(weights_seq), dims)):
        cols = slice(r * dV, (r + 1) * dV)
        s = (q @ k.T) / math.sqrt(dims.dK)
        zeta = xp.exp(beta * s - beta**2 / 2)
        d = zeta.mean(axis=1)
        max_dev = max(max_dev, float(xp.max(xp.abs(d - 1.0))))
        zv = zeta @ v
        vsum = v.sum(axis=0, keepdims=True)
        colmeans.append(vsum / n)
        blocks[STEPS[0]][:, cols] = (zv / d[:, None] - vsum) / n
        blocks[STEPS[1]][:, cols] = (zv - vsum) / n
        if new:
            sigma_k = conditional.key_covariance(k)
            mu = conditional.row_mean(xp, xp.diagonal(sigma_k), beta)
            mu_v = (mu @ v)[None, :] / n
            sf = conditional.sigma_f(xp, sigma_k, beta)
            sg = conditional.sigma_g(xp, sigma_k, beta)
            frob.append(conditional.normalised_frobenius(xp, sf - sg))
            root_f = _sqrtm_psd(xp, v.T @ (sf @ v)) / n
            root_g = _sqrtm_psd(xp, v.T @ (sg @ v)) / n
            root_v = _sqrtm_psd(xp, v.T @ v)
            del sf, sg, sigma_k
        mean_sq += float(mu @ mu)
        blocks[STEPS[2]][:, cols] = blocks[STEPS[1]][:, cols] - mu_v
        g = bk.normal(ngen, (n, root_f.shape[0]))
        blocks[STEPS[3]][:, cols] = g @ root_f
        blocks[STEPS[4]][:, cols] = g @ root_g
        noise = bk.normal(ngen, (n, root_v.shape[0])) @ root_v
        blocks[STEPS[5]][:, cols] = (math.sqrt(t2) * (s @ v) + math.sqrt(t1 - t2) * noise) / n
        zeta -= 1.0 + mu[None, :]  # sqrt(n) Y^f_c, in place
        zeta *= ((1.0 / d - 1.0) / math.sqrt(n))[:, None]
        e_gram += zeta @ zeta.T
        del s, zeta
    w_o = output_weights(bk, bk.generator(output_seq), dims)
    spectra = {}
    for step in STEPS:
        m = blocks.pop(step) @ w_o
        if step == STEPS[0]:
            vbar = xp.concatenate(colmeans, axis=1) @ w_o
            outlier = top_singular_value(xp, m + vbar) ** 2 / n
        spectra[step] = _spectrum(bk, m)
        del m
    controls = {
        "op_norm_1_2": math.sqrt(max(float(solvers(xp).eigvalsh(e_gram)[-1]), 0.0)),
        "max_normalizer_dev": max_dev,
        "mean_op_norm_2_3": math.sqrt(mean_sq),
        "sigma_frob_4_5": float(np.mean(frob)),
    }
    return ChainDraw(spectra, controls, outlier)


def _spectrum(bk: Backend, m: Any) -> np.ndarray:
    """Ascending eigenvalues of ``m m^T``, the Gram in float64 whatever ``m``'s dtype (a
    float32 ``m`` promoted first: the distances between steps are small differences of
    spectra whose small eigenvalues a float32 Gram would move by ``1e-7 ||m||^2``;
    docs/performance.md, "The paper in float32")."""
    if bk.dtype != "float64":
        m = m.astype(bk.xp.float64)
    return bk.eigvalsh(m @ m.T, overwrite=True)


def compare(d: ChainDraw, limits: list[float]) -> dict[str, dict[str, float]]:
    """Per pair of :data:`PAIRS`: relative W1 (over the limiting mean ``limits[0]``), KS
    (numerical zeros as exact zeros) and ``(m_q(a) - m_q(b)) / m_q(limit)``, q = 1..4."""
    out = {}
    for a, b in PAIRS:
        x, y = d.spectra[STEPS[a]], d.spectra[STEPS[b]]
        mx, my = metrics.empirical_moments(x, ORDERS), metrics.empirical_moments(y, ORDERS)
        row = {"rel_w1": metrics.rel_w1(x, y, limits[0]),
               "ks": metrics.ks(x, y, metrics.ZERO_TOLERANCE)}
        for q in range(ORDERS):
            row[f"dm{q + 1}"] = (mx[q] - my[q]) / limits[q]
        out[pair_name((a, b))] = row
    return out


def record(dims: Dims, d: ChainDraw, limits: list[float]) -> dict[str, Any]:
    """The JSON-able result of one draw: distances per pair, controls, outlier."""
    return {"distances": compare(d, limits), "controls": d.controls, "outlier": d.outlier,
            "n": dims.n}


def _store_header(header: dict[str, Any], source: str) -> None:
    identity = header.get("identity")
    if not isinstance(identity, dict) or identity.get("kind") != "chain":
        raise ValueError(f"{source} is not a freege chain store")


def _store_record(payload: dict[str, Any], _context: None) -> str | None:
    """Why a stored chain draw is unusable (None when it is usable): ``point`` ``n=<n>``,
    ``draw`` an integer in [0, MAX_DRAWS), ``status`` ok and a :func:`record` of finite
    numbers whose ``n`` is the point's."""
    from freege.params import MAX_DRAWS
    from freege.validation.sweep.schema import finite_tree_problem

    point, draw, rec = payload.get("point"), payload.get("draw"), payload.get("record")
    if payload.get("type") != "draw" or payload.get("status") != "ok":
        return "not a finished chain draw"
    if not (isinstance(point, str) and point.startswith("n=") and point[2:].isdigit()):
        return f"point must be n=<size> (got {point!r:.40})"
    if isinstance(draw, bool) or not isinstance(draw, int) or not 0 <= draw < MAX_DRAWS:
        return f"draw must be an integer in [0, {MAX_DRAWS}) (got {draw!r:.40})"
    if not isinstance(rec, dict) or not {"distances", "controls", "outlier", "n"} <= set(rec):
        return "record must hold distances, controls, outlier and n"
    if rec["n"] != int(point[2:]):
        return f"record of n = {rec['n']!r:.20} under point {point}"
    return finite_tree_problem(rec)


def store_schema() -> Any:
    """The :class:`freege.validation.sweep.schema.Schema` of a ``freege chain --store``."""
    from freege.validation.sweep.schema import Schema

    return Schema(_store_header, _store_record)


#: the softmax-vs-GE pair, and its noise floor: pair 5-6, two matrices equal in law given
#: the keys, values and W^O (step 6 keeps the queries, step 5 does not), the chain's
#: closest like-for-like pair
COMPARED, FLOOR_PAIR = "1-6", "5-6"
#: the definition of the chain's verdict line
VERDICT_DEFINITION = (f"verdict = pair {COMPARED} (softmax vs GE) against its noise floor, "
                      f"pair {FLOOR_PAIR} (equal in law given keys, values and W^O; step 6 "
                      "keeps the queries, step 5 does not), by the per-draw difference "
                      "(mean ± 95% CI): above the floor when the whole interval is > 0")


def floor_verdict(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The verdict (:mod:`freege.validation.sampling.verdict`) of relative W1 and KS of
    pair :data:`COMPARED` against pair :data:`FLOOR_PAIR`, draw by draw (undecided
    when a record lacks either pair)."""
    if not all({COMPARED, FLOOR_PAIR} <= set(r["distances"]) for r in records):
        return {"decision": "undecided", "comparisons": [],
                "line": f"verdict: undecided (records without pair {COMPARED} or {FLOOR_PAIR})"}
    found = [verdict.compare(label, [r["distances"][COMPARED][key] for r in records],
                             [r["distances"][FLOOR_PAIR][key] for r in records])
             for key, label in (("rel_w1", "relative W1"), ("ks", "KS"))]
    return {"decision": verdict.overall(found), "comparisons": [c.as_dict() for c in found],
            "line": verdict.line(found)}


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean ± Student-t 95% half-width over draws of every distance, control and the
    outlier (``|dm_q|`` are summarised as signed means and as mean absolute values), and
    the :func:`floor_verdict`. A ValueError when a statistic overflows float64 (records
    each finite, their sum or spread not): no overflowed number is reported."""
    def ci(values: list[float]) -> dict[str, float]:
        with np.errstate(over="ignore", invalid="ignore"):
            mean, half = metrics.mean_ci(values)
        if not (math.isfinite(mean) and math.isfinite(half)):
            raise ValueError("a mean or interval of the chain's draws overflows float64; "
                             "their records are not a plausible chain run")
        return {"mean": mean, "ci95": half}

    first = records[0]
    distances = {}
    for pair, row in first["distances"].items():
        distances[pair] = {}
        for key in row:
            vals = [r["distances"][pair][key] for r in records]
            distances[pair][key] = ci(vals)
            if key.startswith("dm"):
                distances[pair][f"abs_{key}"] = ci([abs(v) for v in vals])
    controls = {key: ci([r["controls"][key] for r in records]) for key in first["controls"]}
    outl = [r["outlier"] for r in records]
    return {"draws": len(records), "distances": distances, "controls": controls,
            "outlier": {**ci(outl), "sd": float(np.std(outl, ddof=1))},
            "outlier_values": outl, "verdict": floor_verdict(records)}


def scaled(dims: Dims, n: int) -> Dims:
    """``dims`` at ``n`` tokens with the ratios kept (theory §1.2): dK, dV, dO scale with
    n; a ValueError naming ``n`` when they would not be integers."""
    out = {}
    for name in ("dK", "dV", "dO"):
        value = getattr(dims, name) * n
        if value % dims.n:
            raise ValueError(f"n must keep {name} = {getattr(dims, name)} * n / {dims.n} an "
                             f"integer (got n={n})")
        out[name] = value // dims.n
    return Dims(n=n, h=dims.h, beta=dims.beta, sharing=dims.sharing,
                h_kv=dims.h_kv if dims.sharing == "gqa" else None, **out)


def run(dims: Dims, *, draws: int, seed: int = 0, backend: str | Backend = "numpy",
        done: dict[int, dict[str, Any]] | None = None,
        on_draw: Callable[[int, dict[str, Any]], None] | None = None,
        dtype: str | None = None) -> dict[str, Any]:
    """``draws`` draws (seeds ``(seed, n, i)``) at ``dims`` in ``dtype`` (:func:`draw`),
    summarised; the records in ``done`` (draw index -> record, e.g. read back from a
    store) are reused and ``on_draw(i, record)`` is called after each new draw."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 2:
        raise ValueError(f"draws must be an integer >= 2 for a 95% CI (got {draws!r})")
    from freege.validation.sampling.limits import limiting_moments  # sympy: once per size

    limits = limiting_moments(case_for(dims), dims, ORDERS)
    bk = get_backend(backend, dtype)
    done = dict(done or {})
    for i in range(draws):
        if i not in done:
            done[i] = record(dims, draw(dims, seed=(seed, dims.n, i), backend=bk), limits)
            if on_draw is not None:
                on_draw(i, done[i])
    summary = summarise([done[i] for i in range(draws)])
    summary["limiting_moments"] = limits
    return summary


def rate_fits(sizes: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Log-log fits in n (:func:`freege.validation.sweep.report.loglog_fit`, 95% interval) of
    every distance's mean (``|dm_q|`` as mean absolute values) and control, beside the
    effective exponent of the guaranteed bound over the same sizes
    (:func:`effective_exponent`); ``deviates`` when the fit decays slower than the bound
    beyond its interval (``b - ci95 > bound``). With the outlier's predicted standard
    deviations in ``sizes`` (theory §4.1), also their decay: a prediction, not a bound
    (``deviates`` when outside the interval on either side). Each interval is the wider
    of the fit's (from the scatter of the points about the line) and the sampling one
    (:func:`sampling_halfwidth`: what the draws' own spread allows the exponent): a few
    sizes can lie close to a line by chance, which alone gave intervals far narrower
    than the data support (issue 30: a standard deviation from 6 draws is known to about
    30%)."""
    from freege.validation.sweep.report import loglog_fit

    ns = sorted(sizes)
    first = sizes[ns[0]]
    rows = []

    def cis(label: str, key: str) -> list[float]:
        if label == "control":
            return [sizes[n]["controls"][key]["ci95"] for n in ns]
        return [sizes[n]["distances"][label][key]["ci95"] for n in ns]

    def fit(label: str, key: str, values: list[float], rate: tuple[float, float]) -> None:
        if not all(v > 0 for v in values):
            return
        f = loglog_fit(ns, values)
        bound = effective_exponent(rate, ns)
        draws = [sizes[n]["draws"] for n in ns]
        spread = [ci95 / metrics.t_critical(k - 1) / v
                  for ci95, k, v in zip(cis(label, key), draws, values, strict=True)]
        half = max(f["ci95"], sampling_halfwidth(ns, spread))
        rows.append({"what": label, "metric": key, "kind": "bound", "exponent": f["exponent"],
                     "ci95": half, "guaranteed": bound,
                     "deviates": f["exponent"] - half > bound + SLACK})

    for pair in first["distances"]:
        a, b = (int(x) - 1 for x in pair.split("-"))
        for key in ("rel_w1", "ks", *(f"abs_dm{q}" for q in range(1, ORDERS + 1))):
            fit(pair, key, [sizes[n]["distances"][pair][key]["mean"] for n in ns],
                guaranteed_rate((a, b)))
    for key, rate in CONTROL_RATES.items():
        fit("control", key, [sizes[n]["controls"][key]["mean"] for n in ns], rate)
    if all("predicted_sd" in sizes[n]["outlier"] for n in ns):
        f = loglog_fit(ns, [sizes[n]["outlier"]["sd"] for n in ns])
        pred = loglog_fit(ns, [sizes[n]["outlier"]["predicted_sd"] for n in ns])["exponent"]
        # log of a standard deviation from k normal draws: sd about 1/sqrt(2 (k - 1))
        half = max(f["ci95"], sampling_halfwidth(
            ns, [1 / math.sqrt(2 * (sizes[n]["draws"] - 1)) for n in ns]))
        rows.append({"what": "outlier", "metric": "sd", "kind": "prediction",
                     "exponent": f["exponent"], "ci95": half, "guaranteed": pred,
                     "deviates": abs(f["exponent"] - pred) > half})
    return rows


def sampling_halfwidth(ns: list[int], log_sd: list[float]) -> float:
    """The 95% half-width (normal quantile 1.96) of a least-squares slope of ``log y``
    against ``log n`` when each ``log y_i`` has standard deviation ``log_sd[i]`` from
    sampling alone: ``1.96 sqrt(sum_i w_i^2 log_sd_i^2)`` with the slope's weights
    ``w_i = (x_i - mean x) / sum_j (x_j - mean x)^2``, ``x = log n``."""
    x = np.log(np.asarray(ns, dtype=np.float64))
    w = (x - x.mean()) / float(np.sum((x - x.mean()) ** 2))
    return 1.96 * float(np.sqrt(np.sum(w**2 * np.asarray(log_sd, dtype=np.float64) ** 2)))


def rates_verdict(rows: list[dict[str, Any]]) -> str:
    """The ``verdict:`` line of the decay rates (:func:`rate_fits`)."""
    slow = sorted({f"{r['what']} {r['metric']}" for r in rows
                   if r["deviates"] and r["kind"] == "bound"})
    off = [r for r in rows if r["deviates"] and r["kind"] == "prediction"]
    if not slow and not off:
        return ("verdict: every distance decays at least at its guaranteed rate within its "
                "interval (the outlier's spread as predicted); more sizes or draws narrow the "
                "intervals")
    parts = []
    if slow:
        parts.append(f"decaying slower than guaranteed beyond the interval: {', '.join(slow)}")
    for r in off:
        parts.append(f"outlier sd decays as n^({r['exponent']:+.2f} ± {r['ci95']:.2f}), "
                     f"predicted n^({r['guaranteed']:+.2f})")
    return (f"verdict: {'; '.join(parts)}; try larger n (the bounds are asymptotic: the "
            "smallest sizes can sit before the decay sets in) or more --draws")
