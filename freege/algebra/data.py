"""Laws from data in the law algebra: empirical spectra and scipy distributions as
operands of ``⊞``, ``⊠``, affine maps, pushforwards and compound free Poisson laws (issue
38; the engine: :mod:`freege.numeric.data_law`).

A :class:`DataExpr` holds a *spec* (the plain nested tuple of
:mod:`freege.numeric.data_law`) and a display text. Its leaves are :func:`empirical`
(values, optional weights) and :func:`from_scipy` (a frozen ``scipy.stats`` continuous
distribution); any expression of the algebra without free parameters
(:class:`~freege.symbolic.expressions.LawExpr`) combines with it. The operators mirror
``LawExpr``'s: ``+`` is ``⊞`` with a law and a shift with a number, ``*`` is ``⊠`` with a
law and a dilation with a number, ``-``, unary minus and ``/`` (by a number) follow::

    >>> from freege import algebra
    >>> e = algebra.parse("mp(1/2)") * algebra.empirical([1.0, 3.0, 3.0, 3.0])
    >>> e.law().pdf(2.0)  # doctest: +SKIP

:func:`free_add`, :func:`free_mult`, :func:`affine`, :func:`dilation`,
:func:`pushforward` and :func:`free_poisson` take a DataExpr anywhere a law goes (and are
the algebra's own functions otherwise); ``expr.law(dps)`` is a
:class:`~freege.numeric.data_law.DataLaw`. Every combination is checked when it is made
(the engine's operand tree is built: ``⊠`` of a law not on ``[0, inf)`` is a ValueError
then, not at the first number).

In text, :func:`parse_data` reads the grammar of :mod:`freege.algebra.grammar` plus
``empirical(@FILE)`` (a spectrum file, :mod:`freege.data_files`).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from freege.algebra import grammar
from freege.data_files import MAX_VALUES, load_values
from freege.numeric import law_composition
from freege.numeric.data_law import DataLaw, build_operand, spec_of_expression
from freege.numeric.law_family import Law
from freege.params import Domain, parse_number
from freege.symbolic import expressions as ex
from freege.symbolic.expressions import LawExpr

#: the most values shown in the text of an empirical leaf (more: their count)
SHOWN_VALUES = 8

# precedence of a text: a call or name, a product or a dilation, a sum or a shift
_ATOM, _PRODUCT, _SUM = 3, 2, 1


# ---------------------------------------------------------------------- numbers
def _number(name: str, value: Any) -> Fraction:
    """``value`` as an exact Fraction (sympy rationals, ints, Fractions, floats through
    their shortest decimal, strings ``'1/2'``), else a ValueError naming ``name``."""
    if isinstance(value, DataExpr | LawExpr):
        raise ValueError(f"{name} must be a number, not a law ({value})")
    if isinstance(value, sp.Basic):
        if not value.is_Rational:
            raise ValueError(f"{name} must be a rational number (got {value}); a data "
                             "expression has no free parameters")
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, np.integer | np.floating):
        value = value.item()
    x = parse_number(name, value, Domain())
    x = Fraction(x)
    bits = max(x.numerator.bit_length(), x.denominator.bit_length())
    if bits > ex.MAX_BITS:
        raise ValueError(f"{name} has {bits} bits; the limit is {ex.MAX_BITS}")
    return x


def _show(x: Fraction) -> str:
    """A number as the text shows it: exact when short, else 17 significant digits."""
    if x.denominator == 1 and abs(x.numerator) < 10**12:
        return str(x.numerator)
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return f"{x.numerator}/{x.denominator}"
    return f"{float(x):.17g}"


def _wrap(text: str, prec: int, below: int) -> str:
    return f"({text})" if prec < below else text


# ---------------------------------------------------------------------- the expression
class DataExpr:
    """An expression of the law algebra with a data operand: ``spec`` (the engine's plain
    nested tuple, :mod:`freege.numeric.data_law`) and ``text`` (what ``str`` shows).
    Build it with :func:`empirical`, :func:`from_scipy`, the operators and the functions
    of this module, not directly; the spec is checked (its operand tree built) here."""

    #: LawExpr's operators step aside for a DataExpr (they return NotImplemented)
    is_data_expr = True
    #: numpy scalars and arrays step aside too (``np.float64(2) * e`` is a dilation)
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, spec: tuple[Any, ...], text: str, prec: int = _ATOM) -> None:
        build_operand(spec)  # every value range-checked, ⊠'s operands on [0, inf)
        self.spec = spec
        self.text = text
        self.prec = prec

    # ------------------------------------------------------------------ numbers
    def law(self, dps: int | None = None) -> DataLaw:
        """The numeric law (:class:`~freege.numeric.data_law.DataLaw`): float64
        (``dps=None``) or mpmath at ``dps`` digits."""
        return DataLaw(self.spec, dps, self.text)

    def moments(self, order: int, dps: int | None = None) -> list[Any]:
        """``m_1..m_order`` of :meth:`law` (``dps``), from the operands' moments."""
        order = int(parse_number("order", order, Domain(1, None, integer=True)))
        the_law = self.law(dps)
        return [the_law.moment(k) for k in range(1, order + 1)]

    @property
    def mean(self) -> Fraction:
        """The mean, to 40 digits, as an exact fraction (of that rounding): what a
        normalized law divides by."""
        import mpmath

        with mpmath.workdps(40):
            m1 = build_operand(self.spec).moments_mp(1)[0]
            man, exp = m1.man_exp if m1 != 0 else (0, 0)
        return Fraction(int(man)) * Fraction(2) ** int(exp)

    @property
    def parameters(self) -> tuple[()]:
        """None: a data expression has numbers only (``LawExpr.parameters``' shape)."""
        return ()

    # ------------------------------------------------------------------ identity, text
    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataExpr) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(("data-expr", hashlib.sha256(repr(self.spec).encode()).hexdigest()))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<DataExpr {self.text}>"

    def _repr_latex_(self) -> str:
        """Jupyter: the law in mathematical notation (:func:`freege.display.spec_latex`)."""
        from freege import display

        return display.math_mode(display.spec_latex(self.spec))

    # ------------------------------------------------------------------ operators
    def __add__(self, other: Any) -> DataExpr:
        return _add(self, other)

    def __radd__(self, other: Any) -> DataExpr:
        return _add(other, self)

    def __sub__(self, other: Any) -> DataExpr:
        return _sub(self, other)

    def __rsub__(self, other: Any) -> DataExpr:
        return _sub(other, self)

    def __mul__(self, other: Any) -> DataExpr:
        return _mul(self, other)

    def __rmul__(self, other: Any) -> DataExpr:
        return _mul(other, self)

    def __truediv__(self, other: Any) -> DataExpr:
        return _div(self, other)

    def __rtruediv__(self, other: Any) -> DataExpr:
        raise ValueError("'/' divides a law by a number, not by a law")

    def __neg__(self) -> DataExpr:
        return affine(self, -1)

    def __pos__(self) -> DataExpr:
        return self


def _is_law(x: Any) -> bool:
    return isinstance(x, DataExpr | LawExpr | Law)


def _parts(name: str, law: Any) -> tuple[tuple[Any, ...], str, int]:
    """``(spec, text, precedence)`` of a law of either kind, else a ValueError."""
    if isinstance(law, DataExpr):
        return law.spec, law.text, law.prec
    if isinstance(law, Law):  # any numeric law of the family: an operand through its G
        return ("law", law.with_dps(None).recipe()), f"law({law})", _ATOM
    if isinstance(law, LawExpr):
        spec = spec_of_expression(law)
        prec = (_SUM if isinstance(law, ex.FreeAdd) or (isinstance(law, ex.Affine)
                                                         and law.shift != 0)
                else _PRODUCT if isinstance(law, ex.FreeMult | ex.Affine) else _ATOM)
        return spec, str(law), prec
    raise ValueError(f"{name} must be a law of freege.algebra (got {law!r})")


def _any_data(*items: Any) -> bool:
    return any(isinstance(x, DataExpr) for x in items)


def _add(a: Any, b: Any) -> Any:
    if _is_law(a) and _is_law(b):
        return free_add(a, b)
    return affine(a, 1, b) if _is_law(a) else affine(b, 1, a)


def _sub(a: Any, b: Any) -> Any:
    if _is_law(b):
        negated = affine(b, -1)
        return free_add(a, negated) if _is_law(a) else affine(b, -1, a)
    return affine(a, 1, -_number("shift", b))


def _mul(a: Any, b: Any) -> Any:
    if _is_law(a) and _is_law(b):
        return free_mult(a, b)
    return affine(a, b) if _is_law(a) else affine(b, a)


def _div(a: Any, b: Any) -> Any:
    if _is_law(b):
        raise ValueError("'/' divides a law by a number, not by a law")
    divisor = _number("divisor", b)
    if divisor == 0:
        raise ValueError("divisor must not be 0")
    return affine(a, 1 / divisor)


# ---------------------------------------------------------------------- leaves
def _array(name: str, data: Any) -> np.ndarray:
    try:
        array = np.asarray(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of numbers ({exc})") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be real numbers (int or float), not "
                         f"{array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array (got shape {array.shape})")
    return np.ascontiguousarray(array, dtype="<f8")


def empirical(values: Any, weights: Any = None) -> DataExpr:
    """The empirical law ``sum_i w_i delta_{values_i} / sum_i w_i`` (``weights`` None:
    equal): 1 to 10^5 finite real values in a 1-D array, weights finite and > 0, one per
    value; else a ValueError naming the parameter."""
    x = _array("values", values)
    if not 1 <= x.size <= MAX_VALUES:
        raise ValueError(f"values must hold 1 to {MAX_VALUES} numbers (got {x.size})")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"values must be finite (got {int((~np.isfinite(x)).sum())} "
                         "nan or inf)")
    w = None
    if weights is not None:
        w = _array("weights", weights)
        if w.shape != x.shape:
            raise ValueError(f"weights must have one entry per value ({x.size}), not "
                             f"{w.size}")
        if not (np.all(np.isfinite(w)) and np.all(w > 0)):
            raise ValueError("weights must be finite and > 0")
    return DataExpr(("empirical", x.tobytes(), None if w is None else w.tobytes()),
                    _empirical_text(x, w))


def _empirical_text(x: np.ndarray, w: np.ndarray | None) -> str:
    if x.size <= SHOWN_VALUES:
        shown = "[" + ", ".join(f"{v:g}" for v in x) + "]"
        if w is not None:
            shown += ", weights=[" + ", ".join(f"{v:g}" for v in w) + "]"
        return f"empirical({shown})"
    digest = hashlib.sha256(x.tobytes() + (b"" if w is None else w.tobytes())).hexdigest()
    weighted = " weighted" if w is not None else ""
    return f"empirical({x.size}{weighted} values, sha256 {digest[:12]})"


def from_scipy(dist: Any) -> DataExpr:
    """The law of a frozen ``scipy.stats`` continuous distribution (``stats.uniform(1,
    2)``), through :func:`freege.numeric.density_operand.scipy_spec` (which checks it)."""
    from freege.numeric.density_operand import scipy_spec

    spec = scipy_spec(dist)
    name = getattr(getattr(dist, "dist", None), "name", type(dist).__name__)
    args = [repr(a) for a in getattr(dist, "args", ())]
    args += [f"{k}={v!r}" for k, v in getattr(dist, "kwds", {}).items()]
    return DataExpr(spec, f"from_scipy({name}({', '.join(args)}))")


# ---------------------------------------------------------------------- functions
def free_add(*terms: Any) -> Any:
    """``terms[0] ⊞ terms[1] ⊞ ...`` (:func:`freege.symbolic.expressions.free_add`); a
    :class:`DataExpr` when a term is one."""
    if not _any_data(*terms):
        return ex.free_add(*terms)
    if len(terms) < 2:
        raise ValueError("free_add needs at least two laws")
    parts = [_parts("terms", t) for t in terms]
    spec, text = parts[0][0], parts[0][1]
    for s, t, p in parts[1:]:
        negated = s[:3] == ("affine", -1, 0) and t.startswith("-")
        shown = t[1:] if negated else _wrap(t, p, _PRODUCT)
        spec, text = ("add", spec, s), f"{text} {'-' if negated else '+'} {shown}"
    return DataExpr(spec, text, _SUM)


def free_mult(*factors: Any) -> Any:
    """``factors[0] ⊠ factors[1] ⊠ ...`` (:func:`freege.symbolic.expressions.free_mult`):
    every factor on ``[0, inf)``, none of mean 0; a :class:`DataExpr` when a factor is
    one."""
    if not _any_data(*factors):
        return ex.free_mult(*factors)
    if len(factors) < 2:
        raise ValueError("free_mult needs at least two laws")
    parts = [_parts("factors", f) for f in factors]
    spec, text = parts[0][0], _wrap(parts[0][1], parts[0][2], _PRODUCT)
    for s, t, p in parts[1:]:
        spec, text = ("mult", spec, s), f"{text} * {_wrap(t, p, _ATOM)}"
    return DataExpr(spec, text, _PRODUCT)


def affine(law: Any, scale: Any = 1, shift: Any = 0) -> Any:
    """The law of ``scale X + shift``, ``X ~ law`` (:func:`freege.symbolic.expressions.
    affine`); a :class:`DataExpr` when ``law`` is one."""
    if not isinstance(law, DataExpr):
        return ex.affine(law, scale, shift)
    a, b = _number("scale", scale), _number("shift", shift)
    if a == 0:
        raise ValueError("scale must not be 0")
    spec, text, prec = law.spec, law.text, law.prec
    if a == 1 and b == 0:
        return law
    if spec[0] == "affine":  # compose: a (s X + t) + b
        _, s, t, base = spec
        inner = ("affine", a * s, a * t + b, base)
        spec = base if inner[1] == 1 and inner[2] == 0 else inner
    else:
        spec = ("affine", a, b, spec)
    if a == -1:
        text, prec = f"-{_wrap(text, prec, _ATOM)}", _PRODUCT
    elif a != 1:
        text, prec = f"{_show(a)} * {_wrap(text, prec, _PRODUCT)}", _PRODUCT
    if b != 0:
        text = f"{text} {'+' if b > 0 else '-'} {_show(abs(b))}"
        prec = _SUM
    return DataExpr(spec, text, prec)


def dilation(law: Any, scale: Any) -> Any:
    """``D_scale law``, the law of ``scale X`` (:func:`affine` with shift 0)."""
    return affine(law, scale, 0)


def pushforward(law: Any, coeffs: Any) -> Any:
    """The law of ``phi(X)``, ``phi(x) = sum_j coeffs[j] x^j`` (ascending), of degree at
    most :data:`~freege.symbolic.expressions.MAX_DEGREE`
    (:func:`freege.symbolic.expressions.pushforward`); a :class:`DataExpr` when ``law``
    is one (degree 0: a point mass, 1: an affine map)."""
    if not isinstance(law, DataExpr):
        return ex.pushforward(law, coeffs)
    try:
        cs = [_number(f"coefficient {j}", c) for j, c in enumerate(coeffs)]
    except TypeError:
        raise ValueError(f"coeffs must be a sequence of numbers (got {coeffs!r})") from None
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    if not cs:
        raise ValueError("coeffs must hold at least one coefficient (c_0, c_1, ...)")
    degree = len(cs) - 1
    if degree > ex.MAX_DEGREE:
        raise ValueError(f"pushforward's polynomial has degree {degree}; at most "
                         f"{ex.MAX_DEGREE} is supported")
    if degree == 0:
        return ex.point_mass(sp.Rational(cs[0].numerator, cs[0].denominator))
    if degree == 1:
        return affine(law, cs[1], cs[0])
    terms = [("" if c == 1 and j else _show(c) + ("*" if j else "")) +
             ("x" if j == 1 else f"x^{j}" if j else "")
             for j, c in reversed(list(enumerate(cs))) if c != 0]
    poly = " + ".join(terms).replace("+ -", "- ")
    return DataExpr(("pushforward", tuple(cs), law.spec),
                    f"pushforward({law.text}, {poly})")


def free_poisson(rate: Any, jump: Any = None) -> Any:
    """``pi(jump, rate)`` (:func:`freege.symbolic.expressions.free_poisson`); a
    :class:`DataExpr` when the jump law is one."""
    if not isinstance(jump, DataExpr):
        return ex.free_poisson(rate, jump)
    r = _number("rate", rate)
    if r <= 0:
        raise ValueError(f"rate must be > 0 (got {_show(r)})")
    return DataExpr(("poisson", r, jump.spec), f"poisson({_show(r)}, {jump.text})")


# ---------------------------------------------------------------------- text
_EMPIRICAL = re.compile(r"\bempirical\s*\(")
_FILE = re.compile(r"\bempirical\s*\(\s*@([^()\n]*?)\s*\)")
_PLACEHOLDER = "__freege_data_"


def parse_data(text: str, files: Mapping[str, Any] | None = None,
               folder: str | os.PathLike[str] | None = None) -> LawExpr | DataExpr:
    """The law written ``text``: the grammar of :func:`freege.algebra.grammar.parse`
    plus ``empirical(@PATH)``, a spectrum file (:func:`freege.data_files.load_values`:
    .npy, .txt, .csv; one column of values or values and weights). ``PATH`` (no
    parentheses) is looked up in ``files`` first (``{path: values}`` or ``{path:
    (values, weights)}``), else read from disk, relative to ``folder`` (default: the
    current directory). Text without ``empirical(`` is :func:`grammar.parse`'s. A bad
    text or file is a one-line ValueError naming the token or the file."""
    if not isinstance(text, str):
        raise ValueError(f"expression must be a string (got {type(text).__name__})")
    if not _EMPIRICAL.search(text):
        return grammar.parse(text)
    if len(text) > grammar.MAX_LENGTH:
        raise ValueError(f"expression: longer than {grammar.MAX_LENGTH} characters")
    if _PLACEHOLDER in text:
        raise ValueError(f"expression: unknown name {_PLACEHOLDER!r}")
    leaves: dict[str, DataExpr] = {}
    by_path: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        path = match.group(1)
        if not path:
            raise ValueError(f"expression: empirical(@) needs a file name, in "
                             f"{match.group(0)!r} at column {match.start() + 1}")
        if path not in by_path:
            name = f"{_PLACEHOLDER}{len(by_path)}"
            by_path[path] = name
            leaves[name] = _file_leaf(path, files, folder)
        return by_path[path]

    source = _FILE.sub(replace, text)
    left = _EMPIRICAL.search(source)
    if left:
        near = source[left.start():left.start() + 20]
        raise ValueError(f"expression: in text, empirical reads a file, empirical(@FILE) "
                         f"(got {near!r} at column {text.find(near) + 1})")
    source = source.replace("^", "**").strip()
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        offset = exc.offset or 1
        near = source[max(offset - 1, 0):offset + 9] or "end of text"
        raise ValueError(f"expression: cannot read {near!r}") from None
    except (RecursionError, MemoryError):
        raise ValueError(f"expression: nested deeper than {grammar.MAX_DEPTH} levels") \
            from None
    try:
        result = _Reader(source, leaves).value(tree.body, 0)
    except RecursionError:
        raise ValueError(f"expression: nested deeper than {grammar.MAX_DEPTH} levels") \
            from None
    if not _is_law(result):
        raise ValueError(f"expression: {text!r} is a number, not a law")
    return result


def _file_leaf(path: str, files: Mapping[str, Any] | None,
               folder: str | os.PathLike[str] | None) -> DataExpr:
    """The empirical leaf of ``empirical(@path)``: from ``files``, else from disk."""
    if files is not None and path in files:
        given = files[path]
        values, weights = given if isinstance(given, tuple) else (given, None)
        try:
            leaf = empirical(values, weights)
        except ValueError as exc:
            raise ValueError(f"expression: empirical(@{path}): {exc}") from None
    else:
        full = path if folder is None or os.path.isabs(path) else os.path.join(folder, path)
        values, weights = load_values(full)
        leaf = empirical(values, weights)
    return DataExpr(leaf.spec, f"empirical(@{path})")


class _Reader:
    """Reads the syntax tree of a text with data leaves (placeholder names): a subtree
    without one goes to :func:`grammar.parse` whole (or is a number), a node with one is
    an operator, ``pushforward(law, polynomial)`` or ``poisson(rate, jump)``."""

    def __init__(self, text: str, leaves: dict[str, DataExpr]) -> None:
        self.text = text
        self.leaves = leaves

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def shown(self, node: ast.AST) -> str:
        """The node's text as the user wrote it (data leaves back as empirical(@...))."""
        out = self.segment(node)
        for name, leaf in self.leaves.items():
            out = out.replace(name, leaf.text)
        return out

    def fail(self, node: ast.AST, what: str) -> ValueError:
        return ValueError(f"expression: {what} {self.shown(node)!r} at column "
                          f"{getattr(node, 'col_offset', 0) + 1}")

    def has_data(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.leaves for n in ast.walk(node))

    def value(self, node: ast.AST, depth: int) -> Any:
        if depth > grammar.MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {grammar.MAX_DEPTH} levels at")
        if not self.has_data(node):
            if not any(isinstance(n, ast.Call) for n in ast.walk(node)):
                return self.number(node, depth)  # numbers (a name is refused there)
            return grammar.parse(self.segment(node))
        try:
            return self.read(node, depth)
        except ValueError as exc:
            if str(exc).startswith("expression:"):
                raise
            raise self.fail(node, f"{exc}; in") from None

    def read(self, node: ast.AST, depth: int) -> Any:
        if isinstance(node, ast.Name):
            return self.leaves[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.value(node.operand, depth + 1)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: _add, ast.Sub: _sub, ast.Mult: _mul, ast.Div: _div}
            if type(node.op) not in ops:
                raise self.fail(node, "unexpected operator in")
            left = self.value(node.left, depth + 1)
            right = self.value(node.right, depth + 1)
            return ops[type(node.op)](left, right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and not node.keywords:
            name, args = node.func.id, node.args
            if name == "pushforward" and len(args) == 2 and not self.has_data(args[1]):
                law = self.value(args[0], depth + 1)
                return pushforward(law, self.polynomial(args[1], depth + 1))
            if name == "poisson" and len(args) == 2 and not self.has_data(args[0]):
                return free_poisson(self.number(args[0], depth + 1),
                                    self.value(args[1], depth + 1))
        raise self.fail(node, "unexpected")

    def number(self, node: ast.AST, depth: int) -> Fraction:
        """An arithmetic of numbers (+ - * /), exactly."""
        if depth > grammar.MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {grammar.MAX_DEPTH} levels at")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise self.fail(node, "not a number:")
            return _number("number", self.segment(node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.number(node.operand, depth + 1)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult
                                                      | ast.Div):
            a, b = self.number(node.left, depth + 1), self.number(node.right, depth + 1)
            if isinstance(node.op, ast.Div) and b == 0:
                raise self.fail(node.right, "division by zero:")
            out = {ast.Add: a.__add__, ast.Sub: a.__sub__, ast.Mult: a.__mul__,
                   ast.Div: a.__truediv__}[type(node.op)](b)
            return self.sized(node, out)
        raise self.fail(node, "expected a number, not")

    def sized(self, node: ast.AST, x: Fraction) -> Fraction:
        if max(x.numerator.bit_length(), x.denominator.bit_length()) > ex.MAX_BITS:
            raise self.fail(node, f"a number has at most {ex.MAX_BITS} bits:")
        return x

    def polynomial(self, node: ast.AST, depth: int) -> list[Fraction]:
        """Ascending coefficients of a polynomial in ``x`` (pushforward's second
        argument): + - *, / by a number, ``**`` to an integer power 0 to MAX_DEGREE."""
        if depth > grammar.MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {grammar.MAX_DEPTH} levels at")
        if isinstance(node, ast.Name) and node.id == "x":
            return [Fraction(0), Fraction(1)]
        if isinstance(node, ast.Constant):
            return [self.number(node, depth)]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.polynomial(node.operand, depth + 1)
            return [-c for c in inner] if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp):
            a = self.polynomial(node.left, depth + 1)
            if isinstance(node.op, ast.Pow):
                k = self.number(node.right, depth + 1)
                if k.denominator != 1 or not 0 <= k <= ex.MAX_DEGREE:
                    raise self.fail(node, f"'^' raises to a power 0 to {ex.MAX_DEGREE}:")
                out = [Fraction(1)]
                for _ in range(int(k)):
                    out = self.times(node, out, a)
                return out
            b = self.polynomial(node.right, depth + 1)
            if isinstance(node.op, ast.Add | ast.Sub):
                sign = 1 if isinstance(node.op, ast.Add) else -1
                n = max(len(a), len(b))
                a, b = a + [Fraction(0)] * (n - len(a)), b + [Fraction(0)] * (n - len(b))
                return [self.sized(node, x + sign * y) for x, y in zip(a, b, strict=True)]
            if isinstance(node.op, ast.Mult):
                return self.times(node, a, b)
            if isinstance(node.op, ast.Div):
                if any(b[1:]) or b[0] == 0:
                    raise self.fail(node.right, "'/' divides the polynomial by a nonzero "
                                    "number, not by")
                return [self.sized(node, c / b[0]) for c in a]
        raise self.fail(node, "unexpected in pushforward's polynomial:")

    def times(self, node: ast.AST, a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
        while len(a) > 1 and a[-1] == 0:
            a = a[:-1]
        while len(b) > 1 and b[-1] == 0:
            b = b[:-1]
        if len(a) + len(b) - 2 > ex.MAX_DEGREE:
            raise self.fail(node, f"pushforward's polynomial has degree at most "
                            f"{ex.MAX_DEGREE}:")
        out = [Fraction(0)] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                out[i + j] += x * y
        return [self.sized(node, c) for c in out]


law_composition.register_data_expression(DataExpr)

__all__ = ["DataExpr", "affine", "dilation", "empirical", "free_add", "free_mult",
           "free_poisson", "from_scipy", "parse_data", "pushforward"]
