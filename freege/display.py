"""Notebook display: LaTeX of the law algebra's expressions and of derived formulas, an
HTML summary of every numeric law, readable reprs (issue 42).

Jupyter asks an object for ``_repr_latex_`` / ``_repr_html_``; the classes delegate here:

* :func:`expression_latex` -- an expression of the law algebra
  (:class:`freege.symbolic.expressions.LawExpr`): ``⊠`` as ``\\boxtimes``, ``⊞`` as
  ``\\boxplus``, ``MP_c`` as ``\\mathrm{MP}_{c}``, the semicircle of variance ``v`` as
  ``\\sigma_{v}``, free Poisson laws as ``\\pi_{t}`` and ``\\pi(\\mu, t)``, atoms as sums
  of ``\\delta``, a pushforward by ``p`` as ``(x \\mapsto p(x))_*\\,\\mu``, affine maps as
  ``a\\,\\mu + b`` (the law of ``a X + b``); parameters with their mathematical names
  (:data:`LATEX_NAMES`: ``gK`` is ``\\gamma_K``, ``theta1`` is ``\\theta_1``);
* :func:`spec_latex` -- the same for a law from data
  (:class:`freege.algebra.data.DataExpr`, from its engine spec);
* :func:`sympy_latex` -- a derived formula (a sympy expression of :mod:`freege.symbolic`)
  with the same names;
* :func:`law_html` -- a numeric law (:class:`freege.numeric.law_family.Law`): its kind,
  parameters, support, intervals, atoms, mean and variance in float64
  (:func:`law_summary`), each guarded: a value that raises shows as "n/a", and nothing
  slow is started (a law from data shows its support once it has found it);
* :func:`law_repr`, :func:`s_transform_repr` -- reprs that name the law.

This module sits in the bottom layer (``tests/test_import_graph.py``): it imports no other
freege module and reads expressions by their node names and fields.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

#: LaTeX names of freege's parameter symbols, by symbol name (the exact layer's symbols
#: carry assumptions, so the match is by name: freege.symbolic.symbols.LATEX_NAMES)
LATEX_NAMES: dict[str, str] = {
    "beta": r"\beta", "gK": r"\gamma_K", "gV": r"\gamma_V", "gO": r"\gamma_O",
    "theta1": r"\theta_1", "theta2": r"\theta_2", "lam": r"\lambda",
}
#: the same names in HTML
HTML_NAMES: dict[str, str] = {
    "beta": "&beta;", "gK": "&gamma;<sub>K</sub>", "gV": "&gamma;<sub>V</sub>",
    "gO": "&gamma;<sub>O</sub>", "theta1": "&theta;<sub>1</sub>",
    "theta2": "&theta;<sub>2</sub>", "lam": "&lambda;",
}
#: significant digits of the numbers :func:`law_html` shows
DIGITS = 10
#: the most atoms of a data leaf written out as a sum of deltas (more: ``emp_N``)
SHOWN_ATOMS = 8

# precedence of a LaTeX text: a sum (⊞, a shift, a sum of deltas), ⊠, a dilation, a leaf
_SUM, _BOX, _SCALE, _LEAF = 1, 2, 3, 4


# ---------------------------------------------------------------------- formulas
def symbol_names(expr: Any) -> dict[sp.Symbol, str]:
    """``sympy.latex``'s ``symbol_names`` for the free symbols of ``expr``."""
    free = getattr(sp.sympify(expr), "free_symbols", set())
    return {s: LATEX_NAMES[s.name] for s in free if s.name in LATEX_NAMES}


def sympy_latex(expr: Any, short_fractions: bool = False) -> str:
    """``expr`` (a sympy expression or a number) as LaTeX with freege's symbol names;
    ``short_fractions``: ``1/2`` rather than ``\\frac{1}{2}`` (subscripts)."""
    if isinstance(expr, Fraction):
        expr = sp.Rational(expr.numerator, expr.denominator)
    expr = sp.sympify(expr)
    return sp.latex(expr, symbol_names=symbol_names(expr), fold_short_frac=short_fractions)


def _sub(x: Any) -> str:
    return sympy_latex(x, short_fractions=True)


def _wrap(text: str, prec: int, below: int) -> str:
    return rf"\left({text}\right)" if prec < below else text


def _mass(p: Any) -> str:
    """A mass as a coefficient: ``\\tfrac{1}{2}\\,`` (nothing for 1)."""
    p = sp.sympify(sp.Rational(p.numerator, p.denominator) if isinstance(p, Fraction) else p)
    if p == 1:
        return ""
    if p.is_Rational and p.q != 1:
        return rf"\tfrac{{{p.p}}}{{{p.q}}}\," if p.p > 0 else rf"-\tfrac{{{-p.p}}}{{{p.q}}}\,"
    return sympy_latex(p) + r"\,"


def _deltas(points: Any, location: Callable[[Any], str] = _sub) -> tuple[str, int]:
    """``sum_i p_i delta_{a_i}`` of ``((a_i, p_i), ...)``."""
    terms = [rf"{_mass(p)}\delta_{{{location(a)}}}" for a, p in points]
    return " + ".join(terms), (_LEAF if len(terms) == 1 else _SUM)


def _polynomial(coeffs: Any) -> str:
    x = sp.Symbol("x")
    poly = sum((sp.sympify(c if not isinstance(c, Fraction) else
                           sp.Rational(c.numerator, c.denominator)) * x**j
                for j, c in enumerate(coeffs)), sp.Integer(0))
    return sp.latex(poly, symbol_names=symbol_names(poly), order="lex")


def _affine(base: str, prec: int, scale: Any, shift: Any) -> tuple[str, int]:
    a, b = (sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction)
            else sp.sympify(v) for v in (scale, shift))
    if a == 1:
        head, out = base, prec
    elif a == -1:
        head, out = "-" + _wrap(base, prec, _LEAF), _SCALE
    else:
        head, out = rf"{_wrap(sympy_latex(a), _LEAF if a.is_Atom else _SUM, _LEAF)}\," \
            rf"{_wrap(base, prec, _LEAF)}", _SCALE
    if b == 0:
        return head, out
    head = _wrap(head, out, _SCALE)
    if b.is_Rational and b < 0:
        return f"{head} - {sympy_latex(-b)}", _SUM
    return f"{head} + {_wrap(sympy_latex(b), _LEAF if b.is_Atom else _SUM, _LEAF)}", _SUM


def _expression(expr: Any) -> tuple[str, int]:
    """``(latex, precedence)`` of a LawExpr node (read by its class name and fields)."""
    kind = type(expr).__name__
    if kind == "MarchenkoPastur":
        return rf"\mathrm{{MP}}_{{{_sub(expr.ratio)}}}", _LEAF
    if kind == "Semicircle":
        return rf"\sigma_{{{_sub(expr.variance)}}}", _LEAF
    if kind == "Atomic":
        return _deltas(expr.points)
    if kind == "FreePoisson":
        jump = expr.jump
        if type(jump).__name__ == "Atomic" and tuple(jump.points) == ((1, 1),):
            return rf"\pi_{{{_sub(expr.rate)}}}", _LEAF
        return rf"\pi\left({_expression(jump)[0]},\ {sympy_latex(expr.rate)}\right)", _LEAF
    if kind == "Affine":
        return _affine(*_expression(expr.base), expr.scale, expr.shift)
    if kind in ("FreeMult", "FreeAdd"):
        parts = [_expression(e) for e in (expr.factors if kind == "FreeMult" else expr.terms)]
        op, below, prec = ((r" \boxtimes ", _LEAF, _BOX) if kind == "FreeMult"
                           else (r" \boxplus ", _SCALE, _SUM))
        return op.join(_wrap(t, p, below) for t, p in parts), prec
    if kind == "Pushforward":
        base, prec = _expression(expr.base)
        return (rf"\left(x \mapsto {_polynomial(expr.coeffs)}\right)_*\,"
                rf"{_wrap(base, prec, _LEAF)}"), _LEAF
    return rf"\mathrm{{{html.escape(kind)}}}", _LEAF


def expression_latex(expr: Any) -> str:
    """An expression of the law algebra as LaTeX, without ``$`` (module docstring)."""
    return _expression(expr)[0]


def _float_tex(v: float) -> str:
    text = f"{v:.6g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return text


def _empirical(values: bytes, weights: bytes | None) -> tuple[str, int]:
    import numpy as np

    x = np.frombuffer(values, dtype="<f8")
    w = np.ones_like(x) if weights is None else np.frombuffer(weights, dtype="<f8")
    if x.size > SHOWN_ATOMS:
        return rf"\mathrm{{emp}}_{{{x.size}}}", _LEAF
    merged: dict[float, float] = {}
    for v, p in zip(x.tolist(), w.tolist(), strict=True):
        merged[v] = merged.get(v, 0.0) + p
    total = sum(merged.values())
    exact = weights is None
    points = [(v, Fraction(round(p), x.size) if exact else p / total)
              for v, p in sorted(merged.items())]
    terms = [(rf"{_mass(p)}" if exact else ("" if p == 1 else rf"{p:.4g}\,"))
             + rf"\delta_{{{_float_tex(v)}}}" for v, p in points]
    return " + ".join(terms), (_LEAF if len(terms) == 1 else _SUM)


def _spec(spec: Any) -> tuple[str, int]:
    """``(latex, precedence)`` of a data spec (:mod:`freege.numeric.data_law`)."""
    kind, args = spec[0], spec[1:]
    if kind == "empirical":
        return _empirical(*args)
    if kind == "atoms":
        return _deltas(args[0])
    if kind == "mp":
        return rf"\mathrm{{MP}}_{{{_sub(args[0])}}}", _LEAF
    if kind == "semicircle":
        return rf"\sigma_{{{_sub(args[0])}}}", _LEAF
    if kind == "free-poisson":
        return rf"\pi_{{{_sub(args[0])}}}", _LEAF
    if kind == "density" and args and args[0] == "scipy":
        _, name, pargs, kwds = args
        shown = [sympy_latex(v, True) for v in pargs]
        shown += [rf"\mathrm{{{k}}}={sympy_latex(v, True)}" for k, v in kwds]
        return rf"\mathrm{{{name}}}\left({', '.join(shown)}\right)", _LEAF
    if kind in ("add", "mult"):
        (a, pa), (b, pb) = _spec(args[0]), _spec(args[1])
        if kind == "mult":
            return rf"{_wrap(a, pa, _BOX)} \boxtimes {_wrap(b, pb, _LEAF)}", _BOX
        return rf"{a} \boxplus {_wrap(b, pb, _SCALE)}", _SUM
    if kind == "poisson":
        return rf"\pi\left({_spec(args[1])[0]},\ {sympy_latex(args[0])}\right)", _LEAF
    if kind == "affine":
        return _affine(*_spec(args[2]), args[0], args[1])
    if kind == "pushforward":
        base, prec = _spec(args[1])
        return (rf"\left(x \mapsto {_polynomial(args[0])}\right)_*\,"
                rf"{_wrap(base, prec, _LEAF)}"), _LEAF
    return r"\nu", _LEAF  # a law of the family ("law") or a density without a spec


def spec_latex(spec: Any) -> str:
    """A law from data (its engine spec) as LaTeX, without ``$``: empirical laws of up to
    :data:`SHOWN_ATOMS` values as sums of deltas, larger ones as ``emp_N``, scipy
    distributions by name and parameters, the operations as :func:`expression_latex`."""
    return _spec(spec)[0]


def math_mode(latex: str) -> str:
    """``$latex$``: what ``_repr_latex_`` returns."""
    return f"${latex}$"


# ---------------------------------------------------------------------- reprs
def _plain(value: Any) -> str:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{DIGITS}g}"
    return str(value)


def law_repr(law: Any) -> str:
    """``Kind(name=value, ..., dps=None)`` from the law's ``describe``."""
    items = ", ".join(f"{k}={_plain(v)}" for k, v in dict(law.describe).items())
    return f"{type(law).__name__}({items}{', ' if items else ''}dps={law.dps})"


def s_transform_repr(kind: str, mean: Any, describe: Any) -> str:
    """``Kind(S(0) = 1/m1, m1=..., law: name=value, ...)``."""
    items = ", ".join(f"{k}={_plain(v)}" for k, v in dict(describe or {}).items())
    m1 = "n/a" if mean is None else f"{float(mean):.{DIGITS}g}"
    return f"{kind}(S(0) = 1/m1, m1={m1}{', law: ' + items if items else ''})"


# ---------------------------------------------------------------------- law summaries
#: why a support that is not computed yet shows as "n/a"
NOT_YET = "not computed yet, it may take seconds: call law.intervals() and show the law again"


def _guarded(compute: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(value, None)``, or ``(None, why)`` when ``compute`` raises."""
    try:
        return compute(), None
    except Exception as exc:  # noqa: BLE001 - a display never fails
        text = f"{type(exc).__name__}: {exc}"
        return None, text if len(text) <= 160 else text[:157] + "..."


def _known(law: Any, name: str) -> bool:
    """Whether ``law`` keeps a result named ``name`` (its memo, ``_cache``)."""
    return any(k == name or (isinstance(k, tuple) and k and k[0] == name)
               for k in list(getattr(law, "_cache", {})))


def fast_support(law: Any) -> bool:
    """Whether the support of ``law`` is cheap to ask for: a law with a Cauchy polynomial
    (its ``equation``: exact discriminant and roots, cached on disk; well under a second
    measured), or one that already found its intervals. A law from data
    (subordination: a scan of the real axis) takes seconds the first time."""
    return hasattr(law, "equation") or _known(law, "intervals")


def law_summary(law: Any) -> dict[str, tuple[Any, str | None]]:
    """What :func:`law_html` shows, in float64: ``name -> (value, why)``, ``value`` None
    and ``why`` the reason when it raised or was not computed. Names: ``intervals`` (list
    of ``(lo, hi)``), ``atoms`` (``{location: mass}``), ``support`` (``(lo, hi)``),
    ``mean``, ``variance``. Nothing slow is started: the moments are exact (cheap for
    every kind); the support is asked for only when :func:`fast_support` (no computation
    is interrupted, which could leave a law's memo half written); a law at ``dps`` digits
    is summarised through the float64 law it keeps (``_float64``)."""
    names = ("intervals", "atoms", "support", "mean", "variance")
    if law.dps is None:
        f64, why = law, None
    else:
        f64, why = _guarded(getattr(law, "_float64", lambda: law.with_dps(None)))
    if f64 is None:
        return {k: (None, why) for k in names}
    out: dict[str, tuple[Any, str | None]] = {}
    out["mean"] = _guarded(lambda: float(f64.mean()))
    out["variance"] = _guarded(lambda: float(f64.var()))
    if fast_support(f64):
        out["intervals"] = _guarded(lambda: [(float(a), float(b)) for a, b in f64.intervals()])
        out["atoms"] = _guarded(lambda: {float(x): float(p) for x, p in f64.atoms().items()})
    else:
        out["intervals"] = out["atoms"] = (None, NOT_YET)
    if out["intervals"][1] is None and out["atoms"][1] is None:
        out["support"] = _guarded(lambda: tuple(float(v) for v in f64.support()))
    else:
        out["support"] = (None, out["intervals"][1] or out["atoms"][1])
    return out


def _number_html(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.{DIGITS}g}"


def _value_html(name: str, value: Any) -> str:
    if name in ("mean", "variance"):
        return _number_html(value)
    if name == "support":
        return f"[{_number_html(value[0])}, {_number_html(value[1])}]"
    if name == "intervals":
        return ", ".join(f"[{_number_html(a)}, {_number_html(b)}]" for a, b in value) or "none"
    return ", ".join(f"mass {_number_html(p)} at {_number_html(x)}"
                     for x, p in value.items()) or "none"


def _parameter_html(value: Any) -> str:
    return html.escape(_plain(value))


def law_html(law: Any) -> str:
    """An HTML table of the law: kind, parameters (``describe``), precision, then
    :func:`law_summary` (float64; "n/a" and the reason for a value that raised or was
    not computed)."""
    rows = [("kind", html.escape(type(law).__name__))]
    for key, value in dict(getattr(law, "describe", {})).items():
        rows.append((HTML_NAMES.get(key, html.escape(str(key))), _parameter_html(value)))
    rows.append(("precision", "float64" if law.dps is None
                 else f"{law.dps} digits (shown: float64)"))
    labels = {"support": "support", "intervals": "intervals (continuous part)",
              "atoms": "atoms", "mean": "mean", "variance": "variance"}
    summary = law_summary(law)
    for name in ("support", "intervals", "atoms", "mean", "variance"):
        value, why = summary[name]
        shown = (_value_html(name, value) if why is None else
                 f'n/a <small style="color:gray">({html.escape(why)})</small>')
        rows.append((labels[name], shown))
    body = "".join(f'<tr><th style="text-align:left">{k}</th>'
                   f'<td style="text-align:left">{v}</td></tr>' for k, v in rows)
    return f'<table class="freege-law">{body}</table>'


__all__ = ["NOT_YET", "fast_support", "HTML_NAMES", "LATEX_NAMES", "expression_latex", "law_html",
           "law_repr", "law_summary", "math_mode", "s_transform_repr", "spec_latex",
           "sympy_latex", "symbol_names"]
