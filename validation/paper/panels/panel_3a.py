"""Panel 3(a), across-head sharing and arrival (theory §6.3 arrival): the time to
relative loss 0.1 against the K/V groups h_kv at fixed widths and at fixed N_par (the
per-head widths grown to the unshared model's parameter count), measured by ``flow``
draws with bootstrap intervals."""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any

from freege.params import Dims
from freege.validation.paper import configs as cf
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import errorbar, integer_ticks
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "3a", "flow"
#: Newton steps counted per resampled arrival time
BOOTSTRAP_STEPS = 20.0
PAPER = {"predicted_fixed_widths_full_sharing": 41.22,
         "measured_fixed_widths_full_sharing": 39.11,
         "predicted_fixed_npar_full_sharing": 7.80,
         "predicted_fixed_npar_full_sharing_rounded": 7.76,
         "measured_fixed_npar_full_sharing": 7.57, "max_gap_percent": 5.14,
         "max_bar_absolute_fixed_widths": 4.43476,
         "max_bar_relative_percent_fixed_widths": 10.425,
         "max_bar_absolute_fixed_npar": 2.75124,
         "max_bar_relative_percent_fixed_npar": 6.486,
         "max_bar_absolute_fixed_npar_shared": 0.40314,
         "max_bar_relative_percent_fixed_npar_shared": 3.365}


def build(s: float) -> list[Config]:
    """Arrival: :func:`setups.arrival_dims` for each of ``setups.ARRIVAL_GROUPS`` at fixed
    widths, and with the per-head widths grown to the scaled h_kv = h model's parameter
    count (:func:`grown_widths`, chosen jointly). The h_kv = h model is the one unshared
    baseline of both paths: measured once, as ``3a/h_kv=64`` (labelled ``path =
    "baseline"``). A grown configuration whose integer widths the integers could not
    keep apart from another's names those h_kv in its label (``same_widths_as``)."""
    out = []
    base = cf.scale_dims(setups.arrival_dims(setups.ARRIVAL_HEADS), s)
    out.append(cf.config(f"3a/h_kv={base.h_kv}", NAME, KIND,
                         cf.record(base, cf.SHAPE_AND_SHARING), path="baseline", h_kv=base.h_kv))
    groups = [h_kv for h_kv in setups.ARRIVAL_GROUPS if h_kv != base.h_kv]
    fixed = {h_kv: cf.scale_dims(setups.arrival_dims(h_kv), s) for h_kv in groups}
    pairs = dict(zip(groups, grown_widths([fixed[h_kv] for h_kv in groups],
                                          base.n_params, s), strict=True))
    for h_kv in groups:
        dims = fixed[h_kv]
        record = cf.record(dims, cf.SHAPE_AND_SHARING)
        out.append(cf.config(f"3a/widths/h_kv={h_kv}", NAME, KIND, record,
                             path="fixed widths", h_kv=h_kv))
        dk, dv = pairs[h_kv]
        same = [k for k in groups if k != h_kv and pairs[k] == pairs[h_kv]]
        out.append(cf.config(f"3a/budget/h_kv={h_kv}", NAME, KIND,
                             {**record, "dK": dk, "dV": dv}, path="fixed N_par", h_kv=h_kv,
                             width=float(setups.grown_width(dims, base.n_params)),
                             n_params=base.n_params, **({"same_widths_as": same} if same
                                                        else {})))
    return out


def grown_widths(configs: list[Dims], n_params: int, s: float) -> list[tuple[int, int]]:
    """Integer widths ``(dK, dV)`` of each configuration for its real width
    :func:`setups.grown_width` that spends ``n_params`` (theory §6.4, 3(a)). At S = 1 the
    paper's: ``dK = dV`` rounded. At S > 1 rounding each alike collapses neighbouring h_kv
    onto one width and leaves the path off its budget, so the widths are chosen jointly:
    each of dK, dV is the floor or the ceiling of its real width, and of all such choices
    the one with the fewest configurations sharing their widths with another, then the
    smallest summed distance of the parameter counts to ``n_params``, then the smallest
    summed ``|dK - dV|``. Configurations that still share widths (more of them than
    integer pairs between their real widths) are the report's to name."""
    widths = [setups.grown_width(dims, n_params) for dims in configs]
    if s == 1:
        return [(round(w), round(w)) for w in widths]
    options = []
    for dims, width in zip(configs, widths, strict=True):
        sides = sorted({max(1, math.floor(width)), max(1, math.ceil(width))})
        options.append([((dk, dv), abs(dataclasses.replace(dims, dK=dk, dV=dv).n_params
                                       - n_params), abs(dk - dv))
                        for dk in sides for dv in sides])

    def rank(choice: tuple[tuple[tuple[int, int], int, int], ...]) -> tuple[int, int, int]:
        chosen = [pair for pair, _, _ in choice]
        return (len(chosen) - len(set(chosen)), sum(off for _, off, _ in choice),
                sum(skew for _, _, skew in choice))

    best = min(itertools.product(*options), key=rank)
    return [pair for pair, _, _ in best]


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Arrival times of both paths; the unshared baseline (one configuration, measured
    once) is a row of each path. Every row's theory is at its own realised widths
    (theory §6.4); the paper's full-scale predictions are set beside freege's only at
    S = 1, where the realised widths are the paper's."""
    rows, incomplete = [], []
    bars: dict[str, list[st.Interval]] = {"fixed widths": [], "fixed N_par": [], "shared": []}
    for c, draws in sm.complete(configs, recs, incomplete):
        theory = th.arrival(c["dims"])
        lam, w = sm.curves(draws)
        iv = st.bootstrap_arrival(lam, w, resamples=opts["resamples"], seed=opts["seed"])
        label = c["label"]
        paths = ("fixed widths", "fixed N_par") if label["path"] == "baseline" else (
            label["path"],)
        for path in paths:
            bars[path].append(iv)
            row = {"path": path, "h_kv": label["h_kv"], "dK": c["dims"]["dK"],
                   "dV": c["dims"]["dV"], "configuration": c["key"],
                   **sm.interval_row(iv, theory)}
            if "width" in label:
                bars["shared"].append(iv)
                row["theory_exact_width"] = th.arrival_at_width(c["dims"], label["width"])
                row["n_params_offset_percent"] = 100 * (
                    Dims(**c["dims"]).n_params / label["n_params"] - 1)
                row["same_widths_as"] = label.get("same_widths_as", [])
            if label["h_kv"] == 1:
                key = "fixed_widths" if path == "fixed widths" else "fixed_npar"
                row["paper"] = PAPER[f"measured_{key}_full_sharing"]
                row["paper_checks"] = [sm.paper_check("arrival time", iv, row["paper"])]
            rows.append(row)
    full = {r["path"]: r for r in rows if r["h_kv"] == 1}
    gap = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    paper_widths = opts.get("scale", 1) == 1
    stats = []
    if "fixed widths" in full:
        stats += [sm.stat("predicted, fixed widths, full sharing",
                          full["fixed widths"]["theory"],
                          PAPER["predicted_fixed_widths_full_sharing"]),
                  sm.stat("measured, fixed widths, full sharing",
                          full["fixed widths"]["measured"],
                          PAPER["measured_fixed_widths_full_sharing"])]
    if "fixed N_par" in full:
        r = full["fixed N_par"]
        stats += [sm.stat("predicted, fixed N_par, full sharing (exact width)",
                          r.get("theory_exact_width"),
                          PAPER["predicted_fixed_npar_full_sharing"]),
                  sm.stat(f"predicted, fixed N_par, full sharing (realised widths dK = "
                          f"{r['dK']}, dV = {r['dV']})", r["theory"],
                          PAPER["predicted_fixed_npar_full_sharing_rounded"] if paper_widths
                          else None),
                  sm.stat("measured, fixed N_par, full sharing", r["measured"],
                          PAPER["measured_fixed_npar_full_sharing"])]
    grown = [r for r in rows if "n_params_offset_percent" in r]
    if grown:
        stats.append(sm.stat("fixed N_par: largest parameter-count offset of the integer "
                             "widths, %", max(abs(r["n_params_offset_percent"]) for r in grown)))
        stats.append(sm.stat("fixed N_par: h_kv whose integer widths coincide (no integer "
                             "widths between their real ones keep them apart)",
                             coinciding(grown)))
    stats.append(sm.stat("largest gap measured vs predicted (realised widths), %", 100 * gap,
                         PAPER["max_gap_percent"]))
    stats += sm.bars(" (fixed widths)", bars["fixed widths"], PAPER, "_fixed_widths")
    stats += sm.bars(" (fixed N_par)", bars["fixed N_par"], PAPER, "_fixed_npar")
    stats += sm.bars(" (six shared fixed-N_par)", bars["shared"], PAPER, "_fixed_npar_shared")
    return {"title": "3(a) arrival time vs K/V groups", "rows": rows, "statistics": stats,
            "incomplete": incomplete,
            "columns": ["path", "h_kv", "dK", "dV", "configuration"]}


def coinciding(rows: list[sm.Row]) -> str:
    """The fixed-N_par rows sharing their realised widths, as ``h_kv = 8, 4, 2 (dK = 1,
    dV = 2)`` groups, or ``none``."""
    groups: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        if r["same_widths_as"]:
            groups.setdefault((r["dK"], r["dV"]), []).append(r["h_kv"])
    return "; ".join(f"h_kv = {', '.join(map(str, sorted(ks, reverse=True)))} (dK = {dk}, "
                     f"dV = {dv})" for (dk, dv), ks in sorted(groups.items())) or "none"


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """Predicted and measured arrival times of both paths against h / h_KV."""
    for k, path in enumerate(("fixed widths", "fixed N_par")):
        rows = sorted((r for r in panel["rows"] if r["path"] == path),
                      key=lambda r: r["h_kv"])
        if not rows:
            continue
        x = [setups.ARRIVAL_HEADS // r["h_kv"] for r in rows]  # h / h_KV, the paper's axis
        ax.plot(x, [r["theory"] for r in rows], color=f"C{k}", marker="s", mfc="none",
                label=f"predicted, {path}")
        # the two paths' points side by side (a log axis: a factor), never on each other
        dodged = [v * (0.94 if k == 0 else 1.06) for v in x]
        errorbar(ax, dodged, rows, color=f"C{k}", label=f"softmax, {path} (bootstrap 95%)")
    # arrival times are positive and span decades between the paths: a log axis
    ax.set(xscale="log", yscale="log",
           xlabel=rf"query heads per K/V group $h / h_{{KV}}$ ($h$ = {setups.ARRIVAL_HEADS})",
           ylabel="arrival time at $L = 0.1$", title="3(a) across-head sharing and arrival")
    integer_ticks(ax, sorted({setups.ARRIVAL_HEADS // r["h_kv"] for r in panel["rows"]}))


def work(configs: list[Config], resamples: int) -> Work:
    """Two arrival times per configuration (realised and exact widths), and the bootstrap:
    ``resamples x draws x n`` per Newton step, :data:`BOOTSTRAP_STEPS` steps."""
    return Work(float(2 * len(configs)),
                sum(BOOTSTRAP_STEPS * resamples * c["draws"] * c["dims"]["n"] for c in configs))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw, setups=("arrival",),
    work=work,
    finite_width_effect="faster decay: measured arrival times below the prediction")
