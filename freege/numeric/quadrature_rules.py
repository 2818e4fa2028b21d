"""Panel maps and node rules of the quadrature (theory §7, §7.1): the constants, the
:class:`Panel` map of a piece of a support interval, :func:`panels` of one interval,
and the Gauss-Legendre (float64, :func:`gauss_legendre_mp` at the ambient precision)
and tanh-sinh node rules on ``[0, 1]``. The integrals built on them are
:class:`freege.numeric.quadrature.Quadrature`.

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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
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
#: most nodes per sub-interval of a float64 expectation before it is halved (near a hard
#: edge each density costs a working-precision solve: halving early costs fewer nodes than
#: going up to :data:`ADAPTIVE_NODES`, measured on ``x/(x + 1e-4)^2``: 4,544 nodes against
#: 10,592)
EXPECT_NODES_F64 = 64
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
    a panel that did not converge, see
    :meth:`freege.numeric.quadrature.Quadrature._pieces`)."""

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
def gl_f64(n: int) -> tuple[np.ndarray, np.ndarray]:
    t, w = legendre.leggauss(n)
    return (t + 1) / 2, w / 2


@functools.lru_cache(maxsize=16)
def tanh_sinh(h: float) -> tuple[np.ndarray, np.ndarray]:
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


def v_range(panel: Panel, lb: Any, ub: Any, mp: bool) -> tuple[Any, Any] | None:
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


__all__ = [
    "ADAPTIVE_DEPTH", "ADAPTIVE_NODES", "CROSSOVER", "ENTROPY_LEVELS", "EXPECT_NODES_F64",
    "F64_TOL", "MAX_NODES",
    "MIN_NODES", "SPLIT_DEPTH", "TINY_EDGE", "DensityF64", "DensityMP", "HardEdge", "Panel",
    "gauss_legendre_mp", "gl_f64", "panels", "tanh_sinh", "v_range",
]
