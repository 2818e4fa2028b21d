"""Laws with a Cauchy polynomial: ``G`` is a root of ``P(G, z) = 0`` (theory §3, §7).

:class:`AlgebraicLaw` implements the Cauchy-transform hooks of
:class:`freege.numeric.law_family.Law` for every law whose Stieltjes transform solves a
polynomial equation (:class:`freege.numeric.roots.CauchyEquation`, ``self.equation``):

* float64 ``G`` (:meth:`_stieltjes_f64`): real points inside a support interval are
  continued from the interval's nearest anchor (:mod:`freege.numeric.anchors`), the others
  tracked vertically; a point whose error estimate exceeds ``roots.FLOAT64_RTOL`` is
  recomputed at 30 digits (theory §7.1);
* ``G`` at working precision (:meth:`_stieltjes_mp_batch`): float64 seeds polished,
  with the near-0 routes of theory §7.1 (continuation along the support or the negative
  axis where no float64 seed exists);
* the support from the real roots of the discriminant (:func:`roots.support_intervals`);
* a hard edge at 0 for the quadrature (:meth:`_hard_order`, ``pdf ~ x^(-m/(m+1))``);
* moments above the exact ones from the series at infinity (:meth:`_high_moment_mp`);
* the independent route of :meth:`Law.estimate`: a fresh all-roots solve;
* the readouts' ``(w(lam), w'(lam))`` from ``G(-lam)`` and ``G' = -P_z/P_G``
  (:func:`freege.numeric.dof_point.spectral_point`, theory §5).

A kind supplies ``self.equation`` and :meth:`_cauchy_rows` (the coefficient matrix at the
ambient precision) and the identity, moment, atom and S-relation hooks.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import dof_point, law_moments, roots
from freege.numeric.anchors import EdgeChains, logit
from freege.numeric.law_family import REFERENCE_DPS, SYMBOLIC_ORDER, Law
from freege.numeric.quadrature import HardEdge


class AlgebraicLaw(Law):
    """A law whose ``G`` solves ``self.equation`` (see the module docstring)."""

    equation: roots.CauchyEquation

    @abc.abstractmethod
    def _cauchy_rows(self) -> list[list[Any]]:
        """The Cauchy polynomial's coefficient matrix at the ambient precision."""

    # ------------------------------------------------------------------ support
    def _edge_dps(self) -> int:
        return self.dps if self.dps is not None else roots.FLOAT64_EDGE_DPS

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals (:func:`roots.support_intervals`), the interior anchors of
        every candidate interval (:meth:`_interior_anchors`) tracked in the same batch."""
        key = ("intervals", self._edge_dps())
        if key not in self._cache:
            probes = roots.Probes(self._interior_anchors)
            self._cache[key] = roots.support_intervals(self.equation, self._edge_dps(),
                                                       probes=probes)
            self._cache[("interior", self._edge_dps())] = probes.found
        return self._cache[key]

    def _interior_anchors(self, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
        """19 points ``a + (b - a) (0.05..0.95)`` of an interval (none within ``NEAR_ZERO
        S`` of 0, ``S``: :meth:`roots.CauchyEquation.scale`) and the ``eta_min`` of
        :meth:`_tracked_f64` for them (``a``, ``b`` and 0 are the nearest edge or pole)."""
        floor = roots.NEAR_ZERO * self.equation.scale()
        xs = a + (b - a) * np.linspace(0.05, 0.95, 19)
        xs = xs[(xs > a) & (xs < b) & (np.abs(xs) >= floor)]
        dist = np.min(np.abs(xs[:, None] - np.array([a, b, 0.0])[None, :]), axis=1)
        return xs, np.clip(1e-3 * dist, 1e-280, 1e-9 * self.equation.radius())

    # ------------------------------------------------------------------ float64 G
    def _tracked_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Physical G in float64 by vertical tracking (:meth:`roots.CauchyEquation.track`)
        and its error estimate, no rescue; the tracking stops well below the distance to
        the nearest edge or singular point (:meth:`_singular_f64`)."""
        edges = np.array([float(e) for ab in self._intervals_mp() for e in ab])
        points = np.concatenate([edges, self._singular_f64()])
        dist = np.min(np.abs(zs[:, None] - points[None, :]), axis=1)
        eta_min = np.clip(1e-3 * dist, 1e-280, 1e-9 * self.equation.radius())
        return self.equation.stieltjes_f64(zs, eta_min)

    def _singular_f64(self) -> np.ndarray:
        """The singular points besides the edges, where vertical tracking stops short:
        0, the atom's pole or a hard edge (theory §7.1)."""
        return np.zeros(1)

    def _anchors_f64(self, k: int, t_lo: float, t_hi: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, logit x, G(x + i0))`` of support interval ``k``'s anchors that can be
        the nearest (in ``logit x``) of a point with logit in ``[t_lo, t_hi]``
        (:class:`freege.numeric.anchors.EdgeChains`). The interior anchors are those
        tracked with the support (:meth:`_intervals_mp`) of every candidate interval
        inside ``[a, b]``, else (a law that locates its support otherwise) 19 points of
        ``[a, b]`` tracked here. Kept per law (a pure function of the law)."""
        key = ("anchors", k)
        if key not in self._cache:
            a, b = (float(e) for e in self._intervals_mp()[k])
            probed = self._cache.get(("interior", self._edge_dps()), {})
            parts = sorted(pq for pq in probed if a <= pq[0] and pq[1] <= b)
            if parts:  # tracked with the support's midpoints
                xs = np.concatenate([probed[pq][0] for pq in parts])
                g = np.concatenate([probed[pq][1] for pq in parts])
            else:  # a law that locates its support otherwise
                xs = self._interior_anchors(a, b)[0]
                g, _ = self._tracked_f64(xs + 0j)
            good = np.isfinite(g) & (g.imag < 0)
            self._cache[key] = EdgeChains(self.equation, a, b,
                                          roots.NEAR_ZERO * self.equation.scale(),
                                          xs[good], g[good])
        return self._cache[key].anchors(t_lo, t_hi)

    def _seed_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Physical G in float64 and its error estimate, no rescue: real points inside a
        support interval continued from the nearest anchor (:meth:`_anchors_f64`, one
        companion solve per point, vectorised); the others, and points whose root is in
        doubt there, tracked vertically (:meth:`_tracked_f64`). No seed within
        ``NEAR_ZERO S`` of 0 (theory §7.1: the expanded polynomial loses float64 digits
        in its coefficients there; mpmath tracks instead)."""
        g = np.full(zs.shape, np.nan + 0j)
        err = np.full(zs.shape, np.inf)
        todo = np.ones(zs.shape, dtype=bool)
        near = np.abs(zs) < roots.NEAR_ZERO * self.equation.scale()
        todo &= ~near
        real = (zs.imag == 0) & todo
        for k, (lo, hi) in enumerate(self._intervals_mp()):
            here = np.flatnonzero(real & (zs.real > float(lo)) & (zs.real < float(hi)))
            if not here.size:
                continue
            t = logit(zs.real[here], float(lo), float(hi))
            xa, ta, ga = self._anchors_f64(k, float(np.min(t)), float(np.max(t)))
            if not xa.size:
                continue
            j = np.clip(np.searchsorted(ta, t), 1, ta.size - 1) if ta.size > 1 else 0
            if ta.size > 1:
                j = np.where(np.abs(ta[j - 1] - t) < np.abs(ta[j] - t), j - 1, j)
            j = np.broadcast_to(j, t.shape)
            gk, ek, ok = self.equation.continue_f64(zs.real[here], xa[j], ga[j])
            g[here[ok]], err[here[ok]] = gk[ok], ek[ok]
            todo[here[ok]] = False
        if todo.any():
            g[todo], err[todo] = self._tracked_f64(zs[todo])
        return g, err

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        """Physical G in float64; points whose error estimate (the solve's, plus the
        float64 rounding of ``Im G`` inside the support, of ``G`` elsewhere) exceeds
        :data:`roots.FLOAT64_RTOL` of that size, and points within ``NEAR_ZERO S`` of 0,
        are recomputed at 30 digits (theory §7.1). Outside the support on the real axis
        G is real."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g, err = self._seed_f64(zs)
        inside = (zs.imag == 0) & self._inside(zs.real)
        scale = np.where(inside, np.abs(g.imag), np.abs(g))
        with np.errstate(all="ignore"):
            err = err + np.finfo(float).eps * scale  # the float64 rounding of what is used
            bad = ~(err <= roots.FLOAT64_RTOL * np.maximum(scale, 1e-300))
        todo = np.flatnonzero(bad)
        if todo.size:
            with mpmath.workdps(roots.RESCUE_DPS):
                fixed = self._stieltjes_mp_batch(
                    [mpmath.mpf(v.real) if v.imag == 0 else mpmath.mpc(v) for v in zs[todo]],
                    g[todo])
            g[todo] = [complex(v) for v in fixed]
        return np.where((zs.imag == 0) & ~inside, g.real + 0j, g)

    # ------------------------------------------------------------------ mpmath G
    def _stieltjes_mp_batch(
        self, zs: list[Any], seeds: np.ndarray | None = None
    ) -> list[mpmath.mpc]:
        """Physical G at the ambient precision: float64 seeds for all points in one
        tracked batch, then each polished (:meth:`roots.CauchyEquation.stieltjes_mp`);
        real points inside the support near 0 (no float64 seed there) are continued
        along their interval from one tracked point
        (:meth:`roots.CauchyEquation.density_path_mp`), negative ones near 0 along the
        negative axis (:meth:`roots.CauchyEquation.negative_path_mp`)."""
        zs = [mpmath.mpmathify(v) for v in zs]
        if not zs:
            return []
        if seeds is None:
            seeds = self._seed_f64(np.array([complex(v) for v in zs]))[0]
        out: list[Any] = [None] * len(zs)
        paths: dict[int, list[int]] = {}
        negative: list[int] = []
        near = roots.NEAR_ZERO * self.equation.scale()
        for k, zv in enumerate(zs):
            real = mpmath.im(zv) == 0
            where = [j for j, (a, b) in enumerate(self._intervals_mp())
                     if real and a < mpmath.re(zv) < b]
            if where and zv.real < near:
                paths.setdefault(where[0], []).append(k)
                continue
            if real and -near < zv.real < 0:
                negative.append(k)
                continue
            g = self.equation.stieltjes_mp(zv, seeds[k], bool(where))
            out[k] = mpmath.mpc(g.real, 0) if real and not where else g
        for j, ks in paths.items():
            lower, upper = self._intervals_mp()[j]
            path = self.equation.density_path_mp([zs[k] for k in ks], lower, upper)
            for k, g in zip(ks, path, strict=True):
                out[k] = g
        if negative:
            top = max([b for _, b in self._intervals_mp()], default=mpmath.mpf(0))
            values = self.equation.negative_path_mp([zs[k].real for k in negative], top)
            for k, g in zip(negative, values, strict=True):
                out[k] = mpmath.mpc(g, 0)
        return out

    # ------------------------------------------------------------------ edges, moments
    def _hard_order(self, a: Any, b: Any) -> HardEdge | None:
        """The hard edge at ``a = 0`` (``pdf ~ x^(-m/(m+1))``, ``m`` ratios equal to 1;
        theory §7.1), from the local exponents of the density on ``[1e-14 b, 1e-13 b]``
        and ``[1e-13 b, 1e-12 b]`` (at 30 digits): their mean snapped to ``m/(m+1)``,
        ``m <= 8``; None at a soft edge or when it does not snap (the quadrature's
        convergence test then decides). The deviations ``delta`` of the two exponents
        from ``m/(m+1)`` give the edge's reach (:func:`_reach`)."""
        if a != 0:
            return None
        key = ("hard", float(b))
        if key not in self._cache:
            with mpmath.workdps(REFERENCE_DPS):
                xs = [mpmath.mpf(b) * mpmath.mpf(10) ** -k for k in (14, 13, 12)]
                dens = self._pdf_mp_batch(xs)
                edge = None
                if all(d > 0 for d in dens):
                    lo, hi = (-float(mpmath.log10(dens[k + 1] / dens[k])) for k in (0, 1))
                    m = min(range(0, 9), key=lambda j: abs((lo + hi) / 2 - j / (j + 1)))
                    if m > 0 and abs((lo + hi) / 2 - m / (m + 1)) < 0.02:
                        edge = HardEdge(m, _reach(lo - m / (m + 1), hi - m / (m + 1), m,
                                                  float(xs[2]) / math.sqrt(10)))
            self._cache[key] = edge
        return self._cache[key]

    def _high_moment_mp(self, q: int) -> mpmath.mpf:
        """``m_q`` from the Laurent series at infinity (theory §3,
        :func:`freege.numeric.law_moments.laurent_moments`), verified: at ``p + 10`` and
        ``p + 20`` digits (``p`` the ambient precision) the two values agree to ``10^-p``
        relative, and the first :data:`SYMBOLIC_ORDER` terms equal the exact moments to
        ``10^(2-p)`` relative (else :class:`ConvergenceError`)."""
        digits = mpmath.mp.dps
        values = []
        for extra in (10, 20):
            with mpmath.workdps(digits + extra):
                values.append(law_moments.laurent_moments(self._cauchy_rows(), q,
                                                          self.describe))
        low, high = values
        checks = [(f"m_{q} at two precisions", low[q], high[q], digits)]
        checks += [(f"m_{k} against the exact moment", high[k], self._moment_mp(k), digits - 2)
                   for k in range(1, SYMBOLIC_ORDER + 1)]
        for what, a, b, good in checks:
            if abs(a - b) > mpmath.mpf(10) ** -good * abs(b):
                raise ConvergenceError(f"moment({q})", f"{what} differ by "
                                       f"{mpmath.nstr(abs(a - b) / abs(b), 3)} (relative)",
                                       self.describe)
        return +high[q]

    # ------------------------------------------------------------------ other routes
    def _independent_one(self, method: str, zv: Any) -> Any:
        """``pdf`` or ``stieltjes`` at one point by a fresh all-roots solve
        (``mpmath.polyroots``, no tracking, no float64 seed) at ``dps + 20`` digits (50 for
        float64) plus ``2 log10(R/|z|)`` within ``NEAR_ZERO S`` of 0: the physical root
        the unique one in the lower half plane, else the one nearest a fresh mpmath
        tracking at that precision."""
        dps = (self.dps or REFERENCE_DPS) + 20
        R = self.equation.radius()
        if abs(complex(zv)) < roots.NEAR_ZERO * self.equation.scale():
            dps += math.ceil(2 * math.log10(R / abs(complex(zv))))
        real = mpmath.im(zv) == 0
        inside = real and any(a < mpmath.re(zv) < b for a, b in self._intervals_mp())
        with mpmath.workdps(dps):
            if real and not inside:
                return (mpmath.mpc(self.equation.stieltjes_mp(zv).real, 0)
                        if method == "stieltjes" else mpmath.mpf(0))
            try:
                g = self.equation.herglotz_root_mp(zv)
            except ConvergenceError:
                g = None
            if g is None:  # not singled out: the root nearest a fresh mpmath tracking
                up = mpmath.im(zv) >= 0
                g = self.equation.track_mp(zv if up else mpmath.conj(zv))
                g = g if up else mpmath.conj(g)
            g = self.equation.polish(zv, g, mpmath.mp.prec, bool(inside))
            if method == "pdf":
                return max(-g.imag / mpmath.pi, mpmath.mpf(0))
            return +g

    def cauchy_pair_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(G, G')`` with ``G' = -P_z/P_G`` exactly (implicit differentiation of the
        Cauchy polynomial), float64."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g = self._stieltjes_f64(zs)
        _, p_g = self.equation._horner(self.equation.coeffs_f64(zs), g)
        with np.errstate(all="ignore"):
            return g, -self.equation._dz(zs, g) / p_g

    def cauchy_pair_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        """``(G, G')`` with ``G' = -P_z/P_G`` at the ambient precision."""
        z = mpmath.mpmathify(z)
        g = self._stieltjes_mp_batch([z])[0]
        rows = self.equation.matrix_mp()
        p_g = mpmath.fsum(i * c * g ** (i - 1) * z ** j for i, row in enumerate(rows)
                          for j, c in enumerate(row) if i and c)
        p_z = mpmath.fsum(j * c * g ** i * z ** (j - 1) for i, row in enumerate(rows)
                          for j, c in enumerate(row) if j and c)
        return g, -p_z / p_g

    def dof_point(self, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``(w(lam), w'(lam))`` (theory §5) from the Cauchy transform at ``z = -lam``
        (:func:`freege.numeric.dof_point.spectral_point`)."""
        return dof_point.spectral_point(self, lam)


def _reach(delta_lo: float, delta_hi: float, m: int, x_hi: float) -> float | None:
    """Where a hard edge's series in ``x^(1/(m+1))`` stops holding (see
    :meth:`AlgebraicLaw._hard_order`): ``delta_lo``, ``delta_hi`` are the exponent's
    deviations at ``x_hi / 10`` and ``x_hi``; None when no correction shows at 30 digits.
    A correction ``A x^p`` changes the exponent by ``delta = p A x^p``, so ``p`` is the
    slope of ``log delta`` (at least ``1/(m+1)``, the series' step) and ``A x^p`` reaches
    1 at ``x (p/delta)^(1/p)``."""
    if abs(delta_hi) < 1e-20:
        return None
    slope = 1 / (m + 1)
    if delta_lo * delta_hi > 0:
        slope = max(slope, math.log10(delta_hi / delta_lo))
    return x_hi * (slope / abs(delta_hi)) ** (1 / slope)


__all__ = ["AlgebraicLaw"]
