"""``freege sweep`` and ``freege sweep-report``: validation campaigns (theory §6.1) as Dask
task graphs into a resumable store, and their analyses.

Dask, tqdm and scipy load only when these commands run (the ``sweep`` extra). Bad input
-- an unknown grid key, an empty grid, malformed TOML or config.json, an unreachable
scheduler, a store written by a different sweep -- is one line on stderr, exit 2, and
the store is left as it was.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from typing import Any

from freege.cli.common import emit
from freege.cli.options import (
    add_backend_option,
    add_dtype_option,
    add_format_option,
    add_plot_option,
    add_seed_option,
)
from freege.params import positive_int

#: grid options: (option, grid key, help)
_GRID_OPTIONS = (
    ("--preset", "preset", "theory §6.1 preset name(s)"),
    ("--config", "config", "Hugging Face-style config.json file(s)"),
    ("--n", "n", "tokens"),
    ("--beta", "beta", "inverse temperature(s); start:stop:step for a range"),
    ("--h", "h", "heads"),
    ("--h-kv", "h_kv", "K/V groups"),
    ("--dk", "dk", "query/key width per head"),
    ("--dv", "dv", "value width per head (default: dk)"),
    ("--do", "do", "output width"),
    ("--d", "d", "model width (parameter counts only)"),
    ("--sharing", "sharing", "K/V sharing scheme(s): none, gqa, mqa, tied"),
    ("--case", "case", "theory §4 case(s) (default: mha, or mha-tied when tied)"),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="run a validation campaign (theory §6.1) over a grid on Dask, resumable",
        description="Every (grid point, draw) on Dask: softmax MHA vs its Gaussian "
        "equivalent, relative W1, KS and moments, appended to STORE as each finishes. "
        "The grid is the product of the axes given (and of a TOML campaign's). Rerunning "
        "the same command resumes; a store of another sweep is refused.",
    )
    p.add_argument("--campaign", metavar="NAME|FILE", default=None,
                   help="a shipped campaign (n-scaling, beta, heads) or a TOML file")
    for opt, _key, text in _GRID_OPTIONS:
        p.add_argument(opt, nargs="+", default=None, metavar="V", help=text)
    p.add_argument("--draws", default=None, help="draws per grid point (default: campaign's)")
    p.add_argument("--store", required=True, metavar="PATH", help="JSON-lines results store")
    p.add_argument("--workers", default=None,
                   help="local worker processes (default: the cores; 1 for cupy); 1 runs "
                   "the draws in this process, with no cluster; more start a private "
                   "cluster on 127.0.0.1 (mutual TLS with temporary credentials, no "
                   "dashboard)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="attach to a running Dask scheduler instead: tls://host:8786 uses "
                   "Dask's TLS settings (distributed.comm.tls.* in the Dask config, or "
                   "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, ...__CLIENT__CERT, "
                   "...__CLIENT__KEY); a plain tcp:// scheduler you do not control can "
                   "run code in your process")
    add_seed_option(p, default=None, help="seed, integer >= 0 (default: campaign's or 0)")
    add_backend_option(p, ("numpy", "cupy"), "numpy",
                       help="array backend of the tasks (default numpy)")
    add_dtype_option(p, ("float64", "float32"),
                     help="working precision of the draws, recorded in the store (default "
                     "float64)")
    p.add_argument("--analyse", action="store_true",
                   help="print the sweep-report of the store when done")
    add_format_option(p)
    add_plot_option(p, "with --analyse: write the report's figure (.png, .svg, .pdf)")
    p.set_defaults(func=run_sweep)

    q = subparsers.add_parser(
        "sweep-report",
        help="per-point means with 95%% CIs, n-scaling fits and plots of a sweep store",
        description="Means ± Student-t 95% half-widths of relative W1, KS and moment "
        "errors per grid point, log-log n-scaling fits with CIs, theory §4 limiting "
        "moments beside the samples.",
    )
    q.add_argument("store", metavar="PATH", help="a store written by freege sweep")
    add_format_option(q)
    add_plot_option(q, "write a figure (.png, .svg, .pdf)")
    q.set_defaults(func=run_report)


def _one_line_warnings(action: Callable[[], Any]) -> Any:
    """Run ``action``; warnings it raises are printed as ``freege: warning:`` lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return action()
        finally:
            for w in caught:
                line = " ".join(str(w.message).split())
                print(f"freege: warning: {line}", file=sys.stderr)


def _points(args: argparse.Namespace) -> tuple[list, Any]:
    from freege.validation.sweep_grid import Campaign, expand, load_campaign, with_axes

    axes = {key: getattr(args, key) for _o, key, _t in _GRID_OPTIONS
            if getattr(args, key) is not None}
    campaign = load_campaign(args.campaign) if args.campaign else Campaign({})
    grid = with_axes(campaign.grid, axes)
    return expand(grid), campaign


def run_sweep(args: argparse.Namespace) -> int:
    points, campaign = _points(args)
    if args.draws is None and campaign.draws is None:
        raise ValueError("give --draws (draws per grid point, integer >= 1)")
    draws = positive_int("draws", args.draws if args.draws is not None else campaign.draws)
    seed = positive_int("seed", args.seed if args.seed is not None else campaign.seed or 0,
                        minimum=0)
    workers = None if args.workers is None else positive_int("workers", args.workers)
    if args.plot is not None:
        if not args.analyse:
            raise ValueError("--plot needs --analyse (or use freege sweep-report --plot)")
        from freege.validation.sweep_report import check_plot_path

        check_plot_path(args.plot)
    from freege.validation.sweep import run

    outcome = _one_line_warnings(lambda: run(
        points, draws=draws, store=args.store, seed=seed, backend=args.backend,
        dtype=args.dtype, workers=workers, scheduler=args.scheduler))
    if args.analyse:
        return _report(args)
    data = {"store": outcome.store, "points": len(points), "draws": draws,
            "tasks": outcome.tasks, "skipped": outcome.skipped, "ok": outcome.ok,
            "failed": outcome.failed, "workers": outcome.workers,
            "seconds": outcome.seconds}
    emit(data, args, _sweep_text)
    return 0


def _sweep_text(d: dict) -> str:
    return (f"freege sweep: {d['points']} point(s) x {d['draws']} draw(s) = {d['tasks']} "
            f"task(s) into {d['store']}: {d['skipped']} already done, {d['ok']} ran, "
            f"{d['failed']} failed ({d['seconds']:.1f} s)")


def _report(args: argparse.Namespace) -> int:
    """The report of the store ``args.store`` (``--plot`` figure too when given)."""
    from freege.validation import sweep_report

    if args.plot is not None:
        sweep_report.check_plot_path(args.plot)
    report = _one_line_warnings(lambda: sweep_report.summarise(args.store))
    if args.plot is not None:
        sweep_report.plot(report, args.plot)
    emit(report, args, sweep_report.render_text)
    return 0


def run_report(args: argparse.Namespace) -> int:
    return _report(args)
