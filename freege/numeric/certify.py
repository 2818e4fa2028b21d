"""Certified enclosures of the theory §4 laws and the theory §5 readouts (ball arithmetic).

Every function here returns either a :class:`Certified` ball -- an exact rational midpoint
and radius such that the true value lies in ``[mid - rad, mid + rad]`` -- or an
:class:`Uncertified` record with the reason; never a guess. Balls are computed with
python-flint's arb/acb (``pip install 'freege[certify]'``); without it every entry point
raises :class:`freege.errors.DomainError` ("needs python-flint").

Exact inputs (theory §1.2, §2)
    The ratios ``beta, h, gK, gV, gO`` (and ``x``, ``lam``, ``sigma2``) are taken as exact
    rationals: ``int``/``Fraction`` as they are, a Python ``float`` by its *exact binary
    value* (``Fraction(0.1)``, the number freege's numeric layer evaluates too; pass a
    ``Fraction`` or a decimal string for the decimal value), an ``mpmath.mpf`` exactly.
    The polynomials of :mod:`freege.numeric._symbolic` are specialised exactly over QQ in
    every parameter except ``theta1 = exp(beta^2) - 1``, which stays an indeterminate and
    is entered as an arb ball (``expm1`` of the exact ``theta2 = beta^2``). Because
    ``beta^2`` is a non-zero rational, ``theta1`` is transcendental (Lindemann), so an
    exact polynomial in ``theta1`` that is not identically zero does not vanish at it:
    exact zero tests in ``QQ[theta1]`` are decisive, and a square-free polynomial in
    ``QQ[theta1][z]`` stays square-free (with its degree) at the true ``theta1``.

Density at x (theory §3, §7.1)
    Roots are isolated with acb (``acb_poly.roots``: each output ball holds exactly one
    root of every polynomial in the coefficient balls). A root ball is *lower*/*upper*
    when its imaginary part is certainly negative/positive, and *real* when it meets the
    real axis and its conjugate meets no other root ball (the conjugate of its root is a
    root, hence in the same ball, hence equal to it). If every root of ``P(., x)`` is
    real, ``G(x + i0)`` (a limit of roots) is real and the density is exactly 0.

    Otherwise the physical root is *followed* rather than guessed: for these laws
    ``P(., x)`` often has several roots in the lower half-plane, inside the support and
    outside it (e.g. two at ``x = 1`` and at ``x = 20`` for mha, beta = 1, h = 4,
    gK = gV = gO = 1/2), so "the unique root with Im G < 0" is not a certificate. The
    tracked quantity is ``u = z G(z)``, a root of ``Q(u, z) = z^s P(u/z, z)`` (low degree
    in ``z``, bounded near infinity and near the atom's pole). At ``z = x + iY`` the
    physical ``u`` lies in the box ``|u - 1| <= m1/Y`` (``|z G - 1| = |int t/(z - t)
    dnu| <= m1/Im z`` for a law on ``[0, inf)``, ``m1`` the exact mean); ``Y`` doubles
    until exactly one root ball meets that box. Then the vertical segment down to ``x``
    is covered by pieces ``x + i[b, t]``, each certified by a Krawczyk test over the whole
    piece (a box ``B`` holding the previous enclosure with ``K(B, Z)`` inside its
    interior holds exactly one root for every ``z`` of the piece, and the physical root,
    continuous in ``z``, cannot leave it); the enclosure at the bottom is then re-tightened
    by epsilon-inflation inside ``B``. At ``z = x`` the enclosure is matched with the
    unique overlapping root ball of ``Q(., x)``: lower gives ``density = -Im u/(pi x)``
    (``G = u/x``), real gives 0, anything else is refused. Both tests need the leading
    coefficient of ``P(., x)`` to be non-zero (checked exactly), so that no root escapes
    to infinity.

    ``x < 0`` has density 0 (the laws are Gram spectra on ``[0, inf)``); ``x = 0`` (atom,
    hard edge; the leading coefficient of ``P(., 0)`` vanishes) is refused.

Support (theory §7, §7.1)
    Edge candidates are 0 and the positive real roots of the square-free part of
    ``disc_G(P) * lc_G(P)`` (computed exactly in ``QQ[z, theta1]`` with FLINT's
    multivariate polynomials), isolated as balls. Between consecutive
    candidates the branch is fixed; each gap is classified by the density certificate at
    a rational point inside it (density ball certainly > 0, or exactly 0), and the gap
    beyond the last candidate is outside (``G(x) ~ 1/x`` is real there). Edges are the
    candidates where the classification flips.

Atom at 0 (theory §4, §7)
    The mass is the rank deficiency, exactly computable from the ratios: ``1 - min(1, gV)``
    (value), ``1 - min(1, gV, gO)`` (mha, GQA/MQA alike), ``1 - min(1, gK)`` (value-tied),
    ``1 - min(1, gK, gO)`` (mha-tied), 0 for the attention and head-average laws (``h``
    is an integer >= 1), from the atom of a free multiplicative product and of a compound
    free Poisson law (theory §3). The certificate checks exactly (in ``QQ[theta1]``) that
    this mass is a root of the lowest-order part of ``P(m/z, z)`` (the equation of
    ``lim z G(z)``); the ball then has radius 0.

Expressions of the law algebra (docs/algebra.md)
    An :class:`freege.numeric.expression_law.ExpressionLaw` is certified from its
    expression's exact Cauchy polynomial (rational coefficients once the parameters are
    numbers; no theta1, so every zero test is an exact rational one), its exact mean (for
    the starting box of the density certificate) and its exact mass at 0 (the
    expression's Bercovici-Voiculescu rules, checked like the rank-deficiency mass
    above). The certificates above assume a law on ``[0, inf)`` with atoms only at 0,
    so an expression that is not positive, or has an atom elsewhere, is a ValueError
    naming what is not certified; ``w(lam)`` and the ridge error (theory §5) are for
    the theory §4 cases only.

Degrees of freedom and ridge error (theory §5)
    ``F(w, lam)`` (ridge polynomial, exact in everything but ``theta1``) is solved by
    bisection on ``(0, w_max)``, ``w_max = 1 - atom``, with the sign rules of the physical
    branch (``lam`` is the larger root of the quadratic ``a2 lam^2 + a1 lam + a0``,
    ``lam(w)`` decreasing), then Newton. The enclosure is an interval-Newton certificate:
    for ``X`` around the approximation, ``N(X) = m - F(m)/F_w(X)`` inside the interior of
    ``X`` (with ``0`` outside ``F_w(X)``) proves a unique root of ``F(., lam)`` in ``X``
    (and in ``N(X)``); ``X`` inside ``(0, w_max)`` (the atom certified as above),
    ``a2 > 0`` and ``2 a2 lam + a1 > 0`` on ``X`` prove it is on the physical branch,
    which is unique on ``(0, w_max)`` because ``lam(w)`` is monotone.
    The ridge error ``E = 1 - w/gO + (lam/gO - sigma2) w'`` with ``w' = -F_lam/F_w``
    is evaluated in ball arithmetic on that enclosure.

Precision
    Every computation starts at ``prec`` bits and doubles up to ``max_prec`` until the
    certificate holds; what remains undecided at ``max_prec`` is :class:`Uncertified`.
    A certified ball is also refined, by more precision, until its radius is at most
    ``rtol |mid|``: by default (:data:`EDGE_RTOL`, ``1e-30``) for the support edges, on
    request for the density and the readouts. A ball still wider at ``max_prec`` is
    returned as it is: its radius says which digits are certified.

Scope of the guarantee
    The enclosures are rigorous for the exact polynomials of the symbolic layer
    (:mod:`freege.numeric._symbolic`) and the stated facts of docs/theory.md (``G`` is a root of the
    Cauchy polynomial, Herglotz signs, the law lives on ``[0, inf)``, ``lam(w)`` is the
    larger root and monotone, the rank-deficiency atom); they rely on arb's ball
    semantics and on ``acb_poly.roots`` isolating every root of every polynomial in the
    coefficient balls.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from freege.errors import CertificationError, DomainError
from freege.numeric import _symbolic
from freege.params import mpf_fraction
from freege.symbolic.symbols import theta1

try:  # python-flint is an extra: freege[certify]
    import flint
except ImportError:  # pragma: no cover - exercised by monkeypatching in the tests
    flint = None

#: message of every entry point when python-flint is missing
NEEDS_FLINT = "needs python-flint: pip install 'freege[certify]'"
#: default starting and largest working precision (bits)
DEFAULT_PREC = 128
MAX_PREC = 4096
#: default largest relative radius of a certified support edge (precision is raised until
#: every edge meets it, up to ``max_prec``)
EDGE_RTOL = Fraction(1, 10**30)
#: significant digits printed for an exact midpoint whose decimal expansion does not end
EXACT_DIGITS = 40

#: the rank-deficiency ratios of each case (theory §4): the atom at 0 is 1 - min(1, ...)
_ATOM_RATIOS = {
    "attention": (), "head-average": (), "head-average-shared-key": (),
    "value": ("gV",), "mha": ("gV", "gO"), "value-tied": ("gK",), "mha-tied": ("gK", "gO"),
}


def require_flint() -> Any:
    """The python-flint module, or a DomainError naming the extra to install."""
    if flint is None:
        raise DomainError(NEEDS_FLINT)
    return flint


# ---------------------------------------------------------------------- results
def _decimal(value: Fraction, exponent: int) -> tuple[Decimal, Fraction]:
    """``value`` rounded to a multiple of ``10**exponent``, and the rounding error."""
    scaled = value / Fraction(10) ** exponent
    n = round(scaled)
    dec = Decimal(f"{n}E{exponent}")  # exact: the string constructor does not round
    return dec, abs(scaled - n) * Fraction(10) ** exponent


@dataclass(frozen=True)
class Certified:
    """A rigorous enclosure: the true value lies in ``[mid - rad, mid + rad]``.

    ``mid_exact``/``rad_exact`` are exact rationals; :attr:`mid` and :attr:`rad` are the
    decimal strings printed (the decimal midpoint is rounded and its rounding error is
    added to the decimal radius, which is rounded up, so the printed ball still encloses
    the value). ``prec`` is the working precision (bits) that certified it.
    """

    mid_exact: Fraction
    rad_exact: Fraction
    prec: int = 0
    certified: bool = field(default=True, init=False)

    @functools.cached_property
    def _strings(self) -> tuple[str, str]:
        mid, rad = self.mid_exact, self.rad_exact
        if rad > 0:
            exponent = math.floor(math.log10(rad)) - 2
        else:
            exponent = (math.floor(math.log10(abs(mid))) if mid else 0) - EXACT_DIGITS
        dec, err = _decimal(mid, exponent)
        if rad == 0 and err == 0:
            return _trim(dec), "0"
        total = rad + err
        with localcontext() as ctx:  # three significant digits, rounded up
            ctx.prec, ctx.rounding = 3, ROUND_CEILING
            up = +(Decimal(total.numerator) / Decimal(total.denominator))
        while Fraction(up) < total:  # the division itself was rounded up: belt and braces
            up = up.next_plus()
        mant, exp = f"{up:e}".split("e")
        return _trim(dec), f"{mant}e{int(exp)}" if up else "0"

    @property
    def mid(self) -> str:
        """Decimal midpoint (a string ``Fraction``/``Decimal``/``float`` all read)."""
        return self._strings[0]

    @property
    def rad(self) -> str:
        """Decimal radius, rounded up (includes the midpoint's rounding)."""
        return self._strings[1]

    def contains(self, value: Any) -> bool:
        """Whether the exact ball contains ``value`` (a number, read exactly)."""
        return abs(exact(value) - self.mid_exact) <= self.rad_exact

    def as_dict(self) -> dict[str, str]:
        return {"mid": self.mid, "rad": self.rad}

    def __str__(self) -> str:
        return f"{self.mid} +/- {self.rad}"


def _trim(dec: Decimal) -> str:
    """Plain decimal for moderate exponents, scientific otherwise; no trailing zeros."""
    if not dec:
        return "0"
    if -7 <= dec.adjusted() <= 20:
        text = format(dec, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mant, exp = f"{dec:e}".split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}e{int(exp)}"


@dataclass(frozen=True)
class Uncertified:
    """A refused certificate: ``reason`` says what could not be proven."""

    reason: str
    certified: bool = field(default=False, init=False)

    def as_dict(self) -> dict[str, Any]:
        return {"certified": False, "reason": self.reason}

    def __str__(self) -> str:
        return f"not certified: {self.reason}"


Result = Certified | Uncertified


def _ball_result(ball: Any, prec: int) -> Certified:
    return Certified(_arf_fraction(ball.mid()), _arf_fraction(ball.rad()), prec)


def _arf_fraction(value: Any) -> Fraction:
    """The exact value of an exact arb (a midpoint or a radius)."""
    man, exp = value.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * (Fraction(2) ** exp)


def exact(value: Any) -> Fraction:
    """A number as an exact rational: ints and Fractions as they are, a float by its exact
    binary value, an mpmath number exactly, a string as the decimal it spells."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number (got {value!r})")
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number (got {value!r})")
        return Fraction(value)
    if isinstance(value, str):
        return Fraction(value.strip())
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"expected a finite number (got {value!r})")
        return mpf_fraction(value)
    if hasattr(value, "numerator") and hasattr(value, "denominator"):
        return Fraction(int(value.numerator), int(value.denominator))
    raise ValueError(f"expected a real number (got {type(value).__name__})")


def _ladder(prec: int, max_prec: int) -> Iterator[int]:
    """Working precisions: ``prec``, doubled while ``<= max_prec``."""
    if prec < 16 or max_prec < prec:
        raise ValueError(f"need 16 <= prec <= max_prec (got prec={prec}, max_prec={max_prec})")
    p = prec
    while p <= max_prec:
        yield p
        p *= 2


def narrow(result: Result, rtol: Fraction | None) -> bool:
    """Whether a certified ball has radius at most ``rtol |mid|`` (always, without
    ``rtol``; never, for a refusal)."""
    if not isinstance(result, Certified):
        return False
    return rtol is None or result.rad_exact <= rtol * abs(result.mid_exact)


class _NeedPrecision(Exception):
    """The current working precision cannot decide; retry with more bits."""


# ---------------------------------------------------------------------- exact pieces
#: an exact polynomial in (variables..., theta1): {exponents of the variables: {k: coeff}}
ThetaPoly = dict[tuple[int, ...], dict[int, Fraction]]


@functools.cache
def _term_table(kind: str, case: str, normalized: bool) -> tuple:
    """``((exponents in the gens), ((parameter exponents), coefficient), ...)`` of the
    Cauchy (``kind='cauchy'``) or ridge (``'ridge'``) polynomial, parameters in
    :data:`_symbolic.PARAMETERS` order, rational coefficients."""
    poly = (_symbolic.cauchy_polynomial(case, normalized) if kind == "cauchy"
            else _symbolic.ridge_polynomial(case))
    table = []
    for monom, coeff in poly.terms():
        inner = sp.Poly(coeff, *_symbolic.PARAMETERS, domain=sp.QQ)
        table.append((monom, tuple((m, Fraction(int(c.p), int(c.q)))
                                   for m, c in inner.terms())))
    return tuple(table)


def _parameter_fractions(ratios: Any) -> tuple[Fraction, ...]:
    """``(theta2, h, gK, gV, gO)`` exactly (``theta2 = beta^2``)."""
    beta = exact(ratios.beta)
    return (beta * beta, exact(ratios.h), exact(ratios.gK), exact(ratios.gV),
            exact(ratios.gO))


def _specialize(table: tuple, values: tuple[Fraction, ...]) -> ThetaPoly:
    """Substitute the exact parameter values, keeping theta1 (exponent 0 of the table)."""
    out: ThetaPoly = {}
    for monom, inner in table:
        row = out.setdefault(monom, {})
        for exps, coeff in inner:
            term = coeff
            for v, e in zip(values, exps[1:], strict=True):
                if e:
                    term *= v ** e
            row[exps[0]] = row.get(exps[0], Fraction(0)) + term
    return {m: {k: c for k, c in row.items() if c} for m, row in out.items()
            if any(row.values())}


def _edge_polynomial(spec: ThetaPoly) -> ThetaPoly:
    """Square-free part of ``disc_G(P) * lc_G(P)`` in ``QQ[z, theta1]`` (``P`` the Cauchy
    polynomial ``spec`` in ``(G, z)``), with the factors ``z`` removed (0 is always a
    candidate): its real roots are the edge candidates (theory §7.1). Exact, with FLINT's
    ``fmpq_mpoly`` (discriminant, square-free factorisation)."""
    ctx = flint.fmpq_mpoly_ctx.get(("G", "z", "t"), "lex")
    degree = max(i for i, _ in spec)

    def poly(rows: ThetaPoly) -> Any:
        return ctx.from_dict({(i, j, k): flint.fmpq(c.numerator, c.denominator)
                              for (i, j), row in rows.items() for k, c in row.items()})

    p = poly(spec)
    lc = poly({(0, j): row for (i, j), row in spec.items() if i == degree})
    _, factors = (p.discriminant("G") * lc).factor_squarefree()
    terms = functools.reduce(lambda a, b: a * b, (f for f, _ in factors), ctx.from_dict(
        {(0, 0, 0): 1})).to_dict()
    shift = min(e[1] for e in terms)  # the power of z dividing every term
    out: ThetaPoly = {}
    for (_, j, k), c in terms.items():
        out.setdefault((j - shift,), {})[k] = Fraction(int(c.numerator), int(c.denominator))
    return out


def _low_order_part(spec: ThetaPoly) -> dict[int, dict[int, Fraction]]:
    """Lowest-order part in ``z`` of ``P(m/z, z)`` as ``{power of m: theta1 poly}``: its
    roots are the possible masses ``lim_{z->0} z G(z)``."""
    low = min(j - i for i, j in spec)
    return {i: row for (i, j), row in spec.items() if j - i == low}


# ---------------------------------------------------------------------- arb evaluation
def _arb(value: Fraction) -> Any:
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def _theta_eval(row: dict[int, Fraction], t1: Any) -> Any:
    """Ball value of an exact theta1-polynomial (Horner)."""
    if not row:
        return flint.arb(0)
    out = flint.arb(0)
    for k in range(max(row), -1, -1):
        out = out * t1 + (_arb(row[k]) if k in row else 0)
    return out


def _rows_at(spec: ThetaPoly, x: Fraction, var: int, other: int, deriv: bool = False
             ) -> dict[int, dict[int, Fraction]]:
    """Coefficients, as exact theta1-polynomials, of the polynomial in gen ``other``
    obtained by fixing gen ``var`` at ``x`` (its derivative in gen ``var`` if ``deriv``)."""
    out: dict[int, dict[int, Fraction]] = {}
    for monom, row in spec.items():
        e = monom[var]
        if deriv:
            if e == 0:
                continue
            factor = e * x ** (e - 1)
        else:
            factor = x ** e
        if factor == 0:
            continue
        target = out.setdefault(monom[other], {})
        for k, c in row.items():
            target[k] = target.get(k, Fraction(0)) + c * factor
    return {i: {k: c for k, c in row.items() if c} for i, row in out.items()}


def _poly_balls(rows: dict[int, dict[int, Fraction]], t1: Any) -> list[Any]:
    """Ascending ball coefficients of a univariate polynomial with theta1 coefficients."""
    rows = {i: r for i, r in rows.items() if r}
    if not rows:
        return []
    return [_theta_eval(rows.get(i, {}), t1) for i in range(max(rows) + 1)]


def _theta1(ratios: Any) -> Any:
    b = exact(ratios.beta)
    return _arb(b * b).expm1()


# ---------------------------------------------------------------------- root isolation
LOWER, UPPER, REAL = "lower", "upper", "real"


def _classify(roots: list[Any]) -> list[tuple[str, Any]]:
    """Kinds of isolated root balls of a real polynomial (module docstring): ``lower``,
    ``upper`` or ``real`` (then the ball of the real part); _NeedPrecision otherwise."""
    out = []
    for k, r in enumerate(roots):
        if r.imag < 0:
            out.append((LOWER, r))
        elif r.imag > 0:
            out.append((UPPER, r))
        elif r.imag.contains(0) and not any(
                r.conjugate().overlaps(s) for j, s in enumerate(roots) if j != k):
            out.append((REAL, r.real))
        else:
            raise _NeedPrecision("a root is neither certainly real nor certainly non-real")
    return out


def _real_roots(rows: dict[int, dict[int, Fraction]], t1: Any, prec: int) -> list[Any]:
    coeffs = _poly_balls(rows, t1)
    if len(coeffs) <= 1:
        return []
    return sorted((b for kind, b in _tight_roots(coeffs, prec) if kind == REAL),
                  key=lambda b: _arf_fraction(b.mid()))


# ---------------------------------------------------------------------- the law's data
class _LawData:
    """Exact specialisations of one law's polynomials (everything but theta1)."""

    def __init__(self, case: str, ratios: Any, normalized: bool) -> None:
        self.case = case
        self.ratios = ratios
        self.normalized = normalized
        self.values = _parameter_fractions(self.ratios)
        self.cauchy = _specialize(_term_table("cauchy", self.case, self.normalized),
                                  self.values)
        self.degree = max(i for i, _ in self.cauchy)
        self._edges: dict[Any, Any] = {}

    def cauchy_rows(self, i: int) -> dict[int, dict[int, Fraction]]:
        """Coefficient of ``G^i`` in ``P``: ``{power of z: theta1 polynomial}``."""
        return {j: row for (k, j), row in self.cauchy.items() if k == i}

    def mean_row(self) -> dict[int, Fraction]:
        """The first moment ``m1`` as an exact theta1 polynomial (theory §4)."""
        expr = _symbolic.moment_expressions(self.case, 1, self.normalized)[0]
        subs = dict(zip(_symbolic.PARAMETERS[1:], (sp.Rational(v.numerator, v.denominator)
                                                   for v in self.values), strict=True))
        poly = sp.Poly(sp.expand(expr.subs(subs)), theta1, domain=sp.QQ)
        return {m[0]: Fraction(int(c.p), int(c.q)) for m, c in poly.terms()}

    def edge_polynomial(self) -> ThetaPoly:
        return _edge_polynomial(self.cauchy)

    def theta1(self) -> Any:
        """The ball of ``theta1 = expm1(beta^2)`` at the ambient precision."""
        return _theta1(self.ratios)

    def atom_mass(self) -> Fraction:
        names = _ATOM_RATIOS[self.case]
        r = self.ratios
        return 1 - min([Fraction(1)] + [exact(getattr(r, n)) for n in names])


def _sympy_fraction(value: Any, what: str, text: str) -> Fraction:
    value = sp.sympify(value)
    if not value.is_Rational:
        raise ValueError(f"certified mode needs rational numbers: {what} of {text} is "
                         f"{value}")
    return Fraction(int(value.p), int(value.q))


class _ExpressionData(_LawData):
    """Exact data of an expression of the law algebra (docs/algebra.md): its Cauchy
    polynomial with rational coefficients (no theta1: every row is a constant), the exact
    mean, and the exact mass at 0. Certified only for a law on ``[0, inf)`` whose atoms
    all sit at 0, which is what the density, support and atom certificates assume (module
    docstring); anything else is a ValueError naming what is not certified."""

    def __init__(self, expr: Any) -> None:
        text = str(expr)
        atoms = expr.atoms()
        if not expr.is_positive:
            raise ValueError(f"certified mode covers laws on [0, inf); {text} is not "
                             "certified (its support may reach below 0)")
        if any(x != 0 for x, _ in atoms):
            raise ValueError(f"certified mode covers atoms at 0 only; {text} has atoms at "
                             f"{', '.join(str(x) for x, _ in atoms if x != 0)}")
        self.case = "expression"
        self.ratios = None
        self.normalized = False
        self.text = text
        poly = expr.cauchy_polynomial()
        self.cauchy = {}
        for monom, coeff in poly.terms():
            self.cauchy[monom] = {0: _sympy_fraction(coeff, "a Cauchy coefficient", text)}
        self.degree = max(i for i, _ in self.cauchy)
        self._mean = _sympy_fraction(expr.mean, "the mean", text)
        self._mass = sum((_sympy_fraction(p, "an atom's mass", text) for _, p in atoms),
                         Fraction(0))
        self._edges = {}

    def theta1(self) -> Any:
        """No theta1 in an expression's polynomial: the rows are constants."""
        return flint.arb(0)

    def mean_row(self) -> dict[int, Fraction]:
        return {0: self._mean} if self._mean else {}

    def atom_mass(self) -> Fraction:
        """The expression's exact mass at 0 (its Bercovici-Voiculescu rules)."""
        return self._mass


@functools.lru_cache(maxsize=32)
def _law_data(case: str, ratios: Any, normalized: bool) -> _LawData:
    return _LawData(case, ratios, normalized)


@functools.lru_cache(maxsize=32)
def _expression_data(the_law: Any) -> _ExpressionData:
    return _ExpressionData(the_law.expr)


def _data(the_law: Any) -> _LawData:
    require_flint()
    if the_law.case == "expression":
        return _expression_data(the_law)
    return _law_data(the_law.case, the_law.ratios, bool(the_law.normalized))


# ---------------------------------------------------------------------- density
#: largest number of segment halvings in one step of the continuation, and of pieces
MAX_HALVINGS = 40
MAX_PIECES = 4000


#: variable scalings ``u = 2^k v`` tried by :func:`_root_balls`
_ROOT_SCALINGS = (0, -4, 4)


def _root_balls(coeffs: list[Any], prec: int) -> list[Any]:
    """Isolating balls of all roots of the polynomial with ascending ball coefficients (each
    holds exactly one root of every polynomial in the coefficient balls), refined as far as
    the coefficients allow: radius ``2^-(prec - 16)``, else ``2^-(3 prec/4)``, else
    ``2^-(prec/2)``, else as isolated. :class:`_NeedPrecision` when not isolated.

    arb's root finder (fixed iteration budget per precision) fails on some polynomials with
    well separated roots (seen on ``P(., x)`` and ``Q(., x)`` of an mha law with h = 25
    near its upper edge) and succeeds on the same polynomial made monic or with the
    variable scaled by a power of two; those variants, which have the same roots (scaled
    back exactly), are tried in turn."""
    lead = coeffs[-1]
    isolated = None
    for k in _ROOT_SCALINGS:
        scale = flint.arb(2) ** k
        scaled = [c * scale**i for i, c in enumerate(coeffs)]
        for monic in (False, True) if not lead.contains(0) else (False,):
            poly = flint.acb_poly([c / scaled[-1] for c in scaled] if monic else scaled)
            try:
                found = poly.roots(maxprec=2 * prec)
            except ValueError:
                continue
            isolated = isolated or [r * scale for r in found]
            for bits in (prec - 16, 3 * prec // 4, prec // 2):
                try:
                    return [r * scale for r in poly.roots(tol=flint.arb(2) ** (-bits) / scale,
                                                          maxprec=2 * prec)]
                except ValueError:
                    continue
    if isolated is None:
        raise _NeedPrecision("roots not isolated")
    return isolated


def _tight_roots(coeffs: list[Any], prec: int) -> list[tuple[str, Any]]:
    """All roots of a real polynomial (ascending ball coefficients), refined
    (:func:`_root_balls`), each as ``(kind, ball)`` (:func:`_classify`)."""
    return _classify(_root_balls(coeffs, prec))


class _Tracker:
    """Certified continuation of the physical root of ``P(., z)`` down the vertical line
    ``Re z = x`` from ``x + iY`` to ``x`` (module docstring), at the ambient precision.

    Each segment ``Z = x + i[bottom, top]`` is certified by a Krawczyk test: with ``B`` a
    box holding the previous enclosure, ``c`` its centre and ``Y ~ 1/P_G(c, z_c)``,
    ``K = c - Y P(c, Z) + (1 - Y P_G(B, Z)) (B - c)`` inside the interior of ``B`` proves
    that for every ``z`` in ``Z`` exactly one root of ``P(., z)`` lies in ``B`` (in
    ``K``). The physical root starts in ``B`` and cannot cross its boundary, so it is
    that root all along ``Z``; the root at the bottom of the piece is then re-enclosed
    tightly (epsilon-inflation) for the next piece. ``Q`` and ``Q_u`` are evaluated on the
    boxes through their Taylor expansions at the centres (:meth:`expansion`), which
    keeps the boxes honest but small near root clusters. The test is the complex
    Krawczyk test on a square box centred at ``c`` (a contraction factor inside the box's
    symmetric square gives ``|1 - Y Q_u| < 1``, hence uniqueness; Brouwer gives
    existence)."""

    def __init__(self, data: _LawData, x: Fraction, prec: int) -> None:
        self.x, self.prec = x, prec
        t1 = data.theta1()
        # in u = z G the equation is Q(u, z) = z^shift P(u/z, z), of low degree in z and
        # with u bounded near infinity (u -> 1) and near the atom's pole at 0 (u -> mass)
        shift = -min(j - i for i, j in data.cauchy)
        by_z: dict[int, dict[int, dict[int, Fraction]]] = {}
        by_u: dict[int, dict[int, dict[int, Fraction]]] = {}
        for (i, j), row in data.cauchy.items():
            by_z.setdefault(j - i + shift, {})[i] = row
            by_u.setdefault(i, {})[j - i + shift] = row
        self.rows = [flint.acb_poly(_poly_balls(by_z.get(j, {}), t1))
                     for j in range(max(by_z) + 1)]
        self.drows = [r.derivative() for r in self.rows]
        self.matrix = [flint.acb_poly(_poly_balls(by_u.get(i, {}), t1))
                       for i in range(max(by_u) + 1)]
        self.mean = _theta_eval(data.mean_row(), t1)

    @staticmethod
    def _horner(values: list[Any], zb: Any) -> Any:
        out = flint.acb(0)
        for v in reversed(values):
            out = out * zb + v
        return out

    def value(self, g: Any, zb: Any) -> Any:
        """``Q(g, z)`` (plain ball Horner; for approximations)."""
        return self._horner([r(g) for r in self.rows], zb)

    def value_g(self, g: Any, zb: Any) -> Any:
        """``Q_u(g, z)`` (plain ball Horner; for approximations)."""
        return self._horner([r(g) for r in self.drows], zb)

    def expansion(self, centre: Any, zc: Any) -> list[Any]:
        """``Q(centre + h, zc + s) = sum_k s^k U_k(h)``: the polynomials ``U_k`` (Taylor
        shifts at the exact points ``centre``, ``zc``). Evaluated on small balls ``h``,
        ``s`` they do not suffer the cancellation that wrecks plain ball Horner near a
        root cluster (e.g. u -> atom mass as z -> 0)."""
        shift = flint.acb_poly([centre, 1])
        shifted = [row(shift) for row in self.rows]
        out = []
        for power in range(len(shifted)):
            total = flint.acb_poly([0])
            for j in range(power, len(shifted)):
                total += shifted[j] * (math.comb(j, power) * zc ** (j - power))
            out.append(total)
        return out

    def krawczyk(self, box: Any, zb: Any) -> Any | None:
        """``K(box, Z)`` (class docstring) when it lies in the interior of ``box``, else
        None; ``box`` must be exactly centred (a point plus a symmetric box)."""
        centre, zc = box.mid(), zb.mid()
        parts = self.expansion(centre, zc)
        s, h = zb - zc, box - centre
        deriv = parts[0].derivative()(flint.acb(0))
        if deriv.contains(0):
            return None
        inv = (1 / deriv).mid()
        value = self._horner([u(flint.acb(0)) for u in parts], s)
        slope = self._horner([u.derivative()(h) for u in parts], s)
        k = centre - inv * value + (1 - inv * slope) * h
        return k if box.contains_interior(k) else None

    def coeffs(self, zb: Any) -> list[Any]:
        """Coefficients of ``P(., z)`` (ascending in G)."""
        return [row(zb) for row in self.matrix]

    def start(self) -> tuple[Fraction, Any]:
        """A height ``Y`` and the ball of the physical root ``u = z G`` at ``x + iY``: the
        only root ball meeting the box around 1 of half-width ``m1/Y``, which holds it
        (``|z G(z) - 1| = |int t/(z - t) dnu| <= m1/Im z`` for a law on ``[0, inf)``)."""
        scale = max(Fraction(1), abs(self.x), _arf_fraction(abs(self.mean).upper()))
        height = 4 * scale
        for _ in range(30):
            zb = flint.acb(_arb(self.x), _arb(height))
            try:
                roots = _root_balls(self.coeffs(zb), self.prec)  # complex coefficients
            except _NeedPrecision:
                height *= 2
                continue
            r = (abs(self.mean) / _arb(height)).upper()
            disc = 1 + flint.acb(flint.arb(0, r), flint.arb(0, r))
            hits = [b for b in roots if b.overlaps(disc)]
            if len(hits) == 1:
                return height, hits[0]
            height *= 2
        raise _NeedPrecision("the physical root is not identified at large Im z")

    def _approx(self, g: Any, zb: Any) -> Any:
        """Newton iterates (midpoints only) from ``g`` towards a root of ``Q(., z)``, until
        the step is below the working precision (quadratic convergence: about
        ``log2(prec)`` steps from a few correct bits)."""
        g, zb = g.mid(), zb.mid()
        tiny = flint.arb(2) ** (-self.prec)
        for _ in range(8 + 2 * self.prec.bit_length()):
            d = self.value_g(g, zb)
            if d.contains(0):
                break
            step = (self.value(g, zb) / d).mid()
            g = (g - step).mid()
            if abs(step) <= tiny * (1 + abs(g)):
                break
        return g

    def segment(self, top: Fraction, bottom: Fraction, enclosure: Any) -> Any | None:
        """Krawczyk enclosure of the root over ``x + i[bottom, top]`` continuing
        ``enclosure`` (a ball holding it at ``top``), or None when the test fails."""
        # the hull of the two end balls covers the whole piece, rounding included
        zb = flint.acb(_arb(self.x), _arb(bottom).union(_arb(top)))
        target = self._approx(enclosure, flint.acb(_arb(self.x), _arb(bottom)))
        centre = ((enclosure.mid() + target) / 2).mid()
        spread = abs(enclosure.mid() - target) / 2 + enclosure.rad() * 2
        radius = 2 * spread + flint.arb(2) ** (-self.prec // 2) * (1 + abs(centre))
        radius = radius.upper()
        box = centre + flint.acb(flint.arb(0, radius), flint.arb(0, radius))
        k = self.krawczyk(box, zb)
        if k is not None and box.contains(enclosure):
            return self._tighten(box, k, flint.acb(_arb(self.x), _arb(bottom)))
        return None

    def _tighten(self, unique: Any, loose: Any, zb: Any) -> Any:
        """A small enclosure of the root of ``P(., z)`` that is unique in ``unique`` (and
        lies in ``loose``): a tiny box around a Newton approximation passing the
        Krawczyk test inside ``unique`` holds that same root (epsilon-inflation)."""
        approx = self._approx(loose, zb)
        eps = flint.arb(2) ** (-self.prec + 24) * (1 + abs(approx))
        growth = 2 ** max(8, (self.prec - 32) // 8)  # eight tries reach 2^-8 |approx|
        for _ in range(8):
            box = approx + flint.acb(flint.arb(0, eps.upper()), flint.arb(0, eps.upper()))
            if unique.contains(box):
                k = self.krawczyk(box, zb)
                if k is not None:
                    return k
            eps *= growth
        return loose

    def physical(self) -> tuple[str, Any]:
        """``u = x G(x + i0)``, a root of ``Q(., x)``, as ``(kind, ball)`` (see
        :func:`_classify`: a real root comes as the ball of its real part)."""
        top, phys = self.start()
        step = top / 4
        pieces = 0
        while top > 0:
            pieces += 1
            if pieces > MAX_PIECES:
                raise _NeedPrecision(f"continuation needs more than {MAX_PIECES} pieces")
            for _ in range(MAX_HALVINGS):
                bottom = max(top - step, Fraction(0))
                enclosure = self.segment(top, bottom, phys)
                if enclosure is not None:
                    phys, top, step = enclosure, bottom, 2 * step
                    break
                step /= 2
            else:
                raise _NeedPrecision(f"continuation stalled at Im z = {float(top):.3g}")
        roots = _tight_roots(self.coeffs(flint.acb(_arb(self.x))), self.prec)
        match = [(kind, b) for kind, b in roots if flint.acb(b).overlaps(phys)]
        if len(match) != 1:
            raise _NeedPrecision("the physical root at x is not separated")
        return match[0]


def _density(data: _LawData, x: Fraction, prec: int) -> Any:
    """Ball of the density at ``x > 0`` (exact 0 when ``G(x + i0)`` is certainly real)."""
    with flint.ctx.workprec(prec):
        t1 = data.theta1()
        coeffs = _poly_balls(_rows_at(data.cauchy, x, var=1, other=0), t1)
        kinds = _tight_roots(coeffs, prec)
        if all(kind == REAL for kind, _ in kinds):  # G(x + i0) is one of them: real
            return flint.arb(0)
        kind, u = _Tracker(data, x, prec).physical()
        if kind == LOWER:  # G = u / x with x > 0
            return -u.imag / (_arb(x) * flint.arb.pi())
        if kind == REAL:
            return flint.arb(0)
        raise _NeedPrecision("the tracked root at x is in the upper half-plane")


def _check_leading(data: _LawData, x: Fraction) -> str | None:
    rows = _rows_at(data.cauchy, x, var=1, other=0)
    if not rows.get(data.degree):
        return (f"the leading coefficient of P(G, x) vanishes at x = {x} (a root escapes "
                "to infinity: atom or hard edge)")
    return None


def certified_pdf(the_law: Any, xs: Sequence[Any], prec: int = DEFAULT_PREC,
                  max_prec: int = MAX_PREC, rtol: Fraction | None = None) -> list[Result]:
    """Density of the continuous part at each ``x`` as a :class:`Certified` ball, or
    :class:`Uncertified` with the reason (theory §3, §7.1; method in the module docstring).
    ``xs`` are read exactly (:func:`exact`); with ``rtol`` the precision is raised until
    each ball's radius is at most ``rtol |mid|`` (or ``max_prec`` is reached)."""
    data = _data(the_law)
    return [_pdf_at(data, exact(x), prec, max_prec, rtol) for x in xs]


def _pdf_at(data: _LawData, x: Fraction, prec: int, max_prec: int,
            rtol: Fraction | None = None) -> Result:
    if x < 0:
        return Certified(Fraction(0), Fraction(0), prec)
    if x == 0:
        return Uncertified("x = 0 carries the atom / hard edge; the density there is not "
                           "certified")
    refused = _check_leading(data, x)
    if refused:
        return Uncertified(refused)
    result: Result = Uncertified("no precision tried")
    for p in _ladder(prec, max_prec):
        try:
            ball = _density(data, x, p)
        except _NeedPrecision as exc:
            if not result.certified:
                result = Uncertified(f"{exc} (x = {float(x):.17g}, up to {p} bits)")
            continue
        with flint.ctx.workprec(p):
            result = _ball_result(ball, p)
        if narrow(result, rtol):
            break
    return result


# ---------------------------------------------------------------------- support
@dataclass
class SupportCertificate:
    """Edge candidates (balls, ascending, 0 first) and, for each gap after a candidate,
    whether it lies in the support (the last gap, to infinity, never does); see the
    module docstring."""

    candidates: list[Any]
    inside: list[bool]
    prec: int

    def intervals(self) -> list[tuple[Certified, Certified]]:
        out = []
        start = None
        for k, inside in enumerate(self.inside):
            if inside and start is None:
                start = k
            if not inside and start is not None:
                out.append((self._edge(start), self._edge(k)))
                start = None
        return out

    def _edge(self, k: int) -> Certified:
        return _ball_result(self.candidates[k], self.prec)

    def narrow(self, rtol: Fraction | None) -> bool:
        """Whether every edge has radius at most ``rtol |mid|``."""
        return all(narrow(edge, rtol) for pair in self.intervals() for edge in pair)

    def refined(self, candidates: list[Any], prec: int) -> SupportCertificate:
        """The same certificate with the candidates isolated again at ``prec`` bits. They
        are the real roots of one exact polynomial, so there are as many, in the same
        order, and each new ball meets the old one; the gaps keep their classification."""
        if len(candidates) != len(self.candidates) or not all(
                new.overlaps(old) for new, old in zip(candidates, self.candidates,
                                                      strict=True)):
            raise CertificationError("support edges", "edge candidates changed with the "
                                     f"precision ({self.prec} -> {prec} bits)")
        return SupportCertificate(candidates, self.inside, prec)


def _support_certificate(data: _LawData, prec: int, max_prec: int, rtol: Fraction | None
                         ) -> SupportCertificate | Uncertified:
    key = (prec, max_prec, rtol)
    if key in data._edges:
        return data._edges[key]
    poly = data.edge_polynomial()
    rows = {m[0]: row for m, row in poly.items()}
    reason = "no precision tried"
    result: SupportCertificate | None = None
    for p in _ladder(prec, max_prec):
        try:
            candidates = _candidates(data, rows, p)
            result = (_classify_gaps(data, candidates, p, max_prec) if result is None
                      else result.refined(candidates, p))
        except _NeedPrecision as exc:
            reason = f"{exc} at {p} bits"
            continue
        if result.narrow(rtol):
            break
    out = Uncertified(f"support edges not certified: {reason}") if result is None else result
    data._edges[key] = out
    return out


def _candidates(data: _LawData, rows: dict[int, dict[int, Fraction]], prec: int
                ) -> list[Any]:
    """0 and the positive real roots of the edge polynomial, as balls, ascending."""
    with flint.ctx.workprec(prec):
        roots = _real_roots(rows, data.theta1(), prec)
    positive = []
    for r in roots:
        if r > 0:
            positive.append(r)
        elif not r < 0:
            raise _NeedPrecision("an edge candidate is not separated from 0")
    return [flint.arb(0)] + positive


def _classify_gaps(data: _LawData, candidates: list[Any], prec: int, max_prec: int
                   ) -> SupportCertificate:
    inside = []
    for k, c in enumerate(candidates):
        if k + 1 == len(candidates):
            inside.append(False)
            break
        lo, hi = _arf_fraction(c.upper()), _arf_fraction(candidates[k + 1].lower())
        if not lo < hi:
            raise _NeedPrecision("edge candidates overlap")
        status = None
        for frac in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)):
            x = lo + (hi - lo) * frac
            local = _pdf_at(data, x, prec, max_prec)
            if isinstance(local, Certified):
                status = local.mid_exact > 0 or local.rad_exact > 0
                break
        if status is None:
            raise _NeedPrecision(f"gap {k} between edge candidates not classified")
        inside.append(status)
    return SupportCertificate(candidates, inside, prec)


def certified_support(the_law: Any, prec: int = DEFAULT_PREC, max_prec: int = MAX_PREC,
                      rtol: Fraction | None = EDGE_RTOL
                      ) -> list[tuple[Certified, Certified]] | Uncertified:
    """Intervals of the continuous part, each edge a ball around a real root of the
    discriminant (or exactly 0), theory §7, with the precision raised until every edge
    has radius at most ``rtol |mid|`` (or ``max_prec`` is reached); :class:`Uncertified`
    when a gap between edge candidates cannot be classified."""
    cert = _support_certificate(_data(the_law), prec, max_prec, rtol)
    return cert if isinstance(cert, Uncertified) else cert.intervals()


# ---------------------------------------------------------------------- atoms
def certified_atoms(the_law: Any) -> dict[int, Certified] | Uncertified:
    """``{0: mass}`` (exact ball) or ``{}``; the rank-deficiency mass (module docstring)
    checked exactly against the limit equation of ``lim z G(z)`` (theory §4, §7)."""
    data = _data(the_law)
    mass = data.atom_mass()
    low = _low_order_part(data.cauchy)
    value: dict[int, Fraction] = {}
    for i, row in low.items():
        for k, c in row.items():
            value[k] = value.get(k, Fraction(0)) + c * mass ** i
    if any(value.values()):
        return Uncertified(f"the rank-deficiency mass {mass} is not a root of the limit "
                           "equation of z G(z) at 0")
    return {0: Certified(mass, Fraction(0), 0)} if mass > 0 else {}


# ---------------------------------------------------------------------- ridge (theory §5)
class _Ridge:
    """``F(., lam)`` and its pieces as exact theta1-polynomial coefficients in ``w``."""

    def __init__(self, data: _LawData, lam_value: Fraction) -> None:
        spec = _specialize(_term_table("ridge", data.case, True), data.values)
        self.lam = lam_value
        self.f = _rows_at(spec, lam_value, var=1, other=0)
        self.f_lam = _rows_at(spec, lam_value, var=1, other=0, deriv=True)
        self.a = {d: {m[0]: row for m, row in spec.items() if m[1] == d} for d in (0, 1, 2)}

    def polys(self, t1: Any) -> dict[str, Any]:
        ap = {d: flint.arb_poly(_poly_balls(self.a[d], t1)) for d in (0, 1, 2)}
        f = flint.arb_poly(_poly_balls(self.f, t1))
        return {"f": f, "fw": f.derivative(), "flam": flint.arb_poly(
            _poly_balls(self.f_lam, t1)), "a2": ap[2], "a1": ap[1]}


def _bisect(polys: dict[str, Any], lam_b: Any, w_max: Fraction, prec: int) -> Any:
    """Approximate ``w`` with ``lam(w) = lam`` (the physical branch, decreasing in w):
    bisection on sign rules, then Newton on the midpoints."""
    lo, hi = flint.arb(0), _arb(w_max)
    for _ in range(64):
        mid = ((lo + hi) / 2).mid()
        q = polys["f"](mid)
        slope = 2 * polys["a2"](mid) * lam_b + polys["a1"](mid)
        if q < 0 or (q > 0 and slope < 0):  # lam below the larger root: w < w*
            lo = mid
        elif q > 0 and slope > 0:
            hi = mid
        else:
            break
    wv = ((lo + hi) / 2).mid()
    for _ in range(2 * prec.bit_length() + 8):
        step = (polys["f"](wv) / polys["fw"](wv)).mid()
        wv = (wv - step).mid()
        if step == 0 or abs(step) < abs(wv) * flint.arb(2) ** (-prec):
            break
    return wv


def _newton_enclosure(polys: dict[str, Any], approx: Any, lam_b: Any, w_max: Fraction,
                      prec: int) -> Any:
    """Interval-Newton certificate around ``approx`` (module docstring), or
    _NeedPrecision."""
    for grow in range(8, prec // 2, 8):
        X = flint.arb(approx, flint.arb(2) ** (-prec + grow) * (1 + abs(approx)))
        fw = polys["fw"](X)
        if not (fw > 0 or fw < 0):
            continue
        N = approx - polys["f"](approx) / fw
        if X.contains_interior(N):
            if not (X > 0 and X < _arb(w_max)):
                raise _NeedPrecision("the root enclosure is not inside (0, w_max)")
            if not polys["a2"](X) > 0 or not 2 * polys["a2"](X) * lam_b + polys["a1"](X) > 0:
                raise _NeedPrecision("the root is not certainly on the larger lam branch")
            return N
    raise _NeedPrecision("interval Newton did not contract")


def _ridge_ladder(the_law: Any, lam_value: Any, prec: int, max_prec: int,
                  rtol: Fraction | None, value: Callable[[_Ridge, Any, dict[str, Any]], Any]
                  ) -> Result:
    """``value(ridge, w_ball, polys)`` as a certified ball, ``w`` enclosed at ``prec`` bits
    and more (doubling up to ``max_prec``) until it certifies and the ball has radius at
    most ``rtol |mid|``."""
    data = _data(the_law)
    if isinstance(data, _ExpressionData):
        raise ValueError("w(lam) is certified for the theory §4 cases only (not for an "
                         "expression of the law algebra)")
    lam_f = exact(lam_value)
    if lam_f <= 0:
        raise ValueError(f"lam must be > 0 (got {lam_value!r})")
    atoms = certified_atoms(the_law)
    if isinstance(atoms, Uncertified):
        return Uncertified(f"w(lam) not certified: {atoms.reason}")
    ridge = _Ridge(data, lam_f)
    w_max = 1 - data.atom_mass()
    result: Result = Uncertified("w(lam) not certified: no precision tried")
    for p in _ladder(prec, max_prec):
        with flint.ctx.workprec(p):
            polys = ridge.polys(data.theta1())
            lam_b = _arb(lam_f)
            try:
                approx = _bisect(polys, lam_b, w_max, p)
                ball = _newton_enclosure(polys, approx, lam_b, w_max, p)
            except _NeedPrecision as exc:
                if not result.certified:
                    result = Uncertified(f"w(lam) not certified: {exc} at {p} bits")
                continue
            out = value(ridge, ball, polys)
            if not out.is_finite():
                if not result.certified:
                    result = Uncertified("the result ball is not finite")
                continue
            result = _ball_result(out, p)
        if narrow(result, rtol):
            break
    return result


def certified_dof(the_law: Any, lam_value: Any, prec: int = DEFAULT_PREC,
                  max_prec: int = MAX_PREC, rtol: Fraction | None = None) -> Result:
    """``w(lam) = int x/(x + lam) dnubar`` of the normalized law (theory §5) as a ball
    (radius at most ``rtol |mid|`` when asked, precision permitting)."""
    return _ridge_ladder(the_law, lam_value, prec, max_prec, rtol,
                         lambda ridge, ball, polys: ball)


def certified_ridge_error(the_law: Any, lam_value: Any, sigma2: Any,
                          prec: int = DEFAULT_PREC, max_prec: int = MAX_PREC,
                          rtol: Fraction | None = None) -> Result:
    """Ridge coefficient error ``E(lam) = 1 - w/gO + (lam/gO - sigma2) w'(lam)`` (theory §5,
    MHA laws) as a ball, from the certified ``w`` and ``w' = -F_lam/F_w`` (radius at most
    ``rtol |mid|`` when asked, precision permitting)."""
    if the_law.case not in ("mha", "mha-tied"):
        raise ValueError(f"the ridge error is defined for the MHA laws (got {the_law.case})")
    s2 = exact(sigma2)
    if s2 < 0:
        raise ValueError(f"sigma2 must be >= 0 (got {sigma2!r})")
    g_o = exact(the_law.ratios.gO)

    def error(ridge: _Ridge, ball: Any, polys: dict[str, Any]) -> Any:
        dw = -polys["flam"](ball) / polys["fw"](ball)
        return 1 - ball / _arb(g_o) + (_arb(ridge.lam) / _arb(g_o) - _arb(s2)) * dw

    return _ridge_ladder(the_law, lam_value, prec, max_prec, rtol, error)


def require(result: Any, quantity: str, params: dict[str, Any] | None = None) -> Any:
    """``result`` unless it is :class:`Uncertified`, then a CertificationError."""
    if isinstance(result, Uncertified):
        raise CertificationError(quantity, f"certificate failed: {result.reason}", params)
    return result


__all__ = [
    "Certified", "Uncertified", "SupportCertificate", "NEEDS_FLINT", "DEFAULT_PREC",
    "MAX_PREC", "EDGE_RTOL", "narrow", "certified_pdf", "certified_support",
    "certified_atoms", "certified_dof", "certified_ridge_error", "exact", "require",
    "require_flint",
]
