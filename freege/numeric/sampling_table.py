"""A verified inverse-cdf table for fast float64 sampling (theory §7; ``Law.rvs``).

The float64 cdf of a law's continuous part is, on every quadrature piece, a polynomial
in the piece's variable ``v`` in ``[0, 1]``: the antiderivative of the Legendre series of
``pdf dx/dv`` (:meth:`freege.numeric.quadrature.Quadrature.series_f64`; the panel maps
make that integrand analytic in ``v``, theory §7.1). The table cuts each piece into cells
``[v_j, v_j + h_j]`` and keeps on each the Taylor polynomial of degree :data:`DEGREE` of
that antiderivative in ``t = (v - v_j)/h_j``. A cell is accepted only when the sum of the
moduli of the dropped Taylor coefficients (degrees ``DEGREE + 1`` to the series' degree,
an upper bound of the truncation error on ``t`` in ``[0, 1]``) is at most
``3/4`` of :data:`U_TOL` (the other quarter: trailing Legendre coefficients dropped
first, the float64 rounding noise of a long series); other cells are halved, at most
:data:`MAX_DEPTH` times and up to :data:`MAX_CELLS` cells (then
:class:`freege.errors.ConvergenceError`).

Sampling a uniform ``u``: below the atom at 0 the sample is 0 (the atom is drawn with its
mass); otherwise the cell holding ``u - atom`` is found by bisection of the cells' cdf
values, the cell's polynomial is inverted by safeguarded Newton-bisection in ``t`` (to
the rounding level; else :class:`ConvergenceError`) and ``x = x(v)`` is the panel's map.
The sample is thus the exact quantile of a probability within ``U_TOL`` (plus rounding)
of ``u`` under the law's float64 cdf -- the "u-error" criterion of numerical inversion
(Derflinger, Hoermann, Leydold, ACM TOMACS 20, 2010) with a bound instead of test points.
The table is a pure function of the law (built deterministically from its float64
series), so the samples depend only on the law and the uniforms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.polynomial import legendre

from freege.errors import ConvergenceError

#: degree of the local Taylor polynomial of the cdf on a cell
DEGREE = 5
#: bound on the table's error (absolute, in probability; the float64 cdf's own is ~1e-14)
U_TOL = 2.0**-48
#: cells per piece before refinement
START_CELLS = 16
#: most halvings of a cell
MAX_DEPTH = 40
#: most cells of one piece
MAX_CELLS = 2**16
#: most Newton-bisection steps of one inversion
MAX_STEPS = 200


def _taylor(series: np.ndarray, starts: np.ndarray, width: float) -> np.ndarray:
    """Taylor coefficients ``A^(k)(v_j) h^k / k!`` (``k = 0..deg``, one row per cell of
    width ``h``) of the Legendre series ``series`` in ``t = 2v - 1`` (``d/dv = 2 d/dt``);
    the scaling is applied to the series before each evaluation, so nothing overflows."""
    deg = max(len(series) - 1, DEGREE)
    derivatives = np.zeros((deg + 1, deg + 1))  # column k: the k-th scaled derivative
    for k in range(deg + 1):
        if not series.size:
            break
        derivatives[: series.size, k] = series
        series = legendre.legder(series) * (2 * width / (k + 1)) if series.size > 1 else (
            np.zeros(0))
    return legendre.legvander(2 * starts - 1, deg) @ derivatives


def _truncated(anti: np.ndarray) -> np.ndarray:
    """``anti`` without its trailing coefficients whose moduli sum to at most
    ``U_TOL / 4`` (``|P_k| <= 1`` on ``[-1, 1]``: the function moves by at most that)."""
    tails = np.cumsum(np.abs(np.asarray(anti, dtype=float))[::-1])[::-1]
    keep = int(np.count_nonzero(tails > U_TOL / 4))
    return np.asarray(anti, dtype=float)[: max(keep, 1)]


def _cells(anti: np.ndarray, describe: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, widths, coefficients)`` of the accepted cells of one piece, in
    increasing ``v`` (see the module docstring)."""
    series = _truncated(anti)
    starts = np.arange(START_CELLS) / START_CELLS
    width = 1.0 / START_CELLS
    done: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for _ in range(MAX_DEPTH + 1):
        coef = _taylor(series, starts, width)
        # the dropped terms bound the truncation error; the kept ones' rounding is ~eps
        tail = np.sum(np.abs(coef[:, DEGREE + 1:]), axis=1)
        good = tail <= 3 * U_TOL / 4
        done.append((starts[good], np.full(np.count_nonzero(good), width),
                     coef[good, : DEGREE + 1]))
        if good.all():
            s, w, c = (np.concatenate(parts) for parts in zip(*done, strict=True))
            order = np.argsort(s)
            return s[order], w[order], c[order]
        if np.count_nonzero(~good) > MAX_CELLS // 2:
            break
        width /= 2
        starts = np.concatenate([starts[~good], starts[~good] + width])
    raise ConvergenceError("inverse-cdf table", f"a cell's cdf series did not reach "
                           f"{U_TOL:.1e} within {MAX_DEPTH} halvings and {MAX_CELLS} cells",
                           describe)


class InverseCdfTable:
    """Samples of a law by inversion of its float64 cdf (see the module docstring).

    ``pieces``: ``(panel, mass, anti)`` of every quadrature piece (any order; a panel has
    ``x(v)``, ``bounds()``, ``sign``, ``anchor``, ``length``, ``power``, ``lo``, ``hi``),
    ``atom``: the mass at 0, ``describe``: the law in error messages."""

    def __init__(self, pieces: Sequence[tuple[Any, float, np.ndarray]], atom: float,
                 describe: dict | None = None) -> None:
        self.describe = dict(describe or {})
        self.atom = float(atom)
        cols: dict[str, list[np.ndarray]] = {k: [] for k in (
            "u0", "offset", "flip", "v0", "h", "coef", "anchor", "slope", "lo", "du", "power")}
        below = self.atom
        for panel, mass, anti in sorted(pieces, key=lambda p: float(p[0].bounds()[0])):
            starts, widths, coef = _cells(anti, self.describe)
            ends = np.sum(coef, axis=1)  # the cdf series at each cell's end (t = 1)
            n = starts.size
            if panel.sign > 0:  # cdf(x) = below + A(v): cells in increasing v
                order = np.arange(n)
                u0 = below + coef[:, 0]
                offset, flip = np.full(n, below), np.ones(n)
            else:  # x decreases with v: cdf(x) = below + mass - A(v)
                order = np.arange(n)[::-1]
                u0 = below + float(mass) - ends
                offset, flip = np.full(n, below + float(mass)), -np.ones(n)
            cols["u0"].append(u0[order])
            cols["offset"].append(offset)
            cols["flip"].append(flip)
            cols["v0"].append(starts[order])
            cols["h"].append(widths[order])
            cols["coef"].append(coef[order])
            cols["anchor"].append(np.full(n, float(panel.anchor)))
            cols["slope"].append(np.full(n, panel.sign * float(panel.length)))
            cols["lo"].append(np.full(n, float(panel.lo)))
            cols["du"].append(np.full(n, float(panel.hi) - float(panel.lo)))
            cols["power"].append(np.full(n, float(panel.power)))
            below += float(mass)
        self.cols = {k: np.concatenate(v) for k, v in cols.items()}
        self.cells = self.cols["u0"].size
        c = self.cols
        # x = anchor + slope (start + step t)^power on a cell; coefficients as rows
        c["start"] = c["lo"] + c["du"] * c["v0"]
        c["step"] = c["du"] * c["h"]
        c["rows"] = np.ascontiguousarray(c["coef"].T)
        c["noise"] = 4 * np.finfo(float).eps * (np.sum(np.abs(c["coef"]), axis=1) + 1)
        self.powers = sorted(set(c["power"].tolist()))
        # guide table: the first cell of each of `bins` equal slices of [0, 1]
        self.bins = 4 * self.cells
        self.guide = np.clip(np.searchsorted(c["u0"], np.arange(self.bins) / self.bins,
                                             side="right") - 1, 0, self.cells - 1)

    def sample(self, u: Any) -> Any:
        """The samples for uniforms ``u`` in ``[0, 1)`` (any shape; a float for a
        scalar)."""
        us = np.asarray(u, dtype=float)
        flat = us.ravel()
        out = np.zeros(flat.shape)
        cont = np.flatnonzero(flat >= self.atom) if self.atom > 0 else slice(None)
        out[cont] = self._invert(flat[cont])
        shaped = out.reshape(us.shape)
        return shaped.item() if shaped.ndim == 0 else shaped

    def _cell(self, u: np.ndarray) -> np.ndarray:
        """The last cell whose cdf start is at most ``u`` (guide table, then forward)."""
        u0 = self.cols["u0"]
        j = self.guide[np.clip((u * self.bins).astype(np.int64), 0, self.bins - 1)]
        ahead = np.flatnonzero(j < self.cells - 1)
        while ahead.size:
            ahead = ahead[u0[j[ahead] + 1] <= u[ahead]]
            j[ahead] += 1
            ahead = ahead[j[ahead] < self.cells - 1]
        return j

    def _invert(self, u: np.ndarray) -> np.ndarray:
        c = self.cols
        j = self._cell(u)
        goal = c["flip"].take(j) * (u - c["offset"].take(j))  # the cell's A(v) to reach
        t = self._solve(c["rows"].take(j, axis=1), goal, c["noise"].take(j))
        uu = c["start"].take(j) + c["step"].take(j) * t
        if self.powers == [2.0]:
            scaled = uu * uu
        elif self.powers == [1.0]:
            scaled = uu
        else:
            scaled = uu ** c["power"].take(j)
        return c["anchor"].take(j) + c["slope"].take(j) * scaled

    def _solve(self, rows: np.ndarray, goal: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """``t`` in ``[0, 1]`` with ``sum_k rows_k t^k = goal`` (one column per point),
        safeguarded Newton with bisection, until the residual is at the rounding level of
        the polynomial (``noise``) or the step at that of ``t``; ``t`` is clamped to an
        end whose value is already past ``goal`` (within the table's error). While most
        points are unfinished every step runs on all of them (no gathers)."""
        f0 = rows[0] - goal
        f1 = np.sum(rows, axis=0) - goal
        with np.errstate(all="ignore"):
            t = np.nan_to_num(np.clip(-f0 / (f1 - f0), 0.0, 1.0), nan=0.5)
        t[f0 >= 0] = 0.0
        t[f1 <= 0] = 1.0
        lo, hi = np.zeros(goal.size), np.ones(goal.size)
        todo = (f0 < 0) & (f1 > 0)
        eps = 4 * np.finfo(float).eps
        for _ in range(MAX_STEPS):
            if not todo.any():
                return t
            if np.count_nonzero(todo) < todo.size // 4:  # few left: work on those only
                keep = np.flatnonzero(todo)
                sub, sub_lo, sub_hi = t[keep], lo[keep], hi[keep]
                sub_todo = np.ones(keep.size, dtype=bool)
                rows, goal, noise = rows[:, keep], goal[keep], noise[keep]
                for _ in range(MAX_STEPS):
                    if not sub_todo.any():
                        t[keep] = sub
                        return t
                    self._step(rows, goal, noise, sub, sub_lo, sub_hi, sub_todo, eps)
                break
            self._step(rows, goal, noise, t, lo, hi, todo, eps)
        raise ConvergenceError("inverse-cdf table", f"Newton-bisection did not converge in "
                               f"{MAX_STEPS} steps", self.describe)

    @staticmethod
    def _step(rows: np.ndarray, goal: np.ndarray, noise: np.ndarray, t: np.ndarray,
              lo: np.ndarray, hi: np.ndarray, todo: np.ndarray, eps: float) -> None:
        """One safeguarded Newton step, in place, on the points still ``todo``."""
        p, dp = rows[DEGREE].copy(), np.zeros(goal.size)
        for k in range(DEGREE - 1, -1, -1):
            dp *= t
            dp += p
            p *= t
            p += rows[k]
        p -= goal  # the residual
        np.copyto(lo, t, where=p < 0)
        np.copyto(hi, t, where=p >= 0)
        with np.errstate(all="ignore"):
            new = t - p / dp
        bad = ~((dp > 0) & (new > lo) & (new < hi))
        new[bad] = (lo[bad] + hi[bad]) / 2
        flat = np.abs(p) <= noise
        finished = flat | (np.abs(new - t) <= eps)
        np.copyto(t, new, where=todo & ~flat)
        todo &= ~finished


__all__ = ["DEGREE", "InverseCdfTable", "U_TOL"]
