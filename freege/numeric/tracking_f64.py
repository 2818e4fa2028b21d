"""Float64 tracking of the physical branch of ``P(G, z) = 0`` (theory §7.1): vertical
tracks, the last step onto the real axis, continuation from anchors, and the
extended-precision refinement with its error estimate.

Holds :class:`Float64Tracking` (:meth:`Float64Tracking.stieltjes_f64`,
:meth:`Float64Tracking.continue_f64`, :meth:`Float64Tracking.track`; every step accepted
by Smale's gamma, :data:`ACCEPT`) and the step constants shared with the mpmath tracking
(:mod:`freege.numeric.tracking_mp`). Conventions and methods: :mod:`freege.numeric.roots`.
"""

from __future__ import annotations

import numpy as np

from freege.numeric.branch_points import BranchPoints
from freege.numeric.cauchy_polynomial import _gamma

#: a tracking step is accepted when its prediction lies within ``ACCEPT / gamma`` of the
#: root Newton reaches from it (Smale's gamma, :func:`_gamma`): then the prediction is in
#: that root's quadratic basin and nearer to it than to any other root; otherwise the
#: step is shortened (a cluster of roots, e.g. a law of high degree near the real axis)
ACCEPT = 0.2 * 0.219
#: a step shrunk this close to no step at all (``1 - ratio``) gives up: the point is
#: left as nan, and the caller's mpmath route takes it
MIN_STEP = 1e-9
#: the last step onto the real axis is retried from ``eta / LOWER`` this many times
FINAL_TRIES = 8
LOWER = 1e3
#: a warm-start step (:meth:`Float64Tracking.warm_f64`) is at most this fraction of the
#: distance to the support and the singular points (the vertical track's ``1 - 0.7``)
WARM_REACH = 0.3
#: steps of a warm start before the point is tracked afresh instead
WARM_STEPS = 64
#: a warm start farther than this many distances to the support (of its start or its
#: end, the larger) is not tried (a fresh track is cheaper)
WARM_SPAN = 16


def _distance(zs: np.ndarray, singular: np.ndarray) -> np.ndarray:
    """The distance of each point to the union of the real intervals ``singular``
    (rows ``(lo, hi)``; a point is ``(x, x)``)."""
    x = zs.real[:, None]
    lo, hi = singular[None, :, 0], singular[None, :, 1]
    gap = np.maximum(np.maximum(lo - x, x - hi), 0.0)
    return np.min(np.hypot(gap, zs.imag[:, None]), axis=1)


class Float64Tracking(BranchPoints):
    """The float64 routes to the physical root (vectorised over points); a part of
    :class:`freege.numeric.roots.CauchyEquation`."""

    def _newton(self, zs: np.ndarray, g: np.ndarray, steps: int) -> np.ndarray:
        c = self.coeffs_f64(zs)
        for _ in range(steps):
            p, dp = self._horner(c, g)
            with np.errstate(all="ignore"):
                step = np.where(dp != 0, p / dp, 0)
            g = np.where(np.isfinite(step), g - step, g)
        return g

    def track(
        self, zs: np.ndarray, eta_min: np.ndarray | float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Physical branch at ``zs`` (complex; ``Im z >= 0``; real means ``+i0``) by
        vertical-path tracking, float64, *without* the final real-axis step.

        Returns ``(G(Re z + i eta), eta)`` with ``eta = max(Im z, eta_min)``. The
        predictor extrapolates ``u = z G`` (bounded near the atom's pole at 0 and near a
        hard edge), ``eta`` shrinks by 0.7 per step. Points whose result breaks the
        Herglotz signs of a law on [0, inf) (``Im G <= 0``, ``Im z G <= 0``) are
        re-tracked with companion eigenvalues at every (smaller) step.
        """
        zs = np.asarray(zs, dtype=complex).ravel()
        if eta_min is None:  # well below the distance to the pole/branch point at 0
            eta_min = np.clip(1e-3 * np.abs(zs.real), 1e-280, 1e-9 * self.radius())
        target = np.maximum(zs.imag, eta_min)
        g = self._track(zs.real, target, ratio=0.7, robust=False)
        u = zs.real * g + 1j * target * g
        tol = 1e-8 * (np.abs(u) + 1)
        bad = (g.imag > tol / np.abs(zs.real + 1j * target)) | (u.imag > tol)
        if bad.any():
            g[bad] = self._track(zs.real[bad], target[bad], ratio=0.85, robust=True)
        return g, target

    def _u_predict(self, za: np.ndarray, zb: np.ndarray, g: np.ndarray) -> np.ndarray:
        """Euler step of ``u = zG`` from ``za`` to ``zb`` (``d(zG)/dz = G - z P_z/P_G``),
        returned as ``G(zb)`` (vectorised)."""
        c = self.coeffs_f64(za)
        _, dp = self._horner(c, g)
        with np.errstate(all="ignore"):
            du = g - za * self._dz(za, g) / dp
            u = za * g + np.where(np.isfinite(du), du, 0) * (zb - za)
            return u / zb

    def _checked_newton(self, zs: np.ndarray, pred: np.ndarray, steps: int
                        ) -> tuple[np.ndarray, np.ndarray]:
        """Newton from ``pred`` at ``zs`` and whether the step is accepted (:data:`ACCEPT`:
        ``pred`` within ``ACCEPT / gamma`` of the root reached, so the root is the one
        nearest ``pred``, unambiguously)."""
        c = self.coeffs_f64(zs)
        g = pred
        for _ in range(steps):
            p, dp = self._horner(c, g)
            with np.errstate(all="ignore"):
                step = np.where(dp != 0, p / dp, 0)
            g = np.where(np.isfinite(step), g - step, g)
        with np.errstate(all="ignore"):
            ok = np.isfinite(g) & (np.abs(g - pred) * _gamma(c, g) <= ACCEPT)
        return g, ok

    def _track(self, x: np.ndarray, target: np.ndarray, ratio: float, robust: bool,
               start: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Down the vertical lines ``x + i eta`` to ``eta = target`` from ``start = (G,
        eta)`` (default: the root nearest ``1/z + m1/z^2`` at ``eta = max(4R + |x|,
        target)``), by
        steps ``eta -> ratio eta``, each accepted only as in :meth:`_checked_newton` and
        otherwise shortened (``ratio -> sqrt(ratio)``; lengthened again after a success).
        ``robust``: the prediction is first moved to the nearest companion root. A point
        whose step falls below :data:`MIN_STEP` is nan."""
        if start is None:  # never below the target: a point above 4R starts where it is
            Y = np.maximum(4.0 * self.radius() + np.abs(x), target)
            z0 = x + 1j * Y
            roots = self.all_roots_f64(z0)
            guess = 1 / z0 + self.mean / z0**2
            g = roots[np.arange(x.size), np.argmin(np.abs(roots - guess[:, None]), axis=1)]
            eta = Y.copy()
        else:
            g, eta = (np.array(v) for v in start)
        shrink = np.full(x.size, ratio)
        failed = np.zeros(x.size, dtype=bool)
        while True:
            idx = np.flatnonzero((eta > target) & ~failed)
            if not idx.size:
                break
            new_eta = np.maximum(eta[idx] * shrink[idx], target[idx])
            zb = x[idx] + 1j * new_eta
            pred = self._u_predict(x[idx] + 1j * eta[idx], zb, g[idx])
            if robust:
                roots = self.all_roots_f64(zb)
                pred = roots[np.arange(idx.size),
                             np.argmin(np.abs(roots - pred[:, None]), axis=1)]
            new, ok = self._checked_newton(zb, pred, 4)
            g[idx[ok]], eta[idx[ok]] = new[ok], new_eta[ok]
            shrink[idx] = np.where(ok, np.minimum(shrink[idx], np.maximum(
                shrink[idx] ** 2, ratio)), np.sqrt(shrink[idx]))
            failed[idx] |= ~ok & (1 - shrink[idx] < MIN_STEP)
        g[failed] = np.nan
        return g

    def warm_f64(self, zs: np.ndarray, za: np.ndarray, ga: np.ndarray,
                 singular: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(G, error estimate (:meth:`_refine`), ok)`` at ``zs`` (``Im z >= 0``)
        continued along the segment from ``za`` (``Im >= 0``), where ``ga`` is the
        physical ``G`` (verified), vectorised: a warm start instead of a vertical track
        from far above (issue 39: the ⊠ engine asks for ``G`` at every Newton iterate,
        next to the previous one).

        The physical branch is analytic off the support, so it continues along any path
        of the closed upper half plane that keeps off it; ``singular`` holds ``(lo, hi)``
        rows covering the support and its singular points (0 included). Each step is at
        most :data:`WARM_REACH` of the current point's distance to them (the vertical
        track's steps are ``0.3 eta``, ``eta`` at most that distance), predicted by an
        Euler step in ``u = zG`` and accepted as a tracking step (:data:`ACCEPT`,
        :meth:`_checked_newton`), else halved; more than :data:`WARM_STEPS` steps, a
        target on ``singular`` or a segment longer than :data:`WARM_SPAN` distances is
        not ``ok`` (the caller tracks it afresh). An accepted
        end must keep the Herglotz signs of a law on ``[0, inf)`` (``Im G <= 0``,
        ``Im zG <= 0``; ``G`` real at a real point); the caller checks the error
        estimate."""
        zs, za = np.asarray(zs, dtype=complex).ravel(), np.asarray(za, dtype=complex).ravel()
        g = np.asarray(ga, dtype=complex).ravel().copy()
        s = np.zeros(zs.size)
        frac = np.ones(zs.size)
        steps = np.zeros(zs.size, dtype=int)
        span = np.abs(zs - za)
        d_end = _distance(zs, singular)
        live = (d_end > 0) & np.isfinite(g) & np.isfinite(span)
        live &= span <= WARM_SPAN * np.maximum(d_end, _distance(za, singular))
        done = live & (span == 0)
        live &= ~done
        with np.errstate(all="ignore"):
            while live.any():
                idx = np.flatnonzero(live)
                here = za[idx] + s[idx] * (zs[idx] - za[idx])
                reach = WARM_REACH * _distance(here, singular) / span[idx]
                new_s = np.minimum(1.0, s[idx] + frac[idx] * reach)
                there = np.where(new_s == 1.0, zs[idx], za[idx] + new_s * (zs[idx] - za[idx]))
                pred = self._u_predict(here, there, g[idx])
                new, ok = self._checked_newton(there, pred, 4)
                g[idx[ok]], s[idx[ok]] = new[ok], new_s[ok]
                frac[idx] = np.where(ok, np.minimum(1.0, 2 * frac[idx]), frac[idx] / 2)
                steps[idx] += 1
                done[idx[ok & (new_s == 1.0)]] = True
                live[idx] = ~done[idx] & (steps[idx] < WARM_STEPS) & (frac[idx] >= 2**-6)
            g = np.where(done, g, np.nan)
            out, err = self._refine(zs, np.where(done, g, 1.0))
            real = zs.imag == 0
            u = zs * out
            tol = 1e-8 * (np.abs(u) + 1)  # as :meth:`track`'s re-track test
            ok = done & np.isfinite(out) & (np.abs(out - g) <= 1e-6 * np.abs(g))
            ok &= np.where(real, np.abs(out.imag) <= 1e-8 * np.abs(out),
                           (out.imag <= tol / np.abs(zs)) & (u.imag <= tol))
            out = np.where(real, out.real + 0j, out)
        return out, err, ok

    def stieltjes_f64(
        self, zs: np.ndarray, eta_min: np.ndarray | float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Physical ``G(z)`` (real z read as ``x + i0``) and a first-order error estimate
        of the solve (without the float64 rounding of ``G``, :meth:`_refine`).

        Float64 only (no rescue); see :meth:`stieltjes` for the public entry point."""
        with np.errstate(all="ignore"):  # overflow shows up as a non-finite error estimate
            return self._stieltjes_f64(np.asarray(zs, dtype=complex).ravel(), eta_min)

    def continue_f64(
        self, xs: np.ndarray, xa: np.ndarray, ga: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(G, error estimate of the solve (:meth:`_refine`), ok)`` at real points ``xs``
        continued from anchors: ``ga``
        is the physical ``G(xa + i0)`` at a nearby point ``xa`` of the same support
        interval (elementwise), vectorised over all points.

        An Euler step in ``u = zG`` from ``xa`` to ``x`` predicts ``G(x)``; the root it
        leads to must be the root nearest the prediction with a margin of four, so the
        branch is not in doubt. First, Newton from the prediction, accepted where
        ``|G - prediction| <= 0.2 sep`` with ``sep = 0.219/gamma(G)`` (:func:`_gamma`: no
        other root of ``P(., x)`` is closer to ``G`` than ``(5 - sqrt 17)/(4 gamma)``,
        Smale's alpha theory); elsewhere the companion eigenvalues, where the one nearest
        the prediction is at most a quarter of the distance to the next one. The root
        must be non-real and its refinement (:meth:`_refine`) must stay within ``1e-6
        |G|`` of it in the lower half plane; ``ok`` is False elsewhere (the caller tracks
        those points, :meth:`track`). The anchors must lie so close (within a factor 2
        of the distance to the nearer edge) that the Euler step is accurate."""
        xs = np.asarray(xs, dtype=float).ravel()
        zs = xs + 0j
        with np.errstate(all="ignore"):
            pred = self._u_predict(np.asarray(xa, dtype=complex), zs, np.asarray(ga))
            c = self.coeffs_f64(zs)
            pick = pred
            for _ in range(6):
                p, dp = self._horner(c, pick)
                pick = pick - p / dp
            ok = (np.abs(pick - pred) * _gamma(c, pick) <= 0.2 * 0.219) & (pick.imag < 0)
            ok &= np.isfinite(pick)
            slow = np.flatnonzero(~ok)
            if slow.size:
                r = self.all_roots_f64(zs[slow])
                dist = np.abs(r - pred[slow, None])
                dist = np.where(np.isfinite(dist), dist, np.inf)
                order = np.argsort(dist, axis=1)
                sub = np.arange(slow.size)
                first, second = dist[sub, order[:, 0]], dist[sub, order[:, 1]]
                pick[slow] = r[sub, order[:, 0]]
                ok[slow] = (first <= second / 4) & (pick[slow].imag < 0)
                ok &= np.isfinite(pick)
            g, err = self._refine(zs, np.where(ok, pick, 1.0))
            ok &= (np.abs(g - pick) <= 1e-6 * np.abs(pick)) & (g.imag < 0) & np.isfinite(err)
        return g, err, ok

    def _stieltjes_f64(
        self, zs: np.ndarray, eta_min: np.ndarray | float | None
    ) -> tuple[np.ndarray, np.ndarray]:
        lower = zs.imag < 0
        zz = np.where(lower, zs.conj(), zs)
        g, eta = self.track(zz, eta_min)
        short = np.flatnonzero(eta > zz.imag)
        for _ in range(FINAL_TRIES):
            if not short.size:
                break
            # a last Euler step in u = zG from x + i eta to z (u is smooth where G has the
            # atom's pole) and Newton from the prediction, accepted as a tracking step is
            # (:data:`ACCEPT`); else the companion root nearest the prediction, accepted
            # alike (away from 1e-4 R of 0, where the companion matrix is badly scaled).
            # Where neither is, the point is tracked on down to eta / LOWER and the step
            # tried again from there.
            zt = zz[short]
            pred = self._u_predict(zt.real + 1j * eta[short], zt, g[short])
            new, ok = self._checked_newton(zt, pred, 6)
            retry = np.flatnonzero(~ok & (np.abs(zt) >= 1e-4 * self.radius()))
            if retry.size:
                roots = self.all_roots_f64(zt[retry])
                pick = roots[np.arange(retry.size),
                             np.argmin(np.abs(roots - pred[retry, None]), axis=1)]
                polished, fine = self._checked_newton(zt[retry], pick, 6)
                fine &= (np.abs(pick - pred[retry])
                         * _gamma(self.coeffs_f64(zt[retry]), polished) <= ACCEPT)
                new[retry], ok[retry] = polished, fine
            g[short[ok]] = new[ok]
            short = short[~ok & np.isfinite(g[short])]
            if short.size:
                deeper = np.maximum(eta[short] / LOWER, zz.imag[short])
                g[short] = self._track(zz.real[short], deeper, 0.7, False,
                                       start=(g[short], eta[short]))
                eta[short] = deeper
        g[short] = np.nan
        g, err = self._refine(zz, g)
        real = zz.imag == 0
        g[real] = g[real].real - 1j * np.abs(g[real].imag)
        g = np.where(lower, g.conj(), g)
        return g, err

    def _refine(self, zs: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Two Newton steps with the residual in extended precision (``np.clongdouble``,
        the coefficient matrix rounded from :data:`COEFF_DPS` digits), and the first-order
        error estimate ``eps_ext sum|A_ij||z|^j|G|^i / |P_G|`` (all terms' rounding,
        coefficients included). The float64 rounding of the result (half an ulp of each
        component) comes on top: the caller adds ``eps`` times the size of the component
        it uses (``|Im G|`` for a density, ``|G|`` otherwise). Where the platform's
        long double is just a double this is plain float64 Newton."""
        z = zs.astype(np.clongdouble)
        c = np.zeros((zs.size, self.degree + 1), dtype=np.clongdouble)
        for j in range(self.A_ext.shape[1] - 1, -1, -1):
            c = c * z[:, None] + self.A_ext[:, j][None, :]
        gg = g.astype(np.clongdouble)
        for _ in range(2):
            p, dp = self._horner(c, gg)
            step = p / dp
            gg = np.where(np.isfinite(step), gg - step, gg)
        _, dp = self._horner(c, gg)
        out = gg.astype(complex)
        az, ag = np.abs(zs), np.abs(out)
        row_sizes = np.zeros((zs.size, self.degree + 1))
        for j in range(self.absA.shape[1] - 1, -1, -1):
            row_sizes = row_sizes * az[:, None] + self.absA[:, j][None, :]
        mags = (row_sizes * ag[:, None] ** np.arange(self.degree + 1)[None, :]).sum(axis=1)
        eps_ext = float(np.finfo(np.longdouble).eps)
        err = eps_ext * mags / np.abs(dp).astype(float)
        return out, np.where(np.isfinite(err), err, np.inf)
