"""The float64 anchors of a support interval: where real points start their continuation
(theory §7.1, :meth:`freege.numeric.algebraic_law.AlgebraicLaw._anchors_f64`).

An interval ``[a, b]`` keeps interior anchors (tracked vertically) and two *edge chains*
``a + w 2^-j`` and ``b - w 2^-j`` (``w = b - a``, ``j = 5, 7, .., 49``), each point
continued from the one before (:meth:`freege.numeric.roots.CauchyEquation.continue_f64`)
until a step is in doubt. A chain is one fixed sequence, continued only as far as asked, so
a longer prefix never changes a result (a law stays a pure function of its parameters).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from freege.numeric import roots


class EdgeChains:
    """The anchors of one support interval ``[a, b]`` (see the module docstring): the
    interior ones and the two edge chains, continued on demand."""

    #: the chain steps ``2^-j`` of the interval's length, ``j = 5, 7, .., 49``
    STEPS = 2.0 ** -np.arange(5, 51, 2)

    def __init__(self, equation: roots.CauchyEquation, a: float, b: float, floor: float,
                 xs: np.ndarray, g: np.ndarray) -> None:
        self.equation, self.a, self.b, self.floor = equation, a, b, floor
        self.xs, self.g = list(xs), list(g)
        # per chain: [edge, direction, last x, last G, index of the next step]; the two
        # chains start from the interior anchors nearest each edge
        self.chains = [[a, 1.0, xs[0], g[0], 0], [b, -1.0, xs[-1], g[-1], 0]] if xs.size \
            else []
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def anchors(self, t_lo: float, t_hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, logit x, G)`` sorted, the chains continued far enough for logits in
        ``[t_lo, t_hi]``: until its last point is at least as near its edge as ``t_lo``
        (``t_hi``), or it ends."""
        while True:
            todo = [c for c in self.chains if c[4] < self.STEPS.size and (
                logit(c[2], self.a, self.b) > t_lo if c[1] > 0
                else logit(c[2], self.a, self.b) < t_hi)]
            if not todo:
                break
            self._step(todo)
        if self._arrays is None:
            xs = np.array(self.xs)
            order = np.argsort(xs)
            xs = xs[order]
            self._arrays = (xs, logit(xs, self.a, self.b),
                            np.array(self.g, dtype=complex)[order])
        return self._arrays

    def _step(self, todo: list[list[Any]]) -> None:
        """One more point on each chain of ``todo`` (all at once); a chain whose next point
        leaves the interval, nears 0, repeats, or is in doubt ends there."""
        self._arrays = None
        edge = np.array([c[0] for c in todo])
        sign = np.array([c[1] for c in todo])
        prev = np.array([c[2] for c in todo])
        prev_g = np.array([c[3] for c in todo], dtype=complex)
        nxt = edge + sign * (self.b - self.a) * self.STEPS[[c[4] for c in todo]]
        alive = (nxt > self.a) & (nxt < self.b) & (np.abs(nxt) >= self.floor) & (nxt != prev)
        gn = np.full(nxt.shape, np.nan + 0j)
        ok = np.zeros(nxt.shape, dtype=bool)
        if alive.any():
            gn[alive], _, ok[alive] = self.equation.continue_f64(nxt[alive], prev[alive],
                                                                 prev_g[alive])
        for chain, x, gv, good in zip(todo, nxt, gn, ok, strict=True):
            if good:
                self.xs.append(x)
                self.g.append(gv)
                chain[2:] = [x, gv, chain[4] + 1]
            else:
                chain[4] = self.STEPS.size  # the chain ends here


def logit(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """``log((x - a)/(b - x))``: distances to both edges on one scale (anchors
    are evenly spread in it near the edges)."""
    with np.errstate(all="ignore"):
        return np.log(x - a) - np.log(b - x)


__all__ = ["EdgeChains", "logit"]
