"""Panel 2(a), learning curves (theory §6.3 headcount): the limiting relative loss L(t)
against softmax's at h in ``setups.CURVE_HEADS`` (dO = 2n), measured by ``flow`` draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from freege.validation.paper import configs as cf
from freege.validation.paper import setups
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import errorbar
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "2a", "flow"
#: the paper's plotted learning-curve times (2(a) and its Table D.1 statistics): the
#: times of setups.CURVE_TIMES through t = 100; the theory curve extends further
LAST_PLOTTED_TIME = 100
MEASURED_CURVE_TIMES = tuple(float(t) for t in setups.CURVE_TIMES if t <= LAST_PLOTTED_TIME)
#: the times of the dense theory curve the figure draws
THEORY_TIMES = np.geomspace(1e-2, 1e3, 61)
PAPER = {"max_abs_difference_bound": 0.003, "h128_t100_mean": 7.39e-5,
         "h128_t100_half_width": 9.84e-6, "max_bar_absolute": 0.00513,
         "max_bar_relative_percent": 13.314}


def build(s: float) -> list[Config]:
    """Learning curves: :func:`setups.curve_dims` for each of ``setups.CURVE_HEADS``."""
    return [cf.config(f"2a/h={h}", NAME, KIND, cf.record(cf.scale_dims(setups.curve_dims(h), s)),
                      h=h)
            for h in setups.CURVE_HEADS]


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Learning curves: measured points and their statistics at the paper's plotted times
    (:data:`MEASURED_CURVE_TIMES`, through t = 100: its Table D.1 bars are over those
    times), the theory curve from 0.01 to 1000."""
    rows, bars, diffs, incomplete = [], [], [], []
    for c, draws in sm.complete(configs, recs, incomplete):
        theory = th.loss(c["dims"], list(MEASURED_CURVE_TIMES))
        lam, w = sm.curves(draws)
        for t, lim in zip(MEASURED_CURVE_TIMES, theory, strict=True):
            per_draw = np.sum(w * np.exp(-2.0 * t * np.clip(lam, 0, None)), axis=1)
            iv = st.student(per_draw)
            bars.append(iv)
            diffs.append(abs(iv.estimate - lim))
            row = {"h": c["label"]["h"], "t": t, **sm.interval_row(iv, lim), "paper": None}
            if (c["label"]["h"], t) == (128, 100.0):
                row["paper"] = f"{PAPER['h128_t100_mean']} ± {PAPER['h128_t100_half_width']}"
                row["paper_checks"] = [sm.paper_check("mean loss", iv, PAPER["h128_t100_mean"],
                                                      PAPER["h128_t100_half_width"])]
            rows.append(row)
    stats = [sm.stat("largest |measured - limit|", max(diffs, default=np.nan), "< 0.003")]
    pick = [r for r in rows if r["h"] == 128 and r["t"] == 100.0]
    if pick:
        stats += [sm.stat("mean loss at h = 128, t = 100", pick[0]["measured"],
                          PAPER["h128_t100_mean"]),
                  sm.stat("its 95% half-width", pick[0]["bar"], PAPER["h128_t100_half_width"])]
    stats += sm.bars("", bars, PAPER)
    curves = {f"h = {c['label']['h']}": {"t": list(THEORY_TIMES),
                                         "loss": th.loss(c["dims"], list(THEORY_TIMES))}
              for c in configs}
    return {"title": "2(a) learning curves", "rows": rows, "statistics": stats,
            "curves": curves, "incomplete": incomplete,
            "columns": ["h", "t"]}


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """Each head count's theory curve and measured points, log-log, over the plotted times."""
    for k, (name, curve) in enumerate(panel["curves"].items()):
        ax.plot(curve["t"], curve["loss"], color=f"C{k}", label=f"theory {name}")
        rows = [r for r in panel["rows"] if f"h = {r['h']}" == name]
        if rows:
            errorbar(ax, [r["t"] for r in rows], rows, color=f"C{k}", label=f"softmax {name}")
    ax.axhline(0.5, color="gray", ls=":", lw=1, label=r"plateau 1/2 ($h\,d_V = n/2$)")
    ax.set(xscale="log", yscale="log", xlabel="training time $t$",
           ylabel="relative loss $L(t)$", title="2(a) learning curves ($d_O = 2n$)")
    # the y-axis covers the plotted times (the measured ones), not the theory's tail
    last = max((r["t"] for r in panel["rows"]), default=100.0)
    shown = [v for curve in panel["curves"].values()
             for t, v in zip(curve["t"], curve["loss"], strict=True) if t <= last and v > 0]
    shown += [r["low"] for r in panel["rows"] if r["low"] > 0]
    if shown:
        ax.set_ylim(min(shown) / 2, 1.5)


def work(configs: list[Config], resamples: int) -> Work:
    """A loss at every measured and every theory-curve time, per configuration."""
    return Work(float((len(MEASURED_CURVE_TIMES) + len(THEORY_TIMES)) * len(configs)))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw, setups=("headcount",),
    work=work,
    finite_width_effect="features larger than mean one: the curves decay faster, losses "
    "below the limit")
