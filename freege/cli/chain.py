"""``freege chain``: the multi-head equivalence chain of theory §2.2, sampled step by step.

Six models (``sqrt(n) A^perp``, ``Y^f``, ``Y^f_c``, ``Y^G[Sigma_f]``, ``Y^G[Sigma_G]``,
``Y^G``) times the same ``T_n``; for every consecutive pair and every model against step 1:
relative W1, KS and m1..m4 differences, each step's own control, and the leading singular
value against theory §4.1 (:mod:`freege.validation.chain`). Several ``--n`` fit each
distance's decay in n beside the rate theory §2.2 guarantees; ``--store`` makes such a
run resumable (one checksummed JSON line per draw, :mod:`freege.validation.sweep.store`).

Bad input is a ValueError (one line, exit 2); files are written after the computation.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from freege.cli.common import check_plot_target, emit, one_line_warnings
from freege.cli.options import (
    add_backend_option,
    add_dtype_option,
    add_run_options,
    add_seed_option,
)
from freege.params import DIM, DRAWS, HEADS, SEED, SHARINGS, Dims, Domain, parse_number
from freege.progress import QUIET

HELP = "the multi-head equivalence chain, step by step, and the leading singular value " \
       "(theory §2.2, §4.1)"
DEFAULT_DRAWS = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "chain", help=HELP,
        description="Sample the six matrices of the theory §2.2 chain from centred softmax "
        "attention to its Gaussian equivalent, multiplied by the same T_n = V W^O / sqrt(n); "
        "compare their Gram spectra pair by pair (relative W1, KS, m1..m4; mean ± 95% CI "
        "over draws), report each step's control and the leading singular value s_1(MHA)^2/n "
        "against its limit (theory §4.1). Several --n: the decay rate of every distance in n, "
        "beside the rate theory §2.2 guarantees.",
    )
    p.add_argument("--n", nargs="+", required=True, metavar="N",
                   help="tokens; several values fit decay rates (the widths are given at the "
                   "first, the others keep the ratios of theory §1.2)")
    p.add_argument("--h", required=True, help="heads")
    p.add_argument("--dk", required=True, help="query/key width per head (at the first --n)")
    p.add_argument("--dv", default=None, help="value width per head (default: dK)")
    p.add_argument("--do", required=True, help="output width (at the first --n)")
    p.add_argument("--sharing", choices=SHARINGS, default="none",
                   help="K/V sharing scheme, theory §1.1 (default none)")
    p.add_argument("--h-kv", dest="h_kv", default=None, help="K/V groups (gqa)")
    p.add_argument("--beta", default="1", help="inverse temperature (default 1)")
    p.add_argument("--draws", default=str(DEFAULT_DRAWS),
                   help=f"draws per size, >= 2 (default {DEFAULT_DRAWS})")
    add_seed_option(p)
    from freege.validation.sampling.backend import BACKENDS, DTYPES

    add_backend_option(p, BACKENDS, "numpy", help="array backend (default numpy)")
    add_dtype_option(p, DTYPES, help="precision of the products (default float64; float32: "
                     "each step's Gram and eigenvalues stay in float64, docs/performance.md)")
    p.add_argument("--store", metavar="FILE", default=None,
                   help="append every draw to this file and reuse the draws it holds "
                   "(resumable runs)")
    add_run_options(p, "write the six spectra at the first --n with the limiting density",
                    confirm=False)
    p.set_defaults(func=run)


def _dims(args: argparse.Namespace) -> tuple[Dims, list[int]]:
    sizes = [int(parse_number("--n", text, Domain(3, DIM.high, integer=True)))
             for text in args.n]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"n values must be distinct (got {', '.join(args.n)})")
    dk = int(parse_number("--dk", args.dk, DIM))
    dims = Dims(n=sizes[0], h=int(parse_number("--h", args.h, HEADS)), dK=dk,
                dV=dk if args.dv is None else int(parse_number("--dv", args.dv, DIM)),
                dO=int(parse_number("--do", args.do, DIM)), beta=args.beta,
                sharing=args.sharing,
                h_kv=None if args.h_kv is None else int(parse_number("--h-kv", args.h_kv, DIM)))
    return dims, sizes


def _identity(dims: Dims, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """The store's identity; ``dtype`` only below float64 (a float64 store written
    before ``--dtype`` existed is the same run)."""
    dtype = getattr(args, "dtype", "float64")
    return {"kind": "chain", "seed": seed, "backend": args.backend,
            "dims": {k: (str(v) if k == "beta" else v)
                     for k, v in dataclasses.asdict(dims).items() if k not in ("n", "d")},
            "ratios_at_n": dims.n, **({} if dtype == "float64" else {"dtype": dtype})}


def _stored(contents: Any, path: str,
            identity: dict[str, Any]) -> dict[int, dict[int, dict[str, Any]]]:
    """Draws already in the store (per n, per draw index); a store of another run is
    refused."""
    old = None if contents.header is None else contents.header.get("identity")
    if isinstance(old, dict) and old.get("dtype", "float64") != identity.get("dtype",
                                                                              "float64"):
        raise ValueError(f"store {path!r} holds a --dtype {old.get('dtype', 'float64')} "
                         f"run, not {identity.get('dtype', 'float64')}; use another file")
    if contents.header is not None and old != identity:
        raise ValueError(f"store {path!r} holds another chain run (configuration, seed or "
                         "backend differ); use another file")
    done: dict[int, dict[int, dict[str, Any]]] = {}
    for r in contents.records:
        done.setdefault(int(r["point"].removeprefix("n=")), {})[int(r["draw"])] = r["record"]
    return done


def run(args: argparse.Namespace) -> int:
    from freege.validation import chain

    dims, sizes = _dims(args)
    draws = int(parse_number("--draws", args.draws, Domain(2, DRAWS.high, integer=True)))
    seed = int(parse_number("--seed", args.seed, SEED))
    configs = {n: chain.scaled(dims, n) for n in sizes}
    if args.plot is not None:
        check_plot_target(args.plot)
    for d in configs.values():
        d.ratios  # noqa: B018 -- a ratio outside the supported domain is refused up front
    identity = _identity(dims, args, seed)
    results = {}
    if args.store:
        from freege.validation.sweep import store as sweep_store

        contents = one_line_warnings(
            lambda: sweep_store.read(args.store, chain.store_schema(), resume=True))
        done = _stored(contents, args.store, identity)
        header = {"type": "header", "format": sweep_store.FORMAT, "identity": identity}
        with sweep_store.open_for_append(args.store, contents, header) as writer, \
                _preflight(configs, draws, done, args):
            for n in sizes:
                results[n] = _size(configs[n], draws, seed, args, done.get(n, {}), writer)
    else:
        with _preflight(configs, draws, {}, args):
            for n in sizes:
                results[n] = _size(configs[n], draws, seed, args, {}, None)
    data: dict[str, Any] = {"config": {**dataclasses.asdict(dims), "beta": float(dims.beta)},
                            "steps": list(chain.STEPS), "draws": draws, "seed": seed,
                            "dtype": getattr(args, "dtype", "float64"),
                            "sizes": {str(n): results[n] for n in sizes}}
    if len(sizes) >= 3:
        data["rates"] = chain.rate_fits(results)
        data["rates_verdict"] = chain.rates_verdict(data["rates"])
    if args.plot is not None:
        from freege.extras import blas_threads

        with blas_threads(1):  # one draw, like those of the estimate
            _plot(args.plot, configs[sizes[0]], seed, args.backend,
                  getattr(args, "dtype", "float64"))
    emit(data, args, _text)
    return 0


def _preflight(configs: dict[int, Dims], draws: int, done: dict[int, dict[int, Any]],
               args: argparse.Namespace) -> Any:
    """Compute the theory of every size (counted as spent), announce the run's estimate
    (:func:`freege.cli.budget.preflight_batch`: the draws left per size at
    :func:`freege.validation.chain.draw_cost`, the figure's draw and rendering after them;
    memory checked, no ``--yes``: the chain has no hour-long sizes) and return the BLAS
    thread setting of its draws."""
    from freege.cli.budget import preflight_batch
    from freege.numeric import outlier
    from freege.validation import chain
    from freege.validation.sampling import cost as cost_model
    from freege.validation.sampling.backend import get_backend
    from freege.validation.sampling.limits import limiting_moments
    from freege.validation.sampling.sample import case_for

    bk = get_backend(args.backend, getattr(args, "dtype", "float64"))
    for d in configs.values():
        limiting_moments(case_for(d), d, chain.ORDERS)
        outlier.summary(case_for(d), d)
    batch = [(chain.draw_cost(d), draws - len(done.get(n, {}))) for n, d in configs.items()]
    first = next(iter(configs.values()))
    after = 0.0
    if args.plot is not None:
        speed = cost_model.run_speeds(batch[0][0], bk)
        if not isinstance(speed, str):
            after = cost_model.seconds(chain.draw_cost(first), speed) \
                + cost_model.figure_seconds(speed)
    each = preflight_batch(batch, "draw", bk, True, after=after,
                           quiet=args.verbosity == QUIET)
    return cost_model.blas_threads(each, bk)


def _size(dims: Dims, draws: int, seed: int, args: argparse.Namespace,
          done: dict[int, dict[str, Any]], writer: Any) -> dict[str, Any]:
    from freege.numeric import outlier
    from freege.progress import Progress
    from freege.validation import chain
    from freege.validation.sampling.outlier import compare
    from freege.validation.sampling.sample import case_for

    bar = Progress(f"chain n={dims.n}", draws, unit="draw", verbosity=args.verbosity)
    bar(len(done))

    def saved(i: int, record: dict[str, Any]) -> None:
        if writer is not None:
            writer.append({"type": "draw", "point": f"n={dims.n}", "draw": i,
                           "status": "ok", "record": record})
        bar(i + 1)

    with bar:
        summary = chain.run(dims, draws=draws, seed=seed, backend=args.backend, done=done,
                            on_draw=saved, dtype=getattr(args, "dtype", "float64"))
    theory = outlier.summary(case_for(dims), dims)
    summary["outlier"] = {**summary["outlier"], **compare(summary.pop("outlier_values"), theory),
                          "second_order": theory["second_order"]}
    summary["dims"] = {"n": dims.n, "dK": dims.dK, "dV": dims.dV, "dO": dims.dO}
    if dims.sharing != "tied" and dims.dK > 4 * float(dims.beta) ** 2:
        from freege.validation.sampling.conditional import diagonal_mean
        from freege.validation.sampling.sample import thetas

        t1 = thetas(float(dims.beta))[0]
        summary["expected_dm1_4_5"] = diagonal_mean(float(dims.beta), dims.dK) / t1 - 1
    return summary


def _plot(path: str, dims: Dims, seed: int, backend: str, dtype: str = "float64") -> Any:
    """Pooled spectra of the six steps over one draw at ``dims`` with the theory §4
    density and atom (numerical zeros count as an atom only where the limit has one);
    returns the axes."""
    import numpy as np

    from freege.numeric.case_law import law
    from freege.validation import chain
    from freege.validation.plots import CHAIN_LABELS, step_panels
    from freege.validation.sampling.sample import case_for

    d = chain.draw(dims, seed=(seed, dims.n, 0), backend=backend, dtype=dtype)
    samples = {step: np.asarray(d.spectra[step]) for step in chain.STEPS}
    labels = {step: f"{k + 1}: {CHAIN_LABELS.get(step, step)}"
              for k, step in enumerate(chain.STEPS)}
    limit = law(case_for(dims), dims)
    return step_panels(
        path, samples, f"theory §2.2 chain, $n$ = {dims.n}, $h$ = {dims.h}, $d_K$ = "
        f"{dims.dK}, $d_V$ = {dims.dV}, $d_O$ = {dims.dO}, sharing {dims.sharing}\nGram "
        "spectra after $T_n$ (draw 0), each step over the limit", labels=labels,
        density=limit.pdf, atoms=limit.atoms())


def _pm(x: dict[str, float], digits: int = 4) -> str:
    return f"{x['mean']:.{digits}f} ± {x['ci95']:.{digits}f}"


def _short(x: dict[str, float]) -> str:
    return f"{x['mean']:.4g} ± {x['ci95']:.2g}"


def _text(d: dict[str, Any]) -> str:
    from freege.validation.chain import VERDICT_DEFINITION

    c = d["config"]
    lines = [f"freege chain: h={c['h']}/{c['h_kv']}, sharing {c['sharing']}, "
             f"beta={c['beta']:g}; {d['draws']} draws per size, seed {d['seed']}"
             + ("" if d.get("dtype", "float64") == "float64" else f", {d['dtype']}"),
             "  steps (each times T_n = V W^O / sqrt(n), theory §2.2): "
             + "; ".join(f"{k + 1} {s}" for k, s in enumerate(d["steps"])),
             "  pair k-l: step k against step l; rel W1 = mean_i |a_(i) - b_(i)| / m1 (limit); "
             "KS = max_x |F_a(x) - F_b(x)|; dm_q = (m_q(a) - m_q(b)) / m_q(limit); "
             "mean ± 95% CI over draws",
             f"  {VERDICT_DEFINITION}"]
    for n, s in d["sizes"].items():
        dims = s["dims"]
        lines.append(f"n = {n} (dK={dims['dK']}, dV={dims['dV']}, dO={dims['dO']}), "
                     f"limiting mean m1 = {s['limiting_moments'][0]:.6g}")
        keys = ("rel_w1", "ks", "dm1", "dm2", "dm3", "dm4")
        lines.append(f"  {'pair':<5}" + "".join(f"{k.replace('rel_w1', 'rel W1'):>20}"
                                               for k in keys))
        for pair, row in s["distances"].items():
            lines.append(f"  {pair:<5}" + "".join(f" {_short(row[k]):>19}" for k in keys))
        ctl = s["controls"]
        lines += [
            f"  control 1-2: ||diag(1/D - 1) Y^f_c|| = {_pm(ctl['op_norm_1_2'])} "
            f"(rest rank <= h), max|D_i - 1| = {_pm(ctl['max_normalizer_dev'])}",
            f"  control 2-3: rank one, ||row mean|| = {_pm(ctl['mean_op_norm_2_3'])}",
            f"  control 4-5: ||Sigma_f - Sigma_G||_F / sqrt(n) = {_pm(ctl['sigma_frob_4_5'])}"
            + (f"; expected dm1 = {s['expected_dm1_4_5']:.4f} (key-norm spread in Sigma_f)"
               if "expected_dm1_4_5" in s else ""),
            "  control 5-6: equal in law given the keys",
        ]
        lines.append(f"  {s['verdict']['line']}")
        o = s["outlier"]
        lines.append(f"  leading singular value s_1(MHA)^2/n = {_pm(o)} (sd {o['sd']:.4f}); "
                     f"limit gO = {o['limit']:.6g}, at this n gO + c/n = "
                     f"{o['finite_n_mean']:.6g} (c = {o['second_order']:.4g}), predicted sd "
                     f"{o['predicted_sd']:.4f}: "
                     f"{'agrees' if o['agree'] else 'outside the 95% interval'} (theory §4.1)")
    if "rates" in d:
        lines.append("decay in n (log-log fit of the means, 95% interval) beside the "
                     "exponent of the guaranteed bound n^b (log n)^a over these sizes:")
        lines.append("  fitted: exponent b of mean ~ C n^b ± the wider of the fit's 95% interval "
                     "and the draws' sampling one; guaranteed: the bound's exponent over these "
                     "sizes; DEVIATES: a bound exceeded (or a prediction missed) beyond that "
                     "interval")
        lines.append(f"  {'what':<8}{'metric':<20}{'fitted':>18}{'guaranteed':>12}  (outlier sd: "
                     "predicted, theory §4.1)")
        for r in d["rates"]:
            verdict = ("" if not r["deviates"] else "  DEVIATES (slower than guaranteed)"
                       if r["kind"] == "bound" else "  DEVIATES from the prediction")
            lines.append(f"  {r['what']:<8}{r['metric']:<20}"
                         f"{r['exponent']:>+10.3f} ± {r['ci95']:.3f}{r['guaranteed']:>+12.3f}"
                         f"{verdict}")
        lines.append("  leading singular value by n: " + "; ".join(
            f"n={n} {_pm(s['outlier'], 3)} vs {s['outlier']['finite_n_mean']:.3f} "
            f"(limit {s['outlier']['limit']:.3g})" for n, s in d["sizes"].items()))
        lines.append(f"  {d['rates_verdict']}")
    return "\n".join(lines)
