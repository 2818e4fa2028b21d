"""Analyses of a sweep store: per-point means with 95% CIs, n-scaling fits, theory beside
samples, plots (theory §4, §6.1).

* Per point: finished draws, mean ± Student-t 95% half-width of relative W1, KS, their
  paired noise floors (GE vs a second GE with the same weights, recorded per draw), the
  relative errors of the first two empirical moments per model against the theory §4
  limits (as ``freege validate``), and the empirical moments themselves beside the
  limiting ``m1``, ``m2`` (``theory``). One draw: a mean without a CI. The point's
  ``verdict`` (:mod:`freege.validation.sampling.verdict`) decides from the per-draw
  differences distance - floor; the report's ``verdict`` line sums the points up.
* n-scaling: for every group of points equal except in ``n`` (and ``d``, which follows
  it) with at least three n values, the least-squares line ``log y = log C + b log n``
  through the point means of each metric (``rel_w1``, ``ks``, and ``|moment error|``),
  with the 95% half-width ``t_{0.975, k-2} * se(b)`` from the residual scatter of the
  ``k`` points. Metrics with a zero mean are left out of a group.
* Plots: distances against the grid's varying axis (log-log with the fits when it is
  ``n``) and the empirical ``m1``, ``m2`` of both models beside the limits; matplotlib
  is imported lazily and the global backend is never touched (a bare
  :class:`matplotlib.figure.Figure`).

Draws are read in (point, draw) order and each key counts once (its first ``ok``
record), so the table does not depend on the order tasks finished in.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from freege.validation.sampling import metrics, verdict
from freege.validation.sweep import store as sweep_store

#: axes that may vary along a sweep, in the order a plot prefers them as its x axis
AXES: tuple[str, ...] = ("n", "beta", "h", "dk", "dv", "do", "h_kv", "d")
LABELS: tuple[str, ...] = ("model", "sharing", "case")
PLOT_FORMATS: tuple[str, ...] = (".png", ".svg", ".pdf")
#: confidence level of every interval of the report (its ``ci95`` keys)
LEVEL = 0.95


#: every metric of a sweep by its one name -- in the store's records (moments flattened
#: to ``softmax_m1`` ...), the report's JSON and text, the CSV / DataFrame columns
#: (:mod:`freege.validation.sweep.data`) and the plots -- with its definition
METRICS: dict[str, str] = {
    "rel_w1": "relative W1, softmax vs GE: mean_i |a_(i) - b_(i)| / m1 (theory §6.1)",
    "ks": "KS, softmax vs GE: max_x |F_a(x) - F_b(x)| (theory §6.1)",
    "floor_rel_w1": "noise floor of rel_w1: GE vs a second GE with the same weights and "
                    "fresh noise, per draw (paired as softmax vs GE are)",
    "floor_ks": "noise floor of ks, the same way",
    **{f"{model}_m{q}": f"{model} empirical m{q} (theory §3)"
       for model in ("softmax", "ge") for q in (1, 2)},
    **{f"{model}_m{q}_rel_error": f"{model} empirical m{q} / limit - 1 (theory §4)"
       for model in ("softmax", "ge") for q in (1, 2)},
}
#: the same metrics as figure labels (mathtext)
PLOT_LABELS: dict[str, str] = {
    "rel_w1": r"relative $W_1$ (softmax vs GE)",
    "ks": r"KS distance $D_{\mathrm{KS}}$ (softmax vs GE)",
    **{f"{model}_m{q}_rel_error": rf"$|m_{q}/m_{q}^{{\infty}} - 1|$ ({name})"
       for model, name in (("softmax", "softmax"), ("ge", "GE")) for q in (1, 2)},
}
#: a fit over fewer n values than this is flagged (``few_points``): with k points its
#: interval uses Student's t at k - 2 degrees of freedom (12.7 at k = 3)
MIN_FIT_POINTS = 4
#: flags: what they mean (in the text report)
FLAGS: dict[str, str] = {
    "degenerate": "all values equal, no spread to estimate (KS is quantised in steps of 1/n)",
    "one_draw": "one draw, no interval",
    "spans_zero": "the 95% interval of the exponent contains 0",
    "few_points": f"fewer than {MIN_FIT_POINTS} n values",
    "overflow": "beyond the float64 range, not shown (the records are each plausible, "
                "their statistic is not representable)",
}
#: a number this large or larger is shown in scientific notation: a huge but finite
#: statistic never prints hundreds of digits
FIXED_BELOW = 1e5


def mean_ci(values: Sequence[float]) -> dict[str, float | str | None]:
    """``{"mean", "ci95", "flag"}``: the mean and Student-t 95% half-width
    (:func:`freege.validation.sampling.metrics.mean_ci`; ``None`` when there are fewer
    than 2 values; both ``None`` for none); ``flag`` is ``"one_draw"`` for one value,
    ``"degenerate"`` when 2 or more values are all equal (a half-width 0 that estimates
    nothing), else ``None``; ``"overflow"`` with neither number when a value, the mean or
    the half-width is beyond the float64 range (a store's records are each finite, but
    their sum or spread need not be)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return {"mean": None, "ci95": None, "flag": None}
    if not np.all(np.isfinite(v)):
        return {"mean": None, "ci95": None, "flag": "overflow"}
    if v.size == 1:
        return {"mean": float(v[0]), "ci95": None, "flag": "one_draw"}
    with np.errstate(over="ignore", invalid="ignore"):
        mean, half = metrics.mean_ci(v, LEVEL)
    if not (math.isfinite(mean) and math.isfinite(half)):
        return {"mean": None, "ci95": None, "flag": "overflow"}
    return {"mean": mean, "ci95": half, "flag": "degenerate" if np.all(v == v[0]) else None}


def load(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(header, records)`` of the store at ``path``; ValueError when it is missing or
    has no header."""
    if not Path(path).is_file():
        raise ValueError(f"store {str(path)!r} does not exist")
    contents = sweep_store.read(path)
    if contents.header is None:
        raise ValueError(f"store {str(path)!r} has no sweep header")
    return contents.header, contents.records


def _point_summary(point: dict[str, Any], theory: list[float],
                   records: list[dict[str, Any]], failed: int) -> dict[str, Any]:
    entry: dict[str, Any] = {**point, "draws": len(records), "failed": failed,
                             "rel_w1": mean_ci([r["rel_w1"] for r in records]),
                             "ks": mean_ci([r["ks"] for r in records])}
    for model in ("softmax", "ge"):
        emp = np.array([r["moments"][model] for r in records]).reshape(len(records), 2)
        for q in range(2):
            entry[f"{model}_m{q + 1}"] = mean_ci(emp[:, q])
            with np.errstate(over="ignore"):  # an overflow is flagged by mean_ci
                errors = emp[:, q] / theory[q] - 1.0
            entry[f"{model}_m{q + 1}_rel_error"] = mean_ci(errors)
    entry["limit_m1"], entry["limit_m2"] = theory[0], theory[1]
    floored = [r for r in records if "floor" in r]
    for key in ("rel_w1", "ks"):
        entry[f"floor_{key}"] = mean_ci([r["floor"][key] for r in floored])
    entry["verdict"] = _point_verdict(floored)
    return entry


def _point_verdict(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The decision of relative W1 and KS against their floors over ``records`` (those
    with a floor); None when there are none."""
    if not records:
        return None
    found = [verdict.compare(name, [r[key] for r in records],
                             [r["floor"][key] for r in records])
             for key, name in (("rel_w1", "rel_w1"), ("ks", "ks"))]
    return {"decision": verdict.overall(found), "comparisons": [c.as_dict() for c in found]}


def report_verdict(points: list[dict[str, Any]]) -> str:
    """The report's ``verdict:`` line: the points' decisions summed up, the sizes of the
    gaps above the floor, and what to try."""
    decided = [e for e in points if e.get("verdict") is not None]
    missing = sum(1 for e in points if e["draws"] > 0 and e.get("verdict") is None)
    note = (f"; {missing} point(s) have no noise floor (a store written before freege "
            "recorded it: rerun the sweep into a new store)") if missing else ""
    if not decided:
        return f"verdict: undecided, no point has a noise floor{note}"
    above = [e for e in decided if e["verdict"]["decision"] == "above_floor"]
    undecided = [e for e in decided if e["verdict"]["decision"] == "undecided"]
    if above:
        gaps = "; ".join(
            f"n={e['n']} h={e['h']} beta={e['beta']:g}: " + ", ".join(
                f"{c['metric']} {c['difference']:+.2g} ± {c['ci95']:.2g}"
                for c in e["verdict"]["comparisons"] if c["decision"] == "above_floor")
            for e in above[:6])
        more = "" if len(above) <= 6 else f" and {len(above) - 6} more"
        return (f"verdict: softmax and GE differ above the noise floor at {len(above)} of "
                f"{len(decided)} point(s) ({gaps}{more}); the GE is a large-n limit: check "
                "that the gap shrinks with n (larger n), or add draws to size it"
                + (f"; {len(undecided)} undecided (more draws)" if undecided else "") + note)
    if undecided:
        return (f"verdict: GE consistent with softmax at {len(decided) - len(undecided)} of "
                f"{len(decided)} point(s), {len(undecided)} undecided (fewer than 2 draws or "
                f"no spread: more draws){note}")
    return (f"verdict: GE consistent with softmax at all {len(decided)} point(s) (no distance "
            f"above its paired noise floor); more draws resolve smaller gaps, larger n tests "
            f"the limit{note}")


#: the metrics fitted against n: the distances, and the size of each moment's relative error
FIT_METRICS: tuple[str, ...] = ("rel_w1", "ks", *(f"{model}_m{q}_rel_error"
                                                  for model in ("softmax", "ge")
                                                  for q in (1, 2)))


def loglog_fit(n: Sequence[float], y: Sequence[float]) -> dict[str, Any]:
    """Least squares ``log y = log C + b log n`` over ``k >= 3`` points: exponent ``b``,
    its 95% half-width ``t_{0.975,k-2} se(b)``, ``C``, the number of points and the
    ``flags`` (:data:`FLAGS`) ``spans_zero`` (``|b| <= half-width``: no trend resolved)
    and ``few_points`` (``k <`` :data:`MIN_FIT_POINTS`); ``C`` is ``None``, flagged
    ``overflow``, when it is beyond the float64 range."""
    x, z = np.log(np.asarray(n, dtype=np.float64)), np.log(np.asarray(y, dtype=np.float64))
    k = x.size
    if k < 3:
        raise ValueError(f"a log-log fit with a CI needs at least 3 points (got {k})")
    xm = x.mean()
    sxx = float(np.sum((x - xm) ** 2))
    b = float(np.sum((x - xm) * (z - z.mean())) / sxx)
    a = float(z.mean() - b * xm)
    resid = z - (a + b * x)
    half = metrics.t_critical(k - 2, LEVEL) * math.sqrt(float(np.sum(resid**2)) / (k - 2) / sxx)
    prefactor = math.exp(a) if a < math.log(sys.float_info.max) else None
    flags = [name for name, on in (("spans_zero", abs(b) <= half),
                                   ("few_points", k < MIN_FIT_POINTS),
                                   ("overflow", prefactor is None)) if on]
    return {"exponent": b, "ci95": half, "prefactor": prefactor, "points": k,
            "flags": flags}


def n_scaling(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The n-scaling fits of every group of points that differ only in n (and d): each
    metric of :data:`FIT_METRICS` by its point means (moment errors by their size
    ``|mean|``), when all are > 0."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for e in points:
        if e["draws"] == 0:
            continue
        key = tuple((k, e[k]) for k in (*LABELS, *AXES) if k not in ("n", "d"))
        groups.setdefault(key, []).append(e)
    fits = []
    for key, members in groups.items():
        members = sorted(members, key=lambda e: e["n"])
        ns = [e["n"] for e in members]
        if len(set(ns)) < 3:
            continue
        metrics = {}
        for name in FIT_METRICS:
            ys = [e[name]["mean"] for e in members]
            ys = [None if y is None else abs(y) for y in ys]
            if all(y is not None and y > 0 for y in ys):
                metrics[name] = loglog_fit(ns, ys)
        fits.append({"group": dict(key), "n": ns, "metrics": metrics})
    return fits


def summarise(path: str | Path) -> dict[str, Any]:
    """The report of the store at ``path``: ``points`` (grid order), ``fits``, the
    sweep's identity and timing."""
    head, records = load(path)
    identity = head["identity"]
    ok: dict[tuple[str, int], dict[str, Any]] = {}
    failed: dict[tuple[str, int], str] = {}
    seconds = []
    for r in records:
        key = (r["point"], r["draw"])
        if r.get("status") == "ok":
            if key not in ok:
                ok[key] = r
                seconds.append(r["seconds"])
        else:
            failed[key] = r.get("error", "")
    from freege.validation.sweep.grid import Point

    entries = []
    for pd in identity["points"]:
        pkey = Point.from_dict(pd).key
        mine = [ok[(pkey, i)] for i in range(identity["draws"]) if (pkey, i) in ok]
        n_failed = sum(1 for i in range(identity["draws"])
                       if (pkey, i) in failed and (pkey, i) not in ok)
        entries.append(_point_summary(pd, head["theory"][pkey], mine, n_failed))
    errors = sorted({e for k, e in failed.items() if k not in ok})
    return {
        "store": str(path), "draws_per_point": identity["draws"], "seed": identity["seed"],
        "backend": identity["backend"], "finished": len(ok),
        "tasks": len(identity["points"]) * identity["draws"],
        "failed": sum(1 for k in failed if k not in ok), "errors": errors[:10],
        "points": entries, "fits": {"n_scaling": n_scaling(entries)},
        "verdict": report_verdict(entries),
        "timing": {"seconds_per_draw": mean_ci(seconds)["mean"]},
    }


def _number(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, or in scientific notation from :data:`FIXED_BELOW`
    on (no number printed runs to hundreds of digits)."""
    return f"{x:.{digits}f}" if abs(x) < FIXED_BELOW else f"{x:.{digits - 1}e}"


def _pm(x: dict[str, Any], digits: int = 4) -> str:
    if x["flag"] == "overflow":
        return "overflow"
    if x["mean"] is None:
        return "-"
    if x["flag"] == "degenerate":
        return f"{_number(x['mean'], digits)} (degenerate)"
    ci = "" if x["ci95"] is None else f" ± {_number(x['ci95'], digits)}"
    return f"{_number(x['mean'], digits)}{ci}"


def render_text(report: dict[str, Any]) -> str:
    """A plain-text table of the report, flags explained below it."""
    lines = [f"freege sweep-report: {report['store']} ({report['finished']}/{report['tasks']} "
             f"draws finished, {report['failed']} failed; backend {report['backend']}, "
             f"seed {report['seed']})",
             f"  {'model':<14}{'n':>6}{'h/h_kv':>8}{'dk':>5}{'dv':>5}{'do':>6}{'beta':>6}"
             f"  {'case':<9}{'draws':>6}  {'rel_w1':<20}{'ks':<20}{'limit_m1':>9}"
             f"{'floor rel_w1':>13}{'floor ks':>9}  verdict"]
    used: set[str] = set()
    for e in report["points"]:
        used |= {e[m]["flag"] for m in ("rel_w1", "ks")} - {None}
        lines.append(
            f"  {str(e['model'] or '-'):<14}{e['n']:>6}{e['h']:>5}/{e['h_kv']:<2}{e['dk']:>5}"
            f"{e['dv']:>5}{e['do']:>6}{e['beta']:>6.3g}  {e['case']:<9}{e['draws']:>6}  "
            f"{_pm(e['rel_w1']):<19} {_pm(e['ks']):<19} {e['limit_m1']:>8.4g}"
            f"{_mean(e.get('floor_rel_w1')):>13}{_mean(e.get('floor_ks')):>9}  "
            f"{VERDICT_SHORT[e['verdict']['decision']] if e.get('verdict') else '-'}")
    for fit in report["fits"]["n_scaling"]:
        g = fit["group"]
        label = ", ".join(f"{k}={v}" for k, v in g.items() if v is not None)
        lines.append(f"  n-scaling over n = {fit['n']} ({label}):")
        for name, f in fit["metrics"].items():
            used |= set(f["flags"])
            flags = f"  [{', '.join(f['flags'])}]" if f["flags"] else ""
            prefactor = "-" if f["prefactor"] is None else f"{f['prefactor']:.4g}"
            lines.append(f"    {name:<22} ~ n^({_number(f['exponent'], 3)} ± "
                         f"{_number(f['ci95'], 3)})  C = {prefactor}{flags}")
    lines.append(f"  {report_verdict(report['points'])}")
    lines.append("  columns (theory §6.1; freege docs theory --section 6.1):")
    lines += [f"    {text}" for text in COLUMN_DEFINITIONS]
    for flag in FLAGS:
        if flag in used:
            lines.append(f"  {flag}: {FLAGS[flag]}")
    for err in report["errors"]:
        lines.append(f"  failed: {err}")
    return "\n".join(lines)


#: a point's decision as the table's ``verdict`` column shows it
VERDICT_SHORT = {"consistent": "consistent", "above_floor": "above floor",
                 "undecided": "undecided"}
#: what every printed column and line of the text report is
COLUMN_DEFINITIONS: tuple[str, ...] = (
    "model, n, h/h_kv, dk, dv, do, beta, case: the grid point (preset name, tokens, heads / "
    "K/V groups, widths, inverse temperature, theory §4 case); draws: finished draws",
    f"rel_w1: {METRICS['rel_w1']}; mean ± 95% CI over draws",
    f"ks: {METRICS['ks']}; mean ± 95% CI",
    "limit_m1: the theory §4 limiting mean m1 at the point's ratios",
    f"floor rel_w1, floor ks: {METRICS['floor_rel_w1']}; means ('-': not recorded)",
    f"{verdict.DEFINITION} ('-': no floor)",
    "n-scaling: log-log least-squares fit of the point means, metric ~ C n^(b ± 95% "
    "half-width) over the points that differ only in n",
)


def _mean(x: dict[str, Any] | None) -> str:
    """A mean alone, ``-`` when there is none."""
    return "-" if x is None or x["mean"] is None else f"{x['mean']:.4f}"


def _x_axis(points: list[dict[str, Any]]) -> str:
    for axis in AXES:
        if len({e[axis] for e in points}) > 1:
            return axis
    return "n"


def check_plot_path(path: str) -> None:
    """Fail before any work when ``path`` cannot take a plot (format, folder,
    matplotlib)."""
    from freege.plotting import check_target

    if Path(path).suffix.lower() not in PLOT_FORMATS:
        raise ValueError(f"--plot must end in {', '.join(PLOT_FORMATS)} (got {path!r})")
    check_target(path)


#: the grid axes as figure labels
AXIS_LABELS: dict[str, str] = {
    "n": r"tokens $n$", "beta": r"inverse temperature $\beta$", "h": r"heads $h$",
    "dk": r"key width $d_K$", "dv": r"value width $d_V$", "do": r"output width $d_O$",
    "h_kv": r"K/V groups $h_{kv}$", "d": r"model width $d$",
}


def plot(report: dict[str, Any], path: str) -> None:
    """Distances (with CIs and labelled n-scaling fits) and the empirical moments beside
    the theory §4 limits against the varying axis, in the house style
    (:func:`freege.plotting.house_style`); written atomically to ``path``."""
    from freege.plotting import house_style

    check_plot_path(path)
    points = [e for e in report["points"] if e["draws"] > 0]
    if not points:
        raise ValueError("nothing to plot: no finished draws in the store")
    with house_style():
        _plot(report, points, path)


def _plot(report: dict[str, Any], points: list[dict[str, Any]], path: str) -> None:
    """The figure: one colour per group of points (the axes varying besides ``x``), one
    marker and line style per quantity."""
    from matplotlib.figure import Figure

    from freege.plotting import log_ticks, save, series_style

    x = _x_axis(points)
    varying = [k for k in (*LABELS, *AXES) if k not in (x, "d")
               and len({e[k] for e in points}) > 1]
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for e in points:
        groups.setdefault(tuple(e[k] for k in varying), []).append(e)
    colours = {gkey: series_style(gi)["color"] for gi, gkey in enumerate(groups)}
    fig = Figure(figsize=(13, 4.4))
    ax_d, ax_m1, ax_m2 = fig.subplots(1, 3)
    for gkey, members in groups.items():
        members.sort(key=lambda e: e[x])
        xs = [e[x] for e in members]
        suffix = _group_text(varying, gkey)
        colour = colours[gkey]
        for metric, marker, style in (("rel_w1", "o", "-"), ("ks", "s", "--")):
            ax_d.errorbar(xs, _means(members, metric),
                          yerr=[e[metric]["ci95"] or 0.0 for e in members], color=colour,
                          marker=marker, ls=style, label=PLOT_LABELS[metric] + suffix)
        for ax, q in ((ax_m1, "m1"), (ax_m2, "m2")):
            ax.plot(xs, [e[f"limit_{q}"] for e in members], "-", color=colour,
                    label=f"theory §4 limit{suffix}")
            for model, name, marker in (("softmax", "softmax", "o"), ("ge", "GE", "^")):
                ax.errorbar(xs, _means(members, f"{model}_{q}"),
                            yerr=[e[f"{model}_{q}"]["ci95"] or 0.0 for e in members],
                            ls="none", color=colour, marker=marker,
                            mfc="white" if model == "ge" else colour,
                            label=f"{name} samples{suffix}")
    if x == "n":
        _fit_lines(ax_d, report["fits"]["n_scaling"], varying, colours)
        for ax in (ax_d, ax_m1, ax_m2):
            ax.set_xscale("log")
            ax.set_yscale("log")
            log_ticks(ax.xaxis)
            log_ticks(ax.yaxis)
    ax_d.set_title("softmax vs GE (mean ± 95% CI)")
    ax_d.set_ylabel("distance between the spectra")
    for ax, q in ((ax_m1, "1"), (ax_m2, "2")):
        ax.set_title(f"$m_{q}$: samples (mean ± 95% CI) vs theory §4 limit")
        ax.set_ylabel(f"empirical moment $m_{q}$")
    for ax in (ax_d, ax_m1, ax_m2):
        ax.set_xlabel(AXIS_LABELS.get(x, x))
        ax.legend(fontsize=7)
    save(fig, path)


def _means(members: list[dict[str, Any]], metric: str) -> list[float]:
    """The means of ``metric`` over ``members``, NaN (not drawn) where one overflowed."""
    return [math.nan if e[metric]["mean"] is None else e[metric]["mean"] for e in members]


def _group_text(varying: list[str], gkey: tuple) -> str:
    """`` (beta = 0.5)``: the group's values of the varying axes, or nothing."""
    where = ", ".join(f"{name} = {v}" for name, v in zip(varying, gkey, strict=True))
    return f" ({where})" if where else ""


def _fit_lines(ax: Any, fits: list[dict[str, Any]], varying: list[str],
               colours: dict[tuple, str]) -> None:
    """Each distance's n-scaling fit as a grey-edged line in its group's colour, labelled
    with its exponent, its group and its flags."""
    for fit in fits:
        gkey = tuple(fit["group"][k] for k in varying)
        ns = np.array([min(fit["n"]), max(fit["n"])], dtype=float)
        for metric, short, style in (("rel_w1", "relative $W_1$", ":"), ("ks", "KS", "-.")):
            f = fit["metrics"].get(metric)
            if f and f["prefactor"] is not None:
                flags = f" [{', '.join(f['flags'])}]" if f["flags"] else ""
                with np.errstate(over="ignore", under="ignore"):  # off the axes: not drawn
                    ys = f["prefactor"] * ns ** f["exponent"]
                ax.plot(ns, ys, style,
                        color=colours.get(gkey, "0.4"), lw=1.0, marker="none",
                        label=f"fit {short} $\\propto n^{{{f['exponent']:.2f} \\pm "
                        f"{f['ci95']:.2f}}}${_group_text(varying, gkey)}{flags}")
