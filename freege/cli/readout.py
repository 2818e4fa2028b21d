"""``freege readout ridge|dof|loss|arrival``: theory §5 readout predictions for features
normalized to the mean-one law (``F = MHA / sqrt(m)``, theory §5).

* ``dof`` -- ``w(lam) = int x/(x+lam) dnubar``;
* ``ridge`` -- ``w(lam)`` and the ridge coefficient error ``E(lam)`` (isotropic teacher,
  label noise ``sigma2``);
* ``loss`` -- the gradient-flow loss ``L(t) = int exp(-2 t x) dnubar`` at the ``--t`` times;
* ``arrival`` -- the first ``t`` with ``L(t) = level``.

The law is a theory §4 case (the law options, default case ``mha``) or, with
``--expr TEXT``, any law of the algebra (docs/algebra.md) on ``[0, inf)`` with a mean
other than 0; ``ridge --expr`` takes the output ratio ``--gO`` of the ridge error, which
an expression does not carry. Evaluations are :mod:`freege.numeric.readout`'s; with
``--dps D`` they run with guard digits and every printed number has D correct
significant digits.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath

from freege.cli.common import emit
from freege.cli.law import (
    GUARD_DIGITS,
    add_param_option,
    build_law,
    describe,
    expression_of,
    law_spec,
    real_option,
    text_value,
)
from freege.cli.options import (
    add_certify_option,
    add_dps_option,
    add_finite_width_option,
    add_format_option,
    add_law_options,
    add_level_option,
    add_ridge_options,
    finite_width_profile,
)
from freege.numeric import readout
from freege.numeric.case_law import CASES
from freege.params import (
    LAM,
    LEVEL,
    RATIO,
    SIGMA2,
    T_MAX,
    T_MIN,
    Number,
    check_time,
    to_mpf,
)

#: the theory §4 case of the readouts when neither ``--case`` nor ``--expr`` is given
DEFAULT_CASE = "mha"


def sigma2_option(text: str) -> Number:
    """``--sigma2``: label-noise variance in [0, SIGMA2_MAX] (:data:`freege.params.SIGMA2`)."""
    return real_option("--sigma2", text, SIGMA2)


def level_option(text: str) -> Number:
    """``--level``: a relative loss in (0, 1)."""
    return real_option("--level", text, LEVEL)


def lam_option(text: str) -> Number:
    """``--lam``: a ridge penalty in [LAM_MIN, LAM_MAX] (:data:`freege.params.LAM`)."""
    return real_option("--lam", text, LAM)


def check_reachable(features: Any, level: Number) -> None:
    """Refuse a ``--level`` the loss reaches only after the supported times: at or below
    ``L(T_MAX)`` (theory §5; ``L`` decreases), the arrival time would exceed ``T_MAX``."""
    floor = readout.flow_loss(features, T_MAX)
    if level <= Fraction(float(floor)):
        raise ValueError(
            f"--level must be above L(t = {float(T_MAX):g}) = {float(floor):.6g}: lower levels "
            f"are reached only after the supported times t <= {float(T_MAX):g} (got {level})"
        )


def as_input(value: Number, dps: int | None) -> Any:
    """A validated input as an output number (float64, or mpf with guard digits)."""
    if dps is None:
        return float(value)
    with mpmath.workdps(dps + GUARD_DIGITS):
        return to_mpf(value)


def evaluate(kind: str, args: argparse.Namespace, build: Callable[[int | None], Any],
             g_o: Number | None = None) -> dict[str, Any]:
    """The numbers of one readout sub-command on the law ``build(dps)`` makes (inputs are
    validated before any work); ``g_o``: the output ratio of an expression's ridge error
    (a theory §4 case has its own)."""
    dps = args.dps
    lam = lam_option(args.lam) if kind in ("dof", "ridge") else None
    sigma2 = sigma2_option(args.sigma2) if kind == "ridge" else None
    times = [check_time("--t", t) for t in args.t] if kind == "loss" else []
    level = level_option(args.level) if kind == "arrival" else None
    features = build(dps)
    if kind == "arrival":
        check_reachable(features, level)
    if kind == "dof":
        return {"lam": as_input(lam, dps), "w": readout.dof(features, lam)}
    if kind == "ridge":
        return {
            "lam": as_input(lam, dps), "sigma2": as_input(sigma2, dps),
            "w": readout.dof(features, lam),
            "error": readout.ridge_error(features, lam, sigma2, gO=g_o),
        }
    if kind == "loss":
        return {
            "t": [as_input(t, dps) for t in times],
            "loss": [readout.flow_loss(features, t) for t in times],
        }
    return {"level": as_input(level, dps), "t": readout.arrival_time(features, level)}


def render(data: dict[str, Any], title: str, dps: int | None) -> str:
    lines = [title]
    if "loss" in data:
        lines.append("t  loss")
        lines += [f"{text_value(t, dps)}  {text_value(v, dps)}"
                  for t, v in zip(data["t"], data["loss"], strict=True)]
    else:
        lines += [f"{key:<7}{text_value(value, dps)}" for key, value in data.items()]
    return "\n".join(lines)


def run_expression(args: argparse.Namespace) -> int:
    """``freege readout KIND --expr TEXT``: the readouts of an expression of the law
    algebra (docs/algebra.md), normalized to mean one like the cases' features (theory
    §5). The law must lie on ``[0, inf)`` (a Gram spectrum) and have a mean other than 0;
    ``ridge`` needs ``--gO``."""
    kind = args.readout
    expr = expression_of(args, keep=("gO",) if kind == "ridge" else ())
    from freege.symbolic.expressions import check_degree

    check_degree(expr)  # the degree budget before the sign and mean (docs/algebra.md, Limits)
    if getattr(args, "certify", False):
        raise ValueError("--certify and --expr: certified readouts are for the theory §4 "
                         "cases only (drop --certify for the working-precision values)")
    if not expr.is_positive:
        raise ValueError(f"--expr: readouts need a law on [0, inf) (a Gram spectrum); "
                         f"{expr} is not")
    if expr.mean == 0:
        raise ValueError(f"--expr: {expr} has mean 0, so it has no law normalized to mean "
                         f"one (theory §5)")
    g_o, output = None, ""
    if kind == "ridge":
        if args.gO is None:
            raise ValueError("readout ridge --expr needs --gO, the output ratio gO = dO/n "
                             "> 0 of the ridge error (theory §5)")
        g_o = real_option("--gO", args.gO, RATIO)
        output = f", output ratio gO={float(g_o):.6g}"
    title = f"readout {kind}: features of the law of {expr}, normalized{output} (theory §5)"

    def build(dps: int | None) -> Any:
        return expr.law(None if dps is None else dps + GUARD_DIGITS)

    data = evaluate(kind, args, build, g_o)
    emit(data, args, lambda d: render(d, title, args.dps), args.dps)
    return 0


def run(args: argparse.Namespace) -> int:
    finite_width_profile(args)  # --columns without --finite-width: refused first
    if args.expr is not None:
        if args.finite_width:
            raise ValueError("--finite-width needs a theory §4 case (--case and the "
                             "dimensions), not --expr")
        return run_expression(args)
    if args.case is None:
        args.case = DEFAULT_CASE
    spec = law_spec(args)
    normalized = dataclasses.replace(spec, normalized=True)  # keeps --finite-width's row, profile
    if getattr(args, "certify", False):  # rigorous balls (python-flint), dof and ridge
        from freege.cli import certify_output

        sigma2 = sigma2_option(args.sigma2) if args.readout == "ridge" else None
        features = build_law(normalized, None)
        return certify_output.run_readout(args, features, describe(spec),
                                          lam_option(args.lam), sigma2)
    data = evaluate(args.readout, args, lambda dps: build_law(normalized, dps))
    title = f"readout {args.readout}: features of the {describe(spec)}, normalized (theory §5)"
    emit(data, args, lambda d: render(d, title, args.dps), args.dps)
    return 0


_HELP = {
    "dof": "effective degrees of freedom w(lam) (theory §5)",
    "ridge": "ridge coefficient error E(lam) and w(lam) (theory §5)",
    "loss": "gradient-flow loss L(t) at the --t times (theory §5)",
    "arrival": "first time t with L(t) = --level (theory §5)",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "readout", help="theory §5 readout predictions: dof, ridge error, loss, arrival time",
        description="theory §5 readout predictions for features normalized to mean one: "
        "of a theory §4 law (the law options) or of any law of the algebra on [0, inf) "
        "(--expr).",
    )
    kinds = parser.add_subparsers(dest="readout", metavar="KIND")
    kinds.required = True
    for kind, text in _HELP.items():
        sub = kinds.add_parser(kind, help=text, description=text)
        # the ridge error involves gO, so it is defined for the MHA laws only (theory §5)
        cases = ("mha", "mha-tied") if kind == "ridge" else CASES
        add_law_options(sub, cases, default_case=DEFAULT_CASE, normalized_option=False,
                        required=False)
        with_go = " (with --gO, the output ratio of the ridge error)" if kind == "ridge" else ""
        sub.add_argument("--expr", metavar="TEXT",
                         help="instead of the law options: an expression of the law algebra "
                         '(docs/algebra.md) on [0, inf) with mean > 0, e.g. "mp(1/2) * '
                         f'mp(1/2)"{with_go}')
        add_param_option(sub)
        if kind in ("dof", "ridge"):
            add_ridge_options(sub, sigma2=kind == "ridge")
        if kind == "loss":
            sub.add_argument("--t", nargs="+", required=True, metavar="T",
                             help=f"gradient-flow times t in [{float(T_MIN):g}, "
                             f"{float(T_MAX):g}]")
        if kind == "arrival":
            add_level_option(sub)
        add_format_option(sub)
        add_dps_option(sub)
        if kind in ("dof", "ridge"):
            add_certify_option(sub, "of a theory §4 case's readouts (not with --expr)")
        add_finite_width_option(sub)
        sub.set_defaults(func=run)
