"""Where a law from data lives: the support intervals of a subordination node
(docs/data-laws.md, theory §3, §7).

Off the support, on the real axis, every subordination function is real; at a soft edge
the real solution folds: the Jacobian of the node's equations is singular there. So:

1. **Scan.** The density ``-Im G(x + i0)/pi`` on a grid of :data:`SCAN_POINTS` points of
   the node's hull (geometric near 0 for a law on ``[0, inf)``), each point solved from
   above (:mod:`freege.numeric.subordination`); a grid point is inside when its density
   exceeds :data:`INSIDE` of the largest one (a point whose solve fails is left out, at
   most :data:`FAILED_SHARE` of them).
2. **Refine.** Each change from outside to inside between neighbours is an edge bracket.
   The real solution of the outside neighbour is followed towards the inside by bisection
   (a point is outside while Newton from the branch converges to a real solution with the
   same sign of ``det J``), then the edge solves the node's equations together with
   ``det J = 0`` for the real unknowns and ``x``: Newton in float64 from the last outside
   point (the bisection stops at a bracket of :data:`FOLD_WIDTH` of the scale), then,
   for a law at ``dps`` digits, the chord method at ``max(dps, 30) + 10`` digits with
   that float64 Jacobian (one evaluation a step; ``mpmath.findroot`` with its own
   Jacobian when the chord does not settle); a float64 law keeps the float64 edge. It is
   accepted when the residual is below the tolerance, every subordination point is real
   and off its operand's support there, and the edge lies at the bisected fold;
   otherwise :class:`freege.errors.ConvergenceError`. An interval reaching the smallest geometric
   point above 0 of a law on ``[0, inf)`` ends at 0 (a hard edge).
3. **Verify.** The law that holds the node checks that its continuous mass plus its atoms
   is 1 (:meth:`freege.numeric.data_law.DataLaw._intervals_mp`): a component the grid
   missed changes that sum (a gap narrower than the grid's cell inside a run of inside
   points does not: docs/data-laws.md, Limits).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.law_family import REFERENCE_DPS

#: grid points of the scan (and as many geometric ones for a law on ``[0, inf)``)
SCAN_POINTS = 500
#: a grid point is inside when its density exceeds this fraction of the largest
INSIDE = 1e-9
#: a cell between two inside points is halved while the density's relative change over
#: it, ``h |rho'|/rho`` at either end, exceeds this (near an edge, a dip, a hidden gap)
STEEP = 0.5
#: halvings of the steep cells, at most
REFINE_ROUNDS = 6
#: bisections of an edge bracket along the real branch before the edge equations, at
#: most: they stop at a bracket of ``FOLD_WIDTH`` of the node's scale
BISECTIONS = 60
FOLD_WIDTH = 1e-10
#: Newton iterations of a real-branch solve in the bisection (near the fold a real
#: solution converges in a few; past it Newton wanders)
BRANCH_STEPS = 12
#: the largest share of scan points whose solve may fail (they are left out; the mass
#: check of the law sees what they would have shown)
FAILED_SHARE = 0.01


def _solve_grid(node: Any, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(density, its derivative, unknowns as rows)`` at real points (nan where the solve
    fails): ``rho = -Im G/pi`` and ``rho' = -Im G'/pi`` from one solve."""
    u, value = node.solve_value_f64(xs + 0j, strict=False)
    g, dg = value[0], value[1]
    dens = np.where(np.isfinite(g), -g.imag / np.pi, np.nan)
    return dens, -dg.imag / np.pi, np.array(u)


def scan(node: Any, points: int = SCAN_POINTS
         ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]], np.ndarray]:
    """``(xs, density, runs, unknowns)``: the scan grid (``points`` uniform points, and for
    a law on ``[0, inf)`` as many more spaced geometrically from ``1e-9`` of the hull up;
    then each cell between two inside points halved while the density changes steeply
    across it (:data:`STEEP`, at most :data:`REFINE_ROUNDS` times), so a dip or gap inside
    a run is looked at closely), its densities, the index ranges ``[i, j]`` of the runs of
    inside points, and the unknowns (rows) at each point."""
    lo, hi = node.hull()
    xs = np.linspace(lo, hi, points)
    if lo >= 0:
        xs = np.unique(np.concatenate([xs, hi * np.logspace(-9, 0, points)]))
    xs = xs[(xs > lo) & (xs < hi)]
    dens, slope, u = _solve_grid(node, xs)
    failed = np.isnan(dens)
    if failed.sum() > FAILED_SHARE * xs.size:
        raise ConvergenceError("support", f"the scan's solve does not converge at "
                               f"{int(failed.sum())} of {xs.size} points",
                               {**node.describe, "x": float(xs[failed][0])})
    xs, dens, slope, u = xs[~failed], dens[~failed], slope[~failed], u[:, ~failed]
    top = dens.max()
    for _ in range(REFINE_ROUNDS):
        inside = dens > INSIDE * top
        with np.errstate(all="ignore"):
            rel = np.abs(slope) / dens
        steep = inside[:-1] & inside[1:] & (np.diff(xs) * np.maximum(rel[:-1], rel[1:])
                                            > STEEP)
        mid = (xs[:-1][steep] + xs[1:][steep]) / 2
        mid = mid[(mid > xs[:-1][steep]) & (mid < xs[1:][steep])]
        if not mid.size:
            break
        d2, s2, u2 = _solve_grid(node, mid)
        keep = np.isfinite(d2)
        order = np.argsort(np.concatenate([xs, mid[keep]]), kind="stable")
        xs = np.concatenate([xs, mid[keep]])[order]
        dens = np.concatenate([dens, d2[keep]])[order]
        slope = np.concatenate([slope, s2[keep]])[order]
        u = np.concatenate([u, u2[:, keep]], axis=1)[:, order]
    inside = dens > INSIDE * top if top > 0 else np.zeros(xs.shape, dtype=bool)
    runs: list[tuple[int, int]] = []
    k = 0
    while k < xs.size:
        if inside[k]:
            j = k
            while j + 1 < xs.size and inside[j + 1]:
                j += 1
            runs.append((k, j))
            k = j + 1
        else:
            k += 1
    return xs, dens, runs, u


def _edge_equations(node: Any, vals: list[Any]) -> list[Any]:
    u = [mpmath.mpc(v) for v in vals[:-1]]
    x = mpmath.mpc(vals[-1])
    res, jac, _, _ = node._system(u, x, False)
    det = jac[0][0] if len(u) == 1 else jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0]
    return [mpmath.re(r) for r in res] + [mpmath.re(det)]


def _real_branch(node: Any, x: float, seed: list[float]) -> tuple[list[float], float] | None:
    """The real solution at the real point ``x`` continued from ``seed`` (float64 Newton)
    and ``det J`` there; None when Newton leaves the real axis or fails."""
    u, ok, _ = node._newton_f64([np.array([complex(v)]) for v in seed], np.array([x + 0j]),
                                steps=BRANCH_STEPS)
    if not ok[0]:
        return None
    vals = [complex(v[0]) for v in u]
    if any(abs(v.imag) > 1e-12 * (abs(v) + node.scale()) for v in vals):
        return None
    _, jac, _, _ = node._system([np.array([v.real + 0j]) for v in vals], np.array([x + 0j]),
                                True)
    det = jac[0][0] if node.k == 1 else jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0]
    return [v.real for v in vals], float(np.real(det[0]))


def _edge_equations_f64(node: Any, vals: np.ndarray) -> np.ndarray:
    u = [np.array([complex(v)]) for v in vals[:-1]]
    res, jac, _, _ = node._system(u, np.array([complex(vals[-1])]), True)
    det = jac[0][0] if node.k == 1 else jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0]
    return np.array([float(np.real(r[0])) for r in res] + [float(np.real(det[0]))])


def _jacobian_f64(node: Any, vals: np.ndarray) -> np.ndarray:
    """Central differences of the edge equations (a chord's matrix, never a result)."""
    n = vals.size
    out = np.empty((n, n))
    for j in range(n):
        h = 1e-6 * max(abs(vals[j]), node.scale() * 1e-3)
        up, down = vals.copy(), vals.copy()
        up[j] += h
        down[j] -= h
        out[:, j] = (_edge_equations_f64(node, up) - _edge_equations_f64(node, down)) / (2 * h)
    return out


def _edge_f64(node: Any, start: list[float]) -> tuple[np.ndarray, np.ndarray | None]:
    """The edge equations solved in float64 from ``start`` (Newton, difference Jacobian):
    ``(point, Jacobian at the last iterate)`` (a chord's matrix: one step from the point);
    the Jacobian is None when Newton does not settle."""
    vals = np.array(start, dtype=float)
    with np.errstate(all="ignore"):
        for _ in range(30):
            jac = _jacobian_f64(node, vals)
            try:
                step = np.linalg.solve(jac, _edge_equations_f64(node, vals))
            except np.linalg.LinAlgError:
                return np.array(start, dtype=float), None
            if not np.all(np.isfinite(step)):
                return np.array(start, dtype=float), None
            vals = vals - step
            if np.max(np.abs(step)) <= 1e-13 * (np.max(np.abs(vals)) + node.scale()):
                return vals, jac
    return np.array(start, dtype=float), None


def _edge_chord_mp(node: Any, guess: np.ndarray, jac: np.ndarray) -> list[Any] | None:
    """The edge equations polished at the ambient precision by the chord method (the
    float64 Jacobian fixed: each step gains the float64 digits, one evaluation a step),
    accepted when the step falls below ``10^(5 - dps)`` of the scale and the residual
    below ``10^(5 - dps)`` of the larger of the scale, its inverse and 1; None
    otherwise."""
    inverse = mpmath.matrix(np.linalg.inv(jac).tolist())
    vals = mpmath.matrix([mpmath.mpf(float(v)) for v in guess])
    tol = mpmath.mpf(10) ** (5 - mpmath.mp.dps)
    scale = mpmath.mpf(node.scale())
    size = max(scale, 1 / scale, mpmath.mpf(1))  # of the equations' terms, at most
    for _ in range(4 + mpmath.mp.dps // 8):
        res = mpmath.matrix(_edge_equations(node, list(vals)))
        step = inverse * res
        vals = vals - step
        if max(abs(d) for d in step) <= tol * (scale + max(abs(v) for v in vals)):
            res = _edge_equations(node, list(vals))
            return list(vals) if max(abs(r) for r in res) <= tol * size else None
    return None


def _edge_checked_f64(node: Any, vals: np.ndarray, near: float) -> None:
    """A float64 edge's verification: every residual of the node's equations below
    ``1e-11`` of its terms, ``det J`` below ``1e-8`` of its terms, every subordination
    point real and off its operand's support; else :class:`ConvergenceError`."""
    u = [np.array([complex(v)]) for v in vals[:-1]]
    with np.errstate(all="ignore"):
        res, jac, scales, _ = node._system(u, np.array([complex(vals[-1])]), True)
        if node.k == 1:
            det, det_scale = jac[0][0], abs(jac[0][0]) + 1
        else:
            det = jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0]
            det_scale = abs(jac[0][0] * jac[1][1]) + abs(jac[0][1] * jac[1][0])
        good = all(abs(r[0]) <= 1e-11 * s[0] for r, s in zip(res, scales, strict=True)) \
            and abs(det[0]) <= 1e-8 * det_scale[0]
        for child, w in zip(node.children, u, strict=False):
            g = child.cauchy_f64(w)[0][0]
            good = good and bool(np.isfinite(g)) and abs(g.imag) <= 1e-9 * (abs(g) + 1)
    if not good:
        raise ConvergenceError("support edge", "the float64 edge equations leave a residual, "
                               "or a subordination point on an operand's support",
                               {**node.describe, "near": near})


def refine_edge(node: Any, x_out: float, x_in: float, cell: float, f64: bool = False,
                seed: list[float] | None = None) -> mpmath.mpf:
    """The soft edge between an outside and an inside grid point (see the module
    docstring), at the ambient precision: the real branch of the outside point is followed
    by bisection towards the inside (a point stays outside while Newton from the branch
    converges to a real solution whose ``det J`` keeps its sign: past the fold only the
    other, unstable branch is real), then the edge equations are solved from the last
    outside point, within :data:`BISECTIONS` halvings of the fold. ``seed``: the unknowns
    at ``x_out`` (None: solved here).

    ``f64`` (a float64 law): the edge is the float64 Newton solution of the edge
    equations, verified by its residuals (:func:`_edge_checked_f64`) and by the bisected
    fold (the independent route), rounded to the ambient precision as it is."""
    if seed is None:
        seed = [complex(v[0]).real for v in node.solve_f64(np.array([x_out + 0j]))]
    first = _real_branch(node, x_out, seed)
    if first is None or first[1] == 0:
        raise ConvergenceError("support edge", "no real solution outside the support",
                               {**node.describe, "x": x_out})
    u_out, det_out = first
    xo, xi = x_out, x_in
    for _ in range(BISECTIONS):
        mid = (xo + xi) / 2
        if mid in (xo, xi) or abs(xi - xo) <= FOLD_WIDTH * node.scale():
            break
        got = _real_branch(node, mid, u_out)
        if got is not None and got[1] != 0 and np.sign(got[1]) == np.sign(det_out):
            xo, u_out = mid, got[0]
        else:
            xi = mid
    digits = max(mpmath.mp.dps, REFERENCE_DPS) + 10
    guess, jac = _edge_f64(node, [*u_out, xo])
    if f64:
        if jac is None:
            raise ConvergenceError("support edge", "the float64 edge equations do not "
                                   "converge", {**node.describe, "near": x_in})
        _edge_checked_f64(node, guess, x_in)
        _check_fold(node, float(guess[-1]), xo, xi, x_in)
        return mpmath.mpf(float(guess[-1]))
    with mpmath.workdps(digits):
        vals = _edge_chord_mp(node, guess, jac) if jac is not None else None
        if vals is None:  # the chord did not converge: Newton with mpmath's own Jacobian
            start = [mpmath.mpf(v) for v in u_out] + [mpmath.mpf(xo)]
            try:
                sol = mpmath.findroot(lambda *v: _edge_equations(node, list(v)), start,
                                      tol=mpmath.mpf(10) ** (-2 * digits + 10), maxsteps=200,
                                      verify=True)
            except (ValueError, ZeroDivisionError) as exc:
                raise ConvergenceError("support edge", f"the edge equations do not converge "
                                       f"({exc})", {**node.describe, "near": x_in}) from None
            vals = [sol[k] for k in range(len(start))]
        edge = vals[-1]
        for child, w in zip(node.children, vals[:-1], strict=False):
            g = child.cauchy_mp(mpmath.mpf(w))[0]
            if abs(mpmath.im(g)) > mpmath.mpf(10) ** (5 - digits) * (abs(g) + 1):
                raise ConvergenceError("support edge", "the edge's subordination point lies "
                                       "on an operand's support", {**node.describe,
                                                                   "near": x_in})
        _check_fold(node, edge, xo, xi, x_in)
    return +edge


def _check_fold(node: Any, edge: Any, xo: float, xi: float, near: float) -> None:
    """The edge lies at the bisected fold ``[xo, xi]`` (within 8 of its widths and
    ``1e-13`` of the scale), else :class:`ConvergenceError`."""
    lo, hi = sorted((xo, xi))
    slack = 8 * (hi - lo) + 1e-13 * node.scale()
    if not lo - slack <= edge <= hi + slack:
        raise ConvergenceError("support edge", "the edge equations converged away from "
                               "the fold", {**node.describe, "near": near,
                                            "edge": float(edge)})


def node_intervals(node: Any, points: int = SCAN_POINTS, f64: bool = False
                   ) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """The support intervals of the node's continuous part, at the ambient precision
    (``f64``: edges to float64 accuracy, :func:`refine_edge`), from a scan of ``points``
    points."""
    xs, _, runs, u = scan(node, points)
    cell = float(np.max(np.diff(xs))) if xs.size > 1 else node.scale()
    out = []
    for i, j in runs:
        if i == 0:
            if node.hull()[0] >= 0:
                left = mpmath.mpf(0)
            else:
                raise ConvergenceError("support", "the density is positive at the hull's end",
                                       node.describe)
        else:
            left = refine_edge(node, xs[i - 1], xs[i], cell, f64, list(u[:, i - 1].real))
        if j == xs.size - 1:
            raise ConvergenceError("support", "the density is positive at the hull's end",
                                   node.describe)
        right = refine_edge(node, xs[j + 1], xs[j], cell, f64, list(u[:, j + 1].real))
        out.append((left, right))
    merged: list[tuple[mpmath.mpf, mpmath.mpf]] = []
    for a, b in out:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


__all__ = ["INSIDE", "SCAN_POINTS", "node_intervals", "refine_edge", "scan"]
