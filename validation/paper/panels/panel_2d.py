"""Panel 2(d), temperature and Q/K-V allocation (theory §6.3 temperature): the error
ratio E(64,192) / E(128,128) over beta and its crossover, measured by ``ridge`` draws of
both allocations (one group: they share their weights)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from freege.numeric import readout
from freege.validation.paper import configs as cf
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import errorbar
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "2d", "ridge"
#: the betas the paper measured: a subset of setups.TEMPERATURE_BETAS
MEASURED_TEMPERATURE_BETAS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
#: the ratios the theory curve takes, refined from the measured betas where it bends
#: (:func:`freege.validation.paper.theory.refined_curve`): about this many at every scale
CURVE_POINTS = 45
#: limit evaluations counted for the crossover's root search
CROSSOVER_WORK = 40
PAPER = {"max_relative_difference_percent": 1.52, "crossover_beta": 0.559,
         "max_bar_absolute": 0.00168, "max_bar_relative_percent": 0.108}


def build(s: float) -> list[Config]:
    """Temperature: the two allocations of :func:`setups.temperature_dims`, labelled by
    their unscaled widths, over ``MEASURED_TEMPERATURE_BETAS``."""
    return [cf.config(f"2d/dK={dims.dK},dV={dims.dV}", NAME, KIND,
                      cf.record(cf.scale_dims(dims, s)), group="2d",
                      betas=MEASURED_TEMPERATURE_BETAS, allocation=f"({dims.dK},{dims.dV})")
            for dims in setups.temperature_dims().values()]


def temperature_ratio(dims_x: dict[str, Any], dims_y: dict[str, Any], beta: float) -> float:
    """``E_Y / E_X`` of two allocations at ``beta`` (theory §6.3)."""
    return th.ridge(dims_y, beta) / th.ridge(dims_x, beta)


def crossover(dims_x: dict[str, Any], dims_y: dict[str, Any], lo: float, hi: float
              ) -> float | None:
    """The beta in ``[lo, hi]`` where the two allocations' errors are equal (None when
    the ratio does not cross 1 there)."""
    if (temperature_ratio(dims_x, dims_y, lo) - 1) * (temperature_ratio(dims_x, dims_y, hi)
                                                      - 1) > 0:
        return None
    return float(readout.crossover(lambda b: th.ridge(dims_y, float(b)), lo, hi,
                                   g=lambda b: th.ridge(dims_x, float(b))))


def linear_crossing(x: list[float], y: list[float]) -> float | None:
    """Where the piecewise-linear interpolation of ``y`` over ``x`` first crosses 1 (None
    when it does not): how 2(d)'s crossing is read off six measured ratios, so the
    theory's ratios at the same betas are read off the same way beside it."""
    for x0, x1, y0, y1 in zip(x, x[1:], y, y[1:], strict=False):
        if (y0 - 1) * (y1 - 1) <= 0 and y1 != y0:
            return x0 + (1 - y0) * (x1 - x0) / (y1 - y0)
    return None


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """The measured ratios over the draws both allocations finished (Fieller intervals),
    the theory curve (refined where it bends, from the measured betas) and the crossover,
    exact and interpolated."""
    cx = next(c for c in configs if c["label"]["allocation"] == "(128,128)")
    cy = next(c for c in configs if c["label"]["allocation"] == "(64,192)")

    @functools.cache
    def ratio(beta: float) -> float:  # each beta once: the rows' betas start the curve
        return temperature_ratio(cx["dims"], cy["dims"], beta)
    dx, dy = sm.draws(cx, recs), sm.draws(cy, recs)
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
                         **sm.interval_row(iv, ratio(float(beta)))})
    worst = max((abs(r["relative_difference"]) for r in rows), default=math.nan)
    curve_beta, ratio_curve = th.refined_curve(ratio, MEASURED_TEMPERATURE_BETAS)
    cross = None
    for lo, hi, r0, r1 in zip(curve_beta, curve_beta[1:], ratio_curve, ratio_curve[1:],
                              strict=False):
        if (r0 - 1) * (r1 - 1) <= 0:
            cross = crossover(cx["dims"], cy["dims"], lo, hi)
            break
    betas = [r["beta"] for r in rows]
    stats = [sm.stat("largest relative difference over the six ratios, %", 100 * worst,
                     PAPER["max_relative_difference_percent"]),
             sm.stat("crossover beta_c (theory, realised widths, exact)", cross,
                     PAPER["crossover_beta"]),
             sm.stat("crossover beta_c (measured ratios, linear interpolation)",
                     linear_crossing(betas, [r["measured"] for r in rows])),
             sm.stat("crossover beta_c (theory ratios, the same interpolation on the same "
                     "betas)", linear_crossing(betas, [r["theory"] for r in rows]))]
    stats += sm.bars("", bars, PAPER)
    return {"title": "2(d) temperature and Q/K-V allocation: E(64,192) / E(128,128)",
            "rows": rows, "statistics": stats, "incomplete": incomplete,
            "columns": ["beta", "error_128_128", "error_64_192"],
            "curves": {"theory": {"beta": curve_beta, "ratio": ratio_curve}},
            "crossover": cross}


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """The theory ratio, the measured ratios, unit ratio and the crossover beta."""
    curve = panel["curves"]["theory"]
    ax.plot(curve["beta"], curve["ratio"], color="C0", label="theory")
    if panel["rows"]:
        errorbar(ax, [r["beta"] for r in panel["rows"]], panel["rows"], color="C1",
                 label="softmax (Fieller 95%)")
    ax.axhline(1.0, color="gray", ls=":", lw=1, label="unit ratio")
    if panel["crossover"] is not None:
        ax.axvline(panel["crossover"], color="gray", ls="--", lw=1,
                   label=rf"crossover $\beta_c$ = {panel['crossover']:.3f}")
    ax.set(xlabel=r"inverse temperature $\beta$", ylabel=r"$E(64, 192)\,/\,E(128, 128)$",
           title="2(d) Q/K-V allocation vs temperature")


def work(configs: list[Config], resamples: int) -> Work:
    """The theory curve's two ridge errors per beta (about :data:`CURVE_POINTS`, the
    measured betas among them) and the crossover."""
    return Work(float(2 * CURVE_POINTS + CROSSOVER_WORK))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw,
    setups=("temperature",), work=work,
    finite_width_effect="both allocations biased, the smaller dK more: the ratio's bias "
    "has no fixed sign")
