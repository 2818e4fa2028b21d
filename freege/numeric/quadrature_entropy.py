"""The differential entropy ``-int pdf log pdf`` of a law's continuous part (theory §7,
§7.1), in float64 and at the ambient precision: the :class:`QuadratureEntropy` part of
:class:`freege.numeric.quadrature.Quadrature`.

The integrand has a ``v log v`` end point singularity at every edge, where Gauss-Legendre
converges slowly, so each panel's ``v`` is integrated by tanh-sinh instead (exponential
convergence despite it): float64 nodes from :func:`tanh_sinh`, working-precision nodes
built level by level (the density at a level's new nodes in one batch).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from freege.numeric.quadrature_rules import ENTROPY_LEVELS, DensityF64, DensityMP, Panel, tanh_sinh


class QuadratureEntropy:
    """The entropy integrals of :class:`freege.numeric.quadrature.Quadrature` (mixed into
    it): they use its densities, panels (``_panels``) and error (``_fail``)."""

    density_f64: DensityF64
    density_mp: DensityMP

    def entropy_f64(self) -> float:
        """``-int pdf log pdf`` over the continuous part (float64). The integrand has a
        ``v log v`` end point singularity at every edge, so each panel uses tanh-sinh
        nodes in ``v`` (exponential convergence despite it), step ``h`` halved from 1/4
        until two levels agree to 1e-13 (else :class:`ConvergenceError`)."""
        total = 0.0
        for panel in self._panels(False):
            prev = None
            for level in range(2, 9):
                v, w = tanh_sinh(2.0**-level)
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


__all__ = ["QuadratureEntropy"]
