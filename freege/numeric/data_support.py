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

**The explicit route** (:func:`explicit_intervals`) replaces the scan for ``(a pi_t) ⊠ B``
with ``B`` an empirical operand on ``(0, inf)`` (Marchenko-Pastur ⊠ a spectrum: the
Silverstein equation; Silverstein and Choi 1995) and for ``pi(B, t)`` with ``B``
empirical without an atom at 0. Off the support the node's unknowns are real, and with
``W_B = w`` the equations of ⊠ solve explicitly: ``g = w G_B(w)``,
``W_A = a g (1 - t - g)/(1 - g)`` (the free Poisson law's ``h^{-1}``) and

    x(w) = a w (g + t - 1) = a (t w + m_1 + sum_i p_i x_i^2/(w - x_i)),
    x'(w) = a (t - phi(w)),  phi(w) = sum_i p_i x_i^2/(w - x_i)^2;

for ``pi(B, t)``, ``w = 1/G`` and ``x(w) = (1 - t) w + t w^2 G_B(w)``,
``x'(w) = t (1/t - phi(w))``. The complement of the support (but 0) is the image of
``{w real, off the atoms: phi(w) < tau}`` (``tau = t``, or ``1/t``). ``phi`` is convex
between two atoms, so that set has at most one interval per gap of the atoms: its ends
are the roots of ``phi = tau`` on either side of the gap's minimum of ``phi`` (Newton
safeguarded by bisection, vectorised over the gaps), and the edges are their images. A
gap is examined only when the two atoms beside it do not already push ``phi`` above
``tau`` everywhere in it (their terms alone have the minimum
``(a_i^{1/3} + a_{i+1}^{1/3})^3/h^2`` over a gap of width ``h``: all terms are positive,
so this prunes exactly). Each edge is then verified as the scan's are: from the explicit
real solution a little outside it (``x`` within :data:`EXPLICIT_OFFSET` of the scale), the
real branch is bisected to the fold and the edge equations solved there
(:func:`refine_edge`); that edge must agree with the explicit one within
:data:`EXPLICIT_AGREE` of the scale. Anything else (no explicit form, a root that does not
converge, a disagreement) falls back to the scan; the law's mass check follows either way.
"""

from __future__ import annotations

from fractions import Fraction
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
#: the explicit route: the outside point an edge is bisected from lies this far from the
#: explicit edge (relative to the node's scale), and the edge equations' edge must agree
#: with the explicit one within ``EXPLICIT_AGREE`` of the scale
EXPLICIT_OFFSET = 1e-8
EXPLICIT_AGREE = 1e-11
#: safeguarded Newton iterations of the explicit route's one-dimensional solves, at most
EXPLICIT_STEPS = 100
#: the most (gap, atom) pairs one iteration of the explicit route may evaluate (more
#: gaps to look at than this allows: the scan decides, its work bounded)
EXPLICIT_WORK = 5 * 10**7


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


def _free_poisson_factor(op: Any) -> tuple[float, Any] | None:
    """``(a, t)`` when ``op`` is ``a pi_t``, a free Poisson law scaled by ``a > 0`` (``t``
    exact), else None."""
    from freege.numeric.operands import FreePoissonOperand

    if isinstance(op, FreePoissonOperand):
        return 1.0, op._t
    if getattr(op, "operation", "") == "affine" and op.b == 0 and op.a > 0 \
            and isinstance(op.children[0], FreePoissonOperand):
        return float(op.a), op.children[0]._t
    return None


def _explicit_form(node: Any) -> tuple[Any, Any, float, Any] | None:
    """``(B, tau, c, unknowns)`` when ``node`` has the explicit route (module docstring):
    ``x'(w) = c (tau - phi(w))`` for its empirical operand ``B`` (``tau`` exact) and
    ``unknowns(w)`` the node's real unknowns (in its order) and ``x`` at ``w``:

    * ``(a pi_t) ⊠ B`` in either order, ``B`` on ``(0, inf)``: ``tau = t``, ``c = a``;
    * ``pi(B, t)`` with no atom of ``B`` at 0: ``w = 1/G``, ``x = (1 - t) w + t w^2
      G_B(w)``, ``tau = 1/t``, ``c = t``.

    None otherwise."""
    from freege.numeric.operands import EmpiricalOperand

    def g_of(op: Any, w: float) -> float:
        return float(op.cauchy_f64(np.array([w + 0j]))[0][0].real)

    if getattr(node, "operation", "") == "poisson":
        op = node.children[0]
        if not isinstance(op, EmpiricalOperand) or np.any(op.values == 0):
            return None
        t = float(node.rate)

        def poisson(w: float) -> tuple[list[float], float]:
            return [w], (1 - t) * w + t * w * w * g_of(op, w)

        return op, 1 / Fraction(node._rate), t, poisson
    if getattr(node, "operation", "") != "free-mult":
        return None
    for k in (0, 1):
        factor, op = _free_poisson_factor(node.children[k]), node.children[1 - k]
        if factor is None or not isinstance(op, EmpiricalOperand) or op.values[0] <= 0:
            continue
        a, t_exact = factor
        t = float(t_exact)

        def mult(w: float, k: int = k, a: float = a, t: float = t, op: Any = op
                 ) -> tuple[list[float], float]:
            g = w * g_of(op, w)
            w_a = a * g * (1 - t - g) / (1 - g)
            return ([w_a, w] if k == 0 else [w, w_a]), a * w * (g + t - 1)

        return op, Fraction(t_exact), a, mult
    return None


def _phi(w: np.ndarray, x: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray]:
    """``phi(w) = sum_i q_i/(w - x_i)^2`` and its first two derivatives at the points
    ``w`` (off the ``x_i``), in blocks of :data:`freege.numeric.operands.BLOCK` entries."""
    from freege.numeric.operands import BLOCK

    rows = max(1, BLOCK // x.size)
    out = (np.empty(w.size), np.empty(w.size), np.empty(w.size))
    for start in range(0, w.size, rows):
        part = slice(start, start + rows)
        r = 1.0 / np.subtract.outer(w[part], x)
        power = r * r
        out[0][part] = power @ q
        power *= r
        out[1][part] = -2.0 * (power @ q)
        power *= r
        out[2][part] = 6.0 * (power @ q)
    return out


def _increasing_root(f: Any, lo: np.ndarray, hi: np.ndarray, start: np.ndarray
                     ) -> np.ndarray | None:
    """The root in ``(lo, hi)`` of functions increasing there (``f(w, idx)`` gives the
    values and slopes of the functions ``idx`` at ``w``), vectorised: Newton from
    ``start``, a step leaving the bracket replaced by bisection; a root is done when its
    step is below ``1e-12`` of the point (or its bracket below ``1e-13`` of it: an edge
    is a critical value, so its error is the square of the point's). None
    when some root is not done in :data:`EXPLICIT_STEPS` iterations."""
    w, lo, hi = start.copy(), lo.copy(), hi.copy()
    todo = np.arange(w.size)
    with np.errstate(all="ignore"):
        for _ in range(EXPLICIT_STEPS):
            if not todo.size:
                return w
            at, low, high = w[todo], lo[todo], hi[todo]
            value, slope = f(at, todo)
            below = value < 0
            low, high = np.where(below, at, low), np.where(below, high, at)
            step = value / slope
            size = np.maximum(np.abs(at), 1e-300)
            done = (np.abs(step) <= 1e-12 * size) | (high - low <= 1e-13 * size)
            new = at - step
            bad = ~done & (~np.isfinite(new) | (new <= low) | (new >= high))
            w[todo] = np.where(bad, (low + high) / 2, np.where(value == 0, at, new))
            lo[todo], hi[todo] = low, high
            todo = todo[~done]
    return None if todo.size else w


def _critical_points(x: np.ndarray, p: np.ndarray, t: float
                     ) -> tuple[list[float], list[bool]] | None:
    """The ends of the set ``{phi < t}`` (module docstring: ``t`` is its ``tau``),
    sorted, and for each whether the set lies on its right (an edge that is the right
    end of a support interval); None when the gaps to look at are too many
    (:data:`EXPLICIT_WORK`), a solve does not converge or a gap's minimum of ``phi`` is
    within ``1e-9`` of ``t`` (nearly touching: the scan decides)."""
    q = p * x * x
    reach = 2 * np.sqrt(q.sum() / t)  # phi < t beyond this distance from the atoms
    root_t = 1 / np.sqrt(t)
    # the gaps worth a look: the two atoms beside a gap leave phi below t somewhere in it
    width = np.diff(x)
    cube = np.cbrt(q)
    with np.errstate(divide="ignore", over="ignore"):
        bound = (cube[:-1] + cube[1:]) ** 3 / width**2
    gaps = np.flatnonzero(bound < t * (1 + 1e-9))
    if (gaps.size + 2) * x.size > EXPLICIT_WORK:
        return None
    lo, hi = x[gaps], x[gaps + 1]
    ratio = cube[gaps] / (cube[gaps] + cube[gaps + 1])  # where the bound has its minimum

    def slope(w: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``phi' u^3 v^3/2`` (``u, v`` the distances to the gap's atoms): the sign of
        ``phi'``, and nearly a cubic in ``w`` (exactly, for the two atoms alone)."""
        _, d1, d2 = _phi(w, x, q)
        u, v = w - lo[idx], hi[idx] - w
        cubes = u**3 * v**3 / 2
        return d1 * cubes, d2 * cubes + d1 * 1.5 * (u * u * v**3 - u**3 * v * v)

    lowest = _increasing_root(slope, lo, hi, lo + ratio * (hi - lo))
    if lowest is None:
        return None
    phi_min = _phi(lowest, x, q)[0] if lowest.size else lowest
    if np.any(np.abs(phi_min - t) <= 1e-9 * t):
        return None
    open_gap = phi_min < t
    lowest, lo, hi = lowest[open_gap], lo[open_gap], hi[open_gap]
    gaps = gaps[open_gap]
    # phi = t: phi^(-1/2) - t^(-1/2) is increasing where phi decreases (sign +1), and the
    # negative of it where phi increases (sign -1); brackets: the far left, each open gap's
    # two sides, the far right, each narrowed by its atom's own term (phi is above it)
    k = lowest.size
    own = np.sqrt(q / t)
    left = np.concatenate([[x[0] - reach], np.minimum(lo + own[gaps], lowest), lowest,
                           [x[-1] + own[-1]]])
    right = np.concatenate([[x[0] - own[0]], lowest, np.maximum(hi - own[gaps + 1], lowest),
                            [x[-1] + reach]])
    sign = np.concatenate([[-1.0], np.ones(k), -np.ones(k), [1.0]])
    start = np.where(sign > 0, left, right)  # beside the atom: Newton from there is short

    def f(w: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        phi, dphi, _ = _phi(w, x, q)
        return sign[idx] * (phi**-0.5 - root_t), sign[idx] * -0.5 * phi**-1.5 * dphi

    ends = _increasing_root(f, left, right, start)
    if ends is None:
        return None
    order = np.argsort(ends)
    # phi decreasing at a root (sign +1) means {phi < t} lies on its right
    return [float(v) for v in ends[order]], [bool(v > 0) for v in sign[order]]


def explicit_intervals(node: Any, f64: bool) -> list[tuple[mpmath.mpf, mpmath.mpf]] | None:
    """The support intervals of a node with an explicit route (module docstring;
    :func:`_explicit_form`), at the ambient precision (``f64``: edges to float64
    accuracy), each edge verified by :func:`refine_edge`; None when the node has none or
    the route does not settle (then the scan decides)."""
    try:
        form = _explicit_form(node)
    except (TypeError, ValueError):  # a parameter that is not an exact number
        return None
    if form is None:
        return None
    op, tau, gain, unknowns = form
    x, p = op.values, op.weights
    found = _critical_points(x, p, float(tau))
    if found is None:
        return None
    ends, right_side = found
    scale = node.scale()
    edges: list[Any] = [None] * len(ends)
    if tau == 1 and x[0] > 0:  # phi(0) = 1 = tau: the hard edge at 0
        edges[0] = mpmath.mpf(0)
    explicit = [unknowns(w) for w in ends]
    # the worst-conditioned equations first (a subordination point far out): a failure
    # is found early
    order = np.argsort([-max(abs(v) for v in u) / (abs(xe) + scale) for u, xe in explicit],
                       kind="stable")
    for j in order.tolist():
        if edges[j] is not None:
            continue
        w, x_edge = ends[j], explicit[j][1]
        dphi = abs(float(_phi(np.array([w]), x, p * x * x)[1][0]))
        step = np.sqrt(2 * EXPLICIT_OFFSET * scale / (gain * dphi))
        room = [abs(v - w) / 4 for v in ends[max(j - 1, 0):j + 2] if v != w]
        step = min([step, *room])
        seed, x_out = unknowns(w + step if right_side[j] else w - step)
        x_in = 2 * x_edge - x_out
        if not (x_out > x_edge) == right_side[j]:  # ill-conditioned: the scan decides
            return None
        try:
            edge = refine_edge(node, x_out, x_in, scale, f64, seed)
        except ConvergenceError:
            return None
        if abs(float(edge) - x_edge) > EXPLICIT_AGREE * scale:
            return None
        edges[j] = edge
    pairs = list(zip(edges[::2], edges[1::2], strict=True))
    if any(b <= a or (i and a <= pairs[i - 1][1]) for i, (a, b) in enumerate(pairs)):
        return None
    return pairs


def node_intervals(node: Any, points: int = SCAN_POINTS, f64: bool = False
                   ) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """The support intervals of the node's continuous part, at the ambient precision
    (``f64``: edges to float64 accuracy, :func:`refine_edge`), from a scan of ``points``
    points; the first try (``points`` = :data:`SCAN_POINTS`) of a node with an explicit
    route takes it (:func:`explicit_intervals`), a refined scan (the law's mass check
    failed) always scans."""
    if points == SCAN_POINTS:
        found = explicit_intervals(node, f64)
        if found is not None:
            return found
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


__all__ = ["INSIDE", "SCAN_POINTS", "explicit_intervals", "node_intervals", "refine_edge",
           "scan"]
