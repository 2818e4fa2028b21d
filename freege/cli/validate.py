"""``freege validate`` and ``freege ladder``: sampled softmax MHA against its Gaussian
equivalent and the limiting law (theory §6.1), and the single-head ladder (theory §6.2).

Bad input (unknown preset, invalid dimensions, draws < 2, an unusable CuPy, a plot that
cannot be written) is a ValueError, printed by the dispatcher as one line with exit
status 2; files are written only after every computation succeeded. Before sampling,
:func:`freege.cli.budget.preflight` refuses a sample larger than the available memory
and a run estimated past an hour (unless ``--yes``), and announces the estimate.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from freege.cli.common import check_plot_target, emit
from freege.cli.options import (
    add_backend_option,
    add_columns_option,
    add_dtype_option,
    add_run_options,
    add_seed_option,
    finite_width_profile,
)
from freege.params import (
    BETA,
    DIM_MAX,
    DRAWS,
    MAX_DRAWS,
    SEED,
    SHARINGS,
    Dims,
    Domain,
    parse_number,
)
from freege.progress import QUIET, Progress
from freege.validation.models.presets import PRESETS, get_preset
from freege.validation.sampling.backend import BACKENDS, DTYPES

if TYPE_CHECKING:  # scipy.stats (via the runner) loads only when validating
    from freege.validation.runner import Validation
    from freege.validation.sampling.sample import Draw

#: default number of draws of ``freege validate`` (theory §6.1 uses 10). bert-base takes
#: about 0.2 s of CPU time per draw (three models: softmax, GE and the floor's second GE)
#: on one core of the 2-core CPU, so 10 fit (benchmarks/estimates.py).
DEFAULT_DRAWS = 10
#: what the one per-draw time a validation reports (estimate, progress, result) measures
PER_DRAW_MEANS = ("mean wall time of a draw: sampling, the eigenvalues of both models and "
                  "of the noise floor's second GE, and the softmax outlier s_1(MHA)")
#: what the ``histogram vs limiting density`` row of ``validate --plot`` is
DENSITY_L1 = ("histogram vs limiting density = L1 distance between the plotted histogram of "
              "all draws' eigenvalues (60 bins over their range, numerical zeros left out) "
              "and the theory §4 limiting density: each model's distance to the limit, not "
              "to the other model; binning and finite n both add to it")
#: the same with ``--finite-width`` (theory §2.3): a fourth model's eigenvalues
PER_DRAW_MEANS_FINITE_WIDTH = ("mean wall time of a draw: sampling, the eigenvalues of both "
                               "models, of the noise floor's second GE and of the "
                               "conditional GE, and the softmax outlier s_1(MHA)")
#: default number of ladder trials (about 1 s of CPU time each at n = 1000 on one core of
#: the 2-core CPU; benchmarks/estimates.py)
DEFAULT_TRIALS = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "validate",
        help="sample softmax MHA vs its Gaussian equivalent at model dimensions (theory §6.1)",
        description="Sample softmax MHA and its Gaussian equivalent (same weights, fresh "
        "noise) and compare all n eigenvalues of MHA^perp MHA^perp^T and (1/n) MHA^G "
        "MHA^G^T: relative W1 (over the theory §4 limiting mean) and KS, mean ± 95% "
        "Student-t half-width over draws, beside their noise floor (a second GE with the "
        "same weights and fresh noise) and a verdict decided from both. "
        f"Presets: {', '.join(PRESETS)}; or give an "
        "explicit configuration with --n --h --dk --do [--dv --h-kv --sharing --d].",
    )
    p.add_argument("preset", nargs="?", help="theory §6.1 preset name")
    p.add_argument("--draws", default=str(DEFAULT_DRAWS),
                   help=f"number of draws, >= 2 (default {DEFAULT_DRAWS})")
    add_seed_option(p)
    add_backend_option(p, BACKENDS, "auto",
                       help="array backend; auto takes CuPy when a GPU is usable (default auto)")
    add_dtype_option(p, DTYPES, help="working precision of the draws (default float64; float32 "
                     "is faster and moves relative W1 by far less than its size)")
    p.add_argument("--beta", default=None, help="inverse temperature (default: 1)")
    for opt, name in (("--n", "tokens"), ("--h", "heads"), ("--h-kv", "K/V groups"),
                      ("--dk", "query/key width per head"), ("--dv", "value width per head "
                      "(default: dK)"), ("--do", "output width"), ("--d", "model width "
                      "(default: n)")):
        p.add_argument(opt, default=None, help=name)
    p.add_argument("--sharing", choices=SHARINGS, default=None,
                   help="K/V sharing scheme (default: none)")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="a Hugging Face-style config.json (n from max_position_embeddings "
                   "or --n)")
    p.add_argument("--weights", metavar="FILE", default=None,
                   help="a model's own V and W^O (.npz/.safetensors, layout in "
                   "docs/weights.md): sample the softmax with exactly those weights "
                   "against the predicted law; takes --beta, --dk, --draws, --seed")
    p.add_argument("--finite-width", action="store_true",
                   help="also compare the softmax with the conditional Gaussian equivalent "
                   "at finite width (each row with its own finite-n coefficient theta1_i) "
                   "and with the finite-width moments (theory §2.3); dK >= 2")
    add_columns_option(p)
    add_run_options(p, "write a histogram of both spectra with the limiting density")
    p.set_defaults(func=run_validate)

    q = subparsers.add_parser(
        "ladder",
        help="the single-head ladder from softmax to its Gaussian equivalent (theory §6.2)",
        description="One head, X = I, n = d = dK: seven matrices from sqrt(n) A to the GE, "
        "each compared on the bulk (top 3 removed) with sqrt(n) A^perp by W1 and L1 "
        "histogram distance; top squared singular values; normalizer diagnostic.",
    )
    q.add_argument("--n", default="1000", help="tokens = model width = key width (default 1000)")
    q.add_argument("--trials", default=str(DEFAULT_TRIALS),
                   help=f"number of trials averaged (default {DEFAULT_TRIALS})")
    add_seed_option(q)
    q.add_argument("--beta", default="1", help="inverse temperature (default 1)")
    add_backend_option(q, BACKENDS, "auto", help="array backend (default auto)")
    add_run_options(q, "write bulk histograms of every ladder step")
    q.set_defaults(func=run_ladder)


_EXPLICIT = (("n", "n"), ("h", "h"), ("h_kv", "h_kv"), ("dk", "dK"), ("dv", "dV"),
             ("do", "dO"), ("d", "d"), ("sharing", "sharing"))


def config_from_args(args: argparse.Namespace) -> tuple[str | None, Dims]:
    """The preset (name, Dims) or the explicit configuration given by the options."""
    given = {field: getattr(args, opt) for opt, field in _EXPLICIT
             if getattr(args, opt) is not None}
    if args.config is not None:
        from freege.validation.models.hf_config import load_hf_config

        others = [f"--{opt.replace('_', '-')}" for opt, _f in _EXPLICIT
                  if opt != "n" and getattr(args, opt) is not None]
        others += [args.preset] if args.preset else []
        if others:
            raise ValueError(f"--config takes only --n besides (got {', '.join(others)})")
        dims = load_hf_config(args.config, n=given.get("n"))
        preset = None
    elif args.preset is not None:
        if given:
            raise ValueError("give a preset or an explicit configuration, not both "
                             f"(got preset {args.preset!r} and --{', --'.join(given)})")
        dims = get_preset(args.preset)
        preset = args.preset
    else:
        missing = [f"--{opt.replace('_', '-')}" for opt in ("n", "h", "dk", "do")
                   if getattr(args, opt) is None]
        if missing:
            raise ValueError(f"give a preset ({', '.join(PRESETS)}) or an explicit "
                             f"configuration (missing {', '.join(missing)})")
        given.setdefault("dV", given["dK"])
        dims = Dims(**given)
        preset = None
    if args.beta is not None:
        dims = dataclasses.replace(dims, beta=args.beta)
    return preset, dims


def _config_text(preset: str | None, dims: Dims) -> str:
    label = preset or "explicit configuration"
    return (f"{label} (n={dims.n}, d={dims.d}, h={dims.h}/{dims.h_kv}, dK={dims.dK}, "
            f"dV={dims.dV}, dO={dims.dO}, beta={float(dims.beta):g}, sharing {dims.sharing})")


def run_validate(args: argparse.Namespace) -> int:
    if args.weights is not None:
        return _run_weights(args)
    from freege.cli.budget import preflight
    from freege.validation.sampling import cost as cost_model
    from freege.validation.sampling.backend import get_backend
    from freege.validation.sampling.limits import limiting_moments
    from freege.validation.sampling.sample import case_for

    preset, dims = config_from_args(args)
    profile = _finite_width_profile(args, dims)
    draws = int(parse_number("draws", args.draws, Domain(2, MAX_DRAWS, integer=True)))
    seed = int(parse_number("seed", args.seed, SEED))
    if args.plot is not None:
        check_plot_target(args.plot)
    bk = get_backend(args.backend, args.dtype)
    # the summary's Student-t quantile (scipy.special) loads, and the theory (limiting
    # moments: sympy on a cold cache; the outlier's limit) is computed, before the
    # estimate, which counts them as spent and then covers everything that follows
    import scipy.special  # noqa: F401

    from freege.numeric import outlier  # theory §4.1: the limit and finite-size mean

    limiting_moments(case_for(dims), dims, 2)
    theory = outlier.summary(case_for(dims), dims)
    means = PER_DRAW_MEANS_FINITE_WIDTH if args.finite_width else PER_DRAW_MEANS
    if args.finite_width:  # refused before any estimate; its row table is then built
        from freege.validation.finite_width import finite_n_moments

        finite_n_moments(dims)
        # the finite-width law's quantiles (tens of seconds) are spent before the estimate
        law_quantiles = _finite_width_law_quantiles(dims, profile)
    if args.plot is not None:
        _derive_figure_law(dims)
    cost = cost_model.draw_cost(dims, bk.dtype, floor=True,
                                extra_models=int(args.finite_width))
    each = preflight(cost, draws, "draw", bk, args.yes, each_means=means,
                     after=_figure_seconds(args.plot, cost, bk),
                     quiet=args.verbosity == QUIET)
    from freege.validation.runner import validate

    with Progress(f"validate {preset or 'explicit'} on {bk.name}", draws, unit="draw",
                  verbosity=args.verbosity) as bar, cost_model.blas_threads(each, bk):
        def on_draw(i: int, d: Draw) -> None:
            bar.note(f"draw {i + 1}/{draws}: {d.seconds:.2f} s, peak "
                     f"{d.peak_bytes / 2**20:.1f} MiB")
            bar.update(seconds=d.seconds)

        result = validate(dims, draws=draws, seed=seed, backend=bk, on_draw=on_draw,
                          finite_width=args.finite_width)
    summary = result.summary()
    from freege.validation.sampling.outlier import compare

    summary["outlier"] = compare([d.outlier for d in result.draws], theory)
    if args.finite_width:
        summary["finite_width"]["law"] = _finite_width_law_distances(law_quantiles, result)
    resolved = {"n": dims.n, "h": dims.h, "h_kv": dims.h_kv, "dk": dims.dK, "dv": dims.dV,
                "do": dims.dO}
    data = {"preset": preset, "config_file": args.config, "config": _dims_dict(dims),
            **resolved, **summary, "seconds_per_draw_means": means}
    if args.plot is not None:
        distances = _plot_validation(args.plot, result, preset, dims)
        if distances is not None:
            data["density_l1"] = distances
    emit(data, args, lambda d: _validate_text(d, preset, dims))
    return 0


def _run_weights(args: argparse.Namespace) -> int:
    """``validate --weights FILE``: docs/weights.md (one-line errors, exit 2)."""
    from freege.weights import load_weights

    others = [f"--{opt.replace('_', '-')}" for opt, _f in _EXPLICIT
              if opt != "dk" and getattr(args, opt) is not None]
    others += [o for o, on in (("a preset", args.preset), ("--config", args.config),
                               ("--finite-width", args.finite_width),
                               ("--columns", args.columns),
                               ("--plot", args.plot)) if on]
    if others or args.dk is None:
        raise ValueError("--weights takes --dk (needed), --beta, --draws and --seed only"
                         + (f" (got {', '.join(others)})" if others else ""))
    dk = int(parse_number("dk", args.dk, Domain(1, DIM_MAX, integer=True)))
    beta = float(parse_number("beta", args.beta or "1", BETA))
    draws = int(parse_number("draws", args.draws, Domain(2, MAX_DRAWS, integer=True)))
    seed = int(parse_number("seed", args.seed, SEED))
    V, WO = load_weights(args.weights)
    from freege.validation.weights_check import compare_weights

    result = compare_weights(V, WO, beta, dk, draws=draws, seed=seed)
    data = {"weights": args.weights, "h": V.shape[0], "n": V.shape[1], "dv": V.shape[2],
            "do": WO.shape[1], "dk": dk, "beta": beta, "draws": draws, "seed": seed,
            **result.as_dict()}

    def text(d: dict) -> str:
        def row(c: dict) -> str:
            ci = "" if c["ci95"] is None else f" ± {c['ci95']:.4f}"
            return (f"{c['distance']:.4f} (noise floor {c['floor']:.4f}; difference "
                    f"{c['difference']:+.4f}{ci})")
        return "\n".join([
            f"freege validate --weights {d['weights']}: h={d['h']}, n={d['n']}, "
            f"dV={d['dv']}, dO={d['do']}, dK={d['dk']}, beta={d['beta']:g}, "
            f"{d['draws']} draws, seed {d['seed']}",
            f"  predicted law: {d['law']}, mean {d['mean']:.6g}",
            f"  relative W1, softmax vs law: {row(d['rel_w1'])}",
            f"  KS, softmax vs law:          {row(d['ks'])}",
            f"  verdict: {d['decision']} ("
            + ("within the noise floor" if d["within_noise_floor"] else
               "not within the noise floor") + "; docs/weights.md)"])

    emit(data, args, text)
    return 0


def _derive_figure_law(dims: Dims) -> None:
    """Build the figure's limiting law and its atoms before the estimate, which then
    counts them as spent: on a cold cache they are derived (seconds of sympy, issue 42),
    on a warm one read back; the figure reuses them. A law that cannot be built is left
    to the figure, which says so."""
    from freege.numeric.case_law import law
    from freege.validation.sampling.sample import case_for

    try:
        law(case_for(dims), dims).atoms()
    except (ArithmeticError, ValueError):
        pass


def _figure_seconds(plot: str | None, cost: object, bk: object) -> float:
    """The estimated CPU seconds of the figure after the samples (0 without ``--plot``, or
    when the backend's speed is unknown)."""
    from freege.validation.sampling import cost as cost_model

    if plot is None:
        return 0.0
    speed = cost_model.run_speeds(cost, bk)
    return 0.0 if isinstance(speed, str) else cost_model.figure_seconds(speed)


def _dims_dict(dims: Dims) -> dict:
    return {"n": dims.n, "d": dims.d, "h": dims.h, "h_kv": dims.h_kv, "dK": dims.dK,
            "dV": dims.dV, "dO": dims.dO, "beta": float(dims.beta), "sharing": dims.sharing}


def _validate_text(d: dict, preset: str | None, dims: Dims) -> str:
    def pm(x: dict) -> str:
        if x["ci95"] == 0:  # e.g. KS, quantised in steps of 1/n, equal in every draw
            return f"{x['mean']:.4f} (all values equal: no spread to estimate)"
        return f"{x['mean']:.4f}" + ("" if x["ci95"] is None else f" ± {x['ci95']:.4f}")

    def err(x: dict) -> str:  # '*': the interval excludes 0 (DEFINITIONS["moment_error"])
        off = x["ci95"] is not None and abs(x["mean"]) > x["ci95"]
        return pm(x) + (" *" if off else "")

    from freege.validation.runner import DEFINITIONS

    moments = d["moment_rel_error"]
    floor = d["noise_floor"]
    pairs = "same weights, fresh noise; per draw"
    return "\n".join([
        f"freege validate: {_config_text(preset, dims)}",
        f"  {d['draws']} draws on {d['backend']} in {d['dtype']}, seed {d['seed']}, "
        f"case {d['case']}",
        f"  limiting mean m1 (theory §4):      {d['limiting_mean']:.6g}",
        f"  relative W1, softmax vs GE:      {pm(d['rel_w1'])}  (mean ± 95% CI)",
        f"    noise floor, GE vs GE:         {pm(floor['rel_w1'])}  ({pairs})",
        f"  KS, softmax vs GE:               {pm(d['ks'])}",
        f"    noise floor, GE vs GE:         {pm(floor['ks'])}",
        f"  {d['verdict']['line']}",
        f"  m1 empirical / limit - 1:        softmax {err(moments['softmax']['m1'])}, "
        f"GE {err(moments['ge']['m1'])}",
        f"  m2 empirical / limit - 1:        softmax {err(moments['softmax']['m2'])}, "
        f"GE {err(moments['ge']['m2'])}  (m2 = {d['limiting_m2']:.6g})",
        f"  seconds per draw:                {d['seconds_per_draw']:.3g}  "
        f"({d['seconds_per_draw_means']})",
        f"  peak memory per draw:            {d['peak_memory_bytes'] / 2**20:.1f} MiB  "
        f"({d['peak_memory_means']})",
        f"  s_1(MHA)^2/n (theory §4.1):      {pm(d['outlier'])}, limit {d['outlier']['limit']:.6g}"
        f", at this n {d['outlier']['finite_n_mean']:.6g}",
        *([f"  histogram vs limiting density:   L1 softmax {d['density_l1']['softmax']:.4f}, "
           f"GE {d['density_l1']['ge']:.4f}"] if "density_l1" in d else []),
        *(_finite_width_lines(d["finite_width"], pm) if "finite_width" in d else []),
        "  definitions (theory §6.1; freege docs theory --section 6.1):",
        *(f"    {DEFINITIONS[k]}" for k in ("rel_w1", "ks", "noise_floor", "verdict",
                                              "moment_error")),
        *([f"    {DENSITY_L1}"] if "density_l1" in d else []),
    ])


def _finite_width_profile(args: argparse.Namespace, dims: Dims) -> str:
    """:func:`freege.cli.options.finite_width_profile`, and tied sharing with ``--columns``
    refused before any work (the column profile is not derived there, theory §2.3; the law
    refuses it too, but only after the moments this command computes first)."""
    profile = finite_width_profile(args)
    if profile != "row" and dims.sharing == "tied":
        raise ValueError("--columns: the column profile (profile row+column) is not derived "
                         "for tied sharing (theory §2.3); drop --columns or --sharing tied")
    return profile


def _finite_width_law_quantiles(dims: Dims, profile: str = "row") -> dict:
    """The plain limit's quantiles at ``(i - 1/2)/n``, its mean, and the finite-width law's
    (``freege.numeric.law(case, dims, finite_width=True, profile=profile)``, theory §2.3;
    by :func:`freege.numeric.finite_width_law.grid_quantiles` up to 2.5 times the plain
    limit's top quantile, on ``4 n`` points within 500 to 2,000) with the grid's mass
    and the profile."""
    import numpy as np

    from freege.numeric import law
    from freege.numeric.finite_width_law import grid_quantiles
    from freege.validation.sampling.sample import case_for

    case = case_for(dims)
    qs = (np.arange(dims.n) + 0.5) / dims.n
    plain = law(case, dims)
    q_plain = np.asarray(plain.ppf(qs), dtype=float)
    fw = law(case, dims, finite_width=True, profile=profile)
    q_fw, mass = grid_quantiles(fw, qs, 2.5 * q_plain[-1],
                                points=min(2000, max(500, 4 * dims.n)))
    return {"m1": float(plain.mean()), "limit": q_plain, "law": q_fw, "mass": mass,
            "profile": profile}


def _finite_width_law_distances(quantiles: dict, result: Validation) -> dict:
    """Relative W1 (over the plain limit's mean) of each draw's softmax and GE spectra to
    the plain limit's and the finite-width law's ``quantiles``
    (:func:`_finite_width_law_quantiles`), mean and 95 % CI over the draws."""
    from freege.validation.sampling.metrics import mean_ci, rel_w1

    out: dict = {"row": "finite-n", "profile": quantiles["profile"],
                 "grid_mass": quantiles["mass"]}
    for model in ("softmax", "ge"):
        for target in ("limit", "law"):
            values = [rel_w1(getattr(d, model), quantiles[target], quantiles["m1"])
                      for d in result.draws]
            mean, ci = mean_ci(values)
            out[f"rel_w1/{model}-{target}"] = {"mean": mean, "ci95": ci}
    return out


def _finite_width_lines(fw: dict, pm: Callable[[dict], str]) -> list[str]:
    """The ``--finite-width`` block of the text output (theory §2.3)."""
    err = fw["moment_rel_error"]
    m1, m2 = fw["limiting_moments"]
    fl = fw["law"]
    return [
        f"  finite-width law (theory §2.3, row {fl['row']}, profile {fl['profile']}): "
        "relative W1 to its quantiles:",
        f"    softmax vs it:                 {pm(fl['rel_w1/softmax-law'])} (vs the limit "
        f"{pm(fl['rel_w1/softmax-limit'])})",
        f"    GE vs it:                      {pm(fl['rel_w1/ge-law'])} (vs the limit "
        f"{pm(fl['rel_w1/ge-limit'])})",
        "  finite width (theory §2.3): conditional GE, each row's own finite-n theta1_i:",
        f"    relative W1, softmax vs it:    {pm(fw['rel_w1'])}",
        f"      noise floor, it vs itself:   {pm(fw['noise_floor']['rel_w1'])}",
        f"    KS, softmax vs it:             {pm(fw['ks'])}",
        f"    finite-width m1, m2:           {m1:.6g}, {m2:.6g}",
        f"    m1 empirical / it - 1:         softmax {pm(err['softmax']['m1'])}, "
        f"conditional GE {pm(err['ge_row_n']['m1'])}",
        f"    m2 empirical / it - 1:         softmax {pm(err['softmax']['m2'])}, "
        f"conditional GE {pm(err['ge_row_n']['m2'])}",
    ]


def _plot_validation(path: str, result: Validation, preset: str | None,
                     dims: Dims) -> dict[str, float] | None:
    """Histogram of the pooled spectra of both models with the theory §4 limiting density
    (freege.numeric) overlaid; returns each model's L1 distance to that density. When
    the density cannot be evaluated, says so on stderr and plots without it (None)."""
    import numpy as np

    from freege.numeric.case_law import law
    from freege.validation.plots import spectrum_histogram
    from freege.validation.sampling.metrics import density_l1, zero_tolerance
    from freege.validation.sampling.sample import case_for

    soft_label = r"softmax $\mathrm{MHA}^\perp$, samples"
    samples = {
        soft_label: np.concatenate([d.softmax for d in result.draws]),
        "Gaussian equivalent, samples": np.concatenate([d.ge for d in result.draws]),
    }
    try:
        limit = law(case_for(dims), dims)
        pdf, atoms = limit.pdf, limit.atoms()
        tol = zero_tolerance(result.dtype)
        distances = {"softmax": density_l1(samples[soft_label], pdf, tolerance=tol),
                     "ge": density_l1(samples["Gaussian equivalent, samples"], pdf,
                                      tolerance=tol)}
    except (ArithmeticError, ValueError) as exc:
        print(f"freege: warning: limiting density unavailable ({exc}); plotted without it",
              file=sys.stderr)
        pdf, atoms, distances = None, None, None
    kv = f"/{dims.h_kv}" if dims.h_kv != dims.h else ""
    title = (rf"{preset or 'explicit configuration'}: $n$ = {dims.n}, $h$ = {dims.h}{kv}, "
             rf"$d_K$ = {dims.dK}, $d_V$ = {dims.dV}, $d_O$ = {dims.dO}, "
             rf"$\beta$ = {float(dims.beta):g}, sharing {dims.sharing}" "\n"
             rf"all $n$ eigenvalues of {len(result.draws)} draws")
    spectrum_histogram(path, samples, title, density=pdf, mean=result.limiting_mean,
                       atoms=atoms, zero_tolerance=zero_tolerance(result.dtype))
    return distances


def run_ladder(args: argparse.Namespace) -> int:
    from freege.cli.budget import preflight
    from freege.params import check_beta
    from freege.validation import ladder
    from freege.validation.sampling.backend import get_backend
    from freege.validation.sampling.cost import blas_threads

    n = int(parse_number("--n", args.n, Domain(ladder.N_MIN, DIM_MAX, integer=True)))
    trials = int(parse_number("trials", args.trials, DRAWS))
    seed = int(parse_number("seed", args.seed, SEED))
    beta = float(check_beta("beta", args.beta))
    if args.plot is not None:
        check_plot_target(args.plot)
    bk = get_backend(args.backend)
    ladder.run(8, trials=1, backend=bk)  # first-call costs paid before the estimate
    cost = ladder.trial_cost(n)
    each = preflight(cost, trials, "trial", bk, args.yes,
                     after=_figure_seconds(args.plot, cost, bk),
                     quiet=args.verbosity == QUIET)
    with Progress(f"ladder n={n} on {bk.name}", trials, unit="trial",
                  verbosity=args.verbosity) as bar, blas_threads(each, bk):
        result, last = ladder.run(n, trials=trials, seed=seed, beta=beta, backend=bk,
                                  on_trial=lambda i: bar(i + 1))
    if args.plot is not None:
        from freege.validation.plots import LADDER_LABELS, step_panels

        bulk = {k: v[:-ladder.TOP] for k, v in last.spectra.items() if k in ladder.STEPS}
        step_panels(args.plot, bulk, f"single-head ladder, $n$ = {n}, $\\beta$ = {beta:g} "
                    f"(theory §6.2)\neach step over the reference (grey; bulk, top "
                    f"{ladder.TOP} removed)", labels=LADDER_LABELS,
                    reference=ladder.REFERENCE)
    emit(result, args, _ladder_text)
    return 0


def _ladder_text(d: dict) -> str:
    lines = [
        f"freege ladder: one head, n = d = dK = {d['n']}, beta = {d['beta']:g}, "
        f"{d['trials']} trial(s) on {d['backend']}, seed {d['seed']}",
        f"  Taylor degree p = {d['taylor_degree']}; thetas of f: {d['thetas'][0]:.6f}, "
        f"{d['thetas'][1]:.6f}; of Q_p: {d['taylor_thetas'][0]:.6f}, "
        f"{d['taylor_thetas'][1]:.6f}",
        f"  bulk (top 3 removed) compared with {d['reference']}:",
        f"  {'step':<16}{'top 3 squared singular values':>36}{'W1':>10}{'L1 hist':>10}",
    ]
    for step, s in d["steps"].items():
        top = ", ".join(f"{x:.4g}" for x in s["top"])
        lines.append(f"  {step:<16}{top:>36}{s['bulk_w1']:>10.4f}{s['bulk_l1']:>10.4f}")
    from freege.validation.ladder import COLUMNS, FLOOR

    fl = d["floor"]
    lines.append(f"  {'noise floor':<16}{'Y_f_lin vs ' + FLOOR + ', fresh noise':>36}"
                 f"{fl['bulk_w1']:>10.4f}{fl['bulk_l1']:>10.4f}")
    lines.append(f"  {d['verdict']['line']}")
    nz = d["normalizer"]
    lines.append(f"  normalizer D_i = Z_i/(n e^(beta^2/2)): mean {nz['mean']:.5f}, "
                 f"std {nz['std']:.5f}, max |D_i - 1| {nz['max_dev']:.5f}")
    from freege.validation.sampling.verdict import DEFINITION

    lines.append("  definitions (theory §6.2; freege docs theory --section 6.2; means over "
                 "trials):")
    lines += [f"    {text}" for text in (*COLUMNS.values(), DEFINITION)]
    return "\n".join(lines)
