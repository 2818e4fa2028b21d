"""Integrals against a law's continuous part: mass, cdf, ppf and ``int f dnu`` (theory §7,
§7.1), the :class:`Quadrature` a law holds; its float64 integrals live here.

Each support interval is cut into panels, each mapped from ``v`` in ``[0, 1]`` so that
``pdf dx/dv`` is analytic there (:mod:`freege.numeric.quadrature_rules`: the panel maps,
the node rules and the constants, re-exported here). A panel's integral is accepted when
Gauss-Legendre with ``n`` and ``2n`` nodes agree to the tolerance (``n`` doubles from 16
up to :data:`MAX_NODES`); a panel that does not is halved in its ``u`` (a
near-singularity inside it, e.g. a complex branch point next to the support where two
bulks nearly separate) until every piece converges, at most :data:`SPLIT_DEPTH` times;
otherwise :class:`freege.errors.ConvergenceError` -- mass is never cut off silently.
Expectations ``int f dnu`` are adaptive on top of that: a sub-interval of ``v`` whose two
levels disagree at :data:`ADAPTIVE_NODES` nodes (:data:`EXPECT_NODES_F64` in float64) is
halved (``f`` may be nearly singular next to an edge, e.g. ``x/(x + lam)^2`` at tiny
``lam``). A float64 cdf inside a panel evaluates the antiderivative of the panel's
Legendre series (vectorised), a float64 ppf inverts it.

The working-precision integrals (mass, cdf, expectations) are
:class:`freege.numeric.quadrature_mp.QuadratureMP`, the entropy (both precisions)
:class:`freege.numeric.quadrature_entropy.QuadratureEntropy`; :class:`Quadrature` mixes
both in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
from numpy.polynomial import legendre

from freege.errors import ConvergenceError
from freege.numeric.quadrature_entropy import QuadratureEntropy
from freege.numeric.quadrature_mp import QuadratureMP
from freege.numeric.quadrature_rules import (
    ADAPTIVE_DEPTH,
    ADAPTIVE_NODES,
    CROSSOVER,
    ENTROPY_LEVELS,
    EXPECT_NODES_F64,
    F64_TOL,
    MAX_NODES,
    MIN_NODES,
    SPLIT_DEPTH,
    TINY_EDGE,
    DensityF64,
    DensityMP,
    HardEdge,
    Panel,
    gauss_legendre_mp,
    gl_f64,
    panels,
    v_range,
)


class Quadrature(QuadratureMP, QuadratureEntropy):
    """Integrals against the continuous part of one law: ``intervals`` (support, as
    ``(lo, hi)`` pairs at the ambient precision when used in mpmath), ``hard_order(a, b)``
    (the :class:`HardEdge` at ``a = 0``, or None), the density in float64 (``density_f64``,
    vectorised) and at the ambient precision (``density_mp``, list to list), ``describe``
    naming the law in error messages."""

    def __init__(
        self,
        intervals: Callable[[], Sequence[tuple[Any, Any]]],
        hard_order: Callable[[Any, Any], HardEdge | None],
        density_f64: DensityF64,
        density_mp: DensityMP,
        describe: dict | None = None,
    ) -> None:
        self.intervals = intervals
        self.hard_order = hard_order
        self.density_f64 = density_f64
        self.density_mp = density_mp
        self.describe = dict(describe or {})
        self._cache: dict[Any, Any] = {}

    # ------------------------------------------------------------------ panels
    def _panels(self, mp: bool) -> list[Panel]:
        key = ("panels", mpmath.mp.prec if mp else None)
        if key not in self._cache:
            out = []
            conv = mpmath.mpf if mp else float
            for a, b in self.intervals():
                edge = self.hard_order(a, b)
                if edge is not None and edge.reach is not None:
                    edge = edge._replace(reach=conv(edge.reach))
                out += panels(conv(a), conv(b), edge)
            self._cache[key] = out
        return self._cache[key]

    def _fail(self, what: str, panel: Panel, n: int, diff: Any) -> ConvergenceError:
        lo, hi = panel.bounds()
        return ConvergenceError(
            what, f"Gauss-Legendre did not converge on [{mpmath.nstr(lo, 8)}, "
            f"{mpmath.nstr(hi, 8)}] with {n} nodes (levels differ by {mpmath.nstr(diff, 3)})",
            self.describe)

    # ------------------------------------------------------------------ float64
    def _panel_f64(self, panel: Panel, cap: int = MAX_NODES) -> tuple[Any, int, Any]:
        """``(mass, n, values at the n nodes)`` of ``pdf dx/dv`` on a panel, at most ``cap``
        nodes."""
        n, prev = MIN_NODES, None
        while True:
            v, w = gl_f64(n)
            vals = self.density_f64(panel.x(v)) * panel.dx(v)
            total = np.sum(w * vals)
            if prev is not None and abs(total - prev) <= F64_TOL * max(1.0, abs(total)):
                return total, n, vals
            if n >= cap:
                raise self._fail("mass", panel, n, abs(total - prev))
            prev, n = total, 2 * n

    def _pieces(self, panel: Panel, integrate: Callable[[Panel, int], tuple[Any, ...]],
                depth: int = 0, cap: int = MAX_NODES) -> list[tuple[Any, ...]]:
        """``(piece, *integrate(piece, cap))`` covering a panel (``integrate``:
        :meth:`_panel_f64` or :meth:`_panel_mp`): the panel itself, or, when it does not
        converge at ``cap`` nodes (a near-singularity inside it: a complex branch point next
        to the support, where two bulks nearly separate), its halves in ``u``, each
        converged (at most :data:`ADAPTIVE_NODES` nodes before it is halved again),
        recursively up to :data:`SPLIT_DEPTH` halvings in all (then
        :class:`ConvergenceError`)."""
        try:
            return [(panel, *integrate(panel, cap))]
        except ConvergenceError:
            if depth >= SPLIT_DEPTH:
                raise
            return [piece for half in panel.halves()
                    for piece in self._pieces(half, integrate, depth + 1, ADAPTIVE_NODES)]

    def series_f64(self) -> list[tuple[Panel, float, np.ndarray]]:
        """Every piece of every panel (:meth:`_pieces`) with its mass and the Legendre
        series (in ``t = 2v - 1``) of its antiderivative, zero at ``v = 0``; cached per
        law (a pure function of the law)."""
        key = "series"
        if key not in self._cache:
            out = []
            for panel in self._panels(False):
                for piece, total, n, vals in self._pieces(panel, self._panel_f64):
                    t, w = legendre.leggauss(n)
                    # discrete Legendre transform of the integrand (exact for degree < n)
                    coef = (np.arange(n) + 0.5) * (legendre.legvander(t, n - 1).T @ (w * vals))
                    anti = legendre.legint(coef, lbnd=-1) / 2  # d/dv = 2 d/dt
                    out.append((piece, float(total), anti))
            self._cache[key] = out
        return self._cache[key]

    def mass_f64(self) -> float:
        """Mass of the continuous part (float64)."""
        return float(sum(total for _, total, _ in self.series_f64()))

    def cdf_f64(self, xs: np.ndarray) -> np.ndarray:
        """``int_{-inf}^x pdf`` (continuous part only) at each ``x``, float64."""
        xs = np.asarray(xs, dtype=float)
        out = np.zeros(xs.shape)
        for panel, total, anti in self.series_f64():
            lo, hi = panel.bounds()
            out += np.where(xs >= hi, total, 0.0)
            part = (xs > lo) & (xs < hi)
            if part.any():
                v = panel.v_of(xs[part])
                below = legendre.legval(2 * v - 1, anti)  # integral over [0, v]
                out[part] += below if panel.sign > 0 else total - below
        return out

    def ppf_f64(self, targets: np.ndarray) -> np.ndarray:
        """The ``x`` where the continuous part's cdf reaches each target mass (in ``[0,
        mass]``), float64: the panel holding it, then a vectorised safeguarded
        Newton-bisection in ``v`` on the panel's antiderivative series (monotone), until
        the step is at the rounding level (else :class:`ConvergenceError`)."""
        targets = np.asarray(targets, dtype=float)
        out = np.full(targets.shape, np.nan)
        below = 0.0
        # in increasing x: the halves of an upper panel (sign -1) come from its anchor down
        pieces = sorted(self.series_f64(), key=lambda piece: piece[0].bounds()[0])
        for k, (panel, total, anti) in enumerate(pieces):
            last = k == len(pieces) - 1
            here = (targets >= below) & ((targets < below + total) | last) & np.isnan(out)
            if here.any():
                rest = np.clip(targets[here] - below, 0.0, total)
                goal = rest if panel.sign > 0 else total - rest  # integral over [0, v]
                out[here] = panel.x(self._invert_series(anti, goal))
            below += total
        return out

    def _invert_series(self, anti: np.ndarray, goal: np.ndarray) -> np.ndarray:
        deriv = legendre.legder(anti) * 2  # d/dv
        lo, hi = np.zeros(goal.shape), np.ones(goal.shape)
        v = np.full(goal.shape, 0.5)
        for _ in range(200):
            f = legendre.legval(2 * v - 1, anti) - goal
            lo, hi = np.where(f < 0, v, lo), np.where(f >= 0, v, hi)
            d = legendre.legval(2 * v - 1, deriv)
            with np.errstate(all="ignore"):
                newton = v - f / d
            new = np.where((d > 0) & (newton > lo) & (newton < hi), newton, (lo + hi) / 2)
            done = np.abs(new - v) <= 8 * np.finfo(float).eps
            v = new
            if done.all():
                return v
        raise ConvergenceError("ppf", "Newton-bisection on a panel's cdf series did not "
                               "converge in 200 steps", self.describe)

    def expect_f64(self, func: Callable[[np.ndarray], np.ndarray], lb: Any = None,
                   ub: Any = None) -> Any:
        """``int func pdf`` over the continuous part in ``[lb, ub]`` (None: unbounded),
        float64, adaptive in ``v`` (see :meth:`_adaptive`) because ``func`` may be nearly
        singular near an edge."""
        cuts = tuple((p, *cut) for p in self._panels(False)
                     if (cut := v_range(p, lb, ub, False)) is not None)
        if not cuts:
            return 0
        x, weights, starts, widths = self._first_levels_f64(cuts)
        sums = np.add.reduceat(weights * func(x), starts) * widths
        total = 0.0
        for k, (panel, lo, hi) in enumerate(cuts):
            part, prev = sums[2 * k + 1].item(), sums[2 * k].item()
            tol = F64_TOL * max(1, abs(part))
            if abs(part - prev) <= tol * max(hi - lo, 2.0**-20):
                total += part  # the first two levels agree (the test of :meth:`_adaptive`)
            else:
                total += self._adaptive(panel, func, False, lo, hi)
        return total

    def _first_levels_f64(self, cuts: tuple[tuple[Panel, float, float], ...]
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The first two Gauss-Legendre levels (:data:`MIN_NODES` and twice that) of every
        ``(panel, lo, hi)`` cut in one table: nodes ``x``, weights ``w pdf dx/dv`` (the
        density evaluated in one batch for all of them, and shared with
        :meth:`_gl_f64_part`), the start of each ``(cut, level)`` block and its width
        ``hi - lo`` (cached per law and cuts: a pure function of both)."""
        key = ("levels", cuts)
        if key not in self._cache:
            blocks = [(panel, lo, hi, n) for panel, lo, hi in cuts
                      for n in (MIN_NODES, 2 * MIN_NODES)]
            todo = [b for b in blocks if ("nodes", *b) not in self._cache]
            if todo:
                vs = [lo + (hi - lo) * gl_f64(n)[0] for _, lo, hi, n in todo]
                xs = [panel.x(v) for (panel, *_), v in zip(todo, vs, strict=True)]
                dens = np.split(self.density_f64(np.concatenate(xs)),
                                np.cumsum([x.size for x in xs])[:-1])
                for (panel, lo, hi, n), v, x, d in zip(todo, vs, xs, dens, strict=True):
                    self._cache[("nodes", panel, lo, hi, n)] = (x, gl_f64(n)[1] * d
                                                                * panel.dx(v))
            parts = [self._cache[("nodes", *b)] for b in blocks]
            sizes = [x.size for x, _ in parts]
            self._cache[key] = (np.concatenate([x for x, _ in parts]),
                                np.concatenate([w for _, w in parts]),
                                np.concatenate([[0], np.cumsum(sizes)[:-1]]),
                                np.array([hi - lo for _, lo, hi, _ in blocks]))
        return self._cache[key]

    def _adaptive(self, panel: Panel, func: Callable, mp: bool, v_lo: Any = 0,
                  v_hi: Any = 1) -> Any:
        """``int_0^1 pdf dx/dv func dv`` on ``panel``: Gauss-Legendre on ``[lo, hi]`` with
        ``n`` and ``2n`` nodes (16 to :data:`ADAPTIVE_NODES`, in float64
        :data:`EXPECT_NODES_F64`); a sub-interval that does not
        converge is halved (a near-singular ``func``, e.g. ``x/(x + lam)^2`` with a tiny
        ``lam`` next to a hard edge, needs geometric refinement towards it), at most
        :data:`ADAPTIVE_DEPTH` times; then :class:`ConvergenceError`. The tolerance of a
        sub-interval is its share ``(hi - lo)`` of the panel's. In float64 the pending
        sub-intervals advance together, a round at a time, their nodes' densities in one
        batch (:meth:`_prefetch_f64`: near a hard edge each batch is a working-precision
        path solve, whose cost is mostly per call); the accepted parts are summed in
        increasing ``v``, so the answer does not depend on the order of work."""
        if not mp:
            return self._adaptive_f64(panel, func, float(v_lo), float(v_hi))
        todo = [(mpmath.mpf(v_lo), mpmath.mpf(v_hi), 0)]
        total = mpmath.mpf(0)
        while todo:
            lo, hi, depth = todo.pop()
            n, prev = MIN_NODES, None
            while True:
                part = self._gl_mp(panel, lo, hi, n, func)
                tol = self._tol_mp() * max(1, abs(part))
                if prev is not None and abs(part - prev) <= tol * max(hi - lo, 2.0**-20):
                    total += part
                    break
                if n >= ADAPTIVE_NODES:
                    if depth >= ADAPTIVE_DEPTH:
                        raise self._fail("expectation", panel, n, abs(part - prev))
                    mid = (lo + hi) / 2
                    todo += [(lo, mid, depth + 1), (mid, hi, depth + 1)]
                    break
                prev, n = part, 2 * n
        return total

    def _adaptive_f64(self, panel: Panel, func: Callable, v_lo: float, v_hi: float) -> Any:
        """The float64 branch of :meth:`_adaptive`, breadth first: each pending
        ``(lo, hi, depth, n, previous level)`` is advanced once per round."""
        pending: list[tuple[float, float, int, int, Any]] = [(v_lo, v_hi, 0, MIN_NODES, None)]
        accepted: list[tuple[float, Any]] = []  # (lo, part): real or complex parts
        while pending:
            # a new sub-interval needs its first two levels; the others their next one
            self._prefetch_f64(panel, [(lo, hi, m) for lo, hi, _, n, prev in pending
                                       for m in ((n, 2 * n) if prev is None else (n,))])
            after = []
            for lo, hi, depth, n, prev in pending:
                part = self._gl_f64_part(panel, lo, hi, n, func)
                if prev is None:
                    prev, n = part, 2 * n
                    part = self._gl_f64_part(panel, lo, hi, n, func)
                tol = F64_TOL * max(1, abs(part))
                if abs(part - prev) <= tol * max(hi - lo, 2.0**-20):
                    accepted.append((lo, part))
                elif n < EXPECT_NODES_F64:
                    after.append((lo, hi, depth, 2 * n, part))
                elif depth >= ADAPTIVE_DEPTH:
                    raise self._fail("expectation", panel, n, abs(part - prev))
                else:
                    mid = (lo + hi) / 2
                    after += [(lo, mid, depth + 1, MIN_NODES, None),
                              (mid, hi, depth + 1, MIN_NODES, None)]
            pending = after
        return sum((part for _, part in sorted(accepted, key=lambda item: item[0])), 0.0)

    def _prefetch_f64(self, panel: Panel, blocks: Sequence[tuple[float, float, int]]) -> None:
        """The nodes of :meth:`_gl_f64_part` for every ``(lo, hi, n)`` not yet cached, their
        densities in one :meth:`density_f64` call."""
        todo = list(dict.fromkeys(b for b in blocks if ("nodes", panel, *b) not in self._cache))
        if not todo:
            return
        vs = [lo + (hi - lo) * gl_f64(n)[0] for lo, hi, n in todo]
        xs = [panel.x(v) for v in vs]
        dens = np.split(self.density_f64(np.concatenate(xs)),
                        np.cumsum([x.size for x in xs])[:-1])
        for (lo, hi, n), v, x, d in zip(todo, vs, xs, dens, strict=True):
            self._cache[("nodes", panel, lo, hi, n)] = (x, gl_f64(n)[1] * d * panel.dx(v))

    def _gl_f64_part(self, panel: Panel, lo: float, hi: float, n: int,
                     func: Callable) -> Any:
        """Gauss-Legendre with ``n`` nodes of ``pdf dx/dv func`` over ``v`` in ``[lo, hi]``
        (the nodes and the weighted density at them cached per law: many ``func`` share
        them)."""
        key = ("nodes", panel, lo, hi, n)
        if key not in self._cache:
            v, w = gl_f64(n)
            v = lo + (hi - lo) * v
            x = panel.x(v)
            self._cache[key] = (x, w * self.density_f64(x) * panel.dx(v))
        x, weights = self._cache[key]
        return np.sum(weights * func(x)).item() * (hi - lo)


__all__ = [
    "ADAPTIVE_DEPTH", "ADAPTIVE_NODES", "CROSSOVER", "ENTROPY_LEVELS", "F64_TOL", "MAX_NODES",
    "MIN_NODES", "SPLIT_DEPTH", "TINY_EDGE", "DensityF64", "DensityMP", "HardEdge", "Panel",
    "Quadrature", "gauss_legendre_mp", "panels",
]
