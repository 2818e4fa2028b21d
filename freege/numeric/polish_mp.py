"""Verified mpmath roots of ``P(., z)`` (theory §7.1): the polish of a seed to a working
precision raised by the measured conditioning, all roots (``mpmath.polyroots``), and the
independent Herglotz route.

Holds :class:`MpPolish` (:meth:`MpPolish.polish`, :meth:`MpPolish.all_roots_mp`,
:meth:`MpPolish.herglotz_root_mp`; every polish verified by
:func:`freege.numeric.solve.polish_root`) and :data:`GUARD_BITS`. The mpmath tracking that
provides the seeds is :mod:`freege.numeric.tracking_mp`.
"""

from __future__ import annotations

import mpmath

from freege.errors import ConvergenceError
from freege.numeric.cauchy_polynomial import CauchyPolynomial
from freege.numeric.solve import polish_root

#: guard bits of every mpmath root polish
GUARD_BITS = 20


class MpPolish(CauchyPolynomial):
    """Verified roots of ``P(., z)`` at the ambient precision; a part of
    :class:`freege.numeric.roots.CauchyEquation`."""

    def polish(
        self, zv: mpmath.mpc, seed: mpmath.mpc, prec: int, density: bool = False
    ) -> mpmath.mpc:
        """The root of ``P(., z)`` next to ``seed``, verified to ``prec`` bits *of the
        quantity that matters*: of ``Im G`` when ``density`` (real ``z`` inside the
        support, density ``-Im G/pi``), of ``G`` otherwise.

        Newton (:func:`freege.numeric.solve.polish_root`: step and residual tests) at
        ``prec`` plus the bits lost to conditioning, ``log2(sum|A_ij||z|^j|G|^i /
        (|P_G| scale))`` (``scale = |Im G|`` or ``|G|``; near a hard edge this grows like
        ``2 log2(1/|z|)``), re-estimated at the root. If Newton does not verify (a
        near-double root, a seed in another basin) all roots are computed with more
        guard bits (``mpmath.polyroots``), the one nearest the seed is taken and verified
        again; otherwise a :class:`freege.errors.ConvergenceError`."""
        quantity = f"Cauchy root at z = {mpmath.nstr(zv, 10)}"
        real = density
        lost = self._bits_lost(zv, seed, prec, real)
        g = seed
        for _ in range(3):
            wprec = prec + GUARD_BITS + int(lost)
            # the step test: prec bits of the scale (|Im G| on the axis, else |G|)
            atol = mpmath.ldexp(_scale(g, real), -prec - GUARD_BITS // 2)
            try:
                g = self._newton_mp(zv, g, wprec, quantity, atol)
            except ConvergenceError:
                g = self._nearest_root_mp(zv, g, wprec + 2 * GUARD_BITS, quantity)
                g = self._newton_mp(zv, g, wprec + 2 * GUARD_BITS, quantity, atol)
            new_lost = self._bits_lost(zv, g, prec, real)
            if new_lost <= lost + 8:
                return g
            lost = new_lost
        raise ConvergenceError(quantity, "conditioning estimate did not settle",
                               self.describe)

    def _abs_row_sums(self, zv: mpmath.mpc) -> list[mpmath.mpf]:
        """``sum_j |A_ij| |z|^j`` (ascending in i): the size of every term of ``P``."""
        az = abs(zv)
        return [mpmath.polyval(row, az) for row in self._abs_matrix_mp()]

    def _bits_lost(self, zv: mpmath.mpc, g: mpmath.mpc, prec: int, real: bool) -> float:
        with mpmath.workprec(prec + GUARD_BITS):
            c = self.coeffs_mp(zv)
            dp = mpmath.polyval([k * c[k] for k in range(len(c) - 1, 0, -1)], g)
            mags = mpmath.polyval(self._abs_row_sums(zv)[::-1], abs(g))
            scale = _scale(g, real)
            if dp == 0 or scale == 0:
                return float(prec)
            return max(0.0, float(mpmath.log(mags / (abs(dp) * scale), 2)))

    def _newton_mp(
        self, zv: mpmath.mpc, seed: mpmath.mpc, prec: int, quantity: str, atol: mpmath.mpf
    ) -> mpmath.mpc:
        with mpmath.workprec(prec):
            c = self.coeffs_mp(zv)
            desc = c[::-1]
            ddesc = [k * c[k] for k in range(len(c) - 1, 0, -1)]
            sizes = self._abs_row_sums(zv)[::-1]
            noise_factor = mpmath.ldexp(4 * (self.degree + 1) ** 2, -prec)
            return polish_root(
                lambda g: mpmath.polyval(desc, g), lambda g: mpmath.polyval(ddesc, g),
                mpmath.mpc(seed), quantity=quantity, params=self.describe, rtol=0, atol=atol,
                noise=lambda g: noise_factor * mpmath.polyval(sizes, abs(g)),
            )

    def all_roots_mp(self, zv: mpmath.mpc, quantity: str = "Cauchy roots") -> list[mpmath.mpc]:
        """All roots of ``P(., z)`` at the ambient precision (``mpmath.polyroots``, retried
        with more steps and extra precision); a ConvergenceError if it never converges."""
        c = self.coeffs_mp(zv)
        while len(c) > 1 and c[-1] == 0:
            c = c[:-1]
        for extra in (20, 60, 200):
            try:
                return [mpmath.mpc(r) for r in mpmath.polyroots(
                    c[::-1], maxsteps=200 + 10 * extra, cleanup=True, extraprec=extra,
                    error=False)]
            except mpmath.libmp.libhyper.NoConvergence:
                continue
        raise ConvergenceError(quantity, f"polyroots did not converge at z = "
                               f"{mpmath.nstr(zv, 10)}", self.describe)

    def _nearest_root_mp(
        self, zv: mpmath.mpc, seed: mpmath.mpc, prec: int, quantity: str
    ) -> mpmath.mpc:
        with mpmath.workprec(prec):
            return min(self.all_roots_mp(zv, quantity), key=lambda r: abs(r - seed))

    def _newton_steps_mp(self, zv: mpmath.mpc, g: mpmath.mpc, steps: int) -> mpmath.mpc:
        c = self.coeffs_mp(zv)
        desc, ddesc = c[::-1], [k * c[k] for k in range(len(c) - 1, 0, -1)]
        for _ in range(steps):
            d = mpmath.polyval(ddesc, g)
            if d == 0:
                break
            g -= mpmath.polyval(desc, g) / d
        return g

    def herglotz_root_mp(self, zv: mpmath.mpc) -> mpmath.mpc | None:
        """An independent route to the physical root (no tracking): all roots of
        ``P(., z)`` at the ambient precision, and the unique one with ``Im G < 0`` (for
        ``Im z > 0``, or ``z`` real with ``+i0``: the Stieltjes transform maps the upper
        half plane to the lower one, theory §3). None when that criterion does not single
        out one root (several roots in the lower half plane)."""
        zv = mpmath.mpmathify(zv)
        if mpmath.im(zv) < 0:
            g = self.herglotz_root_mp(mpmath.conj(zv))
            return None if g is None else mpmath.conj(g)
        roots = self.all_roots_mp(zv)
        tol = mpmath.ldexp(1, 32 - mpmath.mp.prec)
        lower = [r for r in roots if r.imag < -tol * abs(r)]
        return lower[0] if len(lower) == 1 else None


def _scale(g: mpmath.mpc, density: bool) -> mpmath.mpf:
    """The size that sets a root's accuracy: ``|Im G|`` on the real axis inside the
    support (the density is ``-Im G/pi``), ``|G|`` otherwise."""
    return abs(g.imag) if density and g.imag != 0 else abs(g)
