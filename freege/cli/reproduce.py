"""``freege reproduce temperature|headcount|budget|budget-widths|sharing|arrival``: the
theory §6.3 setups, theory side (:mod:`freege.validation.paper.setups`): a text table or JSON with
the same numbers, ``--plot FILE`` for the curves, progress on stderr
(:mod:`freege.progress`; ``--quiet`` silences it, ``--verbose`` names each step).

JSON shapes:

* temperature -- ``{"rows": [{"beta", "error_64_192", "error_128_128", "ratio"}, ...],
  "crossover_beta"}``;
* headcount -- ``{"curves": [{"h", "dK", "dV", "dO", "t", "loss"}, ...],
  "rows": [{"h", "dK", "dV", "dO", "n_params", "error"}, ...]}``;
* budget -- ``{"rows": [{"h", "dK", "dV", "dO", "dO_rounded", "n_params", "error"}, ...],
  "n_params"}`` (the paper's path: dK = dV = 64, dO solved);
* budget-widths -- ``{"rows": [{"h", "dK", "dV", "dO", "n_params", "error"}, ...],
  "n_params"}`` (dO = 2048, dK = dV solved);
* sharing -- ``{"rows": [{"h", "dK", "error_gqa", "error_tied", "difference"}, ...]}``;
* arrival -- ``{"rows": [{"h_kv", "t_fixed_widths", "t_fixed_budget",
  "width_fixed_budget"}, ...], "n_params"}``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from freege import plotting
from freege.cli.common import check_plot_target, emit
from freege.cli.law import GUARD_DIGITS, real_option, text_value
from freege.cli.options import (
    DEFAULT_LAM,
    DEFAULT_LEVEL,
    DEFAULT_SIGMA2,
    add_dps_option,
    add_format_option,
    add_level_option,
    add_plot_option,
    add_ridge_options,
    add_verbosity_options,
)
from freege.cli.readout import lam_option, level_option, sigma2_option
from freege.params import BETA, HEADS, check_time, parse_number
from freege.progress import Progress
from freege.validation.paper import setups as experiments

#: table columns of each setup (``curves`` is headcount's second table)
COLUMNS: dict[str, tuple[str, ...]] = {
    "temperature": ("beta", "error_64_192", "error_128_128", "ratio"),
    "headcount": ("h", "dK", "dV", "dO", "n_params", "error"),
    "curves": ("h", "dK", "dV", "dO", "t", "loss"),
    "budget": ("h", "dK", "dV", "dO", "dO_rounded", "n_params", "error"),
    "budget-widths": ("h", "dK", "dV", "dO", "n_params", "error"),
    "sharing": ("h", "dK", "error_gqa", "error_tied", "difference"),
    "arrival": ("h_kv", "t_fixed_widths", "t_fixed_budget", "width_fixed_budget"),
}

_HELP = {
    "temperature": "coefficient errors of (dK, dV) = (64, 192) vs (128, 128) over beta, "
    "their ratio and the crossover beta (h = 96, n = 8192, d = dO = 12288)",
    "headcount": "learning curves for h in {32, 64, 128} (dO = 2n) and errors at fixed "
    "output dO = 2048 for h from 16 to 120 (n = d = 4096, dK = dV = 64)",
    "budget": "errors at the fixed budget h dK (3n + dO) = 6 n^2 with dK = dV = 64 fixed "
    "and dO solved per h (the paper's path; n = d = 4096; h < 128)",
    "budget-widths": "errors at the fixed budget h dK (3n + dO) = 6 n^2 with dO = 2048 "
    "fixed and the width dK = dV solved per h (n = d = 4096)",
    "sharing": "GQA (2 query heads per K/V pair) vs tied K = V: errors and their difference "
    "(n = 4096, d = 8192, dO = 2048, h dK = 2048)",
    "arrival": "time to relative loss --level vs h_kv at fixed widths and at fixed N_par "
    "(h = 64, n = d = 4096, dO = 2n)",
}

#: the setups with a ``--heads`` grid, and its help there
_HEADS_HELP = {
    "headcount": "heads (default 16, 24, ..., 120)",
    "budget-widths": "heads (default 16, 24, ..., 120)",
    "budget": "heads in [1, 128), real allowed (default 32, 40, ..., 120)",
    "sharing": "heads, even divisors of 2048 (default 2 4 8 16 32)",
}


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str], dps: int | None) -> str:
    """A fixed-width text table carrying the JSON's digits."""
    cells = [list(columns)] + [[text_value(row[c], dps) for c in columns] for row in rows]
    widths = [max(len(line[k]) for line in cells) for k in range(len(columns))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True))
                     for line in cells)


def render(setup: str, data: dict[str, Any], dps: int | None) -> str:
    parts = [f"theory §6.3 {setup}: {_HELP[setup]}"]
    if setup == "headcount":
        parts += ["learning curves L(t), dO = 2n:", table(data["curves"], COLUMNS["curves"], dps),
                  "coefficient error at fixed output dO = 2048:"]
    parts.append(table(data["rows"], COLUMNS[setup], dps))
    if setup == "temperature":
        parts.append(f"crossover_beta  {text_value(data['crossover_beta'], dps)}")
    if "n_params" in data:
        parts.append(f"n_params  {data['n_params']}")
    return "\n".join(parts)


def _column(rows: Sequence[dict[str, Any]], key: str) -> list[float]:
    return [float(row[key]) for row in rows]


#: the figures' axis labels (mathtext; theory §5 names: coefficient error E, loss L(t))
ERROR_LABEL = r"coefficient error $\mathcal{E}$ (theory §5)"
HEADS_LABEL = r"heads $h$"


def plot(setup: str, path: str, data: dict[str, Any], curve: Any = None) -> None:
    """Draw the setup's curves (float64 is ample for a figure) in the house style;
    temperature: the ratio on the fine grid ``curve``
    (:func:`~freege.validation.paper.setups.temperature_curve`) as the line, the table's
    betas as points, so the line crosses 1 at the printed crossover; headcount: each
    learning curve on a fine log grid of times (``curve``,
    :func:`~freege.validation.paper.setups.headcount_curves`), the table's as points."""
    rows = data["rows"]
    if setup == "temperature":
        cross = data["crossover_beta"]
        ratio = r"$\mathcal{E}(64, 192)\,/\,\mathcal{E}(128, 128)$"
        table = (_column(rows, "beta"), _column(rows, "ratio"))
        plotting.curves(
            path, {f"{ratio} (theory §5)": curve or table},
            r"inverse temperature $\beta$", "ratio of coefficient errors",
            "theory §6.3 temperature: $(d_K, d_V) = (64, 192)$ vs $(128, 128)$", hline=1.0,
            vline=None if cross is None else float(cross), hline_label="ratio 1",
            vline_label=None if cross is None else rf"crossover $\beta$ = {float(cross):.3g}",
            points={r"table rows (the theory at the tabulated $\beta$)": table} if curve else None,
        )
    elif setup == "headcount":  # the curves on a fine log grid, the table's times as points
        series, points = {}, {}
        for h in dict.fromkeys(row["h"] for row in data["curves"]):
            mine = [row for row in data["curves"] if row["h"] == h]
            series[rf"loss, $h$ = {h}"] = curve[int(h)] if curve else (
                _column(mine, "t"), _column(mine, "loss"))
            points[rf"table rows, $h$ = {h}"] = (_column(mine, "t"), _column(mine, "loss"))
        ax = plotting.curves(None, series, r"training time $t$", r"loss $L(t)$",
                             "theory §6.3 learning curves ($d_O = 2n$)", logx=True,
                             points=points if curve else None)
        plotting.log_ticks(ax.xaxis)
        plotting.finish(ax, path)
    elif setup in ("budget", "budget-widths"):
        plotting.curves(path, {rf"$\mathcal{{E}}$ at fixed budget ({setup})":
                               (_column(rows, "h"), _column(rows, "error"))},
                        HEADS_LABEL, ERROR_LABEL, f"theory §6.3 fixed budget ({setup})")
    elif setup == "sharing":
        x = _column(rows, "h")
        plotting.curves(path, {r"$\mathcal{E}$, GQA (2 heads per K/V pair)":
                               (x, _column(rows, "error_gqa")),
                               r"$\mathcal{E}$, tied $K = V$": (x, _column(rows, "error_tied"))},
                        HEADS_LABEL, ERROR_LABEL, "theory §6.3 sharing", logx=True)
    else:
        x = _column(rows, "h_kv")
        plotting.curves(path, {"arrival time, fixed widths": (x, _column(rows, "t_fixed_widths")),
                               r"arrival time, fixed $N_{\mathrm{par}}$":
                               (x, _column(rows, "t_fixed_budget"))},
                        r"K/V groups $h_{kv}$", r"arrival time $t^*$ (theory §5)",
                        "theory §6.3 arrival", logx=True)


def _progress(bar: Progress) -> experiments.Progress:
    """The setups' callback: each message is one step (and, with --verbose, a line)."""
    def step(message: str) -> None:
        bar.note(message)
        bar.update(status=message)

    return step


def _ints(option: str, texts: list[str]) -> list[int]:
    return [int(parse_number(option, t, HEADS)) for t in texts]


def run(args: argparse.Namespace) -> int:
    setup = args.setup
    if setup == "paper" or getattr(args, "measure", False):
        from freege.cli import paper

        return paper.run(args, setup)
    if args.plot is not None:
        check_plot_target(args.plot)
    settings = experiments.Readout(
        lam=lam_option(getattr(args, "lam", DEFAULT_LAM)),
        sigma2=sigma2_option(getattr(args, "sigma2", DEFAULT_SIGMA2)),
        level=level_option(args.level) if setup == "arrival" else DEFAULT_LEVEL,
    )
    kwargs: dict[str, Any] = {
        "settings": settings,
        "dps": None if args.dps is None else args.dps + GUARD_DIGITS,
    }
    if setup == "temperature" and args.betas:
        kwargs["betas"] = [real_option("--betas", b, BETA) for b in args.betas]
    if setup == "headcount":
        if args.curve_heads:
            kwargs["curve_heads"] = _ints("--curve-heads", args.curve_heads)
        if args.times:
            kwargs["times"] = [check_time("--times", t) for t in args.times]
    if setup in _HEADS_HELP and args.heads:
        kwargs["heads"] = _ints("--heads", args.heads)
    if setup == "arrival" and args.h_kv:
        kwargs["groups"] = _ints("--h-kv", args.h_kv)
    curve = None
    with Progress(f"reproduce {setup}", None, verbosity=args.verbosity) as bar:
        data = experiments.SETUPS[setup](**kwargs, progress=_progress(bar))
        if setup == "temperature" and args.plot is not None:
            _progress(bar)(f"temperature: figure curve ({experiments.CURVE_POINTS} betas)")
            betas = _column(data["rows"], "beta")
            cross = data["crossover_beta"]
            curve = experiments.temperature_curve(
                min(betas), max(betas), settings,
                through=[*betas, *([] if cross is None else [float(cross)])])
        if setup == "headcount" and args.plot is not None:
            _progress(bar)(f"headcount: figure curves ({experiments.CURVE_POINTS} times)")
            times = _column(data["curves"], "t")
            heads = list(dict.fromkeys(int(row["h"]) for row in data["curves"]))
            curve = experiments.headcount_curves(heads, min(times), max(times), times)
    emit(data, args, lambda d: render(setup, d, args.dps), args.dps)
    if args.plot is not None:
        plot(setup, args.plot, data, curve)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="the theory §6.3 readout experiments, theory side",
        description="The theory §6.3 setups (beta = 1, lam = 1e-4, sigma2 = 0.1 unless "
        "varied): tables of limiting predictions (theory §5).",
    )
    setups = parser.add_subparsers(dest="setup", metavar="SETUP")
    setups.required = True
    from freege.cli import paper

    sub = setups.add_parser(
        "paper", help="the paper's experimental section end to end: --measure the softmax "
        "points, write report.md/.json and one figure per panel (theory §6.4)",
        description="Theory curves, measured softmax points on the sweep engine, the "
        "paper's statistics, a report and figures (theory §6.4).")
    paper.add_options(sub, "paper")
    add_verbosity_options(sub)
    sub.set_defaults(func=run)
    measured = paper.setup_panels()
    for setup, text in _HELP.items():
        sub = setups.add_parser(setup, help=text, description=text)
        if setup != "arrival":  # the ridge settings of the coefficient errors (theory §5)
            add_ridge_options(sub)
        if setup == "temperature":
            sub.add_argument("--betas", nargs="+", metavar="B",
                             help="beta grid (default 0.25, 0.30, ..., 1.50)")
        if setup == "headcount":
            sub.add_argument("--curve-heads", nargs="+", metavar="H",
                             help="heads of the learning curves (default 32 64 128)")
            sub.add_argument("--times", nargs="+", metavar="T",
                             help="learning-curve times (default 0.01, 0.02, 0.05, ..., 1000)")
        if setup in _HEADS_HELP:
            sub.add_argument("--heads", nargs="+", metavar="H", help=_HEADS_HELP[setup])
        if setup == "arrival":
            sub.add_argument("--h-kv", dest="h_kv", nargs="+", metavar="K",
                             help="K/V groups in [1, 64] (default 64 32 ... 1)")
            add_level_option(sub)
        add_plot_option(sub, "draw the curves (.png, .svg or .pdf)")
        add_verbosity_options(sub)
        if setup in measured:
            paper.add_options(sub, setup)
        add_format_option(sub)
        add_dps_option(sub)
        sub.set_defaults(func=run)
