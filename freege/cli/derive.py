"""``freege derive``: the exact closed forms of theory §3-§5, printed from the sympy layer.

Sub-commands (every one takes ``--case``, ``--format text|latex|json``, ``--form
collected|factored|expanded`` and ``--quiet``/``--verbose``):

* ``moments`` / ``cumulants --order Q [--normalized]``: ``m_1..m_Q`` / ``kappa_1..kappa_Q``;
* ``s-transform [--normalized]``: the explicit S-transform (when it has one) and the
  polynomial relation ``E(S, w) = 0`` (theory §3);
* ``dof --order Q``: the large-``lam`` coefficients of ``w(lam)`` (theory §5);
* ``cauchy [--normalized]``: the Cauchy polynomial ``P(G, z)`` (theory §3 polynomial method).

``--form`` (:mod:`freege.symbolic.forms`): ``collected`` (default) sums over the monomials
of the main variables with factored coefficients, ``factored`` is sympy's ``factor``,
``expanded`` the expression as derived; a text or LaTeX line longer than :data:`WIDTH`
characters is broken before a ``+`` or ``-`` into indented continuation lines. A cold
derivation (nothing cached) shows progress on stderr once it has taken a second
(:mod:`freege.progress`: the derivation with its time so far, then each result put in
its form).

Text and LaTeX are written in ``theta1 = exp(beta^2) - 1``, ``theta2 = beta^2`` (shorter);
LaTeX spells the symbols as in the theory (gamma_K, gamma_V, gamma_O, theta_1, theta_2, beta:
:func:`freege.symbolic.symbols.to_latex`);
JSON expressions are strings that plain ``sympy.sympify`` parses back, in ``beta, h, gK,
gV, gO`` only (thetas expanded): names that mean something else to sympify are spelled
``Symbol('beta')`` and ``Symbol('S')`` (:func:`freege.symbolic.symbols.to_text`);
:func:`freege.symbolic.symbols.parse` reads them with freege's symbols and assumptions. Results
come from the cached derivations (:mod:`freege.symbolic.cache`); the printed output itself
is cached too (plain JSON under ``$FREEGE_CACHE_DIR/derive``, keyed by the arguments and
the sources), so a warm ``derive`` never imports sympy.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freege import cache_files
from freege.cache_key import cache_dir, source_hash
from freege.cli.common import emit
from freege.cli.options import add_format_option, add_verbosity_options
from freege.params import CASES, DERIVE_FORMS, MAX_ORDER, positive_int

if TYPE_CHECKING:  # sympy loads only when a result is not in the output cache
    import sympy as sp

    from freege.progress import Progress

FORMATS = ("text", "latex", "json")
#: characters per text or LaTeX line before it is broken before a ``+`` or ``-``
WIDTH = 100
#: seconds a cold derivation runs before its progress shows (quick ones stay silent)
PROGRESS_DELAY_S = 3.0
THETA_LINE = "theta1 = exp(beta^2) - 1, theta2 = beta^2"
THETA_LATEX = r"\theta_1 = e^{\beta^2} - 1,\quad \theta_2 = \beta^2"
#: a derivation's output: the JSON data and the rendered text or LaTeX (None for JSON)
Output = tuple[dict, "str | None"]
#: a result line: (text name, LaTeX name, JSON key or None, expression, main variables)
Line = tuple[str, str, "str | None", "sp.Expr", "Sequence[sp.Symbol]"]


def _order(text: str) -> int:
    """``--order`` as an integer >= 1 (:func:`freege.params.positive_int`: a full-width
    ``１`` is not read as 1; bad input one line, exit 2); its upper end is checked by
    ``closed_forms.check_order``, in the same words."""
    try:
        return positive_int("order", text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"order must be an integer in [1, {MAX_ORDER}] "
                                         f"(got {text!r})") from None


def _common(parser: argparse.ArgumentParser, order: bool, normalized: bool) -> None:
    parser.add_argument("--case", required=True, choices=CASES, help="theory §4 case")
    if order:
        parser.add_argument(
            "--order", required=True, type=_order,
            help=f"highest order, 1..{MAX_ORDER}",
        )
    if normalized:
        parser.add_argument(
            "--normalized", action="store_true", help="the mean-one law nubar (theory §3)"
        )
    parser.add_argument(
        "--form", choices=DERIVE_FORMS, default=DERIVE_FORMS[0],
        help="collected: a sum over the powers of the main variables with factored "
        "coefficients; factored: sympy's factor; expanded: as derived (default collected)")
    add_format_option(parser, FORMATS)
    add_verbosity_options(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "derive", help="exact closed forms (sympy): moments, cumulants, S, dof, Cauchy"
    )
    sub = parser.add_subparsers(dest="quantity", metavar="QUANTITY")
    sub.required = True
    for name, helptext in (("moments", "moments m_1..m_Q (theory §3, §4)"),
                           ("cumulants", "free cumulants kappa_1..kappa_Q (theory §3)")):
        p = sub.add_parser(name, help=helptext)
        _common(p, order=True, normalized=True)
        p.set_defaults(func=_cached_output(_sequence(name)))
    p = sub.add_parser("s-transform", help="S-transform and its relation E(S, w) = 0 (theory §3)")
    _common(p, order=False, normalized=True)
    p.set_defaults(func=_cached_output(_s_transform))
    p = sub.add_parser("dof", help="large-lam series of the degrees of freedom w(lam) (theory §5)")
    _common(p, order=True, normalized=False)
    p.set_defaults(func=_cached_output(_dof))
    p = sub.add_parser("cauchy", help="Cauchy polynomial P(G, z) = 0 (theory §3)")
    _common(p, order=False, normalized=True)
    p.set_defaults(func=_cached_output(_cauchy))


def _render(fmt: str, lines: list[tuple[str, str, sp.Expr]], title: str) -> str | None:
    """Text or LaTeX of ``(text name, latex name, expression)`` lines (None for JSON), each
    longer than :data:`WIDTH` broken into continuation lines (:func:`wrapped`)."""
    from freege.symbolic.symbols import to_latex

    if fmt == "json":
        return None
    if fmt == "latex":
        body = [wrapped(f"{tex} = ", to_latex(expr)) for _, tex, expr in lines]
        return "\n".join([f"% {title}", f"% {THETA_LATEX}", *body])
    body = [wrapped(f"{name} = ", str(expr)) for name, _, expr in lines]
    return "\n".join([f"# {title}", f"# {THETA_LINE}", *body])


def wrapped(head: str, body: str, width: int = WIDTH) -> str:
    """``head + body`` in lines of at most ``width`` characters where possible, broken
    before a `` + `` or `` - `` (sympy's and LaTeX's spacing of a sum), continuation lines
    indented by four spaces; a term longer than ``width`` stays whole."""
    pieces = re.split(r"(?= [+-] )", body)
    out, line = [], head + pieces[0]
    for piece in pieces[1:]:
        if len(line) + len(piece) > width:
            out.append(line)
            line = "    " + piece.lstrip()
        else:
            line += piece
    return "\n".join([*out, line])


def _formed(args: argparse.Namespace, bar: Progress, lines: list[Line]
            ) -> tuple[dict, list[tuple[str, str, sp.Expr]]]:
    """Each line's expression in ``--form`` (one progress step each) and, for JSON, its
    text in ``beta`` under its key."""
    from freege.symbolic.forms import in_form
    from freege.symbolic.symbols import in_beta, to_text

    data: dict[str, Any] = {}
    shown = []
    for name, tex, key, expr, variables in lines:
        formed = in_form(expr, args.form, variables)
        if args.format == "json" and key is not None:
            data[key] = to_text(in_beta(formed))
        shown.append((name, tex, formed))
        bar.update(1, status=f"{name} {args.form}")
    return data, shown


@functools.cache
def _own_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _cache_entry(args: argparse.Namespace) -> tuple[Path, str]:
    """Output cache file of this command and its key: the arguments, the symbolic sources
    (:func:`freege.cache_key.source_hash`) and this module's own source (the rendering)."""
    arguments = json.dumps([args.quantity, args.case, getattr(args, "order", None),
                            getattr(args, "normalized", False), args.format, args.form])
    key = f"{source_hash()}|{_own_hash()}|{arguments}"
    digest = hashlib.sha256(key.encode()).hexdigest()
    return cache_dir() / "derive" / f"{digest[:32]}.json", key


def _parse_output(content: str) -> Output:
    """A cached output from its plain JSON (never executed); ValueError for any other
    shape."""
    record = json.loads(content)
    if (not isinstance(record, dict) or not isinstance(record.get("data"), dict)
            or not isinstance(record.get("text"), str | None)):
        raise ValueError("not a derive output")
    return record["data"], record["text"]


def _cached_output(compute: Callable[[argparse.Namespace, Progress], Output]
                   ) -> Callable[[argparse.Namespace], int]:
    """The handler that emits ``compute(args, progress)``, read from the output cache
    when there (a warm ``derive`` imports no sympy), else computed (with progress on
    stderr once it takes more than :data:`PROGRESS_DELAY_S`) and stored. The output is a
    pure function of the key, so the cache never changes what is printed."""

    def handler(args: argparse.Namespace) -> int:
        path, key = _cache_entry(args)
        output = cache_files.load(path, key, _parse_output)
        if output is None:
            from freege.progress import Progress

            with Progress(f"derive {args.quantity}", None, verbosity=args.verbosity,
                          delay=PROGRESS_DELAY_S) as bar:
                output = compute(args, bar)
            cache_files.store(path, key, json.dumps({"data": output[0], "text": output[1]}))
        data, text = output
        emit(data, args, lambda _data: text or "")
        return 0

    return handler


def _header(args: argparse.Namespace) -> dict:
    from freege.symbolic.symbols import PARAM_NAMES

    data = {"case": args.case, "symbols": list(PARAM_NAMES)}
    if getattr(args, "normalized", False):
        data["normalized"] = True
    return data


def _title(args: argparse.Namespace, what: str) -> str:
    norm = " (normalized, mean 1)" if getattr(args, "normalized", False) else ""
    return f"{what} of case {args.case}{norm}"


def _sequence(kind: str) -> Callable[[argparse.Namespace, Progress], Output]:
    def compute(args: argparse.Namespace, bar: Progress) -> Output:
        from freege.symbolic import closed_forms
        from freege.symbolic.symbols import theta1, theta2

        derive = closed_forms.moments if kind == "moments" else closed_forms.cumulants
        order = closed_forms.check_order(args.order)
        letter, tex = ("m", "m") if kind == "moments" else ("kappa", r"\kappa")
        with bar.waiting(f"deriving {letter}_1..{letter}_{order} (sympy, exact)"):
            values = derive(args.case, order, args.normalized)
        data, shown = _formed(args, bar, [(f"{letter}_{q}", f"{tex}_{{{q}}}", str(q), v,
                                           (theta1, theta2)) for q, v in enumerate(values, 1)])
        out = {**_header(args), kind: data} if args.format == "json" else _header(args)
        return out, _render(args.format, shown, _title(args, kind))

    return compute


def _s_transform(args: argparse.Namespace, bar: Progress) -> Output:
    from freege.symbolic import closed_forms
    from freege.symbolic.symbols import S, w

    with bar.waiting("deriving the S-relation (sympy, exact)"):
        relation = closed_forms.s_relation(args.case, args.normalized)
        result = closed_forms.s_transform(args.case, args.normalized)
    explicit = None if closed_forms.is_relation(result) else result
    lines: list[Line] = [("E(S, w)", "E(S, w)", "relation", relation, (S, w))]
    if explicit is not None:
        lines.insert(0, ("S(w)", "S(w)", "s_transform", explicit, (w,)))
    data, shown = _formed(args, bar, lines)
    out = _header(args)
    if args.format == "json":
        out.update({"variables": ["S", "w"], "s_transform": data.get("s_transform"),
                    "relation": data["relation"]})
    title = _title(args, "S-transform (branch S(0) = 1/m1; relation E(S, w) = 0)")
    return out, _render(args.format, shown, title)


def _dof(args: argparse.Namespace, bar: Progress) -> Output:
    from freege.symbolic import closed_forms
    from freege.symbolic.symbols import in_beta, lam, theta1, theta2, to_text

    order = closed_forms.check_order(args.order)
    with bar.waiting(f"deriving c_1..c_{order} (sympy, exact)"):
        coeffs = closed_forms.dof_series(args.case, order)
    data, shown = _formed(args, bar, [(f"c_{k}", f"c_{{{k}}}", str(k), v, (theta1, theta2))
                                      for k, v in enumerate(coeffs, 1)])
    out = _header(args)
    if args.format == "json":
        total = sum((c / lam**k for k, (_, _, c) in enumerate(shown, 1)), 0)
        out.update({"variable": "lam", "dof": data, "series": to_text(in_beta(total))})
    title = _title(args, "w(lam) = sum_k c_k lam^-k + O(lam^-(Q+1)) (theory §5)")
    return out, _render(args.format, shown, title)


def _cauchy(args: argparse.Namespace, bar: Progress) -> Output:
    import sympy as sp

    from freege.symbolic.equations import cauchy_polynomial
    from freege.symbolic.symbols import G, z

    with bar.waiting("deriving P(G, z) (sympy, exact)"):
        poly = cauchy_polynomial(args.case, args.normalized)
    expr = poly.as_expr() if isinstance(poly, sp.Poly) else poly
    data, shown = _formed(args, bar, [("P(G, z)", "P(G, z)", "polynomial", expr, (G, z))])
    out = _header(args)
    if args.format == "json":
        out.update({"variables": ["G", "z"], "polynomial": data["polynomial"]})
    title = _title(args, "Cauchy polynomial P(G, z) = 0")
    return out, _render(args.format, shown, title)
