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

Modules
    The exact data of a law is :mod:`freege.numeric.certify_data`, the result types, ball
    arithmetic and root isolation :mod:`freege.numeric.certify_balls`, the density
    certificate :mod:`freege.numeric.certify_density`; this module holds the public
    entry points, the support, atom and ridge certificates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from freege.errors import CertificationError, DomainError
from freege.numeric.certify_balls import (
    Certified,
    NeedPrecision,
    Result,
    Uncertified,
    arb,
    arf_fraction,
    ball_result,
    exact,
    flint,
    ladder,
    narrow,
    poly_balls,
    rows_at,
    shift_z,
)
from freege.numeric.certify_data import (
    _LawData,
    _low_order_part,
)
from freege.numeric.certify_density import _pdf_at

#: message of every entry point when python-flint is missing
NEEDS_FLINT = "needs python-flint: pip install 'freege[certify]'"
#: default starting and largest working precision (bits)
DEFAULT_PREC = 128
MAX_PREC = 4096
#: default largest relative radius of a certified support edge (precision is raised until
#: every edge meets it, up to ``max_prec``)
EDGE_RTOL = Fraction(1, 10**30)


def require_flint() -> Any:
    """The python-flint module, or a DomainError naming the extra to install."""
    if flint is None:
        raise DomainError(NEEDS_FLINT)
    return flint


def _data(the_law: Any) -> _LawData:
    """The law's exact data (:meth:`freege.numeric.law_family.Law.certify_data`)."""
    require_flint()
    return the_law.certify_data()


def certified_pdf(the_law: Any, xs: Sequence[Any], prec: int = DEFAULT_PREC,
                  max_prec: int = MAX_PREC, rtol: Fraction | None = None) -> list[Result]:
    """Density of the continuous part at each ``x`` as a :class:`Certified` ball, or
    :class:`Uncertified` with the reason (theory §3, §7.1; method in the module docstring).
    ``xs`` are read exactly (:func:`exact`); with ``rtol`` the precision is raised until
    each ball's radius is at most ``rtol |mid|`` (or ``max_prec`` is reached)."""
    data = _data(the_law)
    return [_pdf_at(data, exact(x), prec, max_prec, rtol) for x in xs]



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
        return ball_result(self.candidates[k], self.prec)

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
    for p in ladder(prec, max_prec):
        try:
            candidates = data.edge_candidates(p)
            result = (_classify_gaps(data, candidates, p, max_prec) if result is None
                      else result.refined(candidates, p))
        except NeedPrecision as exc:
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
        lo, hi = arf_fraction(c.upper()), arf_fraction(candidates[k + 1].lower())
        if not lo < hi:
            raise NeedPrecision("edge candidates overlap")
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
            raise NeedPrecision(f"gap {k} between edge candidates not classified")
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
        low = _low_order_part(shift_z(data.cauchy, loc))
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

    def __init__(self, spec: Any, lam_value: Fraction) -> None:
        self.lam = lam_value
        self.f = rows_at(spec, lam_value, var=1, other=0)
        self.f_lam = rows_at(spec, lam_value, var=1, other=0, deriv=True)
        self.a = {d: {m[0]: row for m, row in spec.items() if m[1] == d} for d in (0, 1, 2)}

    def polys(self, t1: Any) -> dict[str, Any]:
        ap = {d: flint.arb_poly(poly_balls(self.a[d], t1)) for d in (0, 1, 2)}
        f = flint.arb_poly(poly_balls(self.f, t1))
        return {"f": f, "fw": f.derivative(), "flam": flint.arb_poly(
            poly_balls(self.f_lam, t1)), "a2": ap[2], "a1": ap[1]}


def _bisect(polys: dict[str, Any], lam_b: Any, w_max: Fraction, prec: int) -> Any:
    """Approximate ``w`` with ``lam(w) = lam`` (the physical branch, decreasing in w):
    bisection on sign rules, then Newton on the midpoints."""
    lo, hi = flint.arb(0), arb(w_max)
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
    NeedPrecision."""
    for grow in range(8, prec // 2, 8):
        X = flint.arb(approx, flint.arb(2) ** (-prec + grow) * (1 + abs(approx)))
        fw = polys["fw"](X)
        if not (fw > 0 or fw < 0):
            continue
        N = approx - polys["f"](approx) / fw
        if X.contains_interior(N):
            if not (X > 0 and X < arb(w_max)):
                raise NeedPrecision("the root enclosure is not inside (0, w_max)")
            if not polys["a2"](X) > 0 or not 2 * polys["a2"](X) * lam_b + polys["a1"](X) > 0:
                raise NeedPrecision("the root is not certainly on the larger lam branch")
            return N
    raise NeedPrecision("interval Newton did not contract")


def _ridge_ladder(the_law: Any, lam_value: Any, prec: int, max_prec: int,
                  rtol: Fraction | None, value: Callable[[_Ridge, Any, dict[str, Any]], Any]
                  ) -> Result:
    """``value(ridge, w_ball, polys)`` as a certified ball, ``w`` enclosed at ``prec`` bits
    and more (doubling up to ``max_prec``) until it certifies and the ball has radius at
    most ``rtol |mid|``."""
    data = _data(the_law)
    spec = data.ridge_spec()
    lam_f = exact(lam_value)
    if lam_f <= 0:
        raise ValueError(f"lam must be > 0 (got {lam_value!r})")
    atoms = certified_atoms(the_law)
    if isinstance(atoms, Uncertified):
        return Uncertified(f"w(lam) not certified: {atoms.reason}")
    ridge = _Ridge(spec, lam_f)
    w_max = 1 - data.atom_mass()
    result: Result = Uncertified("w(lam) not certified: no precision tried")
    for p in ladder(prec, max_prec):
        with flint.ctx.workprec(p):
            polys = ridge.polys(data.theta1())
            lam_b = arb(lam_f)
            try:
                approx = _bisect(polys, lam_b, w_max, p)
                ball = _newton_enclosure(polys, approx, lam_b, w_max, p)
            except NeedPrecision as exc:
                if not result.certified:
                    result = Uncertified(f"w(lam) not certified: {exc} at {p} bits")
                continue
            out = value(ridge, ball, polys)
            if not out.is_finite():
                if not result.certified:
                    result = Uncertified("the result ball is not finite")
                continue
            result = ball_result(out, p)
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
    g_o = exact(the_law.output_ratio(None))  # an MHA law's own gO, else a ValueError
    s2 = exact(sigma2)
    if s2 < 0:
        raise ValueError(f"sigma2 must be >= 0 (got {sigma2!r})")

    def error(ridge: _Ridge, ball: Any, polys: dict[str, Any]) -> Any:
        dw = -polys["flam"](ball) / polys["fw"](ball)
        return 1 - ball / arb(g_o) + (arb(ridge.lam) / arb(g_o) - arb(s2)) * dw

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
