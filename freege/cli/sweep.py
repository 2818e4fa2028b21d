"""``freege sweep`` and ``freege sweep-report``: validation campaigns (theory §6.1) as Dask
task graphs into a resumable store, and their analyses.

Dask, tqdm and scipy load only when these commands run (the ``sweep`` extra). Bad input
-- an unknown grid key, an empty grid, malformed TOML or config.json, an unreachable
scheduler, a store written by a different sweep -- is one line on stderr, exit 2, and
the store is left as it was. Numbers are read by :func:`freege.params.parse_number`
(draws, seed, workers and grid values in their domains) and the draws left are sized
per grid point before any task list exists (:func:`freege.cli.budget.preflight_batch`:
past an hour only with ``--yes``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from freege.cli.common import emit, one_line_warnings
from freege.cli.options import (
    add_backend_option,
    add_dtype_option,
    add_format_option,
    add_plot_option,
    add_run_options,
    add_seed_option,
)
from freege.params import DRAWS, MAX_DRAWS, MAX_WORKERS, SEED, WORKERS, parse_number
from freege.progress import QUIET

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
    from freege.validation.sampling.backend import NAMES

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
    p.add_argument("--draws", default=None, help=f"draws per grid point, 1 to {MAX_DRAWS} "
                   "(default: campaign's)")
    p.add_argument("--store", required=True, metavar="PATH", help="JSON-lines results store")
    p.add_argument("--workers", default=None,
                   help=f"local worker processes, 1 to {MAX_WORKERS} (default: the cores; 1 "
                   "for cupy); 1 runs the draws in this process, with no cluster; more "
                   "start a private cluster on 127.0.0.1 (mutual TLS with temporary "
                   "credentials, no dashboard)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="attach to a running Dask scheduler instead: tls://host:8786 uses "
                   "Dask's TLS settings (distributed.comm.tls.* in the Dask config, or "
                   "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, ...__CLIENT__CERT, "
                   "...__CLIENT__KEY); a plain tcp:// scheduler you do not control can "
                   "run code in your process")
    add_seed_option(p, default=None, help="seed, integer >= 0 (default: campaign's or 0)")
    add_backend_option(p, NAMES, "numpy",
                       help="array backend of the tasks (default numpy)")
    add_dtype_option(p, ("float64", "float32"),
                     help="working precision of the draws, recorded in the store (default "
                     "float64)")
    p.add_argument("--analyse", action="store_true",
                   help="print the sweep-report of the store when done")
    add_run_options(p, "with --analyse: write the report's figure (.png, .svg, .pdf)")
    p.set_defaults(func=run_sweep)

    q = subparsers.add_parser(
        "sweep-report",
        help="per-point means with 95%% CIs, n-scaling fits and plots of a sweep store",
        description="Means ± Student-t 95% half-widths of relative W1, KS and moment "
        "errors per grid point, log-log n-scaling fits with CIs, theory §4 limiting "
        "moments beside the samples; flags: a degenerate interval (all values equal), a "
        "fit whose interval spans 0 or with few points. --format csv: one row per draw.",
    )
    q.add_argument("store", metavar="PATH", help="a store written by freege sweep")
    add_format_option(q, ("text", "json", "csv"))
    add_plot_option(q, "write a figure (.png, .svg, .pdf)")
    q.set_defaults(func=run_report)


def _points(args: argparse.Namespace, campaign: Any) -> list:
    from freege.validation.sweep.grid import expand, with_axes

    axes = {key: getattr(args, key) for _o, key, _t in _GRID_OPTIONS
            if getattr(args, key) is not None}
    return expand(with_axes(campaign.grid, axes))


def run_sweep(args: argparse.Namespace) -> int:
    from freege.validation.sweep.grid import Campaign, load_campaign

    campaign = load_campaign(args.campaign) if args.campaign else Campaign({})
    if args.draws is None and campaign.draws is None:
        raise ValueError("give --draws (draws per grid point, integer >= 1)")
    draws = int(parse_number("draws", args.draws if args.draws is not None
                             else campaign.draws, DRAWS))
    seed = int(parse_number("seed", args.seed if args.seed is not None
                            else campaign.seed or 0, SEED))
    workers = None if args.workers is None else int(parse_number("workers", args.workers,
                                                                 WORKERS))
    points = _points(args, campaign)
    if args.plot is not None:
        if not args.analyse:
            raise ValueError("--plot needs --analyse (or use freege sweep-report --plot)")
        from freege.validation.sweep.report import check_plot_path

        check_plot_path(args.plot)
    from freege.validation.sweep.engine import run

    said: set[str] = set()
    outcome = one_line_warnings(lambda: run(
        points, draws=draws, store=args.store, seed=seed, backend=args.backend,
        dtype=args.dtype, workers=workers, scheduler=args.scheduler,
        verbosity=args.verbosity, preflight=_sizer(args)), said)
    if args.analyse:
        return _report(args, said)
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


def _sizer(args: argparse.Namespace) -> Callable[[list, int, bool], None]:
    """The sweep's preflight: the draws left per grid point, at the point's cost
    (:func:`freege.validation.sampling.cost.draw_cost`), against the memory of this machine
    (local workers) and :data:`freege.cli.budget.CONFIRM_SECONDS` (``--yes``)."""
    def check(left: list, workers: int, local: bool) -> None:
        from freege.cli.budget import preflight_batch
        from freege.validation.sampling.backend import get_backend
        from freege.validation.sampling.cost import (
            cluster_seconds,
            draw_cost,
            figure_seconds,
            speeds,
        )
        try:
            bk = get_backend(args.backend, args.dtype)
        except ValueError:  # CuPy unusable here: remote workers may have it
            if local:
                raise
            bk = get_backend("numpy", args.dtype)  # this machine's speed as the guess
        batch = [(draw_cost(point.dims, bk.dtype, floor=True), n) for point, n in left]
        after = 0.0
        if local and workers > 1 and bk.on_cpu:  # the private cluster's start
            after = cluster_seconds(workers, speeds(bk))
        if args.plot is not None and bk.on_cpu:  # --analyse --plot's figure
            after += figure_seconds(speeds(bk))
        preflight_batch(batch, "draw", bk, args.yes, workers=workers, check_memory=local,
                        after=after, quiet=args.verbosity == QUIET)

    return check


def _report(args: argparse.Namespace, said: set[str] | None = None) -> int:
    """The report of the store ``args.store`` (``--plot`` figure too when given)."""
    from freege.validation.sweep import report as sweep_report

    if args.plot is not None:
        sweep_report.check_plot_path(args.plot)
    report = one_line_warnings(lambda: sweep_report.summarise(args.store), said)
    if args.plot is not None:
        sweep_report.plot(report, args.plot)
    if args.format == "csv":  # the draws themselves, one row each
        from freege.validation.sweep.data import write_csv

        write_csv(args.store, sys.stdout)
        return 0
    emit(report, args, sweep_report.render_text)
    return 0


def run_report(args: argparse.Namespace) -> int:
    return _report(args)
