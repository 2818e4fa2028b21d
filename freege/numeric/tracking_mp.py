"""Mpmath tracking of the physical branch of ``P(G, z) = 0`` (theory §7.1): the vertical
track at the ambient precision, the near-0 route (:data:`NEAR_ZERO`: a hard edge or the
atom's pole, where float64 is not used), and the continuation along the real axis inside
a support interval and on the negative axis.

Holds :class:`MpTracking` (:meth:`MpTracking.stieltjes_mp`, :meth:`MpTracking.track_mp`,
:meth:`MpTracking.density_path_mp`, :meth:`MpTracking.negative_path_mp`), whose values are
verified by :class:`freege.numeric.polish_mp.MpPolish`. Conventions and methods:
:mod:`freege.numeric.roots`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.branch_points import BranchPoints
from freege.numeric.cauchy_polynomial import _gamma_mp
from freege.numeric.polish_mp import GUARD_BITS, MpPolish
from freege.numeric.tracking_f64 import ACCEPT, FINAL_TRIES, LOWER, MIN_STEP

#: |z| / R below which float64 is not used (hard edge / pole at 0, theory §7.1)
NEAR_ZERO = 1e-6


class MpTracking(MpPolish, BranchPoints):
    """The mpmath routes to the physical root (one point, or a batch continued along the
    axis); a part of :class:`freege.numeric.roots.CauchyEquation`."""

    def stieltjes_mp(
        self, zv: mpmath.mpc | mpmath.mpf, seed: complex | None = None, inside: bool = False
    ) -> mpmath.mpc:
        """Physical ``G(z)`` at the ambient precision (real ``z`` read as ``x + i0``).
        ``inside`` (real ``z`` only) says ``z`` is inside the support, so that ``Im G``
        (the density) is the quantity verified to working precision.

        ``seed`` is a float64 value on the same branch (from :meth:`stieltjes_f64`). Within
        :data:`NEAR_ZERO` ``R`` of 0 (a hard edge or the atom's pole, theory §7.1), or
        without a finite seed, the branch is tracked in mpmath instead
        (:meth:`track_mp`), at ``log2(R/|z|)`` extra bits: near a hard edge the roots in
        ``u = zG`` cluster like ``|z|^(1/(m+1))`` and their condition number grows like
        ``1/|z|``. The root is then polished by :func:`freege.numeric.solve.polish_root`
        (step and residual tests); see :meth:`polish`. Raises
        :class:`freege.errors.ConvergenceError` when it cannot be verified."""
        zv = mpmath.mpmathify(zv)
        real = mpmath.im(zv) == 0
        lower = mpmath.im(zv) < 0
        if lower:
            zv = mpmath.conj(zv)
            seed = None if seed is None else complex(seed).conjugate()
        prec = mpmath.mp.prec
        if zv == 0:
            raise ConvergenceError("Stieltjes transform", "z = 0 is a branch point",
                                   self.describe)
        near = abs(zv) < NEAR_ZERO * self.scale()
        guard = GUARD_BITS
        if near:
            guard += max(0, math.ceil(math.log2(self.radius() / float(abs(zv)))))
        if near or seed is None or not np.isfinite(seed):
            with mpmath.workprec(prec + guard):
                seed = self.track_mp(zv)
        g = self.polish(zv, mpmath.mpc(seed), prec + guard, real and inside)
        with mpmath.workprec(prec):
            g = +g
            if real:
                g = mpmath.mpc(g.real, -abs(g.imag))
            return mpmath.conj(g) if lower else g

    def track_mp(self, zv: mpmath.mpc) -> mpmath.mpc:
        """The vertical-path tracking of :meth:`track` in mpmath at the ambient precision,
        for one point ``z`` with ``Im z >= 0``, continued *to* ``z`` itself.

        From ``x + iY`` (root nearest ``1/z + m1/z^2``) down to ``eta_min = max(Im z,
        1e-3 |x|)`` by steps ``eta -> 0.6 eta`` (Euler predictor on ``log G`` in
        ``log z``, Newton corrector); on the real axis a last predictor step from ``x + i eta_min``
        to ``x`` and Newton there. Selection is by continuity of ``u``, which stays bounded
        at the atom's pole and at a hard edge at 0 (``G`` does not), theory §7.1. Every
        step, the last one included, is accepted as in :meth:`_checked_newton`
        (:data:`ACCEPT`) and otherwise shortened (the last one: tried again from
        ``eta / LOWER``); a :class:`freege.errors.ConvergenceError` when no step is."""
        x, y = mpmath.re(zv), mpmath.im(zv)
        eta_min = max(y, abs(x) / 1000)
        Y = 4 * mpmath.mpf(self.radius()) + abs(x)
        z0 = mpmath.mpc(x, Y)
        g = self._start_mp(z0, 1 / z0 + self.mean / z0**2)
        g, eta = self._descend_mp(x, g, Y, eta_min)
        for _ in range(FINAL_TRIES):
            if y >= eta:
                return g
            new, ok = self._checked_step_mp(zv, mpmath.mpc(x, eta), g, 6)
            if ok:
                return new
            deeper = max(eta / LOWER, y)
            g, eta = self._descend_mp(x, g, eta, deeper)
        raise ConvergenceError("Stieltjes transform", f"the branch at z = {mpmath.nstr(zv, 8)} "
                               "cannot be followed onto the real axis", self.describe)

    def _checked_step_mp(self, zb: mpmath.mpc, za: mpmath.mpc, g: mpmath.mpc, steps: int
                         ) -> tuple[mpmath.mpc, bool]:
        """The predictor step from ``za`` to ``zb``, Newton, and whether it is accepted
        (:data:`ACCEPT`, as :meth:`_checked_newton`)."""
        pred = self._u_predict_mp(za, zb, g)
        new = self._newton_steps_mp(zb, pred, steps)
        return new, abs(new - pred) * _gamma_mp(self.coeffs_mp(zb), new) <= ACCEPT

    def _descend_mp(self, x: mpmath.mpf, g: mpmath.mpc, eta: mpmath.mpf,
                    eta_min: mpmath.mpf) -> tuple[mpmath.mpc, mpmath.mpf]:
        """From ``G(x + i eta)`` down to ``x + i eta_min`` by accepted steps (ratio 0.6,
        shortened by square roots where a step is not accepted)."""
        ratio = mpmath.mpf(0.6)
        while eta > eta_min:
            new_eta = max(eta * ratio, eta_min)
            new, ok = self._checked_step_mp(mpmath.mpc(x, new_eta), mpmath.mpc(x, eta), g, 4)
            if ok:
                g, eta = new, new_eta
                ratio = max(ratio**2, mpmath.mpf(0.6))
                continue
            ratio = mpmath.sqrt(ratio)
            if 1 - ratio < MIN_STEP:
                raise ConvergenceError("Stieltjes transform", f"the branch at x = "
                                       f"{mpmath.nstr(x, 8)} cannot be followed down to "
                                       f"eta = {mpmath.nstr(eta, 3)}", self.describe)
        return g, eta

    def _start_mp(self, z0: mpmath.mpc, start: mpmath.mpc) -> mpmath.mpc:
        """The root of ``P(., z0)`` nearest ``start`` at the ambient precision: the nearest
        float64 companion root, Newton to the rounding level, accepted when it is provably
        the nearest (any other root is at least ``(5 - sqrt 17)/(4 gamma)`` from it,
        Smale's ``gamma`` as in :func:`_gamma`, and ``start`` is within half of that);
        otherwise all roots at the ambient precision (``mpmath.polyroots``, slow where
        the roots span many orders of magnitude)."""
        c = self.coeffs_mp(z0)
        while len(c) > 2 and c[-1] == 0:
            c = c[:-1]
        with np.errstate(all="ignore"):
            desc64 = np.array([complex(v) for v in c[::-1]])
            found = np.roots(desc64) if np.all(np.isfinite(desc64)) else np.array([])
        found = found[np.isfinite(found)]
        if found.size:
            g = mpmath.mpc(complex(found[np.argmin(np.abs(found - complex(start)))]))
            desc, ddesc = c[::-1], [k * c[k] for k in range(len(c) - 1, 0, -1)]
            tol = mpmath.ldexp(1, 8 - mpmath.mp.prec)
            for _ in range(100):
                d = mpmath.polyval(ddesc, g)
                if d == 0:
                    break
                step = mpmath.polyval(desc, g) / d
                g -= step
                if abs(step) <= tol * abs(g):
                    separation = (5 - mpmath.sqrt(17)) / (4 * _gamma_mp(c, g))
                    if abs(g - start) < separation / 2:
                        return g
                    break
        return min(self.all_roots_mp(z0), key=lambda r: abs(r - start))

    def density_path_mp(
        self, xs: list[mpmath.mpf], lower_edge: mpmath.mpf, upper_edge: mpmath.mpf
    ) -> list[mpmath.mpc]:
        """Physical ``G(x + i0)`` at the ambient precision for real points ``xs`` inside one
        support interval ``(lower_edge, upper_edge)``, all within :data:`NEAR_ZERO` ``S``
        of 0: continued *along the interval* (Euler in ``log G`` over ``log z``, each
        step at most half the distance to the nearer edge, Newton) from one anchor tracked
        vertically (:meth:`track_mp`): the batch's largest point when both edges are a tenth of it
        away or more (its vertical track stops at a thousandth), else the middle of the
        interval's part below ``NEAR_ZERO S`` (a vertical track next to an edge is not
        trusted, issue 16); each
        value is then verified by :meth:`polish` and must be non-real (a root on another
        sheet is real there). Nothing is kept between calls: the root a point gets depends
        only on the law and the point (every route reaches the physical root), and the
        precision (the conditioning
        guard of the smallest point, see :meth:`stieltjes_mp`) only on the batch's
        smallest point, so values agree after rounding to the working precision."""
        if not xs:
            return []
        prec = mpmath.mp.prec
        xs = [mpmath.mpf(x) for x in xs]
        lo_e, hi_e = mpmath.mpf(lower_edge), mpmath.mpf(upper_edge)
        top = max(xs)
        with mpmath.workprec(prec + 10):
            anchor = (lo_e + min(hi_e, mpmath.mpf(NEAR_ZERO * self.scale()))) / 2
        if min(top - lo_e, hi_e - top) >= top / 10:  # the track stops at top/1000: start
            anchor = top  # at the batch's top when both edges are well beyond that
        out, guard = self._along_axis_mp(xs, lo_e, hi_e, anchor)
        result = []
        for k, x in enumerate(xs):
            g = self.polish(x, out[k], prec + guard, True)
            if not abs(g.imag) > mpmath.ldexp(abs(g), 40 - prec - guard):
                raise ConvergenceError(f"Cauchy root at z = {mpmath.nstr(x, 10)}",
                                       "continuation along the support reached a real root",
                                       self.describe)
            with mpmath.workprec(prec):
                result.append(mpmath.mpc(+g.real, -abs(+g.imag)))
        return result

    def negative_path_mp(self, xs: list[mpmath.mpf], upper: mpmath.mpf) -> list[mpmath.mpf]:
        """Physical ``G(x)`` at the ambient precision for real points ``x < 0`` near 0 (the
        Stehfest points ``-k ln2/tau`` of a long time ``tau``), where the support lies in
        ``[0, upper]``: ``G`` is analytic and real on ``(-inf, 0)``, so the batch is
        continued along the axis (as in :meth:`density_path_mp`, each step at most half
        the distance to 0) from its point farthest from 0, tracked vertically once
        (:meth:`track_mp`), instead of one vertical track per point. Each value is then
        verified by :meth:`polish` and must be real and within the Stieltjes bounds of a
        law of mass 1 on ``[0, upper]``: ``-1/|x| <= G(x) <= -1/(upper + |x|)``."""
        if not xs:
            return []
        prec = mpmath.mp.prec
        xs = [mpmath.mpf(x) for x in xs]
        out, guard = self._along_axis_mp(xs, mpmath.mpf("-inf"), mpmath.mpf(0), min(xs))
        result = []
        for k, x in enumerate(xs):
            g = self.polish(x, out[k], prec + guard)
            with mpmath.workprec(prec + guard):
                fits = (abs(g.imag) <= mpmath.ldexp(abs(g), 40 - prec - guard)
                        and 1 / x <= g.real <= -1 / (upper - x))
            if not fits:
                raise ConvergenceError(f"Cauchy root at z = {mpmath.nstr(x, 10)}",
                                       "continuation along the negative axis left the "
                                       "physical branch", self.describe)
            with mpmath.workprec(prec):
                result.append(+g.real)
        return result

    def _along_axis_mp(self, xs: list[mpmath.mpf], lo_e: mpmath.mpf, hi_e: mpmath.mpf,
                       anchor: mpmath.mpf) -> tuple[dict[int, mpmath.mpc], int]:
        """Roots at the real points ``xs`` of ``(lo_e, hi_e)`` continued along the axis from
        ``anchor`` (tracked vertically), each step at most half the distance to the
        nearer end, at the precision plus the conditioning guard of the smallest point
        (see :meth:`stieltjes_mp`); returns them (unverified) and the guard bits."""
        prec = mpmath.mp.prec
        low = min(abs(x) for x in [*xs, anchor])
        guard = GUARD_BITS + max(0, math.ceil(math.log2(self.radius() / float(low))))
        out: dict[int, mpmath.mpc] = {}
        with mpmath.workprec(prec + guard):
            g0 = self.track_mp(anchor)
            below = sorted((k for k in range(len(xs)) if xs[k] <= anchor), key=lambda k: -xs[k])
            above = sorted((k for k in range(len(xs)) if xs[k] > anchor), key=lambda k: xs[k])
            for ks in (below, above):
                prev, g = anchor, g0
                for k in ks:
                    x = xs[k]
                    while prev != x:
                        half = min(prev - lo_e, hi_e - prev) / 2
                        step_to = max(x, prev - half) if x < prev else min(x, prev + half)
                        g = self._newton_steps_mp(step_to, self._u_predict_mp(prev, step_to, g), 4)
                        prev = step_to
                    out[k] = g
        return out, guard

    def _u_predict_mp(self, za: mpmath.mpc, zb: mpmath.mpc, g: mpmath.mpc) -> mpmath.mpc:
        """Euler step of ``log G`` in ``log z`` from ``za`` to ``zb`` (``dlog G/dlog z =
        -z P_z/(G P_G)``), returned as ``G(zb)``. Near 0 every root is a Puiseux series
        ``c z^(-p/q) (1 + c' z^(1/q) + ...)``: the step is exact for the leading power, so
        its error is ``O(|z|^(1/q))`` relative, the scale that separates roots sharing the
        leading term (two clusters at a hard edge of a law with several ratios equal to 1,
        issue 16); an Euler step in ``u = zG`` errs by ``O(1)`` relative and jumped
        between them."""
        c = self.coeffs_mp(za)
        dp = mpmath.polyval([k * c[k] for k in range(len(c) - 1, 0, -1)], g)
        dc = [mpmath.polyval([j * row[j] for j in range(len(row) - 1, 0, -1)] or [0], za)
              for row in self.matrix_mp()]
        dz = mpmath.polyval(dc[::-1], g)
        if dp == 0 or g == 0:
            return g
        return g * mpmath.exp(-za * dz / (g * dp) * mpmath.log(zb / za))
