"""Panel 2(c), fixed output against fixed budget (theory §6.3 headcount, budget): the
coefficient error over head count on the two paths, measured by ``ridge`` draws."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from freege.validation.paper import configs as cf
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import PATH_COLOURS, errorbar
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "2c", "ridge"
#: the heads the paper measured on the two paths, 19 configurations in all: subsets of
#: the theory grids setups.HEADCOUNT_HEADS and setups.BUDGET_HEADS
MEASURED_FIXED_OUTPUT_HEADS = (16, 24, 32, 40, 48, 64, 80, 96, 120)
MEASURED_FIXED_BUDGET_HEADS = (32, 40, 48, 56, 64, 72, 80, 96, 112, 120)
#: the heads each path's theory curve starts from, refined where it bends in log E
#: (:func:`freege.validation.paper.theory.refined_curve`: the peaks at the width
#: boundaries), about :data:`CURVE_POINTS` in all at every scale
OUTPUT_PATH_HEADS, BUDGET_PATH_HEADS = np.arange(16, 120.5, 8.0), np.arange(32, 120.5, 8.0)
CURVE_POINTS = 200
#: the row field (and report column) of the finite-width theory (``--finite-width``): the
#: ridge error of the finite-width law at the configuration's dimensions (theory §2.3,
#: :func:`freege.validation.paper.theory.ridge_finite_width`)
FINITE_WIDTH = "finite-width theory"
#: the width boundaries' names in the figure (mathtext)
BOUNDARY_LABELS = {"h dV = n": r"$h\,d_V = n$",
                   "dO = n (fixed budget)": r"$d_O = n$ (fixed budget)",
                   "h dV = dO (fixed output)": r"$h\,d_V = d_O$ (fixed output)"}
PAPER = {"max_relative_difference_percent": 1.72, "max_bar_absolute": 0.02381,
         "max_bar_relative_percent": 0.562}


def build(s: float) -> list[Config]:
    """Fixed output (:func:`setups.fixed_output_dims`, scaled) against the paper's fixed
    budget (:func:`setups.budget_dims`: dO solved at the scaled n and dK = dV)."""
    out = [cf.config(f"2c/output/h={h}", NAME, KIND,
                     cf.record(cf.scale_dims(setups.fixed_output_dims(h), s)),
                     path="fixed output", h=h) for h in MEASURED_FIXED_OUTPUT_HEADS]
    n, width = cf.scaled(setups.N, s), cf.scaled(setups.HEAD_WIDTH, s)
    for h in MEASURED_FIXED_BUDGET_HEADS:
        dims = cf.record(setups.budget_dims(h, n, width))
        out.append(cf.config(f"2c/budget/h={h}", NAME, KIND, dims, path="fixed budget", h=h))
    return out


def fixed_output_curve(n: int, dk: int, d_out: int, heads: np.ndarray) -> list[float]:
    """Error along the fixed-output path, real h (theory §6.3)."""
    return [th.ridge_ratios(h, h * dk / n, h * dk / n, d_out / n) for h in heads]


def fixed_budget_curve(n: int, dk: int, heads: np.ndarray) -> list[float]:
    """Error along the fixed-budget path with the exact solved ``gO = 6/gV - 3``."""
    out = []
    for h in heads:
        h_ = Fraction(float(h))
        g = h_ * dk / n
        out.append(th.ridge_ratios(h_, g, g, setups.budget_output_width(h_, n, dk) / n))
    return out


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Each path's measured errors against their limits, the theory curves (refined where
    they bend) and the width boundaries ``h dV = n``, ``dO = n``, ``h dV = dO``; with
    ``opts["finite_width"]`` (``--finite-width``) each row also carries the finite-width
    theory (:data:`FINITE_WIDTH`; NaN where ``dK <= 4``, below the finite-width law's
    range), drawn beside the limit."""
    rows, bars, incomplete = [], [], []
    finite_width = bool(opts.get("finite_width"))
    for c, draws in sm.complete(configs, recs, incomplete):
        theory = th.ridge(c["dims"])
        iv = st.student([d["values"][0]["error"] for d in draws])
        bars.append(iv)
        fw = {}
        if finite_width:  # the finite-width law needs dK > 4 beta^2 (beta = 1 here)
            fw[FINITE_WIDTH] = (th.ridge_finite_width(c["dims"], c["lam"], c["sigma2"])
                                if c["dims"]["dK"] > 4 else math.nan)
        rows.append({"path": c["label"]["path"], "h": c["label"]["h"], "dO": c["dims"]["dO"],
                     **fw, **sm.interval_row(iv, theory)})
    worst = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    stats = [sm.stat("largest relative difference measured vs GE, %", 100 * worst,
                     PAPER["max_relative_difference_percent"])] + sm.bars("", bars, PAPER)
    n, dk = configs[0]["dims"]["n"], configs[0]["dims"]["dK"]
    d_out = next(c["dims"]["dO"] for c in configs if c["label"]["path"] == "fixed output")
    output = th.refined_curve(lambda h: fixed_output_curve(n, dk, d_out, [h])[0],
                              OUTPUT_PATH_HEADS.tolist(), log_y=True)
    budget = th.refined_curve(lambda h: fixed_budget_curve(n, dk, [h])[0],
                              BUDGET_PATH_HEADS.tolist(), log_y=True)
    curves = {"fixed output": {"h": output[0], "error": output[1]},
              "fixed budget": {"h": budget[0], "error": budget[1]}}
    return {"title": "2(c) fixed output vs fixed budget", "rows": rows, "statistics": stats,
            "curves": curves, "incomplete": incomplete,
            "columns": ["path", "h", "dO"] + ([FINITE_WIDTH] if finite_width else []),
            "boundaries": {"h dV = n": n / dk, "dO = n (fixed budget)": 1.5 * n / dk,
                           "h dV = dO (fixed output)": d_out / dk}}


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """Each path's theory curve and measured points, and the width boundaries."""
    for name, curve in panel["curves"].items():
        ax.plot(curve["h"], curve["error"], color=PATH_COLOURS[name], label=f"theory, {name}")
        rows = [r for r in panel["rows"] if r["path"] == name]
        if rows:
            errorbar(ax, [r["h"] for r in rows], rows, color=PATH_COLOURS[name],
                     label=f"softmax, {name}")
        fw = [r for r in rows if FINITE_WIDTH in r]
        if fw:
            ax.plot([r["h"] for r in fw], [r[FINITE_WIDTH] for r in fw], ls="none",
                    marker="x", color=PATH_COLOURS[name], label=f"finite-width theory, {name}")
    styles = iter(("--", ":", "-."))
    for name, h in panel["boundaries"].items():
        ax.axvline(h, color="gray", ls=next(styles), lw=1, label=BOUNDARY_LABELS.get(name, name))
    ax.set(yscale="log", xlabel="heads $h$", ylabel="coefficient error $E$",
           title=r"2(c) fixed output ($d_O = n/2$) vs fixed budget $h\,d_K (3n + d_O) = 6n^2$")


def work(configs: list[Config], resamples: int) -> Work:
    """A ridge error per configuration and per point of the two theory curves (about
    :data:`CURVE_POINTS`)."""
    return Work(float(len(configs) + CURVE_POINTS))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw,
    setups=("headcount", "budget"), work=work,
    finite_width_effect="features larger than mean one against a fixed ridge: errors "
    "below the limit")
