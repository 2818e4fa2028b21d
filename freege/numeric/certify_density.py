"""The certified density at a point (theory §3, §7.1), for :mod:`freege.numeric.certify`.

Holds :class:`_Tracker` (the Krawczyk-certified continuation of the physical root of
``Q(u, w) = w^s P(u/w, w + c)`` down a vertical line, started where exactly one root ball
meets the box that holds ``u = w G`` at large ``Im z``), :func:`_density` (the ball of the
density at ``x``, exactly 0 where every root of ``P(., x)`` is real), :func:`_check_point`
(the exact refusals: a vanishing leading coefficient, a multiple root) and
:func:`_pdf_at` (the precision ladder of one point). The method is described in the
docstring of :mod:`freege.numeric.certify` ("Density at x").
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from freege.numeric import certify_balls as balls
from freege.numeric.certify_data import _ExpressionData, _LawData

#: largest number of segment halvings in one step of the continuation, and of pieces
MAX_HALVINGS = 40
MAX_PIECES = 4000


class _Tracker:
    """balls.Certified continuation of the physical root of ``P(., z)`` down the vertical line
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
        spec = balls.shift_z(data.cauchy, self.centre)
        shift = -min(j - i for i, j in spec)
        by_z: dict[int, dict[int, dict[int, Fraction]]] = {}
        by_u: dict[int, dict[int, dict[int, Fraction]]] = {}
        for (i, j), row in spec.items():
            by_z.setdefault(j - i + shift, {})[i] = row
            by_u.setdefault(i, {})[j - i + shift] = row
        self.rows = [balls.flint.acb_poly(balls.poly_balls(by_z.get(j, {}), t1))
                     for j in range(max(by_z) + 1)]
        self.drows = [r.derivative() for r in self.rows]
        self.matrix = [balls.flint.acb_poly(balls.poly_balls(by_u.get(i, {}), t1))
                       for i in range(max(by_u) + 1)]
        self.mean = data.spread(self.centre, t1)

    @staticmethod
    def _horner(values: list[Any], zb: Any) -> Any:
        out = balls.flint.acb(0)
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
        shift = balls.flint.acb_poly([centre, 1])
        shifted = [row(shift) for row in self.rows]
        out = []
        for power in range(len(shifted)):
            total = balls.flint.acb_poly([0])
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
        deriv = parts[0].derivative()(balls.flint.acb(0))
        if deriv.contains(0):
            return None
        inv = (1 / deriv).mid()
        value = self._horner([u(balls.flint.acb(0)) for u in parts], s)
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
        scale = max(Fraction(1), abs(self.x), balls.arf_fraction(abs(self.mean).upper()))
        height = 4 * scale
        for _ in range(30):
            zb = balls.flint.acb(balls.arb(self.x), balls.arb(height))
            try:
                roots = balls.root_balls(self.coeffs(zb), self.prec)  # complex coefficients
            except balls.NeedPrecision:
                height *= 2
                continue
            r = (abs(self.mean) / balls.arb(height)).upper()
            disc = 1 + balls.flint.acb(balls.flint.arb(0, r), balls.flint.arb(0, r))
            hits = [b for b in roots if b.overlaps(disc)]
            if len(hits) == 1:
                return height, hits[0]
            height *= 2
        raise balls.NeedPrecision("the physical root is not identified at large Im z")

    def _approx(self, g: Any, zb: Any) -> Any:
        """Newton iterates (midpoints only) from ``g`` towards a root of ``Q(., z)``, until
        the step is below the working precision (quadratic convergence: about
        ``log2(prec)`` steps from a few correct bits)."""
        g, zb = g.mid(), zb.mid()
        tiny = balls.flint.arb(2) ** (-self.prec)
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
        zb = balls.flint.acb(balls.arb(self.x), balls.arb(bottom).union(balls.arb(top)))
        target = self._approx(enclosure, balls.flint.acb(balls.arb(self.x), balls.arb(bottom)))
        centre = ((enclosure.mid() + target) / 2).mid()
        spread = abs(enclosure.mid() - target) / 2 + enclosure.rad() * 2
        radius = 2 * spread + balls.flint.arb(2) ** (-self.prec // 2) * (1 + abs(centre))
        radius = radius.upper()
        box = centre + balls.flint.acb(balls.flint.arb(0, radius), balls.flint.arb(0, radius))
        k = self.krawczyk(box, zb)
        if k is not None and box.contains(enclosure):
            return self._tighten(box, k, balls.flint.acb(balls.arb(self.x), balls.arb(bottom)))
        return None

    def _tighten(self, unique: Any, loose: Any, zb: Any) -> Any:
        """A small enclosure of the root of ``P(., z)`` that is unique in ``unique`` (and
        lies in ``loose``): a tiny box around a Newton approximation passing the
        Krawczyk test inside ``unique`` holds that same root (epsilon-inflation)."""
        approx = self._approx(loose, zb)
        eps = balls.flint.arb(2) ** (-self.prec + 24) * (1 + abs(approx))
        growth = 2 ** max(8, (self.prec - 32) // 8)  # eight tries reach 2^-8 |approx|
        for _ in range(8):
            side = balls.flint.arb(0, eps.upper())
            box = approx + balls.flint.acb(side, side)
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
                raise balls.NeedPrecision(f"continuation needs more than {MAX_PIECES} pieces")
            for _ in range(MAX_HALVINGS):
                bottom = max(top - step, Fraction(0))
                enclosure = self.segment(top, bottom, phys)
                if enclosure is not None:
                    phys, top, step = enclosure, bottom, 2 * step
                    break
                step /= 2
            else:
                raise balls.NeedPrecision(f"continuation stalled at Im z = {float(top):.3g}")
        roots = balls.tight_roots(self.coeffs(balls.flint.acb(balls.arb(self.x))), self.prec)
        match = [(kind, b) for kind, b in roots if balls.flint.acb(b).overlaps(phys)]
        if len(match) != 1:
            raise balls.NeedPrecision("the physical root at x is not separated")
        return match[0]


def _density(data: _LawData, x: Fraction, prec: int) -> Any:
    """Ball of the density at ``x`` (exact 0 when ``G(x + i0)`` is certainly real)."""
    with balls.flint.ctx.workprec(prec):
        t1 = data.theta1()
        coeffs = balls.poly_balls(balls.rows_at(data.cauchy, x, var=1, other=0), t1)
        kinds = balls.tight_roots(coeffs, prec)
        if all(kind == balls.REAL for kind, _ in kinds):  # G(x + i0) is one of them: real
            return balls.flint.arb(0)
        tracker = _Tracker(data, x, prec)
        kind, u = tracker.physical()
        if kind == balls.REAL:
            return balls.flint.arb(0)
        # G = u / (x - c) lies in the closed lower half-plane
        if kind == (balls.LOWER if tracker.x > 0 else balls.UPPER):
            return -u.imag / (balls.arb(tracker.x) * balls.flint.arb.pi())
        raise balls.NeedPrecision("the tracked G at x is in the upper half-plane")


def _check_point(data: _LawData, x: Fraction) -> str | None:
    """Why the density at ``x`` cannot be certified, decided exactly (in ``QQ[theta1]``):
    the leading coefficient of ``P(., x)`` vanishes (a root escapes to infinity: an atom
    or a hard edge), or ``P(., x)`` has a multiple root (a branch point, an edge
    candidate: the roots cannot be isolated at any precision); None otherwise."""
    rows = balls.rows_at(data.cauchy, x, var=1, other=0)
    if not rows.get(data.degree):
        return (f"the leading coefficient of P(G, x) vanishes at x = {x} (a root escapes "
                "to infinity: atom or hard edge)")
    ctx = balls.flint.fmpq_mpoly_ctx.get(("G", "t"), "lex")
    poly = ctx.from_dict({(i, k): balls.flint.fmpq(c.numerator, c.denominator)
                          for i, row in rows.items() for k, c in row.items()})
    if data.degree > 1 and poly.discriminant("G") == 0:
        return (f"P(G, x) has a multiple root at x = {x} (a branch point: an edge "
                "candidate)")
    return None


def _pdf_at(data: _LawData, x: Fraction, prec: int, max_prec: int,
            rtol: Fraction | None = None) -> balls.Result:
    if data.zero_density(x):
        return balls.Certified(Fraction(0), Fraction(0), prec)
    if x == 0 and not isinstance(data, _ExpressionData):
        return balls.Uncertified("x = 0 carries the atom / hard edge; the density there is not "
                           "certified")
    refused = _check_point(data, x)
    if refused:
        return balls.Uncertified(refused)
    result: balls.Result = balls.Uncertified("no precision tried")
    for p in balls.ladder(prec, max_prec):
        try:
            ball = _density(data, x, p)
        except balls.NeedPrecision as exc:
            if not result.certified:
                result = balls.Uncertified(f"{exc} (x = {float(x):.17g}, up to {p} bits)")
            continue
        with balls.flint.ctx.workprec(p):
            result = balls.ball_result(ball, p)
        if balls.narrow(result, rtol):
            break
    return result
