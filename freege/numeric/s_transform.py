"""The S-transform of a law on its physical branch (theory §3): ``S(0) = 1/m1``, continued.

The S-relation ``E(S, w) = 0`` (:func:`freege.numeric._symbolic.s_polynomial`, the image of
the Cauchy polynomial under ``G = S w``, ``z = (1 + w)/(S w)``) has several roots ``S``
for each ``w``; the physical one is the root continued from ``S(0) = 1/m1`` along the
straight segment from 0 to ``w`` (exact for real ``w`` in ``(-(1 - atom), 0]``, where
``S`` is real-analytic).

* float64: 64 equal steps, at each the root of ``E(., t)`` nearest the previous value
  (companion eigenvalues), then Newton; the first-order error estimate
  ``eps sum|A_ij||w|^j|S|^i / |E_S|`` counts the rounding of the coefficients (rounded
  from a 40-digit evaluation, never evaluated in float64); above ``FLOAT64_RTOL`` the
  value is recomputed at 30 digits;
* mpmath: the float64 seed polished by :func:`freege.numeric.solve.polish_root` (step
  and residual tests) at the working precision plus guard bits; the polished root must
  stay within the seed's error ball, else :class:`freege.errors.ConvergenceError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.compiled import mp_rational
from freege.numeric.roots import (
    COEFF_DPS,
    FLOAT64_RTOL,
    GUARD_BITS,
    RESCUE_DPS,
)
from freege.numeric.solve import polish_root

#: equal steps of the float64 continuation from 0 to w
STEPS = 64


class STransform:
    """``S(w)`` for one law: ``matrix(*values, _q)`` the coefficient matrix ``A[i][j]`` of
    ``S^i w^j`` (a generated function of :mod:`freege.numeric.compiled`), ``values()`` the
    parameter values at the ambient precision, ``mean`` the first moment (``S(0) =
    1/mean``), ``describe`` the parameters for error messages."""

    def __init__(
        self,
        matrix: Callable[..., list[list[Any]]],
        values: Callable[[], Sequence[mpmath.mpf]],
        mean: mpmath.mpf,
        describe: dict | None = None,
    ) -> None:
        self._mp = matrix
        self.values = values
        self.mean = mean
        self.describe = dict(describe or {})
        self._mp_cache: dict[int, list[list[mpmath.mpf]]] = {}
        with mpmath.workdps(COEFF_DPS):
            self.A = np.array([[float(c) for c in row] for row in self.matrix_mp()])

    def __repr__(self) -> str:
        from freege import display  # lazily: it imports sympy

        return display.s_transform_repr(type(self).__name__, self.mean, self.describe)

    def matrix_mp(self) -> list[list[mpmath.mpf]]:
        prec = mpmath.mp.prec
        if prec not in self._mp_cache:
            self._mp_cache[prec] = [[mpmath.mpf(c) for c in row]
                                    for row in self._mp(*self.values(), mp_rational)]
        return self._mp_cache[prec]

    # ------------------------------------------------------------------ float64
    def _coeffs_f64(self, w: complex) -> np.ndarray:
        return np.array([np.polyval(row[::-1], w) for row in self.A], dtype=complex)

    def _track_f64(self, w: complex) -> complex:
        value = complex(1 / float(self.mean))
        for k in range(1, STEPS + 1):
            c = self._coeffs_f64(w * k / STEPS)
            n = len(c) - 1
            while n > 0 and c[n] == 0:
                n -= 1
            roots = np.roots(c[: n + 1][::-1])
            value = complex(roots[np.argmin(np.abs(roots - value))])
        c = self._coeffs_f64(w)
        for _ in range(3):
            d = np.polyval(np.arange(len(c) - 1, 0, -1) * c[:0:-1], value)
            if d != 0:
                value -= np.polyval(c[::-1], value) / d
        return value

    def _error_f64(self, w: complex, s: complex) -> float:
        c = self._coeffs_f64(w)
        d = np.polyval(np.arange(len(c) - 1, 0, -1) * c[:0:-1], s)
        sizes = np.array([np.polyval(np.abs(row[::-1]), abs(w)) for row in self.A])
        mags = float(np.sum(sizes * abs(s) ** np.arange(len(sizes))))
        with np.errstate(all="ignore"):
            return float(np.finfo(float).eps * mags / abs(d)) if d != 0 else np.inf

    def f64(self, w: complex) -> complex:
        """``S(w)`` in float64 (recomputed at 30 digits where the estimate exceeds
        ``FLOAT64_RTOL``)."""
        s = self._track_f64(complex(w))
        if not self._error_f64(complex(w), s) <= FLOAT64_RTOL * abs(s):
            with mpmath.workdps(RESCUE_DPS):
                s = complex(self.mp(_mp_arg(complex(w)), seed=s))
        return s

    # ------------------------------------------------------------------ mpmath
    def mp(self, w: Any, seed: complex | None = None) -> Any:
        """``S(w)`` at the ambient precision, verified (real for real ``w`` when the root
        is real to working precision)."""
        w = mpmath.mpmathify(w)
        if seed is None:
            seed = self._track_f64(complex(w))
        seed_err = self._error_f64(complex(w), seed)
        quantity = f"S-transform at w = {mpmath.nstr(w, 10)}"
        prec = mpmath.mp.prec
        lost = max(0, int(np.log2(max(seed_err / (2.0**-53 * abs(seed)), 1.0))))
        with mpmath.workprec(prec + GUARD_BITS + lost):
            rows = self.matrix_mp()
            c = [mpmath.polyval(row[::-1], w) for row in rows]
            desc = c[::-1]
            ddesc = [k * c[k] for k in range(len(c) - 1, 0, -1)]
            sizes = [mpmath.polyval([abs(v) for v in row[::-1]], abs(w)) for row in rows][::-1]
            noise_factor = mpmath.ldexp(4 * len(c) ** 2, -mpmath.mp.prec)
            s = polish_root(
                lambda v: mpmath.polyval(desc, v), lambda v: mpmath.polyval(ddesc, v),
                mpmath.mpc(seed), quantity=quantity, params=self.describe,
                rtol=mpmath.ldexp(1, -prec - GUARD_BITS // 2),
                noise=lambda v: noise_factor * mpmath.polyval(sizes, abs(v)),
            )
            ball = max(1e3 * seed_err, 1e-10 * abs(seed))
            if not abs(complex(s) - seed) <= ball:
                raise ConvergenceError(quantity, f"the polished root {mpmath.nstr(s, 10)} left "
                                       f"the float64 seed's ball ({seed}, radius {ball:.2e})",
                                       self.describe)
        s = +s
        if mpmath.im(w) == 0 and abs(s.imag) <= abs(s) * mpmath.eps * 16:
            return s.real
        return s


def _mp_arg(v: complex) -> Any:
    return mpmath.mpf(v.real) if v.imag == 0 else mpmath.mpc(v)


__all__ = ["STransform", "STEPS"]
