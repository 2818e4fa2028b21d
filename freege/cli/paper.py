"""``freege reproduce paper --measure``: the paper's experimental section end to end
(theory §6.4) -- theory curves, measured softmax points on the sweep engine
(:mod:`freege.validation.paper.run`), the paper's statistics, ``report.md``,
``report.json`` and one figure per panel (PDF and PNG) in ``--out DIR``.

Every input is checked before any work: ``--scale`` a number >= 1, known ``--panels``,
``--out`` a writable folder that is new or empty, or holds this same run and ``--resume``
is given; ``--finite-width`` (``reproduce paper`` only) needs panel table2 and dK >= 2 at
this scale, and is part of the run's identity (a store written without it is not resumed
with it, nor the reverse). The estimated time (draws x flops at this machine's measured
rate; on CuPy at the device's, probed at the run's largest n, or unknown when it cannot
be) and memory are printed first; above :data:`freege.cli.budget.CONFIRM_SECONDS` of
known time the run needs ``--yes``. The draws are scheduled by this machine's memory
(:func:`freege.validation.paper.run.run`): the estimate names the panels whose draws run
one (or a few) at a time, and only a draw larger than all of the memory is refused.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freege.cli.options import (
    add_backend_option,
    add_dtype_option,
    add_seed_option,
    add_yes_option,
)
from freege.params import positive_int
from freege.progress import NORMAL, Progress

if TYPE_CHECKING:
    from freege.validation.paper.panel import Panel

STORE = "store.jsonl"


def setup_panels() -> dict[str, str]:
    """The reproduce setups that also take --measure, and the panels each measures
    (comma-separated), from the panel registry
    (:data:`freege.validation.paper.panels.SETUPS`)."""
    from freege.validation.paper import panels as paper_panels

    return {setup: ",".join(names) for setup, names in paper_panels.SETUPS.items()}


def add_options(parser: argparse.ArgumentParser, setup: str) -> None:
    """The measurement options of ``reproduce SETUP --measure``."""
    from freege.validation.sampling.backend import DTYPES, NAMES

    parser.add_argument("--measure", action="store_true",
                        help="measure the softmax points (theory §6.4) and write a report")
    parser.add_argument("--scale", default="1", metavar="S",
                        help="divide n, d, dK, dV, dO by S >= 1 (default 1: the paper's)")
    if setup == "paper":
        parser.add_argument("--panels", default=setup_panels()["paper"],
                            help="comma-separated panels (default all: %(default)s)")
        parser.add_argument("--finite-width", action="store_true",
                            help="table 2 also measures softmax against the conditional GE "
                            "with each row's finite-n coefficient (ge-row-n, theory §2.3); "
                            "dK >= 2")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="folder for report.md, report.json, figures and the store "
                        "(default paper-S<scale>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run already in --out")
    parser.add_argument("--draws", default="10", help="draws per configuration (default 10)")
    parser.add_argument("--resamples", default="2000",
                        help="bootstrap resamples of arrival times (default 2000)")
    parser.add_argument("--workers", default="1",
                        help="worker processes (default 1: in this process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="an existing Dask scheduler to run the tasks on")
    add_backend_option(parser, NAMES, "numpy",
                       help="array backend of the measurements (default numpy)")
    add_dtype_option(parser, DTYPES, help="precision of the draws' products (default float64; "
                     "float32: the Gram, eigensolvers, ridge and learning-curve formulas "
                     "stay in float64, docs/performance.md)")
    add_seed_option(parser)
    add_yes_option(parser)
    parser.add_argument("--estimate", action="store_true",
                        help="print the plan (per panel: configurations, draws, those "
                        "already stored) and the time estimate, then exit: nothing is "
                        "measured or written (implies --measure)")


def _plan(configs: list[dict[str, Any]], todo: list[Any]) -> list[str]:
    """One line per panel: its configurations, draws, and draws still to measure."""
    pending: dict[str, int] = {}
    for config, _draw in todo:
        pending[config["panel"]] = pending.get(config["panel"], 0) + 1
    lines: list[str] = []
    seen: dict[str, list[dict[str, Any]]] = {}
    for config in configs:
        seen.setdefault(config["panel"], []).append(config)
    for panel, group in seen.items():
        draws = sum(int(c["draws"]) for c in group)
        lines.append(f"{panel}: {len(group)} configuration(s), {draws} draws, "
                     f"{pending.get(panel, 0)} to measure")
    return lines


def _out_folder(args: argparse.Namespace, scale: float) -> Path:
    """``--out``, checked: a folder (or a new one in an existing folder) that is writable,
    yours and writable by no one else unless sticky (:func:`freege.safe_files.check_folder`:
    a folder owned by another user is never resumed), and new or empty unless ``--resume``;
    the store in it, when present, yours alone (:func:`freege.safe_files.check_store`)."""
    from freege import safe_files

    out = Path(args.out or f"paper-S{scale:g}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} exists and is not a folder")
    parent = out if out.exists() else out.absolute().parent
    if not parent.is_dir():
        raise ValueError(f"--out: folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out: folder {str(parent)!r} is not writable")
    safe_files.check_folder(parent, "--out")
    if out.exists():
        safe_files.check_store(out / STORE, "store")
    if out.exists() and any(out.iterdir()) and not args.resume:
        raise ValueError(f"--out {str(out)!r} already holds files (an earlier run?); pass "
                         "--resume to continue that run, or choose another folder")
    if args.resume and out.exists() and any(out.iterdir()) and not (out / STORE).exists():
        raise ValueError(f"--out {str(out)!r} holds no freege paper run to resume")
    return out


def run(args: argparse.Namespace, setup: str = "paper") -> int:
    from freege import safe_files
    from freege.extras import require
    from freege.validation.paper import configs as paper_configs
    from freege.validation.paper import panels as paper_panels
    from freege.validation.paper import run as paper_run
    from freege.validation.sampling.backend import backend_kind
    from freege.validation.sweep import engine as sweep_engine

    estimate_only = bool(getattr(args, "estimate", False))
    if not (args.measure or estimate_only):
        raise ValueError("reproduce paper needs --measure (the theory side alone: "
                         "freege reproduce temperature|headcount|budget|sharing|arrival)")
    if not estimate_only:
        require("matplotlib", "plot", "--measure (its figures)")
    scale = paper_configs.check_scale(args.scale)
    names = getattr(args, "panels", None) or setup_panels()[setup]
    panels = paper_panels.check_panels([p.strip() for p in names.split(",") if p.strip()])
    if not panels:
        raise ValueError("--panels must name at least one panel")
    draws = positive_int("--draws", args.draws, minimum=2)
    resamples = positive_int("--resamples", args.resamples, minimum=100)
    workers = positive_int("--workers", args.workers)
    sweep_engine.need_dask(args.scheduler, workers)
    seed = positive_int("--seed", getattr(args, "seed", "0"), minimum=0)
    backend = getattr(args, "backend", "numpy")
    dtype = getattr(args, "dtype", "float64")
    out = _out_folder(args, scale)
    finite_width = bool(getattr(args, "finite_width", False))
    configs = paper_panels.configurations(panels, scale, draws, finite_width)
    if finite_width:
        paper_configs.check_finite_width(configs)
    store = out / STORE
    header = paper_run.header(configs, seed, backend, scale, finite_width, dtype)
    todo = paper_run.pending(configs, paper_run.check_store(store, header))
    # this CPU: the report's work, and NumPy draws; with --estimate both dtypes' rates
    priced = "float32" if estimate_only else dtype
    rates = paper_run.measure_rates(dtype=priced)
    draw_rates: dict[str, float] | str = rates
    on_cpu = backend_kind(backend).on_cpu
    if not on_cpu and todo:  # the draws' time probed on the device, or unknown
        draw_rates = paper_run.device_rates(configs, rates, priced)
    memory = _memory(backend) if todo and args.scheduler is None else None
    est = paper_run.estimate(configs, todo, draw_rates, workers, memory, dtype)
    chosen = [paper_panels.BY_NAME[name] for name in panels]
    est.update(_report_estimate(chosen, configs, resamples, rates, out))
    if estimate_only:  # the plan and the estimate, nothing measured or written
        for line in _plan(configs, todo):
            print(line)
        _confirm(est, len(todo), True, backend, workers, memory, dtype)
        _both_dtypes(configs, todo, draw_rates, workers, memory, backend)
        print(f"freege: --estimate: nothing measured or written ({out} untouched)")
        return 0
    _confirm(est, len(todo), getattr(args, "yes", False), backend, workers, memory, dtype)
    safe_files.make_folder(out, "--out")
    verbosity = getattr(args, "verbosity", NORMAL)
    with Progress(f"reproduce {setup}: measure", len(todo), unit="draw",
                  verbosity=verbosity) as bar:
        counts = paper_run.run(configs, store, seed=seed, backend=backend, scale=scale,
                               workers=workers, scheduler=args.scheduler,
                               progress=lambda done, _total: bar(done),
                               rates=rates if isinstance(draw_rates, str) else draw_rates,
                               memory=memory, finite_width=finite_width, dtype=dtype)
    _write(out, chosen, configs, paper_run.records(store), scale, seed, draws, resamples,
           backend, finite_width, dtype,
           Progress(f"reproduce {setup}: report", len(panels), unit="panel",
                    verbosity=verbosity))
    print(f"freege: paper report in {out}/report.md ({counts['ok']} draws measured now, "
          f"{counts['skipped']} already in the store, {counts['failed']} failed)")
    return 1 if counts["failed"] else 0


def _report_estimate(panels: list[Panel], configs: list[dict[str, Any]], resamples: int,
                     rates: dict[str, float], out: Path) -> dict[str, float]:
    """CPU seconds of theory, statistics and figures (theory §6.4): the report's modelled
    work (:func:`freege.validation.paper.report.work`) at rates measured now
    (:func:`freege.validation.paper.report.rates`, and the elementwise rate of the draws
    for the bootstrap), in this one process whatever ``--workers``. The derivations a cold
    cache lacks are made while measuring the rates, before the estimate, which counts them
    as spent."""
    from freege.validation.paper import report as paper_report

    work = paper_report.work(panels, configs, resamples)
    tied = any(c["dims"].get("sharing") == "tied" for c in configs)
    unit = paper_report.rates(out if out.exists() else out.absolute().parent, tied)
    return {"report_seconds": work["limits"] * unit["limits"]
            + work["bootstrap"] / rates["elementwise"] + work["figures"] * unit["figures"]}


def _both_dtypes(configs: list[dict[str, Any]], todo: list[Any],
                 rates: dict[str, float] | str, workers: int, memory: int | None,
                 backend: str) -> None:
    """One line: the draws' estimated time in each ``--dtype``, side by side, at the rates
    measured (or probed) for both (:func:`freege.validation.paper.run.draw_seconds`)."""
    from freege.cli.budget import duration_text
    from freege.validation.paper import run as paper_run
    from freege.validation.sampling.backend import DTYPES

    if isinstance(rates, str):
        return  # a device that could not be probed: no time in either
    times = {dtype: paper_run.estimate(configs, todo, rates, workers, memory, dtype)["seconds"]
             for dtype in DTYPES}
    ratio = times["float32"] / times["float64"] if times["float64"] > 0 else 1.0
    print("freege: measuring on " + backend + " by --dtype: " + ", ".join(
        f"{dtype} {duration_text(seconds)}" for dtype, seconds in times.items())
        + f" (float32/float64 = {ratio:.2f})", file=sys.stderr, flush=True)


def _memory(backend: str) -> int | None:
    """The bytes this machine's workers share (free device memory on CuPy), None when
    unknown (:func:`freege.validation.sampling.cost.available_memory`)."""
    from freege.validation.sampling.backend import get_backend
    from freege.validation.sampling.cost import available_memory

    return available_memory(get_backend(backend))


def _confirm(est: dict[str, Any], tasks: int, yes: bool, backend: str, workers: int,
             memory: int | None, dtype: str = "float64") -> None:
    """Refuse a draw larger than ``memory``; otherwise say the estimate (one line, and a
    line per panel whose draws run fewer than ``workers`` at a time) and ask for --yes
    past :data:`freege.cli.budget.CONFIRM_SECONDS` of known time."""
    from freege.cli.budget import CONFIRM_SECONDS, duration_text, size_text

    for panel, at_once, peak in est["serial"]:
        if at_once == 0:
            raise ValueError(f"a draw of panel {panel} needs about {size_text(peak)} of "
                             f"memory but only {size_text(memory or 0)} is available on "
                             f"{backend}; use a larger --scale or fewer --panels")
    report = est["report_seconds"]
    spent = time.process_time()  # start-up, imports, the rates: measured
    if est["unknown"] is not None:  # a GPU that could not be probed: no guess, no --yes
        total = spent + report
        timing = (f"measuring time unknown ({est['unknown']}), "
                  f"{duration_text(report)} theory, statistics and figures")
    else:
        total = spent + est["seconds"] + report
        from freege.validation.sampling.backend import backend_kind

        on_cpu = backend_kind(backend).on_cpu
        speed = "this CPU's speed" if on_cpu else "its speed probed on the device"
        timing = (f"estimated {duration_text(total)} ({duration_text(spent)} spent "
                  f"starting, {duration_text(est['seconds'])} measuring on {backend}"
                  f"{'' if dtype == 'float64' else ' in ' + dtype} at "
                  f"{speed}, {duration_text(report)} theory, statistics and figures)")
    room = "" if memory is None else f" of {size_text(memory)} available"
    line = (f"paper: {tasks} draws to measure on {workers} worker(s), about "
            f"{est['gflop']:.0f} GFLOP: {timing}, peak memory about "
            f"{size_text(est['peak_bytes'])} per draw{room}")
    print(f"freege: {line}", file=sys.stderr, flush=True)
    for panel, at_once, peak in est["serial"]:
        count = "one" if at_once == 1 else str(at_once)
        print(f"freege: {panel}: run {count} at a time, memory {size_text(peak)} each",
              file=sys.stderr, flush=True)
    if est["unknown"] is None and total > CONFIRM_SECONDS and not yes:
        raise ValueError(f"the run would take about {duration_text(total)}; pass "
                         "--yes to run anyway, or use a larger --scale or fewer --panels")


def _write(out: Path, panels: list[Panel], configs: list[dict[str, Any]], recs: Any,
           scale: float, seed: int, draws: int, resamples: int, backend: str,
           finite_width: bool, dtype: str, bar: Progress) -> None:
    from freege.validation.paper import configs as paper_configs
    from freege.validation.paper import plots as paper_plots
    from freege.validation.paper import report as paper_report

    meta = {"scale": scale, "seed": seed, "draws": draws, "resamples": resamples,
            "backend": backend, "target_seed": paper_configs.TARGET_SEED,
            "finite_width": finite_width, "dtype": dtype}
    # a float32 run says so in every measured panel's title (float64: the default)
    run = f"S = {scale:g}, {draws} draws" + ("" if dtype == "float64" else f", {dtype}")
    opts = {"resamples": resamples, "seed": seed}
    report: dict[str, Any] = {}
    with bar:
        for panel in panels:  # panel by panel, each a step of the progress
            start = time.perf_counter()
            name = panel.name
            part = paper_report.build([panel], configs, recs, meta, opts)
            paper_plots.figure(panel, part["panels"][name], out,
                               run if panel.measured else "")
            report = {**part, "panels": {**report.get("panels", {}), **part["panels"]}}
            bar.update(status=f"panel {name}")
            bar.note(f"panel {name}: theory, statistics and figure took "
                     f"{time.perf_counter() - start:.1f} s")
    report = paper_report.with_overall(report)
    _atomic(out / "report.json", paper_report.to_json(report))
    _atomic(out / "report.md", paper_report.to_markdown(report, panels))
    for line in paper_report.verdict_lines(report):
        print(f"freege: {line}")


def _atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, never through a fixed temporary name or a
    planted link (:func:`freege.safe_files.write_text`)."""
    from freege import safe_files

    safe_files.write_text(path, text, "--out")
