"""Panel 2(b), theory only (theory §6.3 headcount, budget): the limiting coefficient error
over head count and output width at the paper's n and dK = dV, with the fixed-output and
fixed-budget paths of 2(c) drawn across it."""

from __future__ import annotations

from typing import Any

import numpy as np

from freege.validation.paper import setups
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.drawing import PATH_COLOURS
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME = "2b"
#: the side of the map (heads x output ratios: GRID_2B x (GRID_2B - 6) limits)
GRID_2B = 36


def map_2b(n: int, dk: int, heads: np.ndarray, g_outs: np.ndarray) -> np.ndarray:
    """Limiting coefficient error over real head count and output ratio ``gO``
    (dK = dV fixed): rows follow ``g_outs``, columns ``heads``."""
    return np.array([[th.ridge_ratios(h, h * dk / n, h * dk / n, g) for h in heads]
                     for g in g_outs])


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """The map (``opts["grid_2b"]`` per side, default :data:`GRID_2B`), both paths, and
    the limiting errors where the paths cross the width boundaries."""
    n, dk = setups.N, setups.HEAD_WIDTH  # theory only: the ratios at the paper's widths
    heads = np.linspace(8, 126, opts.get("grid_2b", GRID_2B)) + 0.37
    g_outs = np.geomspace(0.125, 6.0, opts.get("grid_2b", GRID_2B) - 6)
    grid = map_2b(n, dk, heads, g_outs)
    path_h = np.arange(16, 121, 2.0)
    budget_h = np.arange(32, 121, 2.0)
    g = dk / n
    g_out = setups.FIXED_OUTPUT_WIDTH / setups.N  # the fixed-output path
    stats = [sm.stat("fixed budget, h = 64 (h dV = n)",
                     th.ridge_ratios(64, 64 * g, 64 * g, 6 / (64 * g) - 3)),
             sm.stat("fixed budget, h = 96 (dO = n)",
                     th.ridge_ratios(96, 96 * g, 96 * g, 6 / (96 * g) - 3)),
             sm.stat("fixed output dO = n/2, h = 32 (h dV = dO)",
                     th.ridge_ratios(32, 32 * g, 32 * g, g_out))]
    return {"title": "2(b) limiting error over head count and output width", "rows": [],
            "statistics": stats, "incomplete": [], "columns": [],
            "map": {"n": n, "dK": dk, "heads": heads.tolist(), "gO": g_outs.tolist(),
                    "error": grid.tolist()},
            "paths": {"fixed output": {"h": path_h.tolist(),
                                       "gO": [g_out] * len(path_h)},
                      "fixed budget": {"h": budget_h.tolist(),
                                       "gO": [6 * n / (h * dk) - 3 for h in budget_h]}}}


def draw(ax: Any, panel: dict[str, Any]) -> None:
    """The map in log10, the two paths and the width boundaries."""
    grid = panel["map"]
    h, g = np.array(grid["heads"]), np.array(grid["gO"])
    err = np.array(grid["error"])
    mesh = ax.pcolormesh(h, g, np.log10(err), shading="auto", cmap="viridis")
    # below the axes: the legend takes the right-hand side (never over the colour bar)
    ax.figure.colorbar(mesh, ax=ax, location="bottom", fraction=0.05, pad=0.14,
                       label=r"$\log_{10}$ limiting coefficient error $E$")
    for name, path in panel["paths"].items():
        ax.plot(path["h"], path["gO"], color=PATH_COLOURS[name], lw=2, label=f"{name} path")
    from matplotlib import patheffects

    # white on the map, outlined so that the legend beside it shows them too
    white = {"color": "w", "lw": 1, "path_effects": [
        patheffects.Stroke(linewidth=2.2, foreground="0.25"), patheffects.Normal()]}
    n_over_dk = grid["n"] / grid["dK"]
    ax.axvline(n_over_dk, ls="--", label=r"$h\,d_V = n$", **white)
    ax.axhline(1.0, ls=":", label=r"$d_O = n$", **white)
    ax.plot(h, h / n_over_dk, ls="-.", label=r"$h\,d_V = d_O$", **white)
    ax.set(yscale="log", xlabel="heads $h$", ylabel=r"$g_O = d_O / n$",
           ylim=(g.min(), g.max()),
           title=rf"2(b) limiting error map ($d_K = d_V = {grid['dK']}$, $n = {grid['n']}$)")


def work(configs: list[Config], resamples: int) -> Work:
    """The map's limits and the three statistics."""
    return Work(float(GRID_2B * (GRID_2B - 6) + 3))


PANEL = Panel(name=NAME, summarize=summarize, draw=draw, work=work)
