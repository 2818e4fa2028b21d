"""The S-transform of a law without a Cauchy polynomial, by inverting ``psi`` (theory §3,
docs/data-laws.md).

``psi(u) = int ux/(1 - ux) dnu = G(1/u)/u - 1`` and ``S(w) = chi(w) (1 + w)/w`` with
``chi = psi^{-1}`` on the branch with ``chi(w) ~ w/m_1`` at 0. :class:`NumericSTransform`
follows ``w`` along the straight segment from 0 (like :mod:`freege.numeric.s_transform`):
Newton on ``psi(u) = t w`` for ``t`` from :data:`FIRST` to 1, each step seeded by the last,
with ``psi' (u) = -G(1/u)/u^2 - G'(1/u)/u^3`` from the law's ``(G, G')``; a step is
accepted when Newton's step (or its floor, where it stalls) and the residual fall below the
tolerance (float64 ``1e-12`` relative to ``psi``'s terms,
mpmath ``10^(3 - dps)``), halved otherwise; :class:`freege.errors.ConvergenceError` when
the segment cannot be followed.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError

#: the first point of the segment (``t w``), where ``chi ~ w/m_1`` seeds Newton
FIRST = 0.05


class NumericSTransform:
    """``S(w)`` of ``law`` (a law with ``cauchy_pair_f64`` / ``cauchy_pair_mp`` and a mean
    other than 0)."""

    def __init__(self, law: Any) -> None:
        self.law = law

    def __repr__(self) -> str:
        return f"NumericSTransform(S(w) with S(0) = 1/m1, by inverting psi; law={self.law!r})"

    def _follow(self, w: Any, f64: bool) -> Any:
        law = self.law
        if w == 0:
            return 1 / (law._moment_mp(1) if not f64 else float(law.mean()))
        m1 = float(law.mean()) if f64 else law._moment_mp(1)
        if m1 == 0:
            raise ValueError(f"{law}: mean 0, no S-transform")
        tol = 1e-12 if f64 else mpmath.mpf(10) ** (3 - mpmath.mp.dps)

        def newton(v: Any, target: Any) -> Any:
            last = None
            for _ in range(60):
                g, dg = pair(v)
                dv = (g / v - 1 - target) / (-g / v**2 - dg / v**3)
                v = v - dv
                stalled = last is not None and abs(dv) >= last and abs(dv) <= tol**0.5 * abs(v)
                if abs(dv) <= tol * abs(v) or stalled:
                    g, _ = pair(v)
                    return v if abs(g / v - 1 - target) <= 10 * tol * (abs(g / v) + 1) else None
                last = abs(dv)
            return None

        def pair(u: Any) -> tuple[Any, Any]:
            if f64:
                g, dg = law.cauchy_pair_f64(np.array([1 / complex(u)]))
                return complex(g[0]), complex(dg[0])
            return law.cauchy_pair_mp(1 / u)

        done, step = 0.0, FIRST
        u = FIRST * w / m1
        while True:
            t = min(1.0, done + step)
            v = newton(u, t * w)
            if v is None:
                step /= 2
                if step < 1e-9:
                    raise ConvergenceError("S(w)", "the segment from 0 cannot be followed",
                                           {**law.describe, "w": complex(w)})
                continue
            u, done = v, t
            if done >= 1:
                return u * (1 + w) / w
            step = min(2 * step, 0.25)

    def f64(self, w: complex) -> complex:
        return complex(self._follow(complex(w), True))

    def mp(self, w: Any, seed: complex | None = None) -> Any:
        return self._follow(mpmath.mpmathify(w), False)


__all__ = ["NumericSTransform"]
