"""The subordination engine: free convolutions of operands without a Cauchy polynomial
(docs/data-laws.md, theory §3).

Each node is itself an :class:`freege.numeric.operands.Operand`, so trees compose. At a
point ``z`` (``Im z >= 0``; a real ``z`` is ``z + i0``) a node solves for its subordination
functions by Newton's method, with the Jacobian from the operands' ``G'``:

* ``A ⊞ B`` (:class:`FreeAddNode`), unknowns ``(w_A, w_B)``:
  ``G_A(w_A) = G_B(w_B)``, ``w_A + w_B = z + 1/G_A(w_A)``; then ``G = G_A(w_A)``
  (Biane; Belinschi-Bercovici);
* ``A ⊠ B`` on ``[0, inf)`` (:class:`FreeMultNode`), unknowns ``(W_A, W_B)`` in the
  Cauchy variable: ``W_A G_A(W_A) = W_B G_B(W_B) = g``, ``W_A W_B (g - 1) = z g``; then
  ``G = g/z`` (Belinschi-Bercovici's ``eta_A(omega_A) = eta_B(omega_B)``,
  ``omega_A omega_B = u eta(u)`` with ``u = 1/z``, ``W = 1/omega``);
* ``pi(nu, t)`` (:class:`PoissonNode`), unknown ``w = 1/G``:
  ``z = (1 - t) w + t w^2 G_nu(w)`` (the R-transform ``t int x/(1 - Gx) dnu``);
* ``a X + b`` (:class:`AffineNode`): ``G(z) = G_X((z - b)/a)/a``, no solve;
* ``p(X)`` for a polynomial ``p`` (:class:`PushforwardNode`):
  ``G(z) = sum_j G_X(x_j)/p'(x_j)`` over the roots of ``p(x) = z`` (partial fractions of
  ``1/(z - p(x))``), a real root taken on the side ``z + i0`` moves it to.

**How a point is solved.** The Newton solve starts high above the real axis (from the
large-``z`` behaviour of the subordination functions) and follows ``z`` down a vertical
path ``Re z + i y_k`` to the requested point, ``y`` shrinking by :data:`RATIO` per step (to
the end at once below :data:`FLOOR`) and the step shrinking wherever Newton fails to
converge; a real ``z`` is reached exactly (never a fixed ``eta`` called the density).
Subordination functions are analytic in the upper half plane with ``Im w >= Im z``
there, so the path keeps the physical branch. Float64 solves are vectorised over the
points; at the ambient precision each point is polished from its float64 solution
(continued in mpmath when that fails).

**Verification.** Every returned point passed: the Newton step below the tolerance
(float64 ``4e-13`` relative; mpmath ``10^(3 - dps)``), the residual of every equation
below the same tolerance relative to the size of its terms, ``Im w >= -tol`` for every
subordination point and ``Im G <= tol |G|`` (the physical branch; ⊠ also refuses its
spurious solution ``W_A = W_B = 0``). Otherwise :class:`freege.errors.ConvergenceError`.
``G'(z)`` comes from the same Jacobian (implicit differentiation), so a node is an operand
of the next one.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import free_series
from freege.numeric.operands import Operand, exact

#: the float64 Newton tolerance (relative to the size of the unknowns)
F64_TOL = 4e-13
#: the tolerance of the path's intermediate steps (seeds of the next step only)
PATH_TOL = 1e-7
#: failed attempts at a path's end before the point is given up
END_TRIES = 6
#: the factor by which the path's height shrinks per step, at best
RATIO = 0.0625
#: below this height (relative to the law's scale) the path steps to its end at once
FLOOR = 1e-4
#: Newton iterations per step of the path
NEWTON_STEPS = 40
#: steps of the path before a point is given up
PATH_STEPS = 600
#: more real points than this are solved through anchors (:meth:`Node.solve_f64`)
ANCHORED = 24
#: every this many real points (in order along the axis) one anchor
ANCHOR_STEP = 64


def _mp_tol() -> mpmath.mpf:
    return mpmath.mpf(10) ** (3 - mpmath.mp.dps)


class Node(Operand):
    """A node solved by Newton on ``k`` complex unknowns (see the module docstring)."""

    children: tuple[Operand, ...]
    k: int

    # ------------------------------------------------------------------ per-kind hooks
    @abc.abstractmethod
    def _start(self, z: Any, f64: bool) -> list[Any]:
        """Unknowns at a point high above the support (float64 arrays or mp numbers)."""

    @abc.abstractmethod
    def _system(self, u: list[Any], z: Any, f64: bool) -> tuple[list[Any], list[list[Any]],
                                                                    list[Any], dict[str, Any]]:
        """``(F, J, scales, parts)``: residuals, Jacobian ``dF/du``, the size of each
        equation's terms, and what :meth:`_value` needs."""

    @abc.abstractmethod
    def _value(self, u: list[Any], z: Any, jac: list[list[Any]], parts: dict[str, Any],
               f64: bool) -> tuple[Any, Any]:
        """``(G, G')`` from the solved unknowns."""

    @abc.abstractmethod
    def _dfdz(self, u: list[Any], z: Any, parts: dict[str, Any]) -> list[Any]:
        """``dF/dz``, the residuals' derivative in the point (``du/dz = -J^-1 dF/dz``)."""

    @abc.abstractmethod
    def _g_slope(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        """``dG/du[0]`` (``G`` depends on the first unknown only)."""

    @abc.abstractmethod
    def _g_of(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        """``G(z)`` from the unknowns and the parts of :meth:`_system`."""

    def _degenerate(self, u: list[np.ndarray], z: np.ndarray) -> np.ndarray:
        """Float64 iterates at a spurious solution of the equations (none by default)."""
        return np.zeros(z.shape, dtype=bool)

    def _domain_ok(self, u: list[Any], z: Any, f64: bool) -> Any:
        """Whether the unknowns lie in their half plane (``Im >= -tiny``)."""
        if f64:
            tiny = 1e-9 * self.scale()
            ok = np.ones(np.shape(z), dtype=bool)
            for v in u:
                ok &= v.imag >= -tiny
            return ok
        tiny = mpmath.mpf(10) ** (4 - mpmath.mp.dps) * self.scale()
        return all(mpmath.im(v) >= -tiny for v in u)

    def _physical(self, u: list[Any], z: Any, parts: dict[str, Any], f64: bool) -> Any:
        """The unknowns in their half plane and ``Im G <= 0`` (a Cauchy transform maps the
        upper half plane to the lower one): a solution of the equations that fails this
        is another branch."""
        g = self._g_of(u, z, parts)
        if f64:
            return self._domain_ok(u, z, True) & (g.imag <= 1e-9 * np.abs(g))
        return self._domain_ok(u, z, False) and \
            mpmath.im(g) <= mpmath.mpf(10) ** (4 - mpmath.mp.dps) * abs(g)

    # ------------------------------------------------------------------ linear algebra
    @staticmethod
    def _solve_linear(jac: list[list[Any]], rhs: list[Any]) -> list[Any]:
        if len(rhs) == 1:
            return [rhs[0] / jac[0][0]]
        (a, b), (c, d) = jac
        det = a * d - b * c
        return [(d * rhs[0] - b * rhs[1]) / det, (a * rhs[1] - c * rhs[0]) / det]

    # ------------------------------------------------------------------ float64
    def _newton_f64(self, u: list[np.ndarray], z: np.ndarray, loose: bool = False,
                    steps: int = NEWTON_STEPS
                    ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Newton at ``z`` from ``u``: ``(u, ok, value)``, ``value`` the rows ``G``, ``G'``
        and ``du/dz`` (``k`` rows) at each converged point (nan elsewhere).

        A point is accepted at an iterate where one evaluation of the system shows the
        Newton step below the tolerance (:data:`F64_TOL` relative to the iterate; or a
        stalled step below ``1e-9`` of them), every residual below ``1e-11`` of its
        equation's terms and the physical branch (:meth:`_physical`); the iterate one
        step on is returned, with ``G`` from the same evaluation moved by that step to
        first order (:meth:`_g_slope`) and ``G'`` (a Jacobian's entry) as it is: no
        second evaluation, within
        ``steps`` iterations. ``loose``: a step of the path, :data:`PATH_TOL` and no
        residual check (only a path's end is returned)."""
        tol = PATH_TOL if loose else F64_TOL
        n = z.shape[0]
        done = np.zeros(n, dtype=bool)
        ok = np.zeros(n, dtype=bool)
        value = np.full((2 + self.k, n), np.nan + 0j)
        last = np.full(n, np.inf)
        u = [v.copy() for v in u]
        with np.errstate(all="ignore"):
            for _ in range(steps):
                idx = np.flatnonzero(~done)
                if not idx.size:
                    break
                sub = [v[idx] for v in u]
                za = z[idx]
                res, jac, scales, parts = self._system(sub, za, True)
                step = self._solve_linear(jac, res)
                norm = np.zeros(idx.size)
                size = np.full(idx.size, 1e-300)
                for s, v in zip(step, sub, strict=True):
                    norm = np.maximum(norm, np.abs(s))
                    size = np.maximum(size, np.abs(v))
                # an iterate at a spurious solution (:meth:`_degenerate`) is given up, like
                # a non-finite one
                finite = np.isfinite(norm) & ~self._degenerate(sub, za)
                small = finite & ((norm <= tol * size)
                                  | ((norm >= last[idx]) & (norm <= 1e-9 * size)))
                if not loose:
                    for r, s in zip(res, scales, strict=True):
                        small &= np.abs(r) <= 1e-11 * np.maximum(s, 1e-300)
                if small.any():
                    # the iterate one step on must not be spurious either (Newton falls
                    # into a spurious solution quadratically: the iterate before it is not
                    # yet there)
                    small &= self._physical(sub, za, parts, True) & ~self._degenerate(
                        [v - s for v, s in zip(sub, step, strict=True)], za)
                if small.any():
                    # the iterate one Newton step on (its error is the step's square), and
                    # G there to first order in that step
                    g, dg = self._value(sub, za, jac, parts, True)
                    g = g - self._g_slope(sub, za, parts) * step[0]
                    du = self._solve_linear(jac, [-d for d in self._dfdz(sub, za, parts)])
                    for row, vals in enumerate([g, dg, *du]):
                        value[row, idx[small]] = vals[small]
                    for v, w, s in zip(u, sub, step, strict=True):
                        v[idx[small]] = (w - s)[small]
                    ok[idx[small]] = True
                last[idx] = np.where(finite, norm, np.inf)
                done[idx[small | ~finite]] = True
                move = ~small & finite
                if not move.any():
                    continue
                sub = [v[move] for v in sub]
                step = [s[move] for s in step]
                zm = za[move]
                damp = np.ones(int(move.sum()))
                new = [v - s for v, s in zip(sub, step, strict=True)]
                bad = ~self._domain_ok(new, zm, True)
                for _ in range(30):  # halve steps that leave the half plane
                    if not bad.any():
                        break
                    damp[bad] /= 2
                    new = [v - damp * s for v, s in zip(sub, step, strict=True)]
                    bad = ~self._domain_ok(new, zm, True)
                for v, w in zip(u, new, strict=True):
                    v[idx[move]] = w
        return u, ok, value

    def solve_f64(self, zs: np.ndarray, strict: bool = True) -> list[np.ndarray]:
        """The unknowns at ``zs`` (``Im z >= 0``); see :meth:`solve_value_f64`."""
        return self.solve_value_f64(zs, strict)[0]

    def solve_value_f64(self, zs: np.ndarray, strict: bool = True
                        ) -> tuple[list[np.ndarray], np.ndarray]:
        """``(unknowns, value)`` at ``zs`` (``Im z >= 0``; ``value`` as in
        :meth:`_newton_f64`); a point that does not converge raises
        :class:`ConvergenceError` (``strict=False``: its unknowns and value are nan).

        Many real points (more than :data:`ANCHORED`) are solved through anchors: every
        :data:`ANCHOR_STEP`-th point in order along the axis is continued down from above;
        then, halving the stride, each point midway between two solved points of the same
        kind (both inside the support, with complex unknowns, or both outside, real) is
        solved by Newton from their cubic Hermite interpolation (the unknowns and their
        ``du/dx``; between real points lifted by ``1e-3`` of its size into the upper half
        plane, so that a point inside a component between them finds its complex
        solution) and kept only when it converges to the same kind; a point that is not
        is continued down from above too.

        The solve is one warm-start session of the operands
        (:meth:`freege.numeric.operands.Operand.warm`): a law operand's ``G`` at a Newton
        iterate is continued from the nearest point it was asked for in this solve
        (verified as a vertical track's steps are), not tracked from far above (issue 39)."""
        zs = np.asarray(zs, dtype=complex).ravel()
        real = np.flatnonzero(zs.imag == 0)
        with self.warm():  # the operands' warm starts, for this solve only
            if real.size > ANCHORED:
                return self._anchored_f64(zs, real, strict)
            return self._path_f64(zs, strict)

    def _kind(self, u: list[np.ndarray]) -> np.ndarray:
        """0 unsolved, 1 real, 2 complex unknowns."""
        tiny = 1e-9 * self.scale()
        finite = np.all([np.isfinite(v) for v in u], axis=0)
        cplx = np.any([np.abs(v.imag) > tiny for v in u], axis=0)
        return np.where(finite, np.where(cplx, 2, 1), 0)

    def _anchored_f64(self, zs: np.ndarray, real: np.ndarray, strict: bool
                      ) -> tuple[list[np.ndarray], np.ndarray]:
        u = [np.full(zs.shape, np.nan + 0j) for _ in range(self.k)]
        value = np.full((2 + self.k, zs.size), np.nan + 0j)

        def put(idx: np.ndarray, got: tuple[list[np.ndarray], np.ndarray]) -> None:
            for v, w in zip(u, got[0], strict=True):
                v[idx] = w
            value[:, idx] = got[1]

        rest = np.setdiff1d(np.arange(zs.size), real)
        if rest.size:
            put(rest, self._path_f64(zs[rest], strict))
        order = real[np.argsort(zs.real[real], kind="stable")]
        n, stride = order.size, ANCHOR_STEP
        anchors = np.unique(np.concatenate([np.arange(0, n, stride), [n - 1]]))
        put(order[anchors], self._path_f64(zs[order[anchors]], False))
        while stride > 1:
            half = stride // 2
            pos = np.arange(half, n, stride)
            pos = pos[pos < n - 1]
            left, right = order[pos - half], order[np.minimum(pos + half, n - 1)]
            kl, kr = self._kind([v[left] for v in u]), self._kind([v[right] for v in u])
            same = (kl == kr) & (kl > 0)
            todo, left, right = order[pos[same]], left[same], right[same]
            if todo.size:
                span = zs.real[right] - zs.real[left]
                t = np.where(span > 0, (zs.real[todo] - zs.real[left])
                             / np.where(span > 0, span, 1), 0.0)
                h00, h01 = 1 - t * t * (3 - 2 * t), t * t * (3 - 2 * t)
                h10, h11 = t * (1 - t) ** 2 * span, -t * t * (1 - t) * span
                seed = [h00 * v[left] + h01 * v[right]
                        + h10 * value[2 + j, left] + h11 * value[2 + j, right]
                        for j, v in enumerate(u)]
                seed = [np.where(np.isfinite(s), s, v[left]) for s, v in zip(seed, u,
                                                                             strict=True)]
                cplx = kl[same] == 2
                new, ok, val = self._newton_f64([v[cplx] for v in seed], zs[todo[cplx]])
                ok &= self._kind(new) == 2
                put(todo[cplx][ok], ([w[ok] for w in new], val[:, ok]))
                # between two real points the real equations have real solutions inside
                # a component too: from the height of the pair's span (seeded to first
                # order in it), where the solution is unique, down the path
                real_pts, height = todo[~cplx], span[~cplx]
                if real_pts.size:
                    slope = [(value[2 + j, left[~cplx]] + value[2 + j, right[~cplx]]) / 2
                             for j in range(self.k)]
                    lifted = [v[~cplx] + 1j * height * d for v, d in zip(seed, slope,
                                                                         strict=True)]
                    put(real_pts, self._path_f64(zs[real_pts], False, (height, lifted)))
                todo = np.concatenate([todo[cplx][ok], real_pts])
            missing = np.setdiff1d(order[pos], todo)
            if missing.size:
                put(missing, self._path_f64(zs[missing], False))
            stride = half
        if strict and not np.all([np.isfinite(v) for v in u]):
            raise ConvergenceError("G", "the subordination path stalls", self.describe)
        return u, value

    def _path_f64(self, zs: np.ndarray, strict: bool,
                  low: tuple[np.ndarray, list[np.ndarray]] | None = None
                  ) -> tuple[list[np.ndarray], np.ndarray]:
        """Every point continued down from above (see the module docstring); ``low``
        (heights above the points and seeds there): the path starts at those heights
        instead, where Newton converges there (a solution off the axis in the half plane
        is the physical one; then the end at once is tried first), and from the top
        elsewhere."""
        if low is not None:
            y = np.maximum(zs.imag, low[0])
            u, ok, value = self._newton_f64(low[1], zs.real + 1j * y)
            if not ok.all():
                rest = np.flatnonzero(~ok)
                top_u, top_value = self._path_f64(zs[rest], strict)
                done = np.flatnonzero(ok)
                sub_u, sub_value = self._path_f64(zs[done], strict, (y[done],
                                                                     [v[done] for v in u]))
                out = [np.empty(zs.shape, dtype=complex) for _ in u]
                value = np.empty((2 + self.k, zs.size), dtype=complex)
                for o, a, b in zip(out, top_u, sub_u, strict=True):
                    o[rest], o[done] = a, b
                value[:, rest], value[:, done] = top_value, sub_value
                return out, value
        else:
            top = 4 * self.scale() + np.abs(zs.real)
            y = np.maximum(zs.imag, top)
            u = self._start(zs.real + 1j * y, True)
            u, ok, value = self._newton_f64(u, zs.real + 1j * y)
            if not ok.all():
                raise ConvergenceError("G", "the subordination solve does not converge far "
                                       "above the support", self.describe)
        ratio = np.full(zs.shape, RATIO)
        ends = np.zeros(zs.shape, dtype=int)
        floor = FLOOR * np.minimum(self.scale(), np.maximum(np.abs(zs), 1e-300))
        if low is not None:  # from a low start, the end at once first
            floor = np.maximum(floor, 2 * y)
        for _ in range(PATH_STEPS):
            todo = y > zs.imag
            if not todo.any():
                return u, value
            idx = np.flatnonzero(todo)
            target = y[idx] * ratio[idx]
            target = np.where(target < np.maximum(zs.imag[idx], floor[idx]), zs.imag[idx],
                              np.maximum(target, zs.imag[idx]))
            # the path's end is solved to the last bit and verified, the steps on the
            # way only to PATH_TOL (they seed the next step)
            final = target == zs.imag[idx]
            new = [np.empty(idx.size, dtype=complex) for _ in u]
            ok = np.zeros(idx.size, dtype=bool)
            for part, loose in ((final, False), (~final, True)):
                if part.any():
                    got, good, val = self._newton_f64([v[idx][part] for v in u],
                                                      zs.real[idx][part] + 1j * target[part],
                                                      loose)
                    for w, g in zip(new, got, strict=True):
                        w[part] = g
                    ok[part] = good
                    if not loose:
                        value[:, idx[part]] = val
            take = idx[ok]
            for v, w in zip(u, new, strict=True):
                v[take] = w[ok]
            y[take] = target[ok]
            ratio[take] = RATIO
            miss = idx[~ok]
            ratio[miss] = np.sqrt(ratio[miss])
            failed_end = idx[~ok & final]
            floor[failed_end] *= 1e-3  # a failed jump to the end: go down the path instead
            ends[failed_end] += 1
            stuck = miss[(ratio[miss] > 1 - 1e-6) | (ends[miss] > END_TRIES)]
            if stuck.size and strict:
                raise ConvergenceError("G", "the subordination path stalls", {
                    **self.describe, "z": complex(zs[stuck[0]])})
            for v in u:
                v[stuck] = np.nan
            value[:, stuck] = np.nan
            y[stuck] = zs.imag[stuck]
        raise ConvergenceError("G", f"the subordination path needs more than {PATH_STEPS} "
                               "steps", self.describe)

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, value = self.solve_value_f64(np.asarray(zs, dtype=complex).ravel())
        return value[0], value[1]

    # ------------------------------------------------------------------ mpmath
    def _newton_mp(self, u: list[Any], z: Any) -> list[Any] | None:
        tol = _mp_tol()
        size = max([abs(v) for v in u] + [mpmath.mpf(10) ** -300])
        last = mpmath.inf
        for _ in range(NEWTON_STEPS + mpmath.mp.dps // 4):
            res, jac, scales, _ = self._system(u, z, False)
            try:
                step = self._solve_linear(jac, res)
            except ZeroDivisionError:
                return None
            damp = mpmath.mpf(1)
            new = [v - s for v, s in zip(u, step, strict=True)]
            for _ in range(30):
                if self._domain_ok(new, z, False):
                    break
                damp /= 2
                new = [v - damp * s for v, s in zip(u, step, strict=True)]
            norm = max(abs(damp * s) for s in step)
            u = new
            if not mpmath.isfinite(norm):
                return None
            if damp == 1 and norm <= tol * size:
                res, _, scales, parts = self._system(u, z, False)
                if all(abs(r) <= tol * max(s, mpmath.mpf(10) ** -mpmath.mp.dps)
                       for r, s in zip(res, scales, strict=True)) \
                        and self._physical(u, z, parts, False):
                    return u
                return None
            if norm >= last and norm > tol ** 0.5 * size:
                return None
            last = norm
        return None

    def solve_mp(self, z: Any, seed: list[complex] | None = None, fresh: bool = False
                 ) -> list[Any]:
        """The unknowns at one point (``Im z >= 0``) at the ambient precision: polished from
        the float64 solution (``seed``, else solved here), else continued down from above
        in mpmath (at once with ``fresh``: the independent route of ``estimate``)."""
        z = mpmath.mpmathify(z)
        u = None
        if not fresh:
            if seed is None:
                try:
                    seed = [complex(v[0]) for v in self.solve_f64(np.array([complex(z)]))]
                except ConvergenceError:
                    seed = None
            if seed is not None and all(np.isfinite(seed)):
                u = self._newton_mp([mpmath.mpc(v) for v in seed], z)
        if u is not None:
            return u
        # continue in mpmath down the vertical path
        y_end = mpmath.im(z)
        y = max(y_end, 4 * mpmath.mpf(self.scale()) + abs(mpmath.re(z)))
        zc = mpmath.mpc(mpmath.re(z), y)
        u = self._newton_mp(self._start(zc, False), zc)
        ratio = mpmath.mpf(RATIO)
        for _ in range(PATH_STEPS):
            if u is None:
                break
            if y <= y_end:
                return u
            target = y * ratio
            if target < max(y_end, mpmath.mpf(10) ** (-mpmath.mp.dps // 2) * self.scale()):
                target = y_end
            nxt = self._newton_mp(u, mpmath.mpc(mpmath.re(z), target))
            if nxt is None:
                ratio = mpmath.sqrt(ratio)
                if ratio > 1 - mpmath.mpf(10) ** -6:
                    break
                continue
            u, y, ratio = nxt, target, mpmath.mpf(RATIO)
        raise ConvergenceError("G", "the subordination solve does not converge at working "
                               "precision", {**self.describe, "z": mpmath.nstr(z, 15)})

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        u = self.solve_mp(z)
        _, jac, _, parts = self._system(u, z, False)
        g, dg = self._value(u, z, jac, parts, False)
        return mpmath.mpc(g), mpmath.mpc(dg)

    def identity(self) -> tuple[Any, ...]:
        return (type(self).__name__, self._parameters(), *(c.identity() for c in self.children))

    def intervals_mp(self, points: int | None = None, f64: bool = False
                     ) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """By scan and edge equations (:mod:`freege.numeric.data_support`, ``points`` scan
        points: its default when None; ``f64``: edges to float64 accuracy), kept per
        precision and scan (a pure function of the node)."""
        from freege.numeric.data_support import SCAN_POINTS, node_intervals

        points = points or SCAN_POINTS
        memo = self.__dict__.setdefault("_intervals", {})
        key = (mpmath.mp.prec, points, f64)
        if key not in memo:
            memo[key] = node_intervals(self, points, f64)
        return [(+a, +b) for a, b in memo[key]]

    def _parameters(self) -> tuple[Any, ...]:
        return ()


def _padded(lo: float, hi: float, rel: float = 1e-12) -> tuple[float, float]:
    """``[lo, hi]`` widened by ``rel`` of its size for rounding, never across 0."""
    pad = rel * max(hi - lo, abs(lo), abs(hi), 1e-300)
    return (lo - pad if lo < 0 or lo - pad >= 0 else 0.0), hi + pad


def _heavy_pairs(a: Operand, b: Operand) -> list[tuple[tuple[Any, Any], tuple[Any, Any]]]:
    """The pairs of atoms ``(x, p)`` of ``a`` and ``(y, q)`` of ``b`` with ``p + q > 1``
    (one of the two masses is above 1/2), each once."""
    half = mpmath.mpf(1) / 2
    pairs = []
    for x, p in a.atoms_above_mp(half):
        pairs += [((x, p), (y, q)) for y, q in b.atoms_above_mp(1 - p)]
    for y, q in b.atoms_above_mp(half):
        pairs += [((x, p), (y, q)) for x, p in a.atoms_above_mp(1 - q) if p <= half]
    return pairs


def _lift(x: Any, f64: bool) -> Any:
    return x if f64 else mpmath.mpmathify(x)


class FreeAddNode(Node):
    """``A ⊞ B`` (see the module docstring)."""

    k = 2

    def __init__(self, a: Operand, b: Operand) -> None:
        self.children = (a, b)
        self.describe = {"law": f"({a.describe.get('law', a.describe)}) ⊞ "
                                f"({b.describe.get('law', b.describe)})"}

    def hull(self) -> tuple[float, float]:
        (a0, a1), (b0, b1) = self.children[0].hull(), self.children[1].hull()
        return _padded(a0 + b0, a1 + b1)

    def _start(self, z: Any, f64: bool) -> list[Any]:
        ma = float(self.children[0].mean_mp()) if f64 else self.children[0].mean_mp()
        mb = float(self.children[1].mean_mp()) if f64 else self.children[1].mean_mp()
        return [z - mb, z - ma]

    def _system(self, u: list[Any], z: Any, f64: bool) -> Any:
        a, b = self.children
        ga, dga = a.cauchy_f64(u[0]) if f64 else a.cauchy_mp(u[0])
        gb, dgb = b.cauchy_f64(u[1]) if f64 else b.cauchy_mp(u[1])
        res = [ga - gb, u[0] + u[1] - z - 1 / ga]
        jac = [[dga, -dgb], [1 + dga / ga**2, _lift(1, f64) + 0 * dga]]
        scales = [abs(ga) + abs(gb), abs(u[0]) + abs(u[1]) + abs(z) + abs(1 / ga)]
        return res, jac, scales, {"g": ga, "dg": dga}

    def _dfdz(self, u: list[Any], z: Any, parts: dict[str, Any]) -> list[Any]:
        return [0 * parts["g"], -1 + 0 * parts["g"]]

    def _g_slope(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return parts["dg"]

    def _g_of(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return parts["g"]

    def _domain_ok(self, u: list[Any], z: Any, f64: bool) -> Any:
        """``Im w_A, Im w_B >= Im z`` (Biane: the subordination functions of ⊞ raise the
        imaginary part), less a rounding allowance."""
        if f64:
            tiny = 1e-9 * self.scale() + 1e-9 * np.abs(z.imag)
            return (u[0].imag >= z.imag - tiny) & (u[1].imag >= z.imag - tiny)
        tiny = mpmath.mpf(10) ** (4 - mpmath.mp.dps) * (self.scale() + abs(mpmath.im(z)))
        return mpmath.im(u[0]) >= mpmath.im(z) - tiny and mpmath.im(u[1]) >= mpmath.im(z) - tiny

    def _value(self, u: list[Any], z: Any, jac: Any, parts: dict[str, Any], f64: bool
               ) -> tuple[Any, Any]:
        du = self._solve_linear(jac, [0 * parts["g"], 1 + 0 * parts["g"]])
        return parts["g"], parts["dg"] * du[0]

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """Bercovici-Voiculescu: an atom at ``a + b`` of mass ``p + q - 1`` wherever
        ``A{a} = p``, ``B{b} = q`` and ``p + q > 1``."""
        out: dict[Any, Any] = {}
        for (x, p), (y, q) in _heavy_pairs(*self.children):
            out[x + y] = out.get(x + y, 0) + p + q - 1
        return sorted(out.items())

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        return free_series.free_add_moments(self.children[0].moments_mp(q),
                                            self.children[1].moments_mp(q))


class FreeMultNode(Node):
    """``A ⊠ B`` of two laws on ``[0, inf)`` of nonzero mean (see the module docstring)."""

    k = 2
    operation = "free-mult"

    def __init__(self, a: Operand, b: Operand) -> None:
        for k, c in enumerate((a, b), start=1):
            if not c.nonnegative:
                raise ValueError(f"free_mult: factor {k} is not supported on [0, inf); "
                                 "⊠ needs laws on [0, inf)")
            if c.mean_mp() == 0:
                raise ValueError(f"free_mult: factor {k} has mean 0 (it is delta_0)")
        self.children = (a, b)
        self.describe = {"law": f"({a.describe.get('law', a.describe)}) ⊠ "
                                f"({b.describe.get('law', b.describe)})"}

    def hull(self) -> tuple[float, float]:
        (_, a1), (_, b1) = self.children[0].hull(), self.children[1].hull()
        return 0.0, a1 * b1 * (1 + 1e-12)

    def _start(self, z: Any, f64: bool) -> list[Any]:
        a, b = self.children
        mb = float(b.mean_mp()) if f64 else b.mean_mp()
        wa = z / mb
        ga = (a.cauchy_f64(wa)[0] if f64 else a.cauchy_mp(wa)[0]) * wa
        return [wa, z * ga / (wa * (ga - 1))]

    def _system(self, u: list[Any], z: Any, f64: bool) -> Any:
        a, b = self.children
        ga, dga = a.cauchy_f64(u[0]) if f64 else a.cauchy_mp(u[0])
        gb, dgb = b.cauchy_f64(u[1]) if f64 else b.cauchy_mp(u[1])
        ha, hb = u[0] * ga, u[1] * gb
        dha, dhb = ga + u[0] * dga, gb + u[1] * dgb
        res = [ha - hb, u[0] * u[1] * (ha - 1) - z * ha]
        jac = [[dha, -dhb],
               [u[1] * (ha - 1) + u[0] * u[1] * dha - z * dha, u[0] * (ha - 1)]]
        scales = [abs(ha) + abs(hb), abs(u[0] * u[1]) * (abs(ha) + 1) + abs(z * ha)]
        return res, jac, scales, {"h": ha, "dh": dha}

    def _dfdz(self, u: list[Any], z: Any, parts: dict[str, Any]) -> list[Any]:
        return [0 * parts["h"], -parts["h"]]

    def _g_slope(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return parts["dh"] / z

    def _g_of(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return parts["h"] / z

    def _degenerate(self, u: list[np.ndarray], z: np.ndarray) -> np.ndarray:
        """At (or heading for) the spurious solution ``W_A = W_B = 0``."""
        return (np.abs(u[0]) <= 1e-10 * np.abs(z)) | (np.abs(u[1]) <= 1e-10 * np.abs(z))

    def _physical(self, u: list[Any], z: Any, parts: dict[str, Any], f64: bool) -> Any:
        """Also refuses the spurious solution ``W_A = W_B = 0`` of the equations."""
        ok = super()._physical(u, z, parts, f64)
        if f64:
            return ok & (np.abs(u[0]) > 1e-10 * np.abs(z)) & (np.abs(u[1]) > 1e-10 * np.abs(z))
        tiny = mpmath.mpf(10) ** (-mpmath.mp.dps // 2) * abs(z)
        return ok and abs(u[0]) > tiny and abs(u[1]) > tiny

    def _value(self, u: list[Any], z: Any, jac: Any, parts: dict[str, Any], f64: bool
               ) -> tuple[Any, Any]:
        h, dh = parts["h"], parts["dh"]
        du = self._solve_linear(jac, [0 * h, h])
        return h / z, dh * du[0] / z - h / z**2

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """Bercovici-Voiculescu on ``[0, inf)``: ``max(A{0}, B{0})`` at 0, and ``p + q - 1``
        at ``a b != 0`` wherever ``A{a} = p``, ``B{b} = q``, ``p + q > 1``."""
        out: dict[Any, Any] = {}
        zero = max(c.mass_at_mp(0) for c in self.children)
        if zero > 0:
            out[mpmath.mpf(0)] = zero
        for (x, p), (y, q) in _heavy_pairs(*self.children):
            if x != 0 and y != 0:
                out[x * y] = out.get(x * y, 0) + p + q - 1
        return sorted(out.items())

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        return free_series.free_mult_moments(self.children[0].moments_mp(q),
                                             self.children[1].moments_mp(q))


class PoissonNode(Node):
    """``pi(nu, t)``: the compound free Poisson law of rate ``t`` and jump law ``nu``
    (free cumulants ``t m_q(nu)``; see the module docstring)."""

    k = 1
    operation = "poisson"

    def __init__(self, rate: Any, jump: Operand) -> None:
        self._rate = rate
        if not self.rate > 0:
            raise ValueError(f"rate must be > 0 (got {rate})")
        self.children = (jump,)
        self.describe = {"law": f"poisson({mpmath.nstr(self.rate, 8)}, "
                                f"{jump.describe.get('law', jump.describe)})"}

    @property
    def rate(self) -> mpmath.mpf:
        return exact(self._rate)

    def _parameters(self) -> tuple[Any, ...]:
        return (str(self._rate),)

    def hull(self) -> tuple[float, float]:
        lo, hi = self.children[0].hull()
        t = float(self.rate)
        reach = (1 + math.sqrt(t)) ** 2 * 1.0000001
        return min(0.0, lo * reach), max(0.0, hi * reach)

    def _start(self, z: Any, f64: bool) -> list[Any]:
        m = self.children[0].mean_mp()
        return [z - (float(self.rate * m) if f64 else self.rate * m)]

    def _system(self, u: list[Any], z: Any, f64: bool) -> Any:
        (w,) = u
        t = float(self.rate) if f64 else self.rate
        g, dg = self.children[0].cauchy_f64(w) if f64 else self.children[0].cauchy_mp(w)
        res = [z - (1 - t) * w - t * w * w * g]
        jac = [[-(1 - t) - t * (2 * w * g + w * w * dg)]]
        scales = [abs(z) + abs((1 - t) * w) + abs(t * w * w * g)]
        return res, jac, scales, {}

    def _dfdz(self, u: list[Any], z: Any, parts: dict[str, Any]) -> list[Any]:
        return [1 + 0 * u[0]]

    def _g_slope(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return -1 / u[0] ** 2

    def _g_of(self, u: list[Any], z: Any, parts: dict[str, Any]) -> Any:
        return 1 / u[0]

    def _value(self, u: list[Any], z: Any, jac: Any, parts: dict[str, Any], f64: bool
               ) -> tuple[Any, Any]:
        (w,) = u
        dw = -1 / jac[0][0]
        return 1 / w, -dw / w**2

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """Only at 0: ``max(0, 1 - t (1 - nu{0}))``."""
        p0 = mpmath.fsum(p for x, p in self.children[0].atoms_mp() if x == 0)
        mass = 1 - self.rate * (1 - p0)
        return [(mpmath.mpf(0), mass)] if mass > 0 else []

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        return free_series.poisson_moments(self.rate, self.children[0].moments_mp(q))


class AffineNode(Operand):
    """``scale X + shift`` (``scale != 0``)."""

    operation = "affine"

    def __init__(self, scale: Any, shift: Any, base: Operand) -> None:
        self._ab = (scale, shift)
        if self.a == 0:
            raise ValueError("scale must not be 0")
        self.children = (base,)
        inner = base.describe.get("law", base.describe)
        self.describe = {"law": f"{mpmath.nstr(self.a, 8)} ({inner}) + "
                                f"{mpmath.nstr(self.b, 8)}"}

    @property
    def a(self) -> mpmath.mpf:
        return exact(self._ab[0])

    @property
    def b(self) -> mpmath.mpf:
        return exact(self._ab[1])

    def identity(self) -> tuple[Any, ...]:
        return ("affine", str(self._ab), self.children[0].identity())

    def hull(self) -> tuple[float, float]:
        lo, hi = self.children[0].hull()
        ends = sorted((float(self.a) * lo + float(self.b), float(self.a) * hi + float(self.b)))
        return _padded(ends[0], ends[1])

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = float(self.a), float(self.b)
        g, dg = self.children[0].cauchy_f64((np.asarray(zs) - b) / a)
        return g / a, dg / (a * a)

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        g, dg = self.children[0].cauchy_mp((z - self.b) / self.a)
        return g / self.a, dg / self.a**2

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return sorted((self.a * x + self.b, p) for x, p in self.children[0].atoms_mp())

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return sorted(tuple(sorted((self.a * x + self.b, self.a * y + self.b)))
                      for x, y in self.children[0].intervals_mp())

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        return free_series.affine_moments(self.a, self.b, self.children[0].moments_mp(q))


class PushforwardNode(Operand):
    """``p(X)``, ``p(x) = sum_j coeffs[j] x^j`` of degree ``>= 2`` (see the module
    docstring). A critical value of ``p`` at a point of ``X``'s support is refused by the
    law that holds the node (its density is singular there)."""

    def __init__(self, coeffs: Any, base: Operand) -> None:
        self._coeffs = tuple(coeffs)
        if len(self.coeffs) < 3 or self.coeffs[-1] == 0:
            raise ValueError("pushforward needs a polynomial of degree >= 2")
        self.children = (base,)
        self.describe = {"law": f"pushforward({base.describe.get('law', base.describe)}, "
                                f"{[mpmath.nstr(c, 8) for c in self.coeffs]})"}
        self._c64 = np.array([float(c) for c in self.coeffs])

    @property
    def coeffs(self) -> list[mpmath.mpf]:
        return [exact(c) for c in self._coeffs]

    def identity(self) -> tuple[Any, ...]:
        return ("pushforward", tuple(str(c) for c in self._coeffs), self.children[0].identity())

    def hull(self) -> tuple[float, float]:
        lo, hi = self.children[0].hull()
        xs = np.linspace(lo, hi, 4097)
        crit = np.roots(np.polyder(self._c64[::-1]))
        xs = np.concatenate([xs, [c.real for c in crit if abs(c.imag) < 1e-12 and lo < c.real
                                  < hi]])
        vals = np.polyval(self._c64[::-1], xs)
        # the grid misses at most the curvature between nodes: pad by it
        return _padded(float(vals.min()), float(vals.max()), 1e-6)

    def _roots_f64(self, zs: np.ndarray) -> np.ndarray:
        n = len(self._c64) - 1
        lead = self._c64[-1]
        comp = np.zeros((zs.size, n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        col = -self._c64[:n] / lead
        comp[:, :, -1] = col[None, :]
        comp[:, 0, -1] += zs / lead
        return np.linalg.eigvals(comp)

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        zs = np.asarray(zs, dtype=complex).ravel()
        xs = self._roots_f64(zs)
        d1 = np.polyder(self._c64[::-1])
        d2 = np.polyder(d1)
        p1 = np.polyval(d1, xs)
        p2 = np.polyval(d2, xs)
        # a root on the real axis is moved off it by z + i0: dx = i0/p'(x)
        tiny = 1e-12 * self.scale()
        real = np.abs(xs.imag) <= tiny
        side = np.where(real, np.where(p1.real > 0, 1e-300, -1e-300), 0.0)
        xs = np.where(real, xs.real + 1j * side, xs)
        g, dg = self.children[0].cauchy_f64(xs)
        with np.errstate(all="ignore"):
            total = (g / p1).sum(axis=1)
            deriv = (dg / p1**2 - g * p2 / p1**3).sum(axis=1)
        return total, deriv

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        coeffs = list(self.coeffs)
        coeffs[0] -= z
        xs = mpmath.polyroots(coeffs[::-1], maxsteps=200, extraprec=2 * mpmath.mp.prec)
        d1 = [k * c for k, c in enumerate(self.coeffs)][1:]
        d2 = [k * c for k, c in enumerate(d1)][1:]
        tiny = mpmath.mpf(10) ** (5 - mpmath.mp.dps) * self.scale()
        total = mpmath.mpc(0)
        deriv = mpmath.mpc(0)
        for x in xs:
            p1 = mpmath.polyval(d1[::-1], x)
            p2 = mpmath.polyval(d2[::-1], x)
            if abs(mpmath.im(x)) <= tiny:
                x = mpmath.mpc(mpmath.re(x), 0)
                g, dg = self.children[0].cauchy_mp(x if mpmath.re(p1) > 0 else x)
                if mpmath.re(p1) < 0:  # below the axis: the reflected value
                    g, dg = mpmath.conj(g), mpmath.conj(dg)
            else:
                g, dg = self.children[0].cauchy_mp(x)
            total += g / p1
            deriv += dg / p1**2 - g * p2 / p1**3
        return total, deriv

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """``p([a, b])`` of each interval of the operand, merged; a critical point of
        ``p`` inside an interval is refused (a singular density)."""
        d1 = [k * c for k, c in enumerate(self.coeffs)][1:]
        crit = [r for r in mpmath.polyroots(d1[::-1], maxsteps=200, extraprec=100)
                if abs(mpmath.im(r)) < mpmath.mpf(10) ** (5 - mpmath.mp.dps)]
        images = []
        for a, b in self.children[0].intervals_mp():
            if any(a < mpmath.re(r) < b for r in crit):
                raise ValueError("pushforward: the polynomial has a critical point inside "
                                 "the operand's support (a singular density); not supported "
                                 "(docs/data-laws.md, Limits)")
            pa = mpmath.polyval(self.coeffs[::-1], a)
            pb = mpmath.polyval(self.coeffs[::-1], b)
            images.append((min(pa, pb), max(pa, pb)))
        merged: list[tuple[Any, Any]] = []
        for a, b in sorted(images):
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        return merged

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        out: dict[Any, Any] = {}
        for x, p in self.children[0].atoms_mp():
            y = mpmath.polyval(self.coeffs[::-1], x)
            out[y] = out.get(y, 0) + p
        return sorted(out.items())

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        deg = len(self.coeffs) - 1
        return free_series.pushforward_moments(self.coeffs,
                                               self.children[0].moments_mp(q * deg), q)


__all__ = ["AffineNode", "FreeAddNode", "FreeMultNode", "Node", "PoissonNode",
           "PushforwardNode"]
