"""The paper reproduction's report (theory §6.4): per panel a table of configuration |
theory | measured mean and 95% interval | relative difference | the paper's value, then
the paper's summary statistics beside freege's, and a verdict per panel with an overall
line (:mod:`freege.validation.paper.verdict`), as JSON (``report.json``) and Markdown
(``report.md``). Each panel's part is its own (:class:`freege.validation.paper.panel.Panel`'s
``summarize``, :mod:`freege.validation.paper.panels`); this module puts the parts
together.

Everything is computed from the store's records (sorted by draw) and the theory at the
realised widths, so a resumed run gives an identical report. A configuration with fewer
than two finished draws is listed as incomplete.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from freege.validation.paper import theory as th
from freege.validation.paper import verdict
from freege.validation.paper.panel import Config, Panel, Records

#: the curve :func:`rates` plots to time a figure
RATE_CURVE = np.geomspace(1e-2, 1e3, 61)
#: below this per-head key width the report flags a panel: finite-width bias then
#: exceeds 10 % of theta1 at beta = 1 (theory §6.4, finite width)
NARROW_HEAD = 16


def finite_width(panel: Panel, configs: list[Config]) -> dict[str, Any]:
    """What finite width does to ``panel`` at this scale (theory §6.4, finite width): its
    realised per-head widths ``dK x dV``, the excess of the mean per-row theta1 at its
    smallest dK and largest beta (:func:`freege.validation.paper.theory.theta1_excess`),
    the direction it pushes the panel's statistic (its ``finite_width_effect``), and
    ``narrow``: smallest dK below :data:`NARROW_HEAD`."""
    widths = sorted({(c["dims"]["dK"], c["dims"]["dV"]) for c in configs})
    dk = min(k for k, _ in widths)
    beta = max(max(c["betas"]) for c in configs)
    return {"widths": [f"{k}x{v}" for k, v in widths], "smallest_dK": dk, "beta": beta,
            "theta1_excess_percent": 100 * th.theta1_excess(dk, beta),
            "effect": panel.finite_width_effect, "narrow": dk < NARROW_HEAD}


def work(panels: Sequence[Panel], configs: list[Config], resamples: int
         ) -> dict[str, float]:
    """The report's work, for the run's estimate (a model, not a measurement): ``limits``,
    the limit evaluations its tables and theory curves make (a ridge error, a loss at one
    time, an arrival time, a density point counted alike; a root search counted by its
    evaluations); ``bootstrap``, the elementwise work of resampled statistics; each
    panel's share is its ``work``; and ``figures``, one per panel. :func:`rates` prices
    them on this machine."""
    limits = bootstrap = 0.0
    for panel in panels:
        share = panel.work([c for c in configs if c["panel"] == panel.name], resamples)
        limits += share.limits
        bootstrap += share.bootstrap
    return {"limits": limits, "bootstrap": bootstrap, "figures": float(len(panels))}


def rates(folder: Any, tied: bool = False) -> dict[str, float]:
    """CPU seconds per unit of :func:`work` on this machine now: ``limits``, one limit
    evaluation (a ridge error at ratios no run uses, its law built afresh, after a first
    one at other ratios that derives what a cold cache lacks -- of the tied case too when
    ``tied``, a configuration ties K = V: up to half a minute, once, then cached; the
    caller counts it as spent, issue 42); ``figures``, one figure (a small plot saved as
    PDF and PNG into ``folder``, then removed)."""
    import time

    from freege import plotting

    for sharing in ("none", "tied") if tied else ("none",):
        th.ridge_ratios(50.5, 0.7712, 0.7712, 1.3031, sharing=sharing)
    start = time.process_time()
    th.ridge_ratios(50.25, 0.7654, 0.7654, 1.2969)
    limit = time.process_time() - start
    start = time.process_time()
    fig = plotting._figure_class()(figsize=(7.5, 5.0))
    fig.add_subplot().plot(RATE_CURVE, RATE_CURVE)
    for ext in ("pdf", "png"):
        path = folder / f".freege-rate.{ext}"
        plotting.save(fig, path)
        path.unlink()
    return {"limits": limit, "figures": time.process_time() - start}


def build(panels: Sequence[Panel], configs: list[Config], recs: Records,
          meta: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """The report of ``panels`` from the records (``meta``: scale, seed, draws,
    backend; ``opts``: resamples, seed and the 2(b) grid; the scale and ``finite_width``
    are added to it)."""
    out = {**meta, "note": _note(meta["scale"]), "panels": {}}
    opts = {**opts, "scale": meta["scale"], "finite_width": bool(meta.get("finite_width"))}
    for panel in panels:
        if not panel.measured:
            part = panel.summarize([], recs, opts)
        else:
            mine = [c for c in configs if c["panel"] == panel.name]
            part = {**panel.summarize(mine, recs, opts),
                    "finite_width": finite_width(panel, mine)}
        part["verdict"] = verdict.panel(part, meta["scale"], panel.measured)
        out["panels"][panel.name] = part
    return with_overall(out)


def with_overall(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with its ``overall`` line over the panels' verdicts
    (:func:`freege.validation.paper.verdict.overall`)."""
    verdicts = {name: part["verdict"] for name, part in report["panels"].items()}
    return {**report, "overall": verdict.overall(verdicts, report["scale"])}


def verdict_lines(report: dict[str, Any]) -> list[str]:
    """What the command prints: each panel's verdict, then the overall line."""
    return ([f"{name}: {part['verdict']['line']}" for name, part in report["panels"].items()]
            + [report["overall"]])


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


def to_markdown(report: dict[str, Any], panels: Sequence[Panel]) -> str:
    """``report.md``: the run's parameters, then per panel its table and statistics
    (``panels``: those of ``report``, each table written by the panel's ``table`` or else
    by :func:`table`)."""
    tables = {panel.name: panel.table or table for panel in panels}
    lines = ["# freege reproduce paper", "",
             f"scale S = {report['scale']:g}, draws = {report['draws']}, seed = "
             f"{report['seed']}, target seed = {report['target_seed']}, bootstrap resamples "
             f"= {report['resamples']} (seed {report['seed']}), backend = "
             f"{report['backend']}, dtype = {report.get('dtype', 'float64')}, beta = 1, "
             "lam = 1e-4, sigma2 = 0.1 unless varied.", "",
             report["note"], "", f"**{report['overall'][0].upper()}{report['overall'][1:]}.**", "",
             "Columns: theory at the realised widths; measured mean with its 95% interval "
             "(Student-t; Fieller for 2(d) ratios; bootstrap percentiles for 3(a)); "
             "relative difference (measured - theory) / theory. The paper's column holds "
             "only the values the paper states.", ""]
    for name, panel in report["panels"].items():
        lines += [f"## {panel['title']}", "", f"Figure: `panel_{name}.pdf` / "
                  f"`panel_{name}.png`.", ""]
        lines += [f"Verdict: {panel['verdict']['line']}.", ""]
        if "finite_width" in panel:
            lines += [_finite_width_line(panel["finite_width"]), ""]
        if panel["rows"]:
            lines += tables[name](panel)
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


def table(panel: dict[str, Any]) -> list[str]:
    """A panel's Markdown table: its ``columns``, then theory, measured mean with its
    interval, relative difference and the paper's value."""
    cols = panel["columns"]
    out = ["| " + " | ".join(cols) + " | theory | measured [95% interval] | rel. diff. | "
           "paper (measured, S = 1) |", "|" + "---|" * (len(cols) + 4)]
    for r in panel["rows"]:
        interval = "" if r.get("low") is None else f" [{_fmt(r['low'])}, {_fmt(r['high'])}]"
        out.append("| " + " | ".join(_fmt(r[c]) for c in cols) + f" | {_fmt(r['theory'])} | "
                   f"{_fmt(r['measured'])}{interval} | {_fmt(r['relative_difference'])} | "
                   f"{_fmt(r.get('paper'))} |")
    return out
