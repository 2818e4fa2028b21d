"""The paper reproduction's report (theory §6.4): per panel a table of configuration |
theory | measured mean and 95% interval | relative difference | the paper's value, then
the paper's summary statistics beside freege's, as JSON (``report.json``) and Markdown
(``report.md``).

Everything is computed from the store's records (sorted by draw) and the theory at the
realised widths, so a resumed run gives an identical report. A configuration with fewer
than two finished draws is listed as incomplete.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import theory as th
from freege.validation.paper.panels import MEASURED_CURVE_TIMES
from freege.validation.paper.reference import PAPER, TABLE2

Records = dict[str, dict[int, dict[str, Any]]]
Row = dict[str, Any]

BETA_GRID = [float(beta) for beta in setups.TEMPERATURE_BETAS]
#: the dense theory curves the figures draw: 2(a)'s times, 2(b)'s map side, 2(c)'s
#: heads on each path, D.1's density points
THEORY_TIMES = np.geomspace(1e-2, 1e3, 61)
GRID_2B = 36
OUTPUT_PATH_HEADS, BUDGET_PATH_HEADS = np.arange(16, 120.5, 1.0), np.arange(32, 120.5, 1.0)
DENSITY_POINTS = 200


def _draws(config: dict[str, Any], recs: Records) -> list[dict[str, Any]]:
    got = recs.get(config["key"], {})
    return [got[i] for i in sorted(got) if i < config["draws"]]


def _complete(configs: list[dict[str, Any]], recs: Records, incomplete: list[str],
              least: int = 2) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each configuration with at least ``least`` draws in the store, with its draws; the
    keys of the others are appended to ``incomplete`` (the report lists them)."""
    for c in configs:
        draws = _draws(c, recs)
        if len(draws) < least:
            incomplete.append(c["key"])
            continue
        yield c, draws


def _rel(measured: float, theory: float) -> float:
    return (measured - theory) / theory if theory else math.nan


def _interval_row(iv: st.Interval, theory: float) -> Row:
    return {"measured": iv.estimate, "low": iv.low, "high": iv.high, "bar": iv.bar,
            "theory": theory, "relative_difference": _rel(iv.estimate, theory)}


def _stat(name: str, value: Any, paper: Any = None) -> Row:
    return {"statistic": name, "freege": value, "paper": paper}


def _bars(name: str, intervals: list[st.Interval], panel: str, suffix: str = "") -> list[Row]:
    b = st.largest_bars(intervals)
    ref = PAPER.get(panel, {})
    return [_stat(f"maximum error bar, absolute{name}", b["absolute"],
                  ref.get(f"max_bar_absolute{suffix}")),
            _stat(f"maximum error bar, relative %{name}", 100 * b["relative"],
                  ref.get(f"max_bar_relative_percent{suffix}"))]


def _curves(draws: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    lam = np.array([d["values"][0]["eigenvalues"] for d in draws])
    w = np.array([d["values"][0]["weights"] for d in draws])
    return lam, w


def panel_2a(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    """Learning curves: measured points and their statistics at the paper's plotted times
    (:data:`freege.validation.paper.panels.MEASURED_CURVE_TIMES`, through t = 100: its
    Table D.1 bars are over those times), the theory curve from 0.01 to 1000."""
    rows, bars, diffs, incomplete = [], [], [], []
    for c, draws in _complete(configs, recs, incomplete):
        theory = th.loss(c["dims"], list(MEASURED_CURVE_TIMES))
        lam, w = _curves(draws)
        for t, lim in zip(MEASURED_CURVE_TIMES, theory, strict=True):
            per_draw = np.sum(w * np.exp(-2.0 * t * np.clip(lam, 0, None)), axis=1)
            iv = st.student(per_draw)
            bars.append(iv)
            diffs.append(abs(iv.estimate - lim))
            paper = (f"{PAPER['2a']['h128_t100_mean']} ± {PAPER['2a']['h128_t100_half_width']}"
                     if (c["label"]["h"], t) == (128, 100.0) else None)
            rows.append({"h": c["label"]["h"], "t": t, **_interval_row(iv, lim),
                         "paper": paper})
    stats = [_stat("largest |measured - limit|", max(diffs, default=math.nan),
                   "< 0.003")]
    pick = [r for r in rows if r["h"] == 128 and r["t"] == 100.0]
    if pick:
        stats += [_stat("mean loss at h = 128, t = 100", pick[0]["measured"],
                        PAPER["2a"]["h128_t100_mean"]),
                  _stat("its 95% half-width", pick[0]["bar"],
                        PAPER["2a"]["h128_t100_half_width"])]
    stats += _bars("", bars, "2a")
    curves = {f"h = {c['label']['h']}": {"t": list(THEORY_TIMES),
                                         "loss": th.loss(c["dims"], list(THEORY_TIMES))}
              for c in configs}
    return {"title": "2(a) learning curves", "rows": rows, "statistics": stats,
            "curves": curves, "incomplete": incomplete,
            "columns": ["h", "t"]}


def panel_2b(opts: dict[str, Any]) -> dict:
    n, dk = setups.N, setups.HEAD_WIDTH  # theory only: the ratios at the paper's widths
    heads = np.linspace(8, 126, opts.get("grid_2b", GRID_2B)) + 0.37
    g_outs = np.geomspace(0.125, 6.0, opts.get("grid_2b", GRID_2B) - 6)
    grid = th.map_2b(n, dk, heads, g_outs)
    path_h = np.arange(16, 121, 2.0)
    budget_h = np.arange(32, 121, 2.0)
    g = dk / n
    g_out = setups.FIXED_OUTPUT_WIDTH / setups.N  # the fixed-output path
    stats = [_stat("fixed budget, h = 64 (h dV = n)", th.ridge_ratios(64, 64 * g, 64 * g,
                                                                      6 / (64 * g) - 3)),
             _stat("fixed budget, h = 96 (dO = n)", th.ridge_ratios(96, 96 * g, 96 * g,
                                                                    6 / (96 * g) - 3)),
             _stat("fixed output dO = n/2, h = 32 (h dV = dO)",
                   th.ridge_ratios(32, 32 * g, 32 * g, g_out))]
    return {"title": "2(b) limiting error over head count and output width", "rows": [],
            "statistics": stats, "incomplete": [], "columns": [],
            "map": {"n": n, "dK": dk, "heads": heads.tolist(), "gO": g_outs.tolist(),
                    "error": grid.tolist()},
            "paths": {"fixed output": {"h": path_h.tolist(),
                                       "gO": [g_out] * len(path_h)},
                      "fixed budget": {"h": budget_h.tolist(),
                                       "gO": [6 * n / (h * dk) - 3 for h in budget_h]}}}


def panel_2c(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    rows, bars, incomplete = [], [], []
    for c, draws in _complete(configs, recs, incomplete):
        theory = th.ridge(c["dims"])
        iv = st.student([d["values"][0]["error"] for d in draws])
        bars.append(iv)
        rows.append({"path": c["label"]["path"], "h": c["label"]["h"], "dO": c["dims"]["dO"],
                     **_interval_row(iv, theory)})
    worst = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    stats = [_stat("largest relative difference measured vs GE, %", 100 * worst,
                   PAPER["2c"]["max_relative_difference_percent"])] + _bars("", bars, "2c")
    n, dk = configs[0]["dims"]["n"], configs[0]["dims"]["dK"]
    d_out = next(c["dims"]["dO"] for c in configs if c["label"]["path"] == "fixed output")
    hs_out, hs_budget = OUTPUT_PATH_HEADS, BUDGET_PATH_HEADS
    curves = {"fixed output": {"h": hs_out.tolist(),
                               "error": th.fixed_output_curve(n, dk, d_out, hs_out)},
              "fixed budget": {"h": hs_budget.tolist(),
                               "error": th.fixed_budget_curve(n, dk, hs_budget)}}
    return {"title": "2(c) fixed output vs fixed budget", "rows": rows, "statistics": stats,
            "curves": curves, "incomplete": incomplete, "columns": ["path", "h", "dO"],
            "boundaries": {"h dV = n": n / dk, "dO = n (fixed budget)": 1.5 * n / dk,
                           "h dV = dO (fixed output)": d_out / dk}}


def panel_2d(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    cx = next(c for c in configs if c["label"]["allocation"] == "(128,128)")
    cy = next(c for c in configs if c["label"]["allocation"] == "(64,192)")
    dx, dy = _draws(cx, recs), _draws(cy, recs)
    paired = sorted(set(d["draw"] for d in dx) & set(d["draw"] for d in dy))
    rows, bars = [], []
    incomplete = [] if len(paired) >= 2 else [cx["key"], cy["key"]]
    if not incomplete:
        bx = {d["draw"]: d for d in dx}
        by = {d["draw"]: d for d in dy}
        for k, beta in enumerate(cx["betas"]):
            x = [bx[i]["values"][k]["error"] for i in paired]
            y = [by[i]["values"][k]["error"] for i in paired]
            iv = st.fieller(x, y)
            bars.append(iv)
            rows.append({"beta": beta, "error_128_128": float(np.mean(x)),
                         "error_64_192": float(np.mean(y)),
                         **_interval_row(iv, th.temperature_ratio(cx["dims"], cy["dims"],
                                                                  beta))})
    worst = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    ratio_curve = [th.temperature_ratio(cx["dims"], cy["dims"], b) for b in BETA_GRID]
    cross = None
    for lo, hi, r0, r1 in zip(BETA_GRID, BETA_GRID[1:], ratio_curve, ratio_curve[1:],
                              strict=False):
        if (r0 - 1) * (r1 - 1) <= 0:
            cross = th.crossover(cx["dims"], cy["dims"], lo, hi)
            break
    betas = [r["beta"] for r in rows]
    stats = [_stat("largest relative difference over the six ratios, %", 100 * worst,
                   PAPER["2d"]["max_relative_difference_percent"]),
             _stat("crossover beta_c (theory, realised widths, exact)", cross,
                   PAPER["2d"]["crossover_beta"]),
             _stat("crossover beta_c (measured ratios, linear interpolation)",
                   _linear_crossing(betas, [r["measured"] for r in rows])),
             _stat("crossover beta_c (theory ratios, the same interpolation on the same "
                   "betas)", _linear_crossing(betas, [r["theory"] for r in rows]))]
    stats += _bars("", bars, "2d")
    return {"title": "2(d) temperature and Q/K-V allocation: E(64,192) / E(128,128)",
            "rows": rows, "statistics": stats, "incomplete": incomplete,
            "columns": ["beta", "error_128_128", "error_64_192"],
            "curves": {"theory": {"beta": BETA_GRID, "ratio": ratio_curve}},
            "crossover": cross}


def _linear_crossing(x: list[float], y: list[float]) -> float | None:
    """Where the piecewise-linear interpolation of ``y`` over ``x`` first crosses 1 (None
    when it does not): how 2(d)'s crossing is read off six measured ratios, so the
    theory's ratios at the same betas are read off the same way beside it."""
    for x0, x1, y0, y1 in zip(x, x[1:], y, y[1:], strict=False):
        if (y0 - 1) * (y1 - 1) <= 0 and y1 != y0:
            return x0 + (1 - y0) * (x1 - x0) / (y1 - y0)
    return None


def panel_3a(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    """Arrival times of both paths; the unshared baseline (one configuration, measured
    once) is a row of each path. Every row's theory is at its own realised widths
    (theory §6.4); the paper's full-scale predictions are set beside freege's only at
    S = 1, where the realised widths are the paper's."""
    rows, incomplete = [], []
    bars: dict[str, list[st.Interval]] = {"fixed widths": [], "fixed N_par": [], "shared": []}
    for c, draws in _complete(configs, recs, incomplete):
        theory = th.arrival(c["dims"])
        lam, w = _curves(draws)
        iv = st.bootstrap_arrival(lam, w, resamples=opts["resamples"], seed=opts["seed"])
        label = c["label"]
        paths = ("fixed widths", "fixed N_par") if label["path"] == "baseline" else (
            label["path"],)
        for path in paths:
            bars[path].append(iv)
            row = {"path": path, "h_kv": label["h_kv"], "dK": c["dims"]["dK"],
                   "dV": c["dims"]["dV"], "configuration": c["key"],
                   **_interval_row(iv, theory)}
            if "width" in label:
                bars["shared"].append(iv)
                row["theory_exact_width"] = th.arrival_at_width(c["dims"], label["width"])
                row["n_params_offset_percent"] = 100 * (
                    Dims(**c["dims"]).n_params / label["n_params"] - 1)
                row["same_widths_as"] = label.get("same_widths_as", [])
            if label["h_kv"] == 1:
                key = "fixed_widths" if path == "fixed widths" else "fixed_npar"
                row["paper"] = PAPER["3a"][f"measured_{key}_full_sharing"]
            rows.append(row)
    full = {r["path"]: r for r in rows if r["h_kv"] == 1}
    gap = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    ref = PAPER["3a"]
    paper_widths = opts.get("scale", 1) == 1
    stats = []
    if "fixed widths" in full:
        stats += [_stat("predicted, fixed widths, full sharing", full["fixed widths"]["theory"],
                        ref["predicted_fixed_widths_full_sharing"]),
                  _stat("measured, fixed widths, full sharing",
                        full["fixed widths"]["measured"],
                        ref["measured_fixed_widths_full_sharing"])]
    if "fixed N_par" in full:
        r = full["fixed N_par"]
        stats += [_stat("predicted, fixed N_par, full sharing (exact width)",
                        r.get("theory_exact_width"), ref["predicted_fixed_npar_full_sharing"]),
                  _stat(f"predicted, fixed N_par, full sharing (realised widths dK = {r['dK']}, "
                        f"dV = {r['dV']})", r["theory"],
                        ref["predicted_fixed_npar_full_sharing_rounded"] if paper_widths
                        else None),
                  _stat("measured, fixed N_par, full sharing", r["measured"],
                        ref["measured_fixed_npar_full_sharing"])]
    grown = [r for r in rows if "n_params_offset_percent" in r]
    if grown:
        stats.append(_stat("fixed N_par: largest parameter-count offset of the integer "
                           "widths, %", max(abs(r["n_params_offset_percent"]) for r in grown)))
        stats.append(_stat("fixed N_par: h_kv whose integer widths coincide (no integer "
                           "widths between their real ones keep them apart)",
                           _coinciding(grown)))
    stats.append(_stat("largest gap measured vs predicted (realised widths), %", 100 * gap,
                       ref["max_gap_percent"]))
    stats += _bars(" (fixed widths)", bars["fixed widths"], "3a", "_fixed_widths")
    stats += _bars(" (fixed N_par)", bars["fixed N_par"], "3a", "_fixed_npar")
    stats += _bars(" (six shared fixed-N_par)", bars["shared"], "3a", "_fixed_npar_shared")
    return {"title": "3(a) arrival time vs K/V groups", "rows": rows, "statistics": stats,
            "incomplete": incomplete,
            "columns": ["path", "h_kv", "dK", "dV", "configuration"]}


def _coinciding(rows: list[Row]) -> str:
    """The fixed-N_par rows sharing their realised widths, as ``h_kv = 8, 4, 2 (dK = 1,
    dV = 2)`` groups, or ``none``."""
    groups: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        if r["same_widths_as"]:
            groups.setdefault((r["dK"], r["dV"]), []).append(r["h_kv"])
    return "; ".join(f"h_kv = {', '.join(map(str, sorted(ks, reverse=True)))} (dK = {dk}, "
                     f"dV = {dv})" for (dk, dv), ks in sorted(groups.items())) or "none"


def panel_3b(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    rows, bars, incomplete, excludes = [], [], [], []
    heads = sorted({c["label"]["h"] for c in configs})
    for h in heads:
        pair = {c["label"]["scheme"]: c for c in configs if c["label"]["h"] == h}
        dg, dt = _draws(pair["GQA"], recs), _draws(pair["tied"], recs)
        common = sorted(set(d["draw"] for d in dg) & set(d["draw"] for d in dt))
        if len(common) < 2:
            incomplete += [pair["GQA"]["key"], pair["tied"]["key"]]
            continue
        eg = [d["values"][0]["error"] for d in dg if d["draw"] in common]
        et = [d["values"][0]["error"] for d in dt if d["draw"] in common]
        tg, tt = th.ridge(pair["GQA"]["dims"]), th.ridge(pair["tied"]["dims"])
        for scheme, values, theory in (("GQA", eg, tg), ("tied", et, tt)):
            iv = st.student(values)
            bars.append(iv)
            rows.append({"h": h, "scheme": scheme, **_interval_row(iv, theory)})
        diff = st.paired_difference(et, eg)
        excludes.append(diff.low > 0 or diff.high < 0)
        rows.append({"h": h, "scheme": "tied - GQA", **_interval_row(diff, tt - tg)})
    errs = [r for r in rows if r["scheme"] != "tied - GQA"]
    worst = max((abs(r["relative_difference"]) for r in errs), default=math.nan)
    stats = [_stat("largest relative difference softmax vs GE, %", 100 * worst,
                   PAPER["3b"]["max_relative_difference_percent"]),
             _stat("difference intervals excluding zero", f"{sum(excludes)} of {len(excludes)}",
                   "5 of 5")] + _bars("", bars, "3b")
    return {"title": "3(b) across-head (GQA) vs within-head (tied) sharing", "rows": rows,
            "statistics": stats, "incomplete": incomplete, "columns": ["h", "scheme"]}


#: the row fields of the paper's Table 2 values (:data:`reference.TABLE2`'s order; None
#: for a preset the paper does not list), which the figure sets beside the measured ones
TABLE2_PAPER_FIELDS = ("paper_rel_w1_percent", "paper_rel_w1_half_width", "paper_ks",
                       "paper_ks_half_width")


#: the one-line explanation of the ``--finite-width`` columns of Table 2
TABLE2_ROW_N_NOTE = (
    "ge-row-n columns (`--finite-width`): softmax against the conditional Gaussian "
    "equivalent whose rows carry their own finite-n coefficient theta1_i from the drawn "
    "queries (same weights and seed as the GE columns; theory §2.3): the finite-width "
    "correction that halves the softmax-vs-GE gap in docs/findings-finite-width.md.")


def panel_table2(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    """Table 2 (theory §6.1): per preset the mean relative W1 (in %) and KS of softmax
    against its GE with 95% Student-t half-widths; for a ``finite_width`` configuration
    also against ``ge-row-n`` (theory §2.3), fields prefixed ``row_n_``."""
    rows, incomplete = [], []
    for c, draws in _complete(configs, recs, incomplete):
        w1 = st.student([100 * d["rel_w1"] for d in draws])
        ks = st.student([d["ks"] for d in draws])
        paper = TABLE2.get(c["label"]["preset"])
        row_n = {}
        if c.get("finite_width"):
            rw1 = st.student([100 * d["ge_row_n"]["rel_w1"] for d in draws])
            rks = st.student([d["ge_row_n"]["ks"] for d in draws])
            row_n = {"row_n_rel_w1_percent": rw1.estimate, "row_n_rel_w1_half_width": rw1.bar,
                     "row_n_ks": rks.estimate, "row_n_ks_half_width": rks.bar}
        rows.append({"preset": c["label"]["preset"], "n": c["dims"]["n"],
                     "rel_w1_percent": w1.estimate, "rel_w1_half_width": w1.bar,
                     "ks": ks.estimate, "ks_half_width": ks.bar, **row_n,
                     "paper": None if paper is None else
                     f"{paper[0]} ± {paper[1]} % / {paper[2]} ± {paper[3]}",
                     **dict(zip(TABLE2_PAPER_FIELDS, paper or (None,) * 4, strict=True))})
    return {"title": "table 2: softmax vs GE at published dimensions (theory §6.1)",
            "rows": rows, "statistics": [], "incomplete": incomplete, "columns": ["preset"]}


def panel_d1(configs: list[dict[str, Any]], recs: Records, opts: dict[str, Any]) -> dict:
    spectra, incomplete = [], []
    for c, draws in _complete(configs, recs, incomplete, least=1):
        eigs = np.array(draws[0]["values"][0]["eigenvalues"])
        top = float(np.quantile(eigs, 0.995)) * 1.2
        x = np.linspace(top / 400, top, DENSITY_POINTS)
        dens, atom = th.density(c["dims"], x)
        spectra.append({"facet": c["label"]["facet"], "name": c["label"]["name"],
                        "eigenvalues": eigs.tolist(), "x": x.tolist(), "density": dens.tolist(),
                        "atom": atom, "measured_atom": float(np.mean(eigs < 1e-8 * eigs.max()))})
    rows = [{"facet": s["facet"], "name": s["name"], "theory": s["atom"],
             "measured": s["measured_atom"], "low": None, "high": None, "bar": None,
             "relative_difference": None} for s in spectra]
    return {"title": "D.1 spectra: limiting densities over sampled histograms (atom at 0 "
            "in the table)", "rows": rows, "statistics": [], "incomplete": incomplete,
            "columns": ["facet", "name"], "spectra": spectra}


SUMMARIES: dict[str, Callable[..., dict]] = {
    "2a": panel_2a, "2c": panel_2c, "2d": panel_2d, "3a": panel_3a, "3b": panel_3b,
    "table2": panel_table2, "d1": panel_d1,
}


#: below this per-head key width the report flags a panel: finite-width bias then
#: exceeds 10 % of theta1 at beta = 1 (theory §6.4, finite width)
NARROW_HEAD = 16
#: what the finite-width excess of theta1 does to each measured panel's statistic
#: (theory §6.4, finite width)
FINITE_WIDTH_EFFECT: dict[str, str] = {
    "2a": "features larger than mean one: the curves decay faster, losses below the limit",
    "2c": "features larger than mean one against a fixed ridge: errors below the limit",
    "2d": "both allocations biased, the smaller dK more: the ratio's bias has no fixed sign",
    "3a": "faster decay: measured arrival times below the prediction",
    "3b": "features larger than mean one against a fixed ridge: errors below the limit",
    "table2": "the GE's scalar theta1 misses the per-row spread: the distance grows",
    "d1": "the sampled bulk lies right of the limiting density",
}


def finite_width(panel: str, configs: list[dict[str, Any]]) -> dict[str, Any]:
    """What finite width does to ``panel`` at this scale (theory §6.4, finite width): its
    realised per-head widths ``dK x dV``, the excess of the mean per-row theta1 at its
    smallest dK and largest beta (:func:`freege.validation.paper.theory.theta1_excess`),
    the direction it pushes the panel's statistic, and ``narrow``: smallest dK below
    :data:`NARROW_HEAD`."""
    widths = sorted({(c["dims"]["dK"], c["dims"]["dV"]) for c in configs})
    dk = min(k for k, _ in widths)
    beta = max(max(c["betas"]) for c in configs)
    return {"widths": [f"{k}x{v}" for k, v in widths], "smallest_dK": dk, "beta": beta,
            "theta1_excess_percent": 100 * th.theta1_excess(dk, beta),
            "effect": FINITE_WIDTH_EFFECT[panel], "narrow": dk < NARROW_HEAD}


def work(panels: list[str], configs: list[dict[str, Any]], resamples: int
         ) -> dict[str, float]:
    """The report's work, for the run's estimate (a model, not a measurement): ``limits``,
    the limit evaluations its tables and theory curves make (a ridge error, a loss at one
    time, an arrival time, a density point counted alike; 2(d)'s crossover counted as 40,
    a root search's evaluations); ``bootstrap``, the elementwise work of 3(a)'s resampled
    arrival times (``resamples x draws x n`` per Newton step, about 20 steps); and
    ``figures``, one per panel. :func:`rates` prices them on this machine."""
    limits = bootstrap = 0.0
    for panel in panels:
        mine = [c for c in configs if c["panel"] == panel]
        per_config = {"2a": len(MEASURED_CURVE_TIMES) + len(THEORY_TIMES), "2c": 1,
                      "3a": 2, "3b": 1, "d1": DENSITY_POINTS}.get(panel, 0)
        limits += per_config * len(mine)
        if panel == "2d":  # each measured beta's ratio: one ridge error per allocation
            limits += sum(len(c["betas"]) for c in mine)
        limits += {"2b": GRID_2B * (GRID_2B - 6) + 3,
                   "2c": len(OUTPUT_PATH_HEADS) + len(BUDGET_PATH_HEADS),
                   "2d": 2 * len(BETA_GRID) + 40}.get(panel, 0)
        if panel == "3a":
            bootstrap += sum(20.0 * resamples * c["draws"] * c["dims"]["n"] for c in mine)
    return {"limits": limits, "bootstrap": bootstrap, "figures": float(len(panels))}


def rates(folder: Any) -> dict[str, float]:
    """Seconds per unit of :func:`work` on this machine now, measured (about a second):
    one limit evaluation (a ridge error at ratios no run uses, its law built afresh) and
    one figure (a small plot saved as PDF and PNG into ``folder``, then removed)."""
    import time

    from freege import plotting

    start = time.perf_counter()
    th.ridge_ratios(50.5, 0.7712, 0.7712, 1.3031)
    limit = time.perf_counter() - start
    start = time.perf_counter()
    fig = plotting._figure_class()(figsize=(7.5, 5.0))
    fig.add_subplot().plot(THEORY_TIMES, THEORY_TIMES)
    for ext in ("pdf", "png"):
        path = folder / f".freege-rate.{ext}"
        plotting.save(fig, path)
        path.unlink()
    return {"limits": limit, "figures": time.perf_counter() - start}


def build(panels: list[str], configs: list[dict[str, Any]], recs: Records,
          meta: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """The report of ``panels`` from the records (``meta``: scale, seed, draws,
    backend; ``opts``: resamples, seed and the 2(b) grid; the scale is added to it)."""
    out = {**meta, "note": _note(meta["scale"]), "panels": {}}
    opts = {**opts, "scale": meta["scale"]}
    for panel in panels:
        if panel == "2b":
            out["panels"][panel] = panel_2b(opts)
        else:
            mine = [c for c in configs if c["panel"] == panel]
            out["panels"][panel] = {**SUMMARIES[panel](mine, recs, opts),
                                    "finite_width": finite_width(panel, mine)}
    return out


def _note(scale: float) -> str:
    if scale == 1:
        return "S = 1: the paper's dimensions."
    return (f"S = {scale:g}: n, d, dK, dV, dO divided by {scale:g} (h, beta unchanged; theory "
            "at the realised widths). Agreement statistics at S > 1 carry finite-size bias "
            "and are not the paper's numbers.")


def to_json(report: dict[str, Any]) -> str:
    """Deterministic JSON (NaN written as null)."""
    return json.dumps(_clean(report), indent=1, sort_keys=True, allow_nan=False) + "\n"


def _clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer | np.bool_):
        return x.item()
    return x


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float | np.floating):
        return "" if not math.isfinite(x) else f"{x:.5g}"
    return str(x)


def to_markdown(report: dict[str, Any]) -> str:
    """``report.md``: the run's parameters, then per panel its table and statistics."""
    lines = ["# freege reproduce paper", "",
             f"scale S = {report['scale']:g}, draws = {report['draws']}, seed = "
             f"{report['seed']}, target seed = {report['target_seed']}, bootstrap resamples "
             f"= {report['resamples']} (seed {report['seed']}), backend = "
             f"{report['backend']}, beta = 1, lam = 1e-4, sigma2 = 0.1 unless varied.", "",
             report["note"], "",
             "Columns: theory at the realised widths; measured mean with its 95% interval "
             "(Student-t; Fieller for 2(d) ratios; bootstrap percentiles for 3(a)); "
             "relative difference (measured - theory) / theory. The paper's column holds "
             "only the values the paper states.", ""]
    for name, panel in report["panels"].items():
        lines += [f"## {panel['title']}", "", f"Figure: `panel_{name}.pdf` / "
                  f"`panel_{name}.png`.", ""]
        if "finite_width" in panel:
            lines += [_finite_width_line(panel["finite_width"]), ""]
        if panel["rows"]:
            lines += _table(panel)
        if panel["statistics"]:
            lines += ["", "| statistic | freege | paper |", "|---|---|---|"]
            lines += [f"| {s['statistic']} | {_fmt(s['freege'])} | {_fmt(s['paper'])} |"
                      for s in panel["statistics"]]
        if panel["incomplete"]:
            lines += ["", f"Incomplete (fewer than 2 finished draws): "
                      f"{', '.join(panel['incomplete'])}."]
        lines.append("")
    return "\n".join(lines)


def _finite_width_line(fw: dict[str, Any]) -> str:
    excess = fw["theta1_excess_percent"]
    size = ("without bound (its chi2 mean diverges)" if not math.isfinite(excess)
            else f"by {excess:.3g} %")
    flag = (f"**dK = {fw['smallest_dK']} < {NARROW_HEAD}: finite width dominates this "
            "panel's differences.** " if fw["narrow"] else "")
    return (f"{flag}Per-head widths dK x dV at this scale: {', '.join(fw['widths'])}. Finite "
            f"width (theory §6.4): the mean per-row theta1 at dK = {fw['smallest_dK']}, "
            f"beta = {fw['beta']:g} exceeds the limit's {size}; {fw['effect']}.")


def _table(panel: dict[str, Any]) -> list[str]:
    cols = panel["columns"]
    if panel["title"].startswith("table 2"):
        return _table2(panel["rows"])
    out = ["| " + " | ".join(cols) + " | theory | measured [95% interval] | rel. diff. | "
           "paper (measured, S = 1) |", "|" + "---|" * (len(cols) + 4)]
    for r in panel["rows"]:
        interval = "" if r.get("low") is None else f" [{_fmt(r['low'])}, {_fmt(r['high'])}]"
        out.append("| " + " | ".join(_fmt(r[c]) for c in cols) + f" | {_fmt(r['theory'])} | "
                   f"{_fmt(r['measured'])}{interval} | {_fmt(r['relative_difference'])} | "
                   f"{_fmt(r.get('paper'))} |")
    return out


def _table2(rows: list[dict[str, Any]]) -> list[str]:
    """Table 2's Markdown: mean ± 95% half-width per preset, the ``ge-row-n`` columns
    beside the GE's when the rows carry them (with :data:`TABLE2_ROW_N_NOTE` above)."""
    row_n = any("row_n_ks" in r for r in rows)
    extra = " ge-row-n rel W1 % | ge-row-n KS |" if row_n else ""
    out = [TABLE2_ROW_N_NOTE, ""] if row_n else []
    out += [f"| preset | n | rel W1 % | KS |{extra} paper (rel W1 % / KS) |",
            "|---|---|---|---|" + "---|---|" * row_n + "---|"]
    for r in rows:
        cells = [r["preset"], r["n"],
                 f"{r['rel_w1_percent']:.3g} ± {r['rel_w1_half_width']:.2g}",
                 f"{r['ks']:.3g} ± {r['ks_half_width']:.2g}"]
        if row_n:
            cells += ([f"{r['row_n_rel_w1_percent']:.3g} ± {r['row_n_rel_w1_half_width']:.2g}",
                       f"{r['row_n_ks']:.3g} ± {r['row_n_ks_half_width']:.2g}"]
                      if "row_n_ks" in r else ["", ""])
        out.append("| " + " | ".join(map(str, cells)) + f" | {r['paper'] or ''} |")
    return out
