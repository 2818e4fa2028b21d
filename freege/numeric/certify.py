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
    tracked quantity is ``u = w G(z)`` with ``w = z - c`` for an exact rational centre
    ``c != x``, a root of ``Q(u, w) = w^s P(u/w, w + c)`` (low degree in ``w``, bounded
    near infinity and near an atom's pole at ``c``): ``c = 0`` for a theory §4 law (its
    atom and hard edge), the nearest atom for an expression with atoms, else a rational
    below its support. At ``w = x - c + iY`` the physical ``u`` lies in the box
    ``|u - 1| <= s/Y`` (``|w G - 1| = |int (t - c)/(z - t) dnu| <= s/Im z`` with
    ``s >= int |t - c| dnu``: the exact ``m1 - c`` for a law above ``c``, else
    ``sqrt(m2 - 2 c m1 + c^2)`` by Cauchy-Schwarz); ``Y`` doubles until exactly one
    root ball meets that box. Then the vertical segment down to ``x``
    is covered by pieces ``x + i[b, t]``, each certified by a Krawczyk test over the whole
    piece (a box ``B`` holding the previous enclosure with ``K(B, Z)`` inside its
    interior holds exactly one root for every ``z`` of the piece, and the physical root,
    continuous in ``z``, cannot leave it); the enclosure at the bottom is then re-tightened
    by epsilon-inflation inside ``B``. At ``z = x`` the enclosure is matched with the
    unique overlapping root ball of ``Q(., x - c)``: ``G = u/(x - c)`` in the lower
    half-plane (``u`` lower for ``x > c``, upper for ``x < c``) gives ``density =
    -Im u/(pi (x - c))``, real gives 0, anything else is refused. Both tests need the
    leading coefficient of ``P(., x)`` to be non-zero and ``P(., x)`` square-free
    (both checked exactly): otherwise a root escapes to infinity (an atom, a hard edge)
    or two roots meet (a branch point), and the point is refused.

    Outside the law's exact hull the density is 0: ``x < 0`` for the theory §4 laws (Gram
    spectra on ``[0, inf)``; ``x = 0``, atom and hard edge, is refused), at or beyond a
    dyadic enclosure of ``expr.bounds()`` for an expression.

Support (theory §7, §7.1)
    Every edge and atom is a real root of ``disc_G(P) * lc_G(P)`` (two roots meet, or one
    escapes to infinity). For a theory §4 law the edge candidates are 0 and the positive
    real roots of its square-free part (computed exactly in ``QQ[z, theta1]`` with
    FLINT's multivariate polynomials), isolated as balls. For an expression the product
    is a polynomial over QQ, factored exactly: the root of a linear factor is an exact
    candidate (radius 0), the real roots of the others are isolated balls; all of them
    are candidates, below 0 too. Between consecutive candidates the branch is fixed;
    each gap is classified by the density certificate at a rational point inside it
    (density ball certainly > 0, or exactly 0), a gap beyond the exact hull (above) is
    outside, and so are the gaps before the first candidate and beyond the last (the
    density is analytic there and 0 far out, where ``G(x) ~ 1/x`` is real). Edges are
    the candidates where the classification flips.

Atoms (theory §4, §7)
    A theory §4 law has its only atom at 0, of mass the rank deficiency, exactly
    computable from the ratios: ``1 - min(1, gV)``
    (value), ``1 - min(1, gV, gO)`` (mha, GQA/MQA alike), ``1 - min(1, gK)`` (value-tied),
    ``1 - min(1, gK, gO)`` (mha-tied), 0 for the attention and head-average laws (``h``
    is an integer >= 1), from the atom of a free multiplicative product and of a compound
    free Poisson law (theory §3). An expression's atoms (any locations, several) come
    exactly from its Bercovici-Voiculescu rules. The certificate checks exactly (in
    ``QQ[theta1]``) that each mass ``p`` at its location ``a`` is a root of the
    lowest-order part of ``P(m/w, w + a)`` in ``w`` (the equation of
    ``lim (z - a) G(z)``); the ball then has radius 0.

Expressions of the law algebra (docs/algebra.md)
    An :class:`freege.numeric.expression_law.ExpressionLaw` is certified from its
    expression's exact Cauchy polynomial (rational coefficients once the parameters are
    numbers; no theta1, so every zero test is an exact rational one), its exact first
    two moments (for the starting box of the density certificate), its exact atoms and
    its exact bounds ``expr.bounds()`` (enclosed by dyadic rationals). Supports reaching
    below 0 and atoms anywhere are certified as above; a number that is not rational
    (a coefficient, moment, atom) is a ValueError naming it, and ``w(lam)`` and the
    ridge error (theory §5) are for the theory §4 cases only.

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
    Cauchy polynomial, Herglotz signs, a theory §4 law lives on ``[0, inf)``, an
    expression within ``expr.bounds()``, ``lam(w)`` is the larger root and monotone, the
    rank-deficiency atom, an expression's exact atoms); they rely on arb's ball
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


def _shift_z(spec: ThetaPoly, c: Fraction) -> ThetaPoly:
    """``P(G, w + c)`` as a polynomial in ``(G, w)``, exactly (Taylor shift in ``z``)."""
    if c == 0:
        return spec
    out: ThetaPoly = {}
    for (i, j), row in spec.items():
        for k in range(j + 1):
            factor = math.comb(j, k) * c ** (j - k)
            if factor == 0:
                continue
            target = out.setdefault((i, k), {})
            for t, coeff in row.items():
                target[t] = target.get(t, Fraction(0)) + coeff * factor
    return {m: {t: v for t, v in row.items() if v} for m, row in out.items()
            if any(row.values())}


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
    """Exact specialisations of one law's polynomials (everything but theta1). A theory §4
    law lives on ``[0, inf)`` with its only atom at 0 (the rank deficiency)."""

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

    def hull(self) -> tuple[Fraction | None, Fraction | None]:
        """Exact rationals ``(lo, hi)`` (None: unbounded) with the support and the atoms
        in ``[lo, hi]``: ``[0, inf)`` (the laws are Gram spectra)."""
        return Fraction(0), None

    def zero_density(self, x: Fraction) -> bool:
        """Whether the density at ``x`` is 0 by the hull alone: ``x < 0``."""
        return x < 0

    def centre(self, x: Fraction) -> Fraction:
        """The point ``c`` of the tracked ``u = (z - c) G(z)`` for the density at ``x``:
        0, the atom's pole and the hard edge (module docstring)."""
        return Fraction(0)

    def spread(self, c: Fraction, t1: Any) -> Any:
        """A ball whose upper end bounds ``int |t - c| dnu(t)``: the mean, for ``c = 0``
        and a law on ``[0, inf)``."""
        return _theta_eval(self.mean_row(), t1)

    def edge_candidates(self, prec: int) -> list[Any]:
        """0 and the positive real roots of the edge polynomial, as balls, ascending."""
        rows = {m[0]: row for m, row in self.edge_polynomial.items()}
        with flint.ctx.workprec(prec):
            roots = _real_roots(rows, self.theta1(), prec)
        positive = []
        for r in roots:
            if r > 0:
                positive.append(r)
            elif not r < 0:
                raise _NeedPrecision("an edge candidate is not separated from 0")
        return [flint.arb(0)] + positive

    @functools.cached_property
    def edge_polynomial(self) -> ThetaPoly:
        """:func:`_edge_polynomial` of the law (computed once)."""
        return _edge_polynomial(self.cauchy)

    def theta1(self) -> Any:
        """The ball of ``theta1 = expm1(beta^2)`` at the ambient precision."""
        return _theta1(self.ratios)

    def atom_mass(self) -> Fraction:
        names = _ATOM_RATIOS[self.case]
        r = self.ratios
        return 1 - min([Fraction(1)] + [exact(getattr(r, n)) for n in names])

    def atoms(self) -> list[tuple[Fraction, Fraction]]:
        """``[(location, exact mass), ...]`` to check against ``P``: the rank deficiency at
        0 (checked also when it is 0)."""
        return [(Fraction(0), self.atom_mass())]


def _sympy_fraction(value: Any, what: str, text: str) -> Fraction:
    value = sp.sympify(value)
    if not value.is_Rational:
        raise ValueError(f"certified mode needs rational numbers: {what} of {text} is "
                         f"{value}")
    return Fraction(int(value.p), int(value.q))


#: bits of the dyadic rationals that enclose an expression's support bounds
_HULL_BITS = 64


def _outer_dyadic(value: Any, up: bool) -> Fraction | None:
    """A dyadic rational strictly beyond the exact real ``value`` (above it when ``up``),
    within ``2^-63``; None for an infinite bound. sympy decides ``floor`` and ``ceiling``
    of an algebraic number exactly; one unit more keeps the bound strict."""
    value = sp.sympify(value)
    if not value.is_finite:
        return None
    scale = sp.Integer(2) ** _HULL_BITS
    n = int(sp.ceiling(value * scale)) + 1 if up else int(sp.floor(value * scale)) - 1
    return Fraction(n, 2**_HULL_BITS)


class _ExpressionData(_LawData):
    """Exact data of an expression of the law algebra (docs/algebra.md): its Cauchy
    polynomial with rational coefficients (no theta1: every row is a constant), the first
    two moments, the atoms with their exact locations and masses (the expression's
    Bercovici-Voiculescu rules), and a dyadic enclosure of the exact bounds
    ``expr.bounds()``. Supports anywhere on the line and atoms anywhere are certified
    (module docstring); irrational numbers are a ValueError naming the number."""

    def __init__(self, expr: Any) -> None:
        text = str(expr)
        self.case = "expression"
        self.ratios = None
        self.normalized = False
        self.text = text
        poly = expr.cauchy_polynomial()
        self.cauchy = {}
        for monom, coeff in poly.terms():
            self.cauchy[monom] = {0: _sympy_fraction(coeff, "a Cauchy coefficient", text)}
        self.degree = max(i for i, _ in self.cauchy)
        self._mean, self._second = (_sympy_fraction(m, f"the moment m{k}", text)
                                    for k, m in enumerate(expr.moments(2), start=1))
        self._atoms = [(_sympy_fraction(x, "an atom's location", text),
                        _sympy_fraction(p, "an atom's mass", text)) for x, p in expr.atoms()]
        lo, hi = expr.bounds()
        self._hull = (_outer_dyadic(lo, up=False), _outer_dyadic(hi, up=True))
        self._edges = {}

    def theta1(self) -> Any:
        """No theta1 in an expression's polynomial: the rows are constants."""
        return flint.arb(0)

    def mean_row(self) -> dict[int, Fraction]:
        return {0: self._mean} if self._mean else {}

    def hull(self) -> tuple[Fraction | None, Fraction | None]:
        """Dyadic rationals strictly outside the exact bounds ``expr.bounds()``."""
        return self._hull

    def zero_density(self, x: Fraction) -> bool:
        """Whether ``x`` is at or beyond an end of the hull (strictly outside the
        support)."""
        lo, hi = self._hull
        return (lo is not None and x <= lo) or (hi is not None and x >= hi)

    def centre(self, x: Fraction) -> Fraction:
        """The atom nearest ``x`` (``u`` stays bounded at its pole); without atoms the
        lower end of the hull (``u`` is then ``w G(w)`` of a law on ``[0, inf)`` in
        ``w = z - c``), or 0 (-1 at ``x = 0``) for an unbounded one. Never ``x``: an
        atom's location is refused before (the leading coefficient vanishes there)."""
        if self._atoms:
            return min((loc for loc, _ in self._atoms), key=lambda loc: abs(loc - x))
        lo = self._hull[0]
        if lo is not None:
            return lo
        return Fraction(-1) if x == 0 else Fraction(0)

    def spread(self, c: Fraction, t1: Any) -> Any:
        """``m1 - c`` when the law lies above ``c``, ``c - m1`` when below, else the
        Cauchy-Schwarz bound ``sqrt(m2 - 2 c m1 + c^2)``."""
        lo, hi = self._hull
        if lo is not None and c <= lo:
            return _arb(self._mean - c)
        if hi is not None and c >= hi:
            return _arb(c - self._mean)
        return _arb(self._second - 2 * c * self._mean + c * c).sqrt()

    def edge_candidates(self, prec: int) -> list[Any]:
        """The real roots of the square-free part of ``disc_G(P) lc_G(P)`` (exactly
        univariate over QQ), ascending: its rational roots (linear factors over QQ, e.g. a
        hard edge at an atom) rounded to ``prec`` bits (exact at a dyadic point), isolated
        balls for the others."""
        roots = []
        with flint.ctx.workprec(prec):
            for factor in self.edge_factors:
                coeffs = [Fraction(int(c.p), int(c.q)) for c in factor.coeffs()]
                if len(coeffs) == 2:
                    roots.append(_arb(-coeffs[0] / coeffs[1]))
                else:
                    roots += _real_roots({j: {0: c} for j, c in enumerate(coeffs) if c},
                                         flint.arb(0), prec)
        return sorted(roots, key=lambda b: _arf_fraction(b.mid()))

    @functools.cached_property
    def edge_factors(self) -> tuple[Any, ...]:
        """The distinct irreducible factors over QQ (``fmpq_poly``) of
        ``disc_G(P) lc_G(P)`` (exact, FLINT)."""
        return _expression_edge_factors(self.cauchy)

    def atoms(self) -> list[tuple[Fraction, Fraction]]:
        """The expression's atoms, exact."""
        return list(self._atoms)


def _expression_edge_factors(spec: ThetaPoly) -> tuple[Any, ...]:
    """The distinct irreducible factors over QQ (``fmpq_poly``) of ``disc_G(P) lc_G(P)``
    for a Cauchy polynomial ``spec`` without theta1 (exact, FLINT)."""
    ctx = flint.fmpq_mpoly_ctx.get(("G", "z"), "lex")
    items = {m: row[0] for m, row in spec.items() if row.get(0)}
    p = ctx.from_dict({m: flint.fmpq(c.numerator, c.denominator) for m, c in items.items()})
    degree = max(i for i, _ in items)
    lc = ctx.from_dict({(0, j): flint.fmpq(c.numerator, c.denominator)
                        for (i, j), c in items.items() if i == degree})
    terms = (p.discriminant("G") * lc).to_dict()
    coeffs = [flint.fmpq(0)] * (max(j for _, j in terms) + 1)
    for (_, j), c in terms.items():
        coeffs[j] = c
    _, factors = flint.fmpq_poly(coeffs).factor()
    return tuple(f for f, _ in factors)


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
        # in w = z - c (c = data.centre(x), an exact rational other than x) and u = w G
        # the equation is Q(u, w) = w^shift P(u/w, w + c), of low degree in w and with u
        # bounded near infinity (u -> 1) and near an atom's pole at c (u -> its mass)
        self.centre = data.centre(x)
        self.x, self.prec = x - self.centre, prec
        t1 = data.theta1()
        spec = _shift_z(data.cauchy, self.centre)
        shift = -min(j - i for i, j in spec)
        by_z: dict[int, dict[int, dict[int, Fraction]]] = {}
        by_u: dict[int, dict[int, dict[int, Fraction]]] = {}
        for (i, j), row in spec.items():
            by_z.setdefault(j - i + shift, {})[i] = row
            by_u.setdefault(i, {})[j - i + shift] = row
        self.rows = [flint.acb_poly(_poly_balls(by_z.get(j, {}), t1))
                     for j in range(max(by_z) + 1)]
        self.drows = [r.derivative() for r in self.rows]
        self.matrix = [flint.acb_poly(_poly_balls(by_u.get(i, {}), t1))
                       for i in range(max(by_u) + 1)]
        self.mean = data.spread(self.centre, t1)

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
        """A height ``Y`` and the ball of the physical root ``u = w G`` at ``w = x + iY``
        (``x`` here is ``x - c``): the only root ball meeting the box around 1 of
        half-width ``s/Y``, which holds it (``|w G - 1| = |int (t - c)/(z - t) dnu| <=
        s/Im z`` with ``s >= int |t - c| dnu``, :meth:`_LawData.spread`)."""
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
        """``u = (x - c) G(x + i0)``, a root of ``Q(., x - c)``, as ``(kind, ball)`` (see
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
    """Ball of the density at ``x`` (exact 0 when ``G(x + i0)`` is certainly real)."""
    with flint.ctx.workprec(prec):
        t1 = data.theta1()
        coeffs = _poly_balls(_rows_at(data.cauchy, x, var=1, other=0), t1)
        kinds = _tight_roots(coeffs, prec)
        if all(kind == REAL for kind, _ in kinds):  # G(x + i0) is one of them: real
            return flint.arb(0)
        tracker = _Tracker(data, x, prec)
        kind, u = tracker.physical()
        if kind == REAL:
            return flint.arb(0)
        # G = u / (x - c) lies in the closed lower half-plane
        if kind == (LOWER if tracker.x > 0 else UPPER):
            return -u.imag / (_arb(tracker.x) * flint.arb.pi())
        raise _NeedPrecision("the tracked G at x is in the upper half-plane")


def _check_point(data: _LawData, x: Fraction) -> str | None:
    """Why the density at ``x`` cannot be certified, decided exactly (in ``QQ[theta1]``):
    the leading coefficient of ``P(., x)`` vanishes (a root escapes to infinity: an atom
    or a hard edge), or ``P(., x)`` has a multiple root (a branch point, an edge
    candidate: the roots cannot be isolated at any precision); None otherwise."""
    rows = _rows_at(data.cauchy, x, var=1, other=0)
    if not rows.get(data.degree):
        return (f"the leading coefficient of P(G, x) vanishes at x = {x} (a root escapes "
                "to infinity: atom or hard edge)")
    ctx = flint.fmpq_mpoly_ctx.get(("G", "t"), "lex")
    poly = ctx.from_dict({(i, k): flint.fmpq(c.numerator, c.denominator)
                          for i, row in rows.items() for k, c in row.items()})
    if data.degree > 1 and poly.discriminant("G") == 0:
        return (f"P(G, x) has a multiple root at x = {x} (a branch point: an edge "
                "candidate)")
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
    if data.zero_density(x):
        return Certified(Fraction(0), Fraction(0), prec)
    if x == 0 and not isinstance(data, _ExpressionData):
        return Uncertified("x = 0 carries the atom / hard edge; the density there is not "
                           "certified")
    refused = _check_point(data, x)
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
    """Edge candidates (balls, ascending; 0 first for a theory §4 law) and, for each gap
    after a candidate, whether it lies in the support (the gap before the first and the
    last gap, to infinity, never do); see the module docstring."""

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
    reason = "no precision tried"
    result: SupportCertificate | None = None
    for p in _ladder(prec, max_prec):
        try:
            candidates = data.edge_candidates(p)
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


def _classify_gaps(data: _LawData, candidates: list[Any], prec: int, max_prec: int
                   ) -> SupportCertificate:
    inside = []
    bottom, top = data.hull()
    for k, c in enumerate(candidates):
        if k + 1 == len(candidates):
            inside.append(False)
            break
        lo, hi = _arf_fraction(c.upper()), _arf_fraction(candidates[k + 1].lower())
        if not lo < hi:
            raise _NeedPrecision("edge candidates overlap")
        if (bottom is not None and hi <= bottom) or (top is not None and lo >= top):
            inside.append(False)  # beyond the exact bounds of the support
            continue
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
def certified_atoms(the_law: Any) -> dict[Fraction, Certified] | Uncertified:
    """``{location: mass}`` (exact balls; empty without atoms): the rank-deficiency mass
    at 0 of a theory §4 law, or an expression's exact atoms (module docstring), each
    checked exactly against the limit equation of ``lim (z - a) G(z)`` at its location
    ``a`` (theory §4, §7)."""
    data = _data(the_law)
    out = {}
    for loc, mass in data.atoms():
        low = _low_order_part(_shift_z(data.cauchy, loc))
        value: dict[int, Fraction] = {}
        for i, row in low.items():
            for k, c in row.items():
                value[k] = value.get(k, Fraction(0)) + c * mass ** i
        if any(value.values()):
            return Uncertified(f"the mass {mass} at {loc} is not a root of the limit "
                               f"equation of (z - {loc}) G(z) at {loc}")
        if mass > 0:
            out[loc] = Certified(mass, Fraction(0), 0)
    return out


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
