"""Where ``tau ⊠ nu`` lives when ``tau`` is a density on one interval ``[a, A]``, ``a > 0``
(the finite-width law's profile, theory §2.3 "Where the finite-width law lives"), and
``nu`` a law whose support intervals and atoms are known (the §4 limit factor).

The scan of :mod:`freege.numeric.data_support` cannot see this law's edges: the profile's
tails are cut where their mass falls below ``1e-17``, so near its ends the law's density
is far below float64's reach of its peak, and no grid tells inside from outside there.
Here the edges come from the real subordination functions instead, one variable at a
time.

**The parametrisation.** Off the support, on the real axis, ``h = x G(x)`` is real and
decreasing in ``x`` (``dh/dx = -int t/(x - t)^2 dmu < 0``), and the node's equations
(:class:`freege.numeric.subordination.FreeMultNode`) say ``h = W_tau G_tau(W_tau) =
W_nu G_nu(W_nu)`` and ``x = W_nu (h - 1)/G_tau(W_tau)``, with each ``W`` real and off its
operand's support. Each operand's ``h_op(w) = w G_op(w)`` decreases on every arc of the
real line (through infinity) off its support, from the value at the arc's left end to
the value at its right end (``h_op = 1`` at infinity; an atom at 0 is no end: ``h_op``
is continuous there). So for each pair (``tau``'s one arc ``(A, inf] U [-inf, a)``, an
arc of ``nu``) and each ``h`` in the overlap of their ranges, both ``W`` are found by a
one-dimensional monotone solve (:func:`_invert`) and ``x(h)`` follows; the complement of
the support in ``(0, inf)`` is the union over the pairs of ``{x(h) : x(h) > 0, x'(h) <
0}`` (the branch on which ``h`` decreases in ``x``). Its pieces are found on a grid of
``h`` (:data:`GRID` uniform points, :data:`END_POINTS` graded toward each end of the
overlap and toward ``h = 1``), and their ends are the edges:

* a **fold**: ``x'(h)`` changes sign; bisected in ``h``, then solved and verified by the
  node's edge equations (:func:`freege.numeric.data_support.refine_edge`: the real branch
  bisected to the fold, Newton on the equations with ``det J = 0``); the two must agree
  within :data:`FOLD_AGREE` of the scale. A float64 fold those equations do not settle
  (next to the profile's cut end, where ``G_tau`` bends sharply) is the bisected fold,
  confirmed by the engine's own solve :data:`ONSET` of the scale on either side (real
  outside, a density inside: :func:`_fold_onset`);
* a **cut edge**: the range ends where ``W_tau`` reaches ``a`` or ``A`` (the profile's
  cut ends, where its density is ``J``, at most ``1e-17``-tail small): ``x`` at ``W_tau``
  :data:`DELTA` of the scale off the end, taken to the end by one Taylor step. At the cut
  end ``G_tau`` has a logarithmic term ``J log(w - A)`` that folds the branch within
  about ``J/|G_tau'|`` of the end; the edge moves by about ``(J/|G_tau|) (1 + log(1/(J
  (A - a))))`` relative, checked below ``1e-14`` (float64) or ``10^-dps``
  (:func:`_cut_shift`), else :class:`freege.errors.ConvergenceError`;
* ``x = 0`` (the piece reaches 0: the support is away from 0) or ``x = inf``.

A range that ends at one of ``nu``'s own edges with the piece still open (``W_nu`` within
:data:`DELTA_LIMIT` of it) has its fold in that sliver: it is found by the edge equations
from the real branch at the range's end, toward a point :data:`SLIVER` of the scale
inward (:func:`freege.numeric.data_support.refine_edge`), or, when they do not settle
(float64), where the engine's density begins (:func:`_onset`).

**Verification.** At :data:`VERIFY_POINTS` grid points of each piece of the complement,
its two ends among them (within about ``1e-14`` of the range's ends in ``h``, so near the
edges in ``x``), the engine's own solve from the upper half plane
(:meth:`freege.numeric.subordination.Node.solve_value_f64`, an independent route) must
give a real ``G`` equal to the parametrisation's ``h/x`` within :data:`AGREE`. No mass
check follows: near 0 an MHA law at ratio 1 has a density like ``x^(-3/4)``, with mass
``1e-3`` below ``1e-12``, where the float64 limit factor hands over to mpmath (minutes).
A gap of the support narrower than the ``h`` grid can resolve is what no check here sees.

At ``dps`` digits (``f64`` False), a fold is solved at the ambient precision by
:func:`freege.numeric.data_support.refine_edge` and a cut edge from ``G_tau`` and
``G_nu`` at the ambient precision (``W_nu`` by :func:`mpmath.findroot` from the float64
root, verified).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.data_support import refine_edge

#: uniform grid points of ``h`` per pair of arcs
GRID = 600
#: points graded geometrically toward each end of a pair's range (and toward ``h = 1``)
END_POINTS = 120
#: the offset, relative to the operand's scale, from the profile's ends at which its
#: ``h_op`` is evaluated (the range's end), and from the limit factor's ends (its
#: square-root and hard edges: ``h_op`` moves like the square root of the offset there,
#: and its float64 ``G'`` loses its digits within about 1e-7 of them)
DELTA, DELTA_LIMIT = 1e-13, 1e-7
#: the engine's ``G`` and the parametrisation's ``h/x`` agree within this (relative)
AGREE = 1e-9
#: grid points of each piece of the complement (its two ends among them) where the
#: engine's own solve checks it
VERIFY_POINTS = 17
#: a fold from the grid and from the edge equations agree within this of the scale
FOLD_AGREE = 1e-7
#: the offset (relative to the scale) at which the engine confirms a fold the edge
#: equations do not settle (:func:`_fold_onset`)
ONSET = 1e-9
#: how far (relative to the scale) past the end of a range at the limit factor's edge
#: the fold is looked for
SLIVER = 1e-3
#: points across a fold's bracket each round of :func:`_fold_h`
FOLD_POINTS = 34
#: iterations of the monotone solves and of a fold's bisection, at most
STEPS = 200


# ---------------------------------------------------------------------- arcs
class _Arc:
    """An arc of the real line (through infinity when ``outer``) off an operand's support:
    from ``left`` (a support end, the arc's left end) to ``right``; ``h_op`` decreases
    along it from ``h_left`` to ``h_right``. For the outer arc ``left`` is the support's
    top and ``right`` its bottom (the arc passes through infinity, where ``h_op = 1``)."""

    def __init__(self, op: Any, left: float, right: float, outer: bool, delta: float
                 ) -> None:
        self.op, self.left, self.right, self.outer = op, left, right, outer
        self.scale, self.delta = op.scale(), delta
        self.m1 = float(op.mean_mp())
        d = delta * self.scale
        self.h_left = float(_h(op, np.array([left + d]))[0][0])
        self.h_right = float(_h(op, np.array([right - d]))[0][0])
        if not (math.isfinite(self.h_left) and math.isfinite(self.h_right)):
            raise ConvergenceError("support", "h = w G(w) is not finite beside an end of "
                                   "an operand's support", {**op.describe,
                                                            "ends": (left, right)})

    def brackets(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lo, hi, anchor)`` bracketing ``W`` with ``h_op(W) = h`` (``anchor``: the
        finite end the solve bisects geometrically toward, nan for an inner arc): for the
        outer arc beyond the top ``h_op(w) - 1 <= m1/(w - top)`` and below the bottom
        ``1 - h_op(w) <= m1/|w|`` (``w < 0``), so twice those bounds hold the root."""
        d = self.delta * self.scale
        if not self.outer:
            n = h.size
            return (np.full(n, self.left + d), np.full(n, self.right - d),
                    np.full(n, np.nan))
        with np.errstate(divide="ignore"):
            above = h > 1
            # twice the bound: room for an operand whose mean is its moments' (a kernel
            # mixture's, exactly) and whose Cauchy transform is its cut density's
            far_up = self.left + 2 * self.m1 / (h - 1) + d
            far_down = -2 * self.m1 / (1 - h) - d + min(self.right, 0.0)
        lo = np.where(above, self.left + d, far_down)
        hi = np.where(above, far_up, self.right - d)
        return lo, hi, np.where(above, self.left, self.right)


def _h(op: Any, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(h, h', G, G')`` of ``op`` at real points ``w`` off its support (float64)."""
    g, dg = op.cauchy_f64(w + 0j)
    g, dg = g.real, dg.real
    return w * g, g + w * dg, g, dg


def _midpoint(lo: np.ndarray, hi: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """The middle of ``[lo, hi]``: arithmetic where ``anchor`` is nan, else geometric in
    the distance to ``anchor`` (an end outside the bracket)."""
    return np.where(np.isnan(anchor), (lo + hi) / 2,
                    anchor + np.sign(lo - anchor) * np.sqrt(np.abs((lo - anchor)
                                                                   * (hi - anchor))))


def _invert(arc: _Arc, h: np.ndarray) -> np.ndarray:
    """``W`` on ``arc`` with ``h_op(W) = h`` (vectorised): safeguarded Newton on the
    increasing ``h - h_op`` (in ``log|W - end|`` on the outer arc, ``end`` the arc's end on
    the root's side), a step leaving the bracket replaced by its midpoint
    (geometric toward the arc's finite end), until ``|h - h_op|`` is at ``h_op``'s rounding
    (32 ulps) or the step or the bracket is below 4 ulps of ``W``; nan where the bracket
    does not hold the root or the solve does not settle."""
    lo, hi, anchor = arc.brackets(h)
    f_lo = h - _h(arc.op, lo)[0]
    f_hi = h - _h(arc.op, hi)[0]
    ok = (f_lo <= 0) & (f_hi >= 0)
    w = _midpoint(lo, hi, anchor)
    out = np.full(h.shape, np.nan)
    todo = np.flatnonzero(ok)
    with np.errstate(all="ignore"):
        for _ in range(STEPS):
            if not todo.size:
                return out
            at = w[todo]
            hv, dh, _, _ = _h(arc.op, at)
            value = h[todo] - hv
            below = value < 0
            lo[todo] = np.where(below, at, lo[todo])
            hi[todo] = np.where(below, hi[todo], at)
            a = anchor[todo]
            # Newton in w on an inner arc, in s = log|w - anchor| toward a finite end
            # (h_op moves like a power of the distance there: Newton in s settles)
            new = np.where(np.isnan(a), at + value / dh,
                           a + (at - a) * np.exp(value / (dh * (at - a))))
            mid = _midpoint(lo[todo], hi[todo], a)
            # a Newton step only where h_op' < 0 (as it must be: near an edge the float64
            # G' of an algebraic law can lose its sign) and it stays in the bracket
            inside = (dh < 0) & np.isfinite(new) & (new > lo[todo]) & (new < hi[todo])
            nxt = np.where(inside, new, mid)
            size = np.maximum(np.abs(at), 1e-300)
            eps = np.finfo(float).eps
            # the root as good as h_op's rounding allows: |h - h_op| at its noise (32 ulps)
            settled = np.abs(value) <= 32 * eps * np.maximum(np.abs(h[todo]), 1.0)
            done = settled | (np.abs(nxt - at) <= 4 * eps * size) \
                | (hi[todo] - lo[todo] <= 4 * eps * size)
            w[todo] = np.where(settled, at, nxt)
            out[todo[done]] = w[todo[done]]
            todo = todo[~done]
    return out


def _merged(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The union of the intervals ``pairs`` (ends compared as floats, kept as given), as
    sorted disjoint ``(lo, hi)``."""
    out: list[tuple[Any, Any]] = []
    for lo, hi in sorted(pairs, key=lambda p: float(p[0])):
        if out and float(lo) <= float(out[-1][1]):
            if float(hi) > float(out[-1][1]):
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _arcs(op: Any) -> list[_Arc]:
    """The arcs off ``op``'s support: the outer one and one per gap between its support
    pieces (intervals and atoms away from 0; an atom at 0 is no end)."""
    pieces = [(float(a), float(b)) for a, b in op.intervals_mp()]
    pieces += [(float(x), float(x)) for x, _ in op.atoms_mp() if x != 0]
    merged = _merged(pieces)
    if not merged:
        raise ConvergenceError("support", "an operand has no support", op.describe)
    arcs = [_Arc(op, merged[-1][1], merged[0][0], True, DELTA_LIMIT)]
    arcs += [_Arc(op, merged[k][1], merged[k + 1][0], False, DELTA_LIMIT)
             for k in range(len(merged) - 1)]
    return arcs


# ---------------------------------------------------------------------- one pair
class _Curve:
    """``x(h)`` and ``x'(h)`` for one pair of arcs (module docstring)."""

    def __init__(self, tau: _Arc, nu: _Arc) -> None:
        self.tau, self.nu = tau, nu

    def at(self, h: np.ndarray) -> dict[str, np.ndarray]:
        wt, wn = _invert(self.tau, h), _invert(self.nu, h)
        _, dht, gt, dgt = _h(self.tau.op, wt)
        _, dhn, _, _ = _h(self.nu.op, wn)
        with np.errstate(all="ignore"):
            x = wn * (h - 1) / gt
            # d/dh: W' = 1/h_op'(W), G_tau' W_tau'
            dx = (((h - 1) / dhn + wn) / gt - wn * (h - 1) * dgt / (dht * gt * gt))
        return {"h": h, "wt": wt, "wn": wn, "x": x, "dx": dx}


def _grid(lo: float, hi: float) -> np.ndarray:
    """``h`` points in ``(lo, hi)``: uniform, graded toward both ends (to 1e-14 of the
    width) and toward 1 (to 1e-8)."""
    width = hi - lo
    near = np.logspace(-14, -1, END_POINTS)
    pts = [lo + width * np.linspace(0, 1, GRID)[1:-1], lo + width * near, hi - width * near]
    if lo < 1 < hi:  # W -> inf at h = 1: as near as 1e-8 (W about 1e8 m1)
        pts += [1 - np.logspace(-8, -1, END_POINTS) * width,
                1 + np.logspace(-8, -1, END_POINTS) * width]
    h = np.unique(np.concatenate(pts))
    return h[(h > lo) & (h < hi) & (h != 1)]


def _fold_h(curve: _Curve, h_good: float, h_bad: float) -> float:
    """The ``h`` between a point with ``x' < 0`` and one with ``x' >= 0`` where ``x'``
    changes sign: :data:`FOLD_POINTS` points across the bracket a round (one vectorised
    solve), the bracket narrowed to the cell where the sign changes, until it stops
    shrinking (float64 resolution)."""
    for _ in range(STEPS):
        hs = np.linspace(h_good, h_bad, FOLD_POINTS)[1:-1]
        dx = curve.at(hs)["dx"]
        flip = np.flatnonzero(~(dx < 0))  # the first point past the fold, from h_good
        k = int(flip[0]) if flip.size else hs.size
        new_good = hs[k - 1] if k > 0 else h_good
        new_bad = hs[k] if k < hs.size else h_bad
        if (new_good, new_bad) == (h_good, h_bad):
            break
        h_good, h_bad = new_good, new_bad
    return h_good


def _cut_shift(op: Any, end: float, g_end: float) -> float:
    """The relative move of a cut edge (module docstring): ``(J/|G|)(1 + log(1/(J w)))``,
    ``J`` the density at the cut end, ``w`` the profile's width."""
    j = abs(float(op.pdf_f64(np.array([end]))[0]))
    width = op.b - op.a
    if j <= 0:
        return 0.0
    return j / abs(g_end) * (1 + max(math.log(1 / (j * width)), 0.0))


def _pieces(node: Any, curve: _Curve, f64: bool) -> list[tuple[Any, Any]]:
    """The complement pieces ``(lo, hi)`` in ``(0, inf)`` from one pair of arcs."""
    lo_h = max(curve.tau.h_right, curve.nu.h_right)
    hi_h = min(curve.tau.h_left, curve.nu.h_left)
    if not lo_h < hi_h:
        return []
    pts = curve.at(_grid(lo_h, hi_h))
    ok = np.isfinite(pts["x"]) & np.isfinite(pts["dx"])
    if not ok.all():
        raise ConvergenceError("support", f"the subordination functions' real solves failed "
                               f"at {int((~ok).sum())} of {ok.size} points", node.describe)
    good = (pts["dx"] < 0) & (pts["x"] > 0)
    out = []
    n = good.size
    k = 0
    while k < n:
        if not good[k]:
            k += 1
            continue
        i = k
        while k + 1 < n and good[k + 1]:
            k += 1
        j = k
        k += 1
        top = _end(node, curve, pts, i, i - 1, lo_h, True, f64)
        bottom = _end(node, curve, pts, j, j + 1, hi_h, False, f64)
        _verify(node, pts, sorted(set(np.linspace(i, j, VERIFY_POINTS).astype(int).tolist())))
        out.append((bottom, top))
    return out


def _end(node: Any, curve: _Curve, pts: dict[str, np.ndarray], at: int, beside: int,
         range_end: float, upper: bool, f64: bool) -> Any:
    """The x-end of a piece at its grid point ``at`` whose neighbour ``beside`` is not in
    it (``beside`` off the grid: the range's end ``range_end``); ``upper``: the piece's
    upper end (the low-``h`` side)."""
    n = pts["h"].size
    if 0 <= beside < n:
        if pts["dx"][beside] >= 0:  # a fold between
            pair = (pts["h"][at], pts["h"][beside])
            h_f = _fold_h(curve, *pair)
            near = curve.at(np.array([h_f]))
            x_f = float(near["x"][0])
            if not x_f > 0:
                return 0.0 if not upper else math.inf
            x_out = float(pts["x"][at])
            x_in = 2 * x_f - x_out
            seed = [float(pts["wt"][at]), float(pts["wn"][at])]
            try:
                edge = refine_edge(node, x_out, x_in, abs(x_out - x_f), f64, seed)
            except ConvergenceError:
                if not f64:
                    raise
                return _fold_onset(node, x_f, 1.0 if upper else -1.0)
            if abs(float(edge) - x_f) > FOLD_AGREE * node.scale():
                raise ConvergenceError("support edge", "the fold from the subordination "
                                       "functions and from the edge equations disagree",
                                       {**node.describe, "grid": x_f, "edge": float(edge)})
            return edge
        # x' < 0 on both sides: x left (0, inf) between them, through 0 or infinity
        return math.inf if upper else 0.0
    # the range's end: the profile's cut, or nu's own edge
    tau_end = (curve.tau.h_right if upper else curve.tau.h_left) == range_end
    if tau_end:
        return _cut_edge(node, curve, upper, f64)
    # W_nu within DELTA_LIMIT of nu's edge: the fold lies in that sliver (h_nu moves like
    # the square root of the offset there); the edge equations find it from the real
    # branch at the sliver's end, else the engine's density onset
    inward = 1.0 if upper else -1.0
    x_out = float(pts["x"][at])
    x_in = x_out + inward * SLIVER * node.scale()
    seed = [float(pts["wt"][at]), float(pts["wn"][at])]
    try:
        return refine_edge(node, x_out, x_in, SLIVER * node.scale(), f64, seed)
    except ConvergenceError:
        if not f64:
            raise
    return _onset(node, x_out, x_in)


def _fold_onset(node: Any, x_f: float, inward: float) -> mpmath.mpf:
    """A float64 fold the edge equations do not settle (a fold next to the profile's cut
    end, where ``G_tau`` bends sharply): the bisected fold ``x_f``, verified by the
    engine's own solve :data:`ONSET` of the scale beside it: real outside (``|Im G|``
    below ``1e-12 |G|``), a density inside (``-Im G`` above ``1e-10 |G|``); else
    :class:`ConvergenceError`. ``inward``: the side of the support (+1: above ``x_f``)."""
    step = ONSET * node.scale()
    g_out, g_in = node.cauchy_f64(np.array([x_f - inward * step, x_f + inward * step]) + 0j)[0]
    if not (abs(g_out.imag) <= 1e-12 * abs(g_out) and -g_in.imag > 1e-10 * abs(g_in)):
        raise ConvergenceError("support edge", "neither the edge equations nor the engine's "
                               "density confirm the fold", {**node.describe, "x": x_f})
    return mpmath.mpf(x_f)


def _onset(node: Any, x_out: float, x_in: float) -> mpmath.mpf:
    """Where the engine's density begins between a point off the support (``x_out``, its
    ``G`` real) and one on it (``x_in``, a density): bisection on ``-Im G > 1e-10 |G|``
    to :data:`ONSET` of the scale, then confirmed as :func:`_fold_onset` does; else
    :class:`ConvergenceError`."""
    def inside(x: float) -> bool:
        g = node.cauchy_f64(np.array([x + 0j]))[0][0]
        return bool(-g.imag > 1e-10 * abs(g))

    if inside(x_out) or not inside(x_in):
        raise ConvergenceError("support edge", "the engine's density does not begin between "
                               "the real branch's end and the support",
                               {**node.describe, "x": x_out})
    while abs(x_in - x_out) > ONSET * node.scale():
        mid = (x_out + x_in) / 2
        if mid in (x_out, x_in):
            break
        x_out, x_in = (x_out, mid) if inside(mid) else (mid, x_in)
    edge = (x_out + x_in) / 2
    return _fold_onset(node, edge, 1.0 if x_in > x_out else -1.0)


def _cut_edge(node: Any, curve: _Curve, upper: bool, f64: bool) -> Any:
    """The edge where ``W_tau`` reaches the profile's cut end (``a`` for the piece's upper
    end, ``A`` for its lower end), to the ambient precision (module docstring)."""
    tau = curve.tau
    op = tau.op
    end = tau.right if upper else tau.left
    sign = -1.0 if upper else 1.0
    d = DELTA * tau.scale
    w = np.array([end + sign * d])
    h, dh, g, dg = _h(op, w)
    near = curve.at(h)
    x, dx = float(near["x"][0]), float(near["dx"][0])
    edge: Any = x - dx * dh[0] * sign * d  # one Taylor step: dx/dw = x'(h) h_tau'(w)
    tol = 1e-14 if f64 else float(mpmath.mpf(10) ** -mpmath.mp.dps)
    shift = _cut_shift(op, end, float(g[0]))
    if shift > tol:
        raise ConvergenceError("support edge", f"the edge at the profile's cut is known to "
                               f"{shift:.1e} relative only (the profile's density at its "
                               f"cut end; float64 or fewer digits)", node.describe)
    if f64:
        return mpmath.mpf(edge)
    return _cut_edge_mp(curve, end, float(near["wn"][0]))


def _cut_edge_mp(curve: _Curve, end: float, wn0: float) -> mpmath.mpf:
    """The cut edge at the ambient precision: ``G_tau`` at ``end`` (off it by
    ``10^-(dps + 5)`` of the scale, one Taylor step back), ``W_nu`` by Newton
    (:func:`mpmath.findroot`, verified) from the float64 root."""
    tau, nu = curve.tau.op, curve.nu.op
    d = mpmath.mpf(10) ** (-mpmath.mp.dps - 5) * curve.tau.scale
    e = mpmath.mpf(end)
    w = e + d if end == curve.tau.left else e - d
    g, dg = (mpmath.re(v) for v in tau.cauchy_mp(w))
    g = g - dg * (w - e)
    h = e * g

    def f(v: Any) -> Any:
        return v * mpmath.re(nu.cauchy_mp(v)[0]) - h

    try:
        wn = mpmath.findroot(f, mpmath.mpf(wn0), tol=mpmath.mpf(10) ** (-2 * mpmath.mp.dps),
                             verify=True)
    except (ValueError, ZeroDivisionError) as exc:
        raise ConvergenceError("support edge", f"the limit factor's subordination point at "
                               f"the cut does not converge ({exc})",
                               nu.describe) from None
    return +(wn * (h - 1) / g)


def _verify(node: Any, pts: dict[str, np.ndarray], idx: list[int]) -> None:
    """The engine's own solve from above at the points ``idx`` (those within 4 times the
    node's hull, else the run's point nearest 0) gives a real ``G`` equal to the
    parametrisation's ``h/x`` (:data:`AGREE`), else :class:`ConvergenceError`."""
    top = 4 * node.hull()[1]  # far out the engine's path solve has nothing to check
    idx = [k for k in idx if pts["x"][k] <= top] or [int(np.argmin(pts["x"][idx[0]:idx[-1] + 1]))
                                                     + idx[0]]
    xs = pts["x"][idx]
    want = pts["h"][idx] / xs
    got = node.cauchy_f64(xs + 0j)[0]
    bad = ~(np.abs(got - want) <= AGREE * np.abs(want))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ConvergenceError("support", "off the support the engine's G and the "
                               "subordination functions' disagree",
                               {**node.describe, "x": float(xs[k]),
                                "engine": complex(got[k]), "parametrised": float(want[k])})


# ---------------------------------------------------------------------- the support
def intervals(node: Any, f64: bool) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """The support intervals of ``node = tau ⊠ nu``'s continuous part (module docstring),
    at the ambient precision (``f64``: edges to float64 accuracy). ``tau`` (the first
    child) is a :class:`freege.numeric.density_operand.DensityOperand` on ``[a, A]``,
    ``a > 0``."""
    tau_op, nu_op = node.children
    if not tau_op.a > 0:
        raise ValueError("mult_support: the profile must lie on [a, A] with a > 0")
    tau = _Arc(tau_op, tau_op.b, tau_op.a, True, DELTA)
    pieces = []
    for arc in _arcs(nu_op):
        pieces += _pieces(node, _Curve(tau, arc), f64)
    merged = _merged(pieces)
    if not merged or float(merged[-1][1]) != math.inf:
        raise ConvergenceError("support", "no piece of the complement reaches infinity",
                               node.describe)
    out = []
    start: Any = mpmath.mpf(0)
    for lo, hi in merged:
        if float(lo) > float(start):
            out.append((mpmath.mpf(start), mpmath.mpf(lo)))
        start = hi
    return out


__all__ = ["intervals"]
