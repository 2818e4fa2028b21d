"""Panel 3(b), across-head (GQA) against within-head (tied) sharing (theory §6.3
sharing): the coefficient errors of both schemes over head count at h dK = 2048 and their
paired difference, measured by ``ridge`` draws (one group per h: they share their
weights)."""

from __future__ import annotations

import math
from typing import Any

from freege.validation.paper import configs as cf
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import errorbar, integer_ticks
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "3b", "ridge"
PAPER = {"max_relative_difference_percent": 0.75, "max_bar_absolute": 0.03015,
         "max_bar_relative_percent": 1.182}
#: the paper: "difference intervals exclude zero at all five h"
PAPER_EXCLUDING_ZERO = "5 of 5"
#: the theory curves' tolerance (:func:`freege.validation.paper.theory.refined_curve`):
#: they span a tenth of the axes' decades, so a hundredth of their range is below a pixel
CURVE_TOLERANCE = 1e-2
#: about the points of both theory curves
CURVE_POINTS = 34


def build(s: float) -> list[Config]:
    """Sharing: the GQA and tied configurations of :func:`setups.sharing_dims` for each of
    ``setups.SHARING_HEADS``."""
    out = []
    for h in setups.SHARING_HEADS:
        dims = setups.sharing_dims(h)
        out.append(cf.config(f"3b/gqa/h={h}", NAME, KIND,
                             cf.record(cf.scale_dims(dims["gqa"], s), cf.SHAPE_AND_SHARING),
                             group=f"3b/h={h}", scheme="GQA", h=h))
        out.append(cf.config(f"3b/tied/h={h}", NAME, KIND,
                             cf.record(cf.scale_dims(dims["tied"], s), (*cf.SHAPE, "sharing")),
                             group=f"3b/h={h}", scheme="tied", h=h))
    return out


def theory_curve(configs: list[Config]) -> dict[str, list[float]] | None:
    """One scheme's limit over real h between its measured heads, refined where it bends
    in log h and log E, when its configurations' ratios differ in h only (h dK is fixed:
    the curve passes through each configuration's limit); None when the realised widths'
    rounding changes them (a large scale), where the figure joins the limits instead."""
    ratios = [th.ratios(c["dims"]) for c in configs]
    if len({(r.beta, r.gK, r.gV, r.gO, r.sharing) for r in ratios}) != 1:
        return None
    r = ratios[0]
    heads = {math.log(x.h): x.h for x in ratios}  # the measured heads exactly

    def head(u: float) -> Any:
        return heads.get(u, math.exp(u))

    log_h, error = th.refined_curve(
        lambda u: th.ridge_ratios(head(u), r.gK, r.gV, r.gO, r.beta, r.sharing),
        sorted(heads), log_y=True, tolerance=CURVE_TOLERANCE)
    return {"h": [float(head(u)) for u in log_h], "error": error}


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Per h, each scheme's errors over the draws both finished against their limits, the
    paired difference tied - GQA, and each scheme's theory curve (:func:`theory_curve`)."""
    rows, bars, incomplete, excludes = [], [], [], []
    heads = sorted({c["label"]["h"] for c in configs})
    for h in heads:
        pair = {c["label"]["scheme"]: c for c in configs if c["label"]["h"] == h}
        dg, dt = sm.draws(pair["GQA"], recs), sm.draws(pair["tied"], recs)
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
            rows.append({"h": h, "scheme": scheme, **sm.interval_row(iv, theory)})
        diff = st.paired_difference(et, eg)
        excludes.append(diff.low > 0 or diff.high < 0)
        rows.append({"h": h, "scheme": "tied - GQA", **sm.interval_row(diff, tt - tg)})
    errs = [r for r in rows if r["scheme"] != "tied - GQA"]
    worst = max((abs(r["relative_difference"]) for r in errs), default=math.nan)
    stats = [sm.stat("largest relative difference softmax vs GE, %", 100 * worst,
                     PAPER["max_relative_difference_percent"]),
             sm.stat("difference intervals excluding zero",
                     f"{sum(excludes)} of {len(excludes)}", PAPER_EXCLUDING_ZERO)
             ] + sm.bars("", bars, PAPER)
    curves = {scheme: theory_curve([c for c in configs if c["label"]["scheme"] == scheme])
              for scheme in ("GQA", "tied")}
    return {"title": "3(b) across-head (GQA) vs within-head (tied) sharing", "rows": rows,
            "statistics": stats, "incomplete": incomplete, "columns": ["h", "scheme"],
            "curves": {k: v for k, v in curves.items() if v is not None}}


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """Each scheme's theory curve (or its limits joined) and measured errors over h."""
    for k, scheme in enumerate(("GQA", "tied")):
        rows = [r for r in panel["rows"] if r["scheme"] == scheme]
        if not rows:
            continue
        x = [r["h"] for r in rows]
        curve = panel.get("curves", {}).get(scheme)
        if curve:
            ax.plot(curve["h"], curve["error"], color=f"C{k}", label=f"theory, {scheme}")
        else:
            ax.plot(x, [r["theory"] for r in rows], color=f"C{k}", marker=".",
                    label=f"theory, {scheme}")
        # the two schemes' points side by side (a log axis: a factor), never on each other
        errorbar(ax, [v * (0.95 if k == 0 else 1.05) for v in x], rows, color=f"C{k}",
                 label=f"softmax, {scheme}")
    ax.set(xscale="log", xlabel=r"heads $h$ ($h\,d_K = 2048$ at S = 1)",
           ylabel="coefficient error $E$", title="3(b) GQA (2 query heads / pair) vs tied")
    integer_ticks(ax, sorted({r["h"] for r in panel["rows"]}))


def work(configs: list[Config], resamples: int) -> Work:
    """A ridge error per configuration and per point of the theory curves (about
    :data:`CURVE_POINTS`)."""
    return Work(float(len(configs) + CURVE_POINTS))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw, setups=("sharing",),
    work=work,
    finite_width_effect="features larger than mean one against a fixed ridge: errors "
    "below the limit")
