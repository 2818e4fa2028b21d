"""``freege law``: a limiting spectral law of theory §4 -- moments, support, atoms, density.

Also home of :func:`law_spec`, which turns the law options every evaluating command
shares (:func:`freege.cli.options.add_law_options`: ``--case --beta --h (--gK --gV --gO |
--n --dk --dv --do) --sharing --h-kv --normalized``) into a validated
:class:`freege.params.Ratios` or :class:`freege.params.Dims` (bad input: a ValueError
naming the option and its allowed range, which the dispatcher prints as one line with
exit status 2).
"""

from __future__ import annotations

import argparse
import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from freege import plotting
from freege.cli.common import check_plot_target, emit
from freege.cli.options import (
    add_certify_option,
    add_dps_option,
    add_finite_width_option,
    add_format_option,
    add_law_options,
    add_plot_option,
    finite_width_profile,
)
from freege.numeric.case_law import CASES, law, resolve_case
from freege.numeric.law_family import Law
from freege.params import (
    BETA,
    DIM,
    HEADS,
    POINT,
    POSITIVE,
    RATIO,
    Dims,
    Domain,
    Number,
    Ratios,
    parse_number,
    to_mpf,
)
from freege.plotting import LOG_SPAN, auto_log_x  # noqa: F401 - --xscale auto, moved there

if TYPE_CHECKING:  # the algebra (sympy) is imported only on the --expr path
    from freege.algebra import LawExpr

#: extra digits the numeric layer works with beyond the ``--dps`` digits printed, so that
#: every printed digit is correct
GUARD_DIGITS = 10
#: points of the ``--plot`` density curve
PLOT_POINTS = 800

#: relative tolerance for "ratio options agree with dimension options": decimals typed by
#: hand (``--gK 0.333333333333333``) may differ from the exact ratio in the last digits
CONSISTENCY_RTOL = 1e-12

_RATIO_OPTIONS = (("gK", "--gK"), ("gV", "--gV"), ("gO", "--gO"))
_DIM_OPTIONS = (("n", "--n"), ("dK", "--dk"), ("dV", "--dv"), ("dO", "--do"))


@dataclass(frozen=True)
class LawSpec:
    """What the law options describe: a theory §4 case, its configuration (limit ratios, or
    finite dimensions with the K/V group count) and whether the law is normalized to
    mean one (theory §3)."""

    case: str
    config: Ratios | Dims
    normalized: bool = False
    #: the finite-width law (theory §2.3) with this row coefficient; None: the limit
    finite_width: str | None = None
    #: the finite-width law's profile (``--columns``): ``row`` or ``row+column``
    profile: str = "row"

    @property
    def ratios(self) -> Ratios:
        return self.config if isinstance(self.config, Ratios) else self.config.ratios


def real_option(option: str, text: str, domain: Domain = POSITIVE) -> Number:
    """``text`` as an exact number in ``domain`` (default: finite and > 0), else a
    ValueError naming ``option`` (:func:`freege.params.parse_number`)."""
    return parse_number(option, text, domain)


def _sharing(case: str, sharing: str | None) -> str:
    """The sharing scheme: a ``*-tied`` case means tied K = V (theory §1.1, §4)."""
    if case.endswith("-tied"):
        if sharing not in (None, "tied"):
            raise ValueError(
                f"--case {case} is the tied law: --sharing must be tied (got {sharing})"
            )
        return "tied"
    return sharing or "none"


def _check_h_kv(h: int, sharing: str, text: str | None) -> None:
    """Validate ``--h-kv`` for a ratio configuration the way :class:`Dims` does."""
    if text is None:
        return
    h_kv = int(parse_number("--h-kv", text, HEADS))
    if h_kv > h:
        raise ValueError(f"--h-kv must be in [1, h={h}] (got {h_kv})")
    if sharing == "mqa" and h_kv != 1:
        raise ValueError(f"mqa sharing means --h-kv 1 (got {h_kv})")
    if sharing in ("none", "tied") and h_kv != h:
        raise ValueError(
            f"--h-kv < h needs --sharing gqa or mqa (got --sharing {sharing}, --h-kv {h_kv})"
        )


def _given(args: argparse.Namespace, options: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {dest: getattr(args, dest) for dest, _ in options if getattr(args, dest) is not None}


#: cases whose law does not involve gO (theory §4): --gO is optional there (default 1)
WITHOUT_GO = ("value", "value-tied")


def _missing(given: dict[str, str], options: tuple[tuple[str, str], ...], tied: bool,
             case: str = "") -> list:
    optional = {"gV", "dV"} if tied else set()
    if case in WITHOUT_GO:
        optional.add("gO")
    return [flag for dest, flag in options if dest not in given and dest not in optional]


def law_spec(args: argparse.Namespace) -> LawSpec:
    """Turn the parsed law options into a :class:`LawSpec` (theory §1.2).

    Either the ratio options or the dimension options must be complete. When both are
    given, every ratio option must agree with the ratio the dimensions imply (relative
    tolerance :data:`CONSISTENCY_RTOL`); the exact dimensions are then used.
    """
    profile = finite_width_profile(args)
    for flag, value in (("--case", args.case), ("--beta", args.beta), ("--h", args.h)):
        if value is None:
            raise ValueError(f"the law options need {flag} (or give the law as --expr)")
    beta = real_option("--beta", args.beta, BETA)
    h = int(parse_number("--h", args.h, HEADS))
    args.sharing = _sharing(args.case, args.sharing)
    tied = args.sharing == "tied"
    ratio_given = _given(args, _RATIO_OPTIONS)
    dim_given = _given(args, _DIM_OPTIONS)
    ratios = {dest: real_option(f"--{dest}", text, RATIO)
              for dest, text in ratio_given.items()}
    dim_missing = _missing(dim_given, _DIM_OPTIONS, tied)
    normalized = bool(getattr(args, "normalized", False))

    if dim_given and not dim_missing:
        dims = {dest: int(parse_number(flag, dim_given[dest], DIM))
                for dest, flag in _DIM_OPTIONS if dest in dim_given}
        dims.setdefault("dV", dims["dK"])
        h_kv = None if args.h_kv is None else int(parse_number("--h-kv", args.h_kv, DIM))
        if h_kv is not None and h_kv > h:
            raise ValueError(f"--h-kv must be in [1, h={h}] (got {h_kv})")
        config = Dims(beta=beta, h=h, sharing=args.sharing, h_kv=h_kv, **dims)
        implied = config.ratios
        for dest, value in ratios.items():
            exact = Fraction(getattr(implied, dest))
            if abs(Fraction(value) - exact) > CONSISTENCY_RTOL * exact:
                flag = dict(_RATIO_OPTIONS)[dest]
                raise ValueError(
                    f"inconsistent options: {flag} {ratio_given[dest]} but the dimensions "
                    f"(--h --n --dk --dv --do) give {dest} = {float(exact):.17g}"
                )
        return LawSpec(args.case, config, normalized, _finite_width(args), profile)
    if dim_given:
        raise ValueError(
            "dimension options need --n, --dk, --dv and --do (missing "
            + ", ".join(dim_missing) + ")"
        )
    ratio_missing = _missing(ratio_given, _RATIO_OPTIONS, tied, args.case)
    if ratio_missing:
        raise ValueError(
            "give the ratios --gK --gV --gO or the dimensions --n --dk --dv --do (missing "
            + ", ".join(ratio_missing) + ")"
        )
    if _finite_width(args):
        raise ValueError("--finite-width needs the dimensions --n --dk --dv --do (a finite "
                         "configuration), not the ratios")
    _check_h_kv(h, args.sharing, args.h_kv)
    ratios.setdefault("gV", ratios["gK"])
    ratios.setdefault("gO", 1)
    return LawSpec(args.case, Ratios(beta=beta, h=h, sharing=args.sharing, **ratios), normalized)


def _finite_width(args: argparse.Namespace) -> str | None:
    """The row coefficient of ``--finite-width`` (``--row``), or None without it; refused
    with ``--dps`` (the finite-width law is float64: its profile is a discretised
    density, theory §2.3) and with ``--certify`` (no certified route)."""
    if not getattr(args, "finite_width", False):
        return None
    if getattr(args, "dps", None) is not None:
        raise ValueError("--finite-width is float64 only: drop --dps")
    if getattr(args, "certify", False):
        raise ValueError("--finite-width has no certified route: drop --certify")
    return str(args.row)


def build_law(spec: LawSpec, dps: int | None) -> Law:
    """The numeric law of ``spec``: float64 without ``dps``, else evaluated with
    :data:`GUARD_DIGITS` more digits than will be printed. Law objects are memoised (they
    cache their support and atoms), so repeated evaluations in one process are cheap."""
    if spec.finite_width is not None:
        return _finite_width_law(spec.case, spec.config, spec.normalized, spec.finite_width,
                                 spec.profile)
    return _law(spec.case, spec.ratios, spec.normalized,
                None if dps is None else dps + GUARD_DIGITS)


@functools.lru_cache(maxsize=8)
def _finite_width_law(case: str, dims: Dims, normalized: bool, row: str,
                      profile: str = "row") -> Law:
    return law(case, dims, normalized=normalized, finite_width=True, row=row,
               profile=profile)


@functools.lru_cache(maxsize=64)
def _law(case: str, ratios: Ratios, normalized: bool, dps: int | None) -> Law:
    return law(case, ratios, normalized=normalized, dps=dps)


def describe(spec: LawSpec) -> str:
    """One line naming the law: case, sharing, ratios (and dimensions when given)."""
    r = spec.ratios
    case = resolve_case(spec.case, r.sharing)
    kind = ("law" if spec.finite_width is None
            else f"finite-width law (row {spec.finite_width}, profile {spec.profile})")
    text = (f"{case} {kind}{' (normalized)' if spec.normalized else ''}, sharing "
            f"{r.sharing}: beta={float(r.beta):g} h={r.h} gK={float(r.gK):.6g} "
            f"gV={float(r.gV):.6g} gO={float(r.gO):.6g}")
    if isinstance(spec.config, Dims):
        d = spec.config
        text += f" (n={d.n} dK={d.dK} dV={d.dV} dO={d.dO} h_kv={d.h_kv})"
    return text


def points(option: str, texts: list[str] | None, dps: int | None) -> list:
    """Evaluation points typed by the user: float64, or exact decimals at ``dps`` plus
    guard digits. Any real number is allowed (a density outside the support is 0)."""
    out = []
    for text in texts or []:
        value = parse_number(option, text, POINT)
        if dps is None:
            out.append(float(value))
        else:
            with mpmath.workdps(dps + GUARD_DIGITS):
                out.append(to_mpf(value))
    return out


def text_value(value: object, dps: int | None) -> str:
    """A number as the text output prints it: the same digits the JSON carries (shortest
    round-trip float64, or ``dps`` significant digits)."""
    if value is None:
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, mpmath.mpf) and dps:
        return mpmath.nstr(value, dps, strip_zeros=False)
    return repr(float(value))


def law_summary(the_law: Law, xs: list) -> dict:
    """mean, m2, mbar2 = m2/m1^2 (theory §3), support intervals, atoms and the density at
    ``xs`` (theory §4, §7)."""
    mean, m2 = the_law.mean(), the_law.moment(2)
    with mpmath.workdps(the_law.dps or 15):
        mbar2 = m2 / mean**2 if mean != 0 else None  # a law of mean 0 (--expr) has none
    pdf = the_law.pdf(np.array(xs, dtype=object if the_law.dps else float)) if xs else []
    return {
        "mean": mean, "m2": m2, "mbar2": mbar2,
        "support": [list(edge) for edge in the_law.intervals()],
        "atoms": [{"at": at, "mass": mass} for at, mass in the_law.atoms().items()],
        "x": list(xs), "pdf": list(pdf),
    }


def _render(data: dict, title: str, dps: int | None) -> str:
    v = lambda x: text_value(x, dps)  # noqa: E731
    lines = [title]
    for key in ("mean", "m2", "mbar2"):
        lines.append(f"{key:<8}{v(data[key])}")
    support = ", ".join(f"[{v(a)}, {v(b)}]" for a, b in data["support"]) or "none"
    lines.append(f"{'support':<8}{support}")
    atoms = ", ".join(f"mass {v(a['mass'])} at {v(a['at'])}" for a in data["atoms"]) or "none"
    lines.append(f"{'atoms':<8}{atoms}")
    if data["x"]:
        lines.append("x  pdf")
        lines += [f"{v(x)}  {v(p)}" for x, p in zip(data["x"], data["pdf"], strict=True)]
    return "\n".join(lines)


def plot_title(spec: LawSpec) -> str:
    """The figure title: the case's matrix in mathtext and the law's parameters (the
    dimensions for a finite-width law), one line."""
    r = spec.ratios
    case = resolve_case(spec.case, r.sharing)
    params = (rf"$\beta$ = {float(r.beta):g}, $h$ = {r.h}, $\gamma_K$ = {float(r.gK):.4g}, "
              rf"$\gamma_V$ = {float(r.gV):.4g}, $\gamma_O$ = {float(r.gO):.4g}")
    norm = " (normalized)" if spec.normalized else ""
    if spec.finite_width is not None:  # the finite-width law (theory §2.3) at the dims
        d = spec.config
        kind = ("finite-width law" + (" (rows and columns)" if spec.profile != "row" else ""))
        return (f"{kind} of {plotting.CASE_LABELS[case]}{norm}: $\\beta$ = {float(r.beta):g}, "
                f"$h$ = {r.h}, $n$ = {d.n}, $d_K$ = {d.dK}, $d_V$ = {d.dV}, $d_O$ = {d.dO}")
    return f"limiting law of {plotting.CASE_LABELS[case]}{norm}: {params}"


@dataclass(frozen=True)
class DensityGrid:
    """What ``--plot`` draws (:func:`freege.plotting.plot_law`): the law and its x scale
    (``log`` None: automatic)."""

    law: Law
    log: bool | None


def density_grid(the_law: Law, xscale: str = "auto") -> DensityGrid:
    """The law and x scale of ``--plot``, checked before any output: ``xscale``
    ``linear``, ``log`` (no atom allowed: 0 is not on a log axis; ValueError) or ``auto``
    (:func:`freege.plotting.auto_log_x`)."""
    log = {"auto": None, "linear": False, "log": True}[xscale]
    if log:
        atoms = the_law.atoms()
        if atoms or not the_law.support()[0] > 0:
            raise ValueError("--xscale log needs a support above 0 and no atom (this law has "
                             f"{'an atom' if atoms else 'support down to 0'})")
    return DensityGrid(the_law, log)


def plot_density(path: str, grid: DensityGrid, title: str) -> None:
    """Draw a :func:`density_grid` (:func:`freege.plotting.plot_law`)."""
    plotting.plot_law(grid.law, points=PLOT_POINTS, log=grid.log, title=title, path=path)


#: the law options ``--expr`` replaces (one or the other): destination and flag
_CASE_OPTIONS = (("case", "--case"), ("beta", "--beta"), ("h", "--h"), *_RATIO_OPTIONS,
                 *_DIM_OPTIONS, ("sharing", "--sharing"), ("h_kv", "--h-kv"))


def expression_of(args: argparse.Namespace, keep: tuple[str, ...] = (),
                  data: bool = False) -> LawExpr:
    """The expression of ``--expr``, read by :func:`freege.algebra.parse` (docs/algebra.md,
    no ``eval``; with ``data``, :func:`freege.algebra.parse_data`, which also reads
    ``empirical(@FILE)``, a spectrum file relative to the current directory), once no law
    option it replaces was given (``keep``: the destinations of those the command still
    takes with ``--expr``, such as ``gO`` for ``readout ridge``); else a ValueError naming
    both options. Symbols (``mp(gK)``, ``mp(c)``) are bound by ``--param NAME=VALUE``
    (:func:`bind_params`); one left unbound is refused: the command line evaluates
    numbers."""
    given = [flag for dest, flag in _CASE_OPTIONS
             if dest not in keep and getattr(args, dest, None) is not None]
    if given:
        raise ValueError(f"--expr and {given[0]} are mutually exclusive: give the law as "
                         f"an expression or as a theory §4 case")
    from freege import algebra

    expr = algebra.parse_data(args.expr) if data else algebra.parse(args.expr)
    expr = bind_params(expr, getattr(args, "param", None) or [])
    if expr.parameters:
        names = ", ".join(map(str, expr.parameters))
        raise ValueError(f"--expr: {expr} has free parameters ({names}); bind them with "
                         f"--param NAME=VALUE (e.g. --param {names.split(',')[0]}=1/2)")
    return expr


def bind_params(expr: Any, params: list[str]) -> Any:
    """``expr`` with each ``--param NAME=VALUE`` bound (:meth:`LawExpr.subs`; the value in
    the grammar: ``1/2``, ``exp(1) - 1``, docs/algebra.md), or a one-line ValueError: a
    malformed pair, a name bound twice or no symbol of ``expr``, a bad value."""
    if not params:
        return expr
    values: dict[str, str] = {}
    for item in params:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not (sep and name and value):
            raise ValueError(f"--param: give NAME=VALUE, e.g. c=1/2 (got {item!r})")
        if name in values:
            raise ValueError(f"--param: {name} is bound twice")
        values[name] = value
    if not hasattr(expr, "subs") or getattr(expr, "is_data_expr", False):
        raise ValueError("--param binds the symbols of an expression without empirical(...)")
    try:
        return expr.subs(values)
    except ValueError as exc:
        raise ValueError(f"--param: {str(exc).removeprefix('subs: ')}") from None


def run_expression(args: argparse.Namespace) -> int:
    """``freege law --expr TEXT``: the law of an expression of the law algebra
    (docs/algebra.md); with ``empirical(@FILE)``, a law from data (freege.algebra.data).
    A bad ``--plot`` is refused first, before the algebra is imported."""
    if args.plot is not None:
        check_plot_target(args.plot)
    expr = expression_of(args, data=True)
    if args.certify and getattr(expr, "is_data_expr", False):
        raise ValueError("--certify: a law from data (empirical) has no certified route; "
                         "drop --certify")
    if args.normalized:
        if not getattr(expr, "is_data_expr", False):  # the budget before the mean
            from freege.symbolic.expressions import check_degree

            check_degree(expr)
        mean = expr.mean
        if mean == 0:
            raise ValueError(f"--normalized: {expr} has mean 0")
        expr = expr / mean
    title = f"law of {expr}"
    if args.certify:  # rigorous balls (python-flint), imported only on this path
        from freege.cli import certify_output

        the_law = expr.law()
        grid = density_grid(the_law, args.xscale) if args.plot is not None else None
        certify_output.run_law(args, the_law, title)
        if grid is not None:
            plot_density(args.plot, grid, title)
        return 0
    xs = points("--pdf", args.pdf, args.dps)
    the_law = expr.law(None if args.dps is None else args.dps + GUARD_DIGITS)
    data = law_summary(the_law, xs)
    grid = density_grid(the_law, args.xscale) if args.plot is not None else None
    emit(data, args, lambda d: _render(d, title, args.dps), args.dps)
    if grid is not None:
        plot_density(args.plot, grid, title)
    return 0


def run(args: argparse.Namespace) -> int:
    finite_width_profile(args)  # --columns without --finite-width: refused first
    if args.expr is not None:
        if args.finite_width:
            raise ValueError("--finite-width needs a theory §4 case (--case and the "
                             "dimensions), not --expr")
        return run_expression(args)
    spec = law_spec(args)
    if args.certify:  # rigorous balls (python-flint), imported only on this path
        from freege.cli import certify_output

        the_law, title = build_law(spec, None), describe(spec)
        # a bad --xscale first
        grid = density_grid(the_law, args.xscale) if args.plot is not None else None
        certify_output.run_law(args, the_law, title)
        if grid is not None:
            plot_density(args.plot, grid, plot_title(spec))
        return 0
    if args.plot is not None:
        check_plot_target(args.plot)
    xs = points("--pdf", args.pdf, args.dps)
    the_law = build_law(spec, args.dps)
    data = law_summary(the_law, xs)
    title = describe(spec)
    # a bad --xscale first
    grid = density_grid(the_law, args.xscale) if args.plot is not None else None
    from freege.numeric import outlier  # the leading singular value, theory §4.1

    if spec.finite_width is None and (top := outlier.summary(
            resolve_case(spec.case, spec.ratios.sharing), spec.config, args.dps)):
        data["outlier"] = top
    emit(data, args,
         lambda d: _render(d, title, args.dps) + outlier.text(d.get("outlier"), args.dps),
         args.dps)
    if grid is not None:
        plot_density(args.plot, grid, plot_title(spec))
    return 0


def add_param_option(parser: argparse.ArgumentParser) -> None:
    """``--param NAME=VALUE`` (repeatable): binds a symbol of ``--expr``."""
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help='bind a symbol of --expr (repeatable): --expr "mp(c)" --param '
                        'c=1/2; the value is a number or a constant such as "exp(1) - 1" '
                        "(docs/algebra.md, Your symbols)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "law", help="moments, support, atoms and density of a theory §4 law or an expression",
        description="Evaluate a theory §4 limiting law (--case and the law options) or any "
        "law of the algebra (--expr): mean, m2, mbar2 = m2/m1^2, support, atoms and the "
        "density at the --pdf points.",
    )
    add_law_options(parser, CASES, required=False)
    parser.add_argument("--expr", metavar="TEXT",
                        help='instead of the law options: an expression of the law algebra '
                        '(docs/algebra.md), e.g. "mp(1/2) * mp(1/2)" (* is free '
                        'multiplicative, + free additive convolution)')
    add_param_option(parser)
    parser.add_argument("--pdf", nargs="+", metavar="X", help="points where to evaluate the "
                        "density (0 outside the support)")
    add_plot_option(parser, "draw the density (.png, .svg or .pdf)")
    parser.add_argument("--xscale", choices=("auto", "linear", "log"), default="auto",
                        help="x-axis of --plot: auto takes log when the support spans more "
                        f"than a factor {LOG_SPAN:g} and the bulk is squeezed at its lower end "
                        "(default auto)")
    add_format_option(parser)
    add_dps_option(parser)
    add_certify_option(parser, "of the support, atoms and density")
    add_finite_width_option(parser)
    parser.set_defaults(func=run)
