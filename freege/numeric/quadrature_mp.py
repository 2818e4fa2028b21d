"""Working-precision (mpmath) integrals against a law's continuous part (theory §7,
§7.1): mass, cdf and ``int f dnu`` at the ambient precision, the
:class:`QuadratureMP` part of :class:`freege.numeric.quadrature.Quadrature`.

A panel's integral is accepted when Gauss-Legendre (:func:`gauss_legendre_mp`) with
``n`` and ``2n`` nodes agree to ``2^(4 - prec)`` relative; ``n`` starts at ``max(16,
dps)``. A panel that needs more than :data:`ADAPTIVE_NODES` nodes starts from its float64
pieces when float64 split it (a cheap guide to where the near-singularity is; every piece
is still accepted only by its own two levels at working precision), else from the whole
panel up to :data:`MAX_NODES` nodes, halved further in ``u`` when it does not converge. A
cdf inside a piece integrates ``v`` over ``[0, v(x)]`` with the piece's ``n/2`` and ``n``
nodes; ``v(x)`` is an exact root (``mpmath.root``), never a float power.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.quadrature_rules import (
    ADAPTIVE_NODES,
    MAX_NODES,
    MIN_NODES,
    DensityMP,
    Panel,
    gauss_legendre_mp,
    v_range,
)


class QuadratureMP:
    """The working-precision integrals of :class:`freege.numeric.quadrature.Quadrature`
    (mixed into it): they use its ``density_mp``, panels (``_panels``), cache, error
    (``_fail``), halving (``_pieces``), adaptive expectation (``_adaptive``) and float64
    series (``series_f64``, a guide for splitting a panel)."""

    density_mp: DensityMP
    _cache: dict[Any, Any]

    def _tol_mp(self) -> mpmath.mpf:
        return mpmath.ldexp(1, 4 - mpmath.mp.prec)

    def _gl_mp(self, panel: Panel, lo: Any, hi: Any, n: int, func: Callable | None) -> Any:
        """Gauss-Legendre with ``n`` nodes of ``pdf dx/dv (func)`` over ``v`` in
        ``[lo, hi]``."""
        v, w = gauss_legendre_mp(n)
        vs = [lo + (hi - lo) * vk for vk in v]
        xs = [panel.x(vk) for vk in vs]
        dens = self.density_mp(xs)
        terms = [wk * dk * panel.dx(vk) * (func(xk) if func is not None else 1)
                 for wk, dk, vk, xk in zip(w, dens, vs, xs, strict=True)]
        return mpmath.fsum(terms) * (hi - lo)

    def _panel_mp(self, panel: Panel, cap: int = MAX_NODES) -> tuple[Any, int]:
        """``(mass, n)`` of ``pdf dx/dv`` on a panel at the ambient precision, at most
        ``cap`` nodes."""
        n, prev = max(MIN_NODES, mpmath.mp.dps), None
        while True:
            total = self._gl_mp(panel, mpmath.mpf(0), mpmath.mpf(1), n, None)
            if prev is not None and abs(total - prev) <= self._tol_mp() * max(1, abs(total)):
                return total, n
            if n >= cap:
                raise self._fail("mass", panel, n, abs(total - prev))
            prev, n = total, 2 * n

    def _splits_f64(self, k: int) -> list[tuple[float, float]] | None:
        """The ``u`` ranges of the float64 pieces of panel ``k`` (:meth:`series_f64`), or
        None when float64 did not split it, did not converge, or cut the support into
        other panels."""
        try:
            f64_panels, series = self._panels(False), self.series_f64()
        except (ConvergenceError, ArithmeticError, ValueError):  # no guide
            return None
        if len(f64_panels) != len(self._panels(True)):
            return None
        panel = f64_panels[k]
        ranges = [(piece.lo, piece.hi) for piece, _, _ in series
                  if (piece.anchor, piece.length, piece.sign, piece.power)
                  == (panel.anchor, panel.length, panel.sign, panel.power)]
        split = len(ranges) > 1 and ranges[0][0] == 0.0 and ranges[-1][1] == 1.0
        return ranges if split else None

    def _panel_pieces_mp(self, k: int) -> list[tuple[Panel, mpmath.mpf, int]]:
        """``(piece, mass, n)`` covering panel ``k`` at the ambient precision: the panel
        when it converges at :data:`ADAPTIVE_NODES` nodes; else the float64 pieces of the
        panel when float64 split it (:meth:`_splits_f64`, a cheap guide to where the
        near-singularity is), or the panel up to :data:`MAX_NODES` nodes; each halved
        further when it does not converge (:meth:`_pieces`)."""
        key = ("pieces_mp", k, mpmath.mp.prec)
        if key not in self._cache:
            panel = self._panels(True)[k]
            try:
                out = [(panel, *self._panel_mp(panel, ADAPTIVE_NODES))]
            except ConvergenceError:
                out = []
                for lo, hi in self._splits_f64(k) or [(0.0, 1.0)]:
                    piece = Panel(panel.anchor, panel.length, panel.sign, panel.power, lo, hi)
                    depth = round(-np.log2(hi - lo))
                    out += self._pieces(piece, self._panel_mp, depth,
                                        MAX_NODES if depth == 0 else ADAPTIVE_NODES)
            self._cache[key] = out
        return self._cache[key]

    def mass_mp(self) -> mpmath.mpf:
        """Mass of the continuous part at the ambient precision."""
        return mpmath.fsum(mass for k in range(len(self._panels(True)))
                           for _, mass, _ in self._panel_pieces_mp(k))

    def cdf_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        """``int_{-inf}^x pdf`` (continuous part only) at the ambient precision."""
        total = mpmath.mpf(0)
        for k, panel in enumerate(self._panels(True)):
            if x <= panel.bounds()[0]:
                continue
            for piece, mass, n in self._panel_pieces_mp(k):
                lo, hi = piece.bounds()
                if x <= lo:
                    continue
                if x >= hi:
                    total += mass
                    continue
                vx = piece.v_of(x)
                one = self._gl_mp(piece, mpmath.mpf(0), vx, n // 2, None)
                two = self._gl_mp(piece, mpmath.mpf(0), vx, n, None)
                if abs(one - two) > self._tol_mp() * max(1, abs(two)):
                    raise self._fail("cdf", piece, n, abs(one - two))
                total += two if piece.sign > 0 else mass - two
        return total

    def expect_mp(self, func: Callable[[Any], Any], lb: Any = None, ub: Any = None) -> Any:
        """``int func pdf`` over the continuous part in ``[lb, ub]`` at the ambient
        precision."""
        return mpmath.fsum(self._adaptive(p, func, True, *cut) for p in self._panels(True)
                           if (cut := v_range(p, lb, ub, True)) is not None)


__all__ = ["QuadratureMP"]
