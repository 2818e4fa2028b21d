"""Integrals against a law's continuous part: mass, cdf and ``int f dnu`` (theory §7, §7.1).

Each support interval ``[a, b]`` is cut into *panels*, and each panel is mapped from
``v`` in ``[0, 1]`` so that ``pdf(x(v)) x'(v)`` is analytic on ``[0, 1]``; Gauss-Legendre
in ``v`` then converges geometrically:

* a soft edge (``pdf ~ |x - e|^(1/2)``): ``x = e +- L v^2`` (power 2);
* a hard edge at 0 of order ``m`` (``pdf ~ x^(-m/(m+1))`` times a series in
  ``x^(1/(m+1))``, where ``m`` Marchenko-Pastur ratios equal 1): ``x = L v^(m+1)``
  (power ``m + 1``), so ``pdf dx/dv`` is a power series in ``v``;
* a tiny lower edge ``0 < a << b`` (a ratio close to 1): geometric panels ``[a + d 2^k,
  a + d 2^(k+1)]`` from ``d = a``, each at most as wide as its distance to the edge;
* a hard edge whose series in ``x^(1/(m+1))`` only holds far below the panel (a ratio
  close to, not at, 1 makes the edge look like one of higher order above a crossover
  scale, e.g. ``x^(-1/2)`` below ``1e-10 b``, ``x^(-2/3)`` above): the series' singularity
  at the crossover sits at ``v_s = (reach/L)^(1/(m+1))``, and Gauss-Legendre needs about
  ``10/sqrt(v_s)`` nodes. When ``v_s`` < :data:`CROSSOVER` the hard-edge map is used on
  ``[0, reach/64]`` only, followed by geometric panels of ratio 16 (:class:`HardEdge`).

A panel's integral is accepted when Gauss-Legendre with ``n`` and ``2n`` nodes agree to
the tolerance (``n`` doubles from 16 up to :data:`MAX_NODES`); a panel that does not is
halved in its ``u`` (a near-singularity inside it, e.g. a complex branch point next to the
support where two bulks nearly separate) until every piece converges, at most
:data:`SPLIT_DEPTH` times; otherwise :class:`freege.errors.ConvergenceError` -- mass is
never cut off silently. At working precision a panel that needs more than
:data:`ADAPTIVE_NODES` nodes starts from its float64 pieces when float64 split it (a cheap
guide to where the near-singularity is; every piece is still accepted only by its own two
levels at working precision).
Expectations
``int f dnu`` are adaptive on top of that: a sub-interval of ``v`` whose two levels
disagree at :data:`ADAPTIVE_NODES` nodes is halved (``f`` may be nearly singular next to
an edge, e.g. ``x/(x + lam)^2`` at tiny ``lam``). A cdf inside a
panel integrates ``v`` over ``[0, v(x)]`` (or ``[v(x), 1]``) with the panel's ``n`` and
``2n`` nodes (mpmath), or evaluates the antiderivative of the panel's Legendre series
(float64, vectorised). ``v(x)`` is an exact root (``mpmath.root``), never a float power.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import mpmath
import numpy as np
from numpy.polynomial import legendre

from freege.errors import ConvergenceError

#: most Gauss-Legendre nodes per panel
MAX_NODES = 2048
#: first Gauss-Legendre level
MIN_NODES = 16
#: most halvings of a float64 panel that does not converge at MAX_NODES
SPLIT_DEPTH = 40
#: most nodes per sub-interval of an expectation before it is halved
ADAPTIVE_NODES = 256
#: most halvings of an expectation's sub-interval
ADAPTIVE_DEPTH = 60
#: a lower edge below this fraction of the interval length gets geometric panels
TINY_EDGE = 1e-2
#: absolute float64 tolerance of a panel integral (masses are at most 1)
F64_TOL = 1e-14
#: a hard edge whose series' singularity is nearer than this (in ``v``) gets geometric panels
CROSSOVER = 1e-2
#: most halvings of the tanh-sinh step of a working-precision entropy
ENTROPY_LEVELS = 9

DensityF64 = Callable[[np.ndarray], np.ndarray]
DensityMP = Callable[[list], list]


@dataclass(frozen=True)
class Panel:
    """``x(v) = anchor + sign * length * u^power`` with ``u = lo + (hi - lo) v`` for ``v``
    in ``[0, 1]``: ``u = 0`` is the anchor (an edge, or the panel's start), ``sign = +1``
    maps right, ``-1`` left; ``[lo, hi]`` is the part of ``u`` the panel covers (a half of
    a panel that did not converge, see :meth:`Quadrature._pieces`)."""

    anchor: Any
    length: Any
    sign: int
    power: int
    lo: float = 0.0
    hi: float = 1.0

    def _u(self, v: Any) -> Any:
        return v if (self.lo, self.hi) == (0.0, 1.0) else self.lo + (self.hi - self.lo) * v

    def x(self, v: Any) -> Any:
        return self.anchor + self.sign * self.length * self._u(v) ** self.power

    def dx(self, v: Any) -> Any:
        return (self.hi - self.lo) * self.length * self.power * self._u(v) ** (self.power - 1)

    def bounds(self) -> tuple[Any, Any]:
        ends = (self.x(0 * self.length), self.x(0 * self.length + 1))
        return (ends[0], ends[1]) if self.sign > 0 else (ends[1], ends[0])

    def v_of(self, x: Any) -> Any:
        """``v(x)`` (mpmath: exact root; float64: numpy power)."""
        ratio = abs(x - self.anchor) / self.length
        if isinstance(ratio, mpmath.mpf):
            u = mpmath.root(ratio, self.power)
        else:
            u = ratio ** (1.0 / self.power)
        return u if (self.lo, self.hi) == (0.0, 1.0) else (u - self.lo) / (self.hi - self.lo)

    def halves(self) -> tuple[Panel, Panel]:
        """The two halves in ``u``."""
        mid = (self.lo + self.hi) / 2
        return (Panel(self.anchor, self.length, self.sign, self.power, self.lo, mid),
                Panel(self.anchor, self.length, self.sign, self.power, mid, self.hi))


class HardEdge(NamedTuple):
    """A hard edge at 0 of order ``order`` (``pdf ~ x^(-m/(m+1))`` times a series in
    ``x^(1/(m+1))``, theory §7.1); ``reach``: the scale where the series' corrections
    become of order 1 (None: not below the support's)."""

    order: int
    reach: Any = None


def panels(a: Any, b: Any, edge: HardEdge | None) -> list[Panel]:
    """Panels of the support interval ``[a, b]`` (see the module docstring); ``edge``
    describes a hard edge at ``a = 0`` (None: a soft lower edge, or a hard one of unknown
    order, mapped with power 2)."""
    c = (a + b) / 2
    upper = Panel(b, b - c, -1, 2)
    if a == 0:
        power = max(2, (edge.order if edge else 1) + 1)
        if edge is None or edge.reach is None or (edge.reach / c) ** (1 / power) >= CROSSOVER:
            return [Panel(a, c, 1, power), upper]
        bottom = edge.reach / 64
        return [Panel(a, bottom, 1, power), *_geometric(bottom, c, 16), upper]
    if a < 0 or a >= TINY_EDGE * (b - a):  # 0 is no singular point below a < 0
        return [Panel(a, c - a, 1, 2), upper]
    return [Panel(a, a, 1, 2), *_geometric(2 * a, c, 2), upper]


def _geometric(lo: Any, c: Any, ratio: int) -> list[Panel]:
    """Linear panels ``[lo r^k, lo r^(k+1)]`` up to ``c`` (the last one up to ``1.33 r``
    times longer, never a sliver)."""
    out = []
    while lo < c:
        hi = ratio * lo if ratio * lo < c * 0.75 else c
        out.append(Panel(lo, hi - lo, 1, 1))
        lo = hi
    return out


@functools.lru_cache(maxsize=64)
def _gl_f64(n: int) -> tuple[np.ndarray, np.ndarray]:
    t, w = legendre.leggauss(n)
    return (t + 1) / 2, w / 2


@functools.lru_cache(maxsize=16)
def _tanh_sinh(h: float) -> tuple[np.ndarray, np.ndarray]:
    """Tanh-sinh nodes and weights on ``[0, 1]`` with step ``h`` (``t`` up to 3.2, where
    the nodes are within 1e-16 of the ends; ``1 - v`` is never formed by cancellation)."""
    t = np.arange(-int(3.2 / h), int(3.2 / h) + 1) * h
    s = np.pi / 2 * np.sinh(t)
    v = 1 / (1 + np.exp(-2 * s))  # (1 + tanh s)/2
    w = h * np.pi / 4 * np.cosh(t) / np.cosh(s) ** 2
    keep = (v > 0) & (v < 1)
    return v[keep], w[keep]


_GL_MP: dict[tuple[int, int], tuple[list, list]] = {}


def gauss_legendre_mp(n: int) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """Gauss-Legendre nodes and weights on ``[0, 1]`` at the ambient precision: Newton on
    the three-term recurrence from numpy's nodes (cached per ``(n, prec)``)."""
    key = (n, mpmath.mp.prec)
    if key not in _GL_MP:
        seeds, _ = legendre.leggauss(n)
        nodes, weights = [], []
        tol = mpmath.ldexp(1, 8 - mpmath.mp.prec)
        for s in seeds[: (n + 1) // 2]:
            t = mpmath.mpf(float(s))
            for _ in range(100):
                p0, p1 = mpmath.mpf(1), t
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * t * p1 - (k - 1) * p0) / k
                dp = n * (t * p1 - p0) / (t * t - 1)
                step = p1 / dp
                t -= step
                if abs(step) <= tol:
                    break
            else:
                raise ConvergenceError("Gauss-Legendre node", f"Newton did not converge (n={n})")
            p0, p1 = mpmath.mpf(1), t
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * t * p1 - (k - 1) * p0) / k
            dp = n * (t * p1 - p0) / (t * t - 1)
            nodes.append(t)
            weights.append(2 / ((1 - t * t) * dp * dp))
        full_t = nodes + [-t for t in reversed(nodes[: n // 2])]
        full_w = weights + list(reversed(weights[: n // 2]))
        _GL_MP[key] = ([(1 + t) / 2 for t in full_t], [w / 2 for w in full_w])
    return _GL_MP[key]


class Quadrature:
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
            v, w = _gl_f64(n)
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
                     if (cut := _v_range(p, lb, ub, False)) is not None)
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
                vs = [lo + (hi - lo) * _gl_f64(n)[0] for _, lo, hi, n in todo]
                xs = [panel.x(v) for (panel, *_), v in zip(todo, vs, strict=True)]
                dens = np.split(self.density_f64(np.concatenate(xs)),
                                np.cumsum([x.size for x in xs])[:-1])
                for (panel, lo, hi, n), v, x, d in zip(todo, vs, xs, dens, strict=True):
                    self._cache[("nodes", panel, lo, hi, n)] = (x, _gl_f64(n)[1] * d
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
        ``n`` and ``2n`` nodes (16 to :data:`ADAPTIVE_NODES`); a sub-interval that does not
        converge is halved (a near-singular ``func``, e.g. ``x/(x + lam)^2`` with a tiny
        ``lam`` next to a hard edge, needs geometric refinement towards it), at most
        :data:`ADAPTIVE_DEPTH` times; then :class:`ConvergenceError`. The tolerance of a
        sub-interval is its share ``(hi - lo)`` of the panel's."""
        todo = [(v_lo, v_hi, 0)] if not mp else [(mpmath.mpf(v_lo), mpmath.mpf(v_hi), 0)]
        total = mpmath.mpf(0) if mp else 0.0
        while todo:
            lo, hi, depth = todo.pop()
            n, prev = MIN_NODES, None
            while True:
                part = (self._gl_mp(panel, lo, hi, n, func) if mp
                        else self._gl_f64_part(panel, lo, hi, n, func))
                tol = (self._tol_mp() if mp else F64_TOL) * max(1, abs(part))
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

    def _gl_f64_part(self, panel: Panel, lo: float, hi: float, n: int,
                     func: Callable) -> Any:
        """Gauss-Legendre with ``n`` nodes of ``pdf dx/dv func`` over ``v`` in ``[lo, hi]``
        (the nodes and the weighted density at them cached per law: many ``func`` share
        them)."""
        key = ("nodes", panel, lo, hi, n)
        if key not in self._cache:
            v, w = _gl_f64(n)
            v = lo + (hi - lo) * v
            x = panel.x(v)
            self._cache[key] = (x, w * self.density_f64(x) * panel.dx(v))
        x, weights = self._cache[key]
        return np.sum(weights * func(x)).item() * (hi - lo)

    def entropy_f64(self) -> float:
        """``-int pdf log pdf`` over the continuous part (float64). The integrand has a
        ``v log v`` end point singularity at every edge, so each panel uses tanh-sinh
        nodes in ``v`` (exponential convergence despite it), step ``h`` halved from 1/4
        until two levels agree to 1e-13 (else :class:`ConvergenceError`)."""
        total = 0.0
        for panel in self._panels(False):
            prev = None
            for level in range(2, 9):
                v, w = _tanh_sinh(2.0**-level)
                dens = self.density_f64(panel.x(v))
                with np.errstate(divide="ignore", invalid="ignore"):
                    terms = np.where(dens > 0, -dens * np.log(dens), 0.0) * panel.dx(v)
                value = float(np.sum(w * terms))
                if prev is not None and abs(value - prev) <= 1e-13 * max(1.0, abs(value)):
                    break
                prev = value
            else:
                raise self._fail("entropy", panel, v.size, abs(value - prev))
            total += value
        return total

    def entropy_mp(self) -> mpmath.mpf:
        """``-int pdf log pdf`` over the continuous part at the ambient precision:
        tanh-sinh in each panel's ``v`` (the ``v log v`` end point singularity of
        :meth:`entropy_f64`), the density at a whole level's new nodes in one batch. Nodes
        reach ``10^-(dps + 5)`` of the ends, except next to a soft edge (a panel anchored
        away from 0), where ``pdf dx/dv ~ v^2`` and ``v >= 10^-((dps + 5)/3)`` leaves out
        less than ``10^-(dps + 5)`` (and spares root polishes at a near-double root). The
        step is halved from 1/2; a level is accepted with mpmath's tanh-sinh error
        estimate ``exp(D1^2/D2)`` (``D1``, ``D2``: logs of its differences to the two
        levels before) at most ``2^(12 - prec)`` relative; at most
        :data:`ENTROPY_LEVELS` halvings, else :class:`ConvergenceError`."""
        return mpmath.fsum(self._entropy_panel_mp(p) for p in self._panels(True))

    def _entropy_panel_mp(self, panel: Panel) -> mpmath.mpf:
        tol = mpmath.ldexp(1, 12 - mpmath.mp.prec)
        digits = mpmath.mp.dps + 5

        def t_of(share: Any) -> Any:  # t where v = 1/(1 + exp(-2 s)) is 10^-(share digits)
            return mpmath.asinh(2 / mpmath.pi * share * digits * mpmath.log(10) / 2)

        t_hi = t_of(1)  # the inner end (v -> 1): 10^-(dps + 5)
        t_lo = t_of(mpmath.mpf(1) / 3) if panel.anchor != 0 and panel.lo == 0 else t_hi
        total, values, h = mpmath.mpf(0), [], mpmath.mpf(1) / 2
        for level in range(ENTROPY_LEVELS + 1):
            k_lo, k_hi = int(t_lo / h), int(t_hi / h)
            ks = [k for k in range(-k_lo, k_hi + 1) if level == 0 or k % 2]
            vs, ws = [], []
            for k in ks:
                t = k * h
                s = mpmath.pi / 2 * mpmath.sinh(t)
                vs.append(1 / (1 + mpmath.exp(-2 * s)))
                ws.append(mpmath.pi / 4 * mpmath.cosh(t) / mpmath.cosh(s) ** 2)
            dens = self.density_mp([panel.x(v) for v in vs])
            total += mpmath.fsum(-w * d * mpmath.log(d) * panel.dx(v)
                                 for w, d, v in zip(ws, dens, vs, strict=True) if d > 0)
            values.append(total * h)
            h /= 2
            if len(values) >= 3:
                d1, d2 = abs(values[-1] - values[-2]), abs(values[-1] - values[-3])
                scale = max(1, abs(values[-1]))
                if d1 == 0 or (d1 < d2 < scale and mpmath.exp(mpmath.log(d1 / scale) ** 2
                                                      / mpmath.log(d2 / scale)) <= tol):
                    return values[-1]
        raise self._fail("entropy", panel, len(vs), abs(values[-1] - values[-2]))

    # ------------------------------------------------------------------ mpmath
    def _tol_mp(self) -> mpmath.mpf:
        return mpmath.ldexp(1, 4 - mpmath.mp.prec)

    def _gl_mp(self, panel: Panel, lo: Any, hi: Any, n: int, func: Callable | None) -> Any:
        """Gauss-Legendre with ``n`` nodes of ``pdf dx/dv (func)`` over ``v`` in
        ``[lo, hi]``."""
        v, w = gauss_legendre_mp(n)
        vs = [lo + (hi - lo) * vk for vk in v]
        xs = [panel.x(vk) for vk in vs]
        dens = self.density_mp(xs)
        terms = [wk * dk * panel.dx(vk) * (func(xk) if func is not None else 1)
                 for wk, dk, vk, xk in zip(w, dens, vs, xs, strict=True)]
        return mpmath.fsum(terms) * (hi - lo)

    def _panel_mp(self, panel: Panel, cap: int = MAX_NODES) -> tuple[Any, int]:
        """``(mass, n)`` of ``pdf dx/dv`` on a panel at the ambient precision, at most
        ``cap`` nodes."""
        n, prev = max(MIN_NODES, mpmath.mp.dps), None
        while True:
            total = self._gl_mp(panel, mpmath.mpf(0), mpmath.mpf(1), n, None)
            if prev is not None and abs(total - prev) <= self._tol_mp() * max(1, abs(total)):
                return total, n
            if n >= cap:
                raise self._fail("mass", panel, n, abs(total - prev))
            prev, n = total, 2 * n

    def _splits_f64(self, k: int) -> list[tuple[float, float]] | None:
        """The ``u`` ranges of the float64 pieces of panel ``k`` (:meth:`series_f64`), or
        None when float64 did not split it, did not converge, or cut the support into
        other panels."""
        try:
            f64_panels, series = self._panels(False), self.series_f64()
        except (ConvergenceError, ArithmeticError, ValueError):  # no guide
            return None
        if len(f64_panels) != len(self._panels(True)):
            return None
        panel = f64_panels[k]
        ranges = [(piece.lo, piece.hi) for piece, _, _ in series
                  if (piece.anchor, piece.length, piece.sign, piece.power)
                  == (panel.anchor, panel.length, panel.sign, panel.power)]
        split = len(ranges) > 1 and ranges[0][0] == 0.0 and ranges[-1][1] == 1.0
        return ranges if split else None

    def _panel_pieces_mp(self, k: int) -> list[tuple[Panel, mpmath.mpf, int]]:
        """``(piece, mass, n)`` covering panel ``k`` at the ambient precision: the panel
        when it converges at :data:`ADAPTIVE_NODES` nodes; else the float64 pieces of the
        panel when float64 split it (:meth:`_splits_f64`, a cheap guide to where the
        near-singularity is), or the panel up to :data:`MAX_NODES` nodes; each halved
        further when it does not converge (:meth:`_pieces`)."""
        key = ("pieces_mp", k, mpmath.mp.prec)
        if key not in self._cache:
            panel = self._panels(True)[k]
            try:
                out = [(panel, *self._panel_mp(panel, ADAPTIVE_NODES))]
            except ConvergenceError:
                out = []
                for lo, hi in self._splits_f64(k) or [(0.0, 1.0)]:
                    piece = Panel(panel.anchor, panel.length, panel.sign, panel.power, lo, hi)
                    depth = round(-np.log2(hi - lo))
                    out += self._pieces(piece, self._panel_mp, depth,
                                        MAX_NODES if depth == 0 else ADAPTIVE_NODES)
            self._cache[key] = out
        return self._cache[key]

    def mass_mp(self) -> mpmath.mpf:
        """Mass of the continuous part at the ambient precision."""
        return mpmath.fsum(mass for k in range(len(self._panels(True)))
                           for _, mass, _ in self._panel_pieces_mp(k))

    def cdf_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        """``int_{-inf}^x pdf`` (continuous part only) at the ambient precision."""
        total = mpmath.mpf(0)
        for k, panel in enumerate(self._panels(True)):
            if x <= panel.bounds()[0]:
                continue
            for piece, mass, n in self._panel_pieces_mp(k):
                lo, hi = piece.bounds()
                if x <= lo:
                    continue
                if x >= hi:
                    total += mass
                    continue
                vx = piece.v_of(x)
                one = self._gl_mp(piece, mpmath.mpf(0), vx, n // 2, None)
                two = self._gl_mp(piece, mpmath.mpf(0), vx, n, None)
                if abs(one - two) > self._tol_mp() * max(1, abs(two)):
                    raise self._fail("cdf", piece, n, abs(one - two))
                total += two if piece.sign > 0 else mass - two
        return total

    def expect_mp(self, func: Callable[[Any], Any], lb: Any = None, ub: Any = None) -> Any:
        """``int func pdf`` over the continuous part in ``[lb, ub]`` at the ambient
        precision."""
        return mpmath.fsum(self._adaptive(p, func, True, *cut) for p in self._panels(True)
                           if (cut := _v_range(p, lb, ub, True)) is not None)


def _v_range(panel: Panel, lb: Any, ub: Any, mp: bool) -> tuple[Any, Any] | None:
    """The ``v`` interval of ``panel`` whose ``x`` lie in ``[lb, ub]`` (None: empty)."""
    lo, hi = panel.bounds()
    conv = mpmath.mpf if mp else float
    if (lb is None or lb <= lo) and (ub is None or ub >= hi):
        return conv(0), conv(1)
    lo = lo if lb is None else max(lo, lb)
    hi = hi if ub is None else min(hi, ub)
    if lo >= hi:
        return None
    ends = sorted(conv(panel.v_of(conv(x))) for x in (lo, hi))
    return ends[0], min(ends[1], conv(1))


__all__ = ["HardEdge", "Panel", "Quadrature", "gauss_legendre_mp", "panels"]
