"""Figures of the paper reproduction (theory §6.4), one per panel in the paper's layout,
written as PDF and PNG (:func:`freege.plotting.save`, atomic): theory curves, measured
points with their 95% intervals, and the reference lines the paper draws (unit ratio,
crossover beta, the width boundaries ``h dV = n``, ``dO = n``, ``h dV = dO``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from freege import plotting
from freege.validation.paper import setups

#: the colour of each path of 2(b) and 2(c), one map for both panels (theory §6.4): a
#: path keeps its colour from the limiting map to the measured points
PATH_COLOURS: dict[str, str] = {"fixed output": "C0", "fixed budget": "C1"}


def _errorbar(ax: Any, x: list[float], rows: list[dict[str, Any]], **kw: Any) -> None:
    y = np.array([r["measured"] for r in rows])
    lo = np.array([r["low"] for r in rows])
    hi = np.array([r["high"] for r in rows])
    ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o", ms=4, capsize=3, **kw)


def _2a(ax: Any, panel: dict[str, Any]) -> None:
    for k, (name, curve) in enumerate(panel["curves"].items()):
        ax.plot(curve["t"], curve["loss"], color=f"C{k}", label=f"theory {name}")
        rows = [r for r in panel["rows"] if f"h = {r['h']}" == name]
        if rows:
            _errorbar(ax, [r["t"] for r in rows], rows, color=f"C{k}",
                      label=f"softmax {name}")
    ax.axhline(0.5, color="gray", ls=":", lw=1, label="plateau 1/2 (h dV = n/2)")
    ax.set(xscale="log", yscale="log", xlabel="training time t",
           ylabel="relative loss L(t)", title="2(a) learning curves (dO = 2n)")
    # the y-axis covers the plotted times (the measured ones), not the theory's tail
    last = max((r["t"] for r in panel["rows"]), default=100.0)
    shown = [v for curve in panel["curves"].values()
             for t, v in zip(curve["t"], curve["loss"], strict=True) if t <= last and v > 0]
    shown += [r["low"] for r in panel["rows"] if r["low"] > 0]
    if shown:
        ax.set_ylim(min(shown) / 2, 1.5)


def _2b(ax: Any, panel: dict[str, Any]) -> None:
    grid = panel["map"]
    h, g = np.array(grid["heads"]), np.array(grid["gO"])
    err = np.array(grid["error"])
    mesh = ax.pcolormesh(h, g, np.log10(err), shading="auto", cmap="viridis")
    ax.figure.colorbar(mesh, ax=ax, label="log10 limiting coefficient error")
    for name, path in panel["paths"].items():
        ax.plot(path["h"], path["gO"], color=PATH_COLOURS[name], lw=2, label=f"{name} path")
    n_over_dk = grid["n"] / grid["dK"]
    ax.axvline(n_over_dk, color="w", ls="--", lw=1, label="h dV = n")
    ax.axhline(1.0, color="w", ls=":", lw=1, label="dO = n")
    ax.plot(h, h / n_over_dk, color="w", ls="-.", lw=1, label="h dV = dO")
    ax.set(yscale="log", xlabel="heads h", ylabel="gO = dO / n", ylim=(g.min(), g.max()),
           title=f"2(b) limiting error map (dK = dV = {grid['dK']}, n = {grid['n']})")


def _2c(ax: Any, panel: dict[str, Any]) -> None:
    for name, curve in panel["curves"].items():
        ax.plot(curve["h"], curve["error"], color=PATH_COLOURS[name], label=f"theory, {name}")
        rows = [r for r in panel["rows"] if r["path"] == name]
        if rows:
            _errorbar(ax, [r["h"] for r in rows], rows, color=PATH_COLOURS[name],
                      label=f"softmax, {name}")
    styles = iter(("--", ":", "-."))
    for name, h in panel["boundaries"].items():
        ax.axvline(h, color="gray", ls=next(styles), lw=1, label=name)
    ax.set(yscale="log", xlabel="heads h", ylabel="coefficient error E",
           title="2(c) fixed output (dO = n/2) vs fixed budget h dK (3n + dO) = 6 n^2")


def _2d(ax: Any, panel: dict[str, Any]) -> None:
    curve = panel["curves"]["theory"]
    ax.plot(curve["beta"], curve["ratio"], color="C0", label="theory")
    if panel["rows"]:
        _errorbar(ax, [r["beta"] for r in panel["rows"]], panel["rows"], color="C1",
                  label="softmax (Fieller 95%)")
    ax.axhline(1.0, color="gray", ls=":", lw=1, label="unit ratio")
    if panel["crossover"] is not None:
        ax.axvline(panel["crossover"], color="gray", ls="--", lw=1,
                   label=f"crossover beta_c = {panel['crossover']:.3f}")
    ax.set(xlabel="inverse temperature beta", ylabel="E(64,192) / E(128,128)",
           title="2(d) Q/K-V allocation vs temperature")


def _3a(ax: Any, panel: dict[str, Any]) -> None:
    for k, path in enumerate(("fixed widths", "fixed N_par")):
        rows = sorted((r for r in panel["rows"] if r["path"] == path),
                      key=lambda r: r["h_kv"])
        if not rows:
            continue
        x = [setups.ARRIVAL_HEADS // r["h_kv"] for r in rows]  # h / h_KV, the paper's axis
        ax.plot(x, [r["theory"] for r in rows], color=f"C{k}", marker="s", mfc="none",
                label=f"predicted, {path}")
        _errorbar(ax, x, rows, color=f"C{k}", label=f"softmax, {path} (bootstrap 95%)")
    ax.set(xscale="log",
           xlabel=f"query heads per K/V group h / h_KV (h = {setups.ARRIVAL_HEADS})",
           ylabel="arrival time at L = 0.1", title="3(a) across-head sharing and arrival")
    _integer_ticks(ax, sorted({setups.ARRIVAL_HEADS // r["h_kv"] for r in panel["rows"]}))


def _3b(ax: Any, panel: dict[str, Any]) -> None:
    for k, scheme in enumerate(("GQA", "tied")):
        rows = [r for r in panel["rows"] if r["scheme"] == scheme]
        if not rows:
            continue
        x = [r["h"] for r in rows]
        ax.plot(x, [r["theory"] for r in rows], color=f"C{k}", label=f"theory, {scheme}")
        _errorbar(ax, x, rows, color=f"C{k}", label=f"softmax, {scheme}")
    ax.set(xscale="log", xlabel="heads h (h dK = 2048 at S = 1)",
           ylabel="coefficient error E", title="3(b) GQA (2 query heads / pair) vs tied")
    _integer_ticks(ax, sorted({r["h"] for r in panel["rows"]}))


def _integer_ticks(ax: Any, values: list[int]) -> None:
    """A log-scaled integer x-axis labelled at its values (``8``, not ``8×10^0``)."""
    ax.set_xticks(values, [str(v) for v in values])
    ax.set_xticks([], minor=True)


def _table2(fig: Any, panel: dict[str, Any]) -> None:
    """Table 2 as two facets, relative W1 and KS per preset: the measured mean with its
    95% half-width beside the paper's value and half-width (presets the paper does not
    list show the measured point alone); with ``--finite-width`` the distance to
    ``ge-row-n`` (theory §2.3) between them."""
    rows = panel["rows"]
    x = np.arange(len(rows))
    for ax, (stat, bar, label) in zip(fig.subplots(1, 2), (
            ("rel_w1_percent", "rel_w1_half_width", "relative W1 (%)"),
            ("ks", "ks_half_width", "KS distance")), strict=True):
        ax.errorbar(x - 0.12, [r[stat] for r in rows], yerr=[r[bar] for r in rows],
                    fmt="o", capsize=3, color="C0", label="freege (softmax vs GE)")
        row_n = [(k, r) for k, r in enumerate(rows) if f"row_n_{stat}" in r]
        if row_n:  # --finite-width: the conditional GE of theory §2.3
            ax.errorbar([k for k, _ in row_n], [r[f"row_n_{stat}"] for _, r in row_n],
                        yerr=[r[f"row_n_{bar}"] for _, r in row_n], fmt="^", capsize=3,
                        color="C2", label="freege (softmax vs ge-row-n)")
        paper = [(k, r) for k, r in enumerate(rows) if r.get(f"paper_{stat}") is not None]
        if paper:
            ax.errorbar([k + 0.12 for k, _ in paper], [r[f"paper_{stat}"] for _, r in paper],
                        yerr=[r[f"paper_{bar}"] for _, r in paper], fmt="s", mfc="none",
                        capsize=3, color="C3", label="paper (Table 2)")
        ax.set_xticks(x, [r["preset"] for r in rows], rotation=30, ha="right")
        ax.set(ylabel=label, title=f"Table 2: {label}, softmax vs GE")
        ax.legend(fontsize=7)


def _d1(fig: Any, panel: dict[str, Any]) -> None:
    spectra = panel["spectra"]
    facets = list(dict.fromkeys(s["facet"] for s in spectra))
    axes = fig.subplots(1, max(1, len(facets)), squeeze=False)[0]
    for ax, facet in zip(axes, facets, strict=False):
        for k, s in enumerate(x for x in spectra if x["facet"] == facet):
            eigs = np.array(s["eigenvalues"])
            top = s["x"][-1]
            ax.hist(eigs[(eigs > top / 400) & (eigs <= top)], bins=60, density=False,
                    weights=np.full(int(np.sum((eigs > top / 400) & (eigs <= top))),
                                    60 / (top * eigs.size)),
                    alpha=0.35, color=f"C{k}", label=f"sample, {s['name']}")
            ax.plot(s["x"], s["density"], color=f"C{k}", label=f"limit, {s['name']}")
        ax.set(xlabel="eigenvalue of F F^T (mean one)", ylabel="density",
               title=f"D.1 {facet}")
        ax.legend(fontsize=7)


DRAW = {"2a": _2a, "2b": _2b, "2c": _2c, "2d": _2d, "3a": _3a, "3b": _3b}
#: panels drawn as several facets of one figure
FACETED = {"table2": (_table2, (12, 4.5)), "d1": (_d1, (15, 4.5))}


def figure(name: str, panel: dict[str, Any], folder: Path) -> list[Path]:
    """Draw panel ``name`` into ``folder``/panel_NAME.pdf and .png."""
    figure_class = plotting._figure_class()
    if name in FACETED:
        draw, size = FACETED[name]
        fig = figure_class(figsize=size)
        draw(fig, panel)
    else:
        fig = figure_class(figsize=(7.5, 5.0))
        ax = fig.add_subplot()
        DRAW[name](ax, panel)
        ax.legend(fontsize=7)
    paths = [folder / f"panel_{name}.{ext}" for ext in ("pdf", "png")]
    for path in paths:
        plotting.save(fig, path)
    return paths
