"""A law given by a density on an interval, as an operand of the subordination engine
(docs/data-laws.md, theory §3).

:class:`DensityOperand` holds ``rho`` on a finite ``[a, b]`` (no atoms; ``rho > 0``
inside is assumed, ``rho >= 0`` is checked at every node) and evaluates its Cauchy
transform ``G(z) = int_a^b rho(x)/(z - x) dx`` and ``G'(z)`` at any ``z`` off the support,
arbitrarily close to it included, and at ``z + i0`` on it.

**Method.** ``rho`` is replaced by a piecewise polynomial: on each panel ``[a_i, b_i]``
the interpolant ``P_i`` at ``n`` Gauss-Legendre nodes. Panels are halved adaptively until
the interpolant matches ``rho`` at the ``n - 1`` midpoints between its nodes to
``tol * max(mass/(b - a), max|rho| on the panel)`` plus what rounding the nodes to the
working precision changes in ``rho`` (float64 ``tol = 2e-15``; mpmath
``10^-(dps + 2)`` at ``dps + 10`` working digits). Halving the panel at an end again and
again grades the panels geometrically toward a singular or square-root end; a panel that
reaches the width its floating-point numbers can resolve is accepted when its
interpolation error times its width is below ``tol`` times the mass, else
:class:`freege.errors.ConvergenceError` (so is an interior singularity). The density is
normalised to mass 1 by its integral (exact for the interpolant).

Each panel's integral, in the panel variable ``t in [-1, 1]`` (``s`` the image of ``z``):

* near the panel (``s`` inside the Bernstein ellipse of parameter ``R``, where ``R^(2n)``
  exceeds ``10^17``, resp. ``10^(dps + 12)``): exactly for the polynomial,
  ``P(s) log((s + 1)/(s - 1)) - sum_k w_k (P(s) - P(t_k))/(s - t_k)``; the second
  sum is a polynomial integrated exactly by the rule; the divided differences come from
  the barycentric form about the node nearest ``s`` (no cancellation as ``s`` nears a
  node); the log is ``log|s + 1| - log|s - 1| + i (arg(s + 1) - arg(s - 1))``, continuous
  in ``Im s >= 0`` and ``-i pi`` on the panel (``z + i0``);
* farther: the Gauss-Legendre sum ``sum_k w_k P(t_k)/(s - t_k)`` (error below
  ``R^(-2n)``).

``G'`` is ``int rho'/(z - x) dx`` by the same rule applied to ``P'`` (the barycentric
differentiation matrix) plus the boundary terms ``rho(a_i)/(z - a_i) - rho(b_i)/(z - b_i)``
of the near panels; at an interior boundary where both panels are near the two terms
are dropped together (their sum is the interpolants' jump, an artifact below the
interpolation tolerance that would otherwise grow like ``jump/(z - boundary)``).
Accuracy: about ``1e-14`` relative in float64
and ``10^-dps`` at the ambient precision for a density the panels resolve; at points within
``delta`` of an interior panel boundary the two panels' logarithms cancel and cost about
``eps log(1/delta)``; a real ``z`` exactly on an interior boundary is moved by a few
units in the last place.

**scipy.stats** (:func:`from_scipy`): a frozen continuous distribution. A finite support is
used as it is. An infinite end is cut where the tail mass falls below ``1e-17`` in float64
(:data:`TAIL_F64`) and below ``10^-(dps + 3)`` at the ambient precision; the cut tail is
renormalised away (the law is the truncated law). scipy's pdf is float64 only: the
densities of :data:`MP_DENSITIES` (uniform, beta, gamma, expon, chi2, norm, lognorm) are
written here in mpmath (any precision); any other distribution answers the mpmath hooks
from its float64 values (about 15 digits; :func:`check_dps` refuses a ``dps`` request).
Its recipe spec is plain: ``("density", "scipy", name, args, kwds)`` with exact fractions
(:func:`scipy_spec`), rebuilt only for names of scipy.stats continuous distributions.

**A Python function** (:func:`density`) builds an operand directly; it does not travel in
a recipe (:func:`density_from_spec` refuses ``("function", ...)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.operands import BLOCK, Operand, exact
from freege.numeric.quadrature_rules import gauss_legendre_mp

#: Gauss-Legendre nodes per panel, float64
NODES_F64 = 24
#: interpolation tolerance, float64 (relative to the density's size)
TOL_F64 = 2e-15
#: the tail mass cut from an infinite end, float64
TAIL_F64 = 1e-17
#: panels before the build gives up
MAX_PANELS = 3000
#: panels of the first split
FIRST_PANELS = 4
#: guard digits of the mpmath build and evaluation
GUARD_DPS = 10

_Pdf = Callable[[Any], Any]


# ---------------------------------------------------------------------- reference rules
def _legendre_mp(n: int) -> tuple[list[Any], list[Any]]:
    """Gauss-Legendre nodes (ascending) and weights on ``[-1, 1]`` at the ambient precision,
    from :func:`freege.numeric.quadrature_rules.gauss_legendre_mp` (on ``[0, 1]``)."""
    u, v = gauss_legendre_mp(n)
    pairs = sorted((2 * x - 1, 2 * w) for x, w in zip(u, v, strict=True))
    return [t for t, _ in pairs], [w for _, w in pairs]


class _Rule:
    """One reference rule: nodes ``t``, weights ``w``, barycentric weights ``lam``, check
    points (midpoints of the nodes) and the matrices mapping node values to check-point
    values, to the derivative at the nodes, and to the values at ``-1`` and ``1``."""

    def __init__(self, n: int, mp: bool) -> None:
        self.n, self.mp = n, mp
        if mp:
            t, w = _legendre_mp(n)
            lam = [(-1) ** k * mpmath.sqrt((1 - x * x) * v)
                   for k, (x, v) in enumerate(zip(t, w, strict=True))]
        else:
            t, w = np.polynomial.legendre.leggauss(n)
            lam = (-1.0) ** np.arange(n) * np.sqrt((1 - t * t) * w)
        self.t, self.w, self.lam = t, w, lam
        checks = [(t[k] + t[k + 1]) / 2 for k in range(n - 1)]
        self.check = self._rows(checks)
        self.ends = self._rows([-1, 1] if not mp else [mpmath.mpf(-1), mpmath.mpf(1)])
        diff = [[0] * n for _ in range(n)]
        for k in range(n):
            for j in range(n):
                if j != k:
                    diff[k][j] = (lam[j] / lam[k]) / (t[k] - t[j])
            diff[k][k] = -sum(diff[k][j] for j in range(n) if j != k)
        self.diff = diff if mp else np.array(diff, dtype=float)
        if not mp:
            self.check = np.array(self.check, dtype=float)
            self.ends = np.array(self.ends, dtype=float)

    def _rows(self, points: list[Any]) -> list[list[Any]]:
        rows = []
        for c in points:
            terms = [lam / (c - x) for lam, x in zip(self.lam, self.t, strict=True)]
            total = sum(terms)
            rows.append([v / total for v in terms])
        return rows


_RULES: dict[tuple[int, int | None], _Rule] = {}


def _rule(n: int, mp: bool) -> _Rule:
    key = (n, mpmath.mp.prec if mp else None)
    if key not in _RULES:
        _RULES[key] = _Rule(n, mp)
    return _RULES[key]


def _nodes_mp(dps: int) -> int:
    return max(24, dps // 2 + 12)


# ---------------------------------------------------------------------- the operand
class DensityOperand(Operand):
    """A law with density ``rho`` on ``[a, b]`` (see the module docstring).

    ``pdf_f64`` maps a float64 array to the density's values (a scalar function is
    called point by point); ``pdf_mp`` maps one mpmath number to its value at the ambient
    precision (None: the mpmath hooks use the float64 values, about 15 digits).
    ``interval_mp`` (optional) gives ``(a, b)`` at the ambient precision (a deeper cut
    of an infinite tail); ``describe`` names the law; ``key`` is its identity."""

    def __init__(self, pdf_f64: _Pdf, pdf_mp: _Pdf | None, a: Any, b: Any,
                 describe: dict[str, Any] | None = None, key: Any = None,
                 interval_mp: Callable[[], tuple[Any, Any]] | None = None) -> None:
        a_f, b_f = float(a), float(b)
        if not (math.isfinite(a_f) and math.isfinite(b_f)) or not a_f < b_f:
            raise ValueError(f"density: the interval [a, b] must be finite with a < b "
                             f"(got [{a_f!r}, {b_f!r}])")
        self._a_exact, self._b_exact = a, b
        self.a, self.b = a_f, b_f
        self.pdf_f64, self.pdf_mp = pdf_f64, pdf_mp
        self._interval_mp = interval_mp
        self.describe = dict(describe or {"law": f"density on [{a_f:g}, {b_f:g}]"})
        self._key = key if key is not None else ("function", id(pdf_f64), a_f, b_f)
        self._f64: dict[str, Any] | None = None
        self._mp: dict[int, dict[str, Any]] = {}

    @property
    def float64_only(self) -> bool:
        """Whether the density is evaluated in float64 only (no mpmath density)."""
        return self.pdf_mp is None

    # ------------------------------------------------------------------ plain hooks
    def identity(self) -> tuple[Any, ...]:
        return ("density", self._key)

    def hull(self) -> tuple[float, float]:
        lo, hi = self.a, self.b
        pad = 1e-12 * max(hi - lo, abs(lo), abs(hi))
        return (lo - pad if lo < 0 or lo - pad >= 0 else 0.0), hi + pad

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return []

    def _ends_mp(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        if self._interval_mp is not None:
            a, b = self._interval_mp()
            return mpmath.mpf(a), mpmath.mpf(b)
        return exact(self._a_exact), exact(self._b_exact)

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return [self._ends_mp()]

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        """``[m_1, ..., m_q]``: the panel rule (exact for the interpolant up to order
        ``n``) at the ambient precision."""
        pan = self._panels_mp()
        with mpmath.workprec(pan["prec"]):
            xs, qs = pan["x_flat"], pan["q_flat"]
            out = [mpmath.fsum(w * x**k for x, w in zip(xs, qs, strict=True))
                   for k in range(1, q + 1)]
        return [+m for m in out]

    # ------------------------------------------------------------------ building
    def _fail(self, reason: str, **extra: Any) -> ConvergenceError:
        return ConvergenceError("density", reason, {**self.describe, **extra})

    def _build(self, a: Any, b: Any, rule: _Rule, values: Callable[[list[Any]], list[Any]],
               tol: Any, floor: Callable[[Any, Any], Any], mp: bool
               ) -> list[tuple[Any, Any, list[Any]]]:
        unit = mpmath.mpf(2) ** -mpmath.mp.prec if mp else float(np.finfo(float).eps)
        """Adaptive panels ``[(lo, hi, node values)]`` (see the module docstring)."""
        def nodes_of(lo: Any, hi: Any, ts: Any) -> list[Any]:
            c, r = (lo + hi) / 2, (hi - lo) / 2
            return [c + r * t for t in ts]

        def sample(lo: Any, hi: Any) -> tuple[list[Any], Any]:
            xs = nodes_of(lo, hi, rule.t)
            cs = nodes_of(lo, hi, [(rule.t[k] + rule.t[k + 1]) / 2
                                   for k in range(rule.n - 1)])
            f = values(xs)
            fc = values(cs)
            for x, v in zip(xs + cs, list(f) + list(fc), strict=True):
                if not (v == v and abs(v) != mpmath.inf and abs(v) != math.inf):
                    raise self._fail(f"rho is not finite at x = {float(x):.17g}")
                if v < 0:
                    raise ValueError(f"density: rho must be >= 0 on [a, b] (rho({float(x):.17g})"
                                     f" = {float(v):.3g})")
            if mp:
                est = [mpmath.fsum(e * v for e, v in zip(row, f, strict=True))
                       for row in rule.check]
                err = max(abs(e - v) for e, v in zip(est, fc, strict=True))
            else:
                err = float(np.max(np.abs(rule.check @ np.asarray(f) - np.asarray(fc))))
            return f, err

        width = b - a
        step = width / FIRST_PANELS
        queue = [(a + k * step, a + (k + 1) * step if k < FIRST_PANELS - 1 else b)
                 for k in range(FIRST_PANELS)]
        samples = {p: sample(*p) for p in queue}
        mass = sum(sum(wk * v for wk, v in zip(rule.w, samples[p][0], strict=True))
                   * (p[1] - p[0]) / 2 for p in queue)
        if not mass > 0:
            raise ValueError("density: rho must have a positive integral over [a, b]")
        level = mass / width
        done: list[tuple[Any, Any, list[Any]]] = []
        while queue:
            lo, hi = queue.pop()
            f, err = samples.pop((lo, hi)) if (lo, hi) in samples else sample(lo, hi)
            top = max(abs(v) for v in f)
            # what rounding the nodes to the working precision changes in rho
            noise = 16 * unit * max(abs(lo), abs(hi)) * (max(f) - min(f)) / (hi - lo)
            if err <= tol * max(level, top) + noise:
                done.append((lo, hi, list(f)))
                continue
            if hi - lo <= floor(lo, hi):
                if err * (hi - lo) <= tol * mass:
                    done.append((lo, hi, list(f)))
                    continue
                raise self._fail("the interpolation of rho does not converge (a singularity "
                                 "inside [a, b], or one at an end too strong to resolve)",
                                 near=float(lo))
            mid = (lo + hi) / 2
            queue += [(lo, mid), (mid, hi)]
            if len(done) + len(queue) > MAX_PANELS:
                raise self._fail(f"rho needs more than {MAX_PANELS} panels", near=float(lo))
        done.sort(key=lambda p: p[0])
        return done

    def _rho_f64(self, xs: list[Any]) -> np.ndarray:
        x = np.asarray(xs, dtype=float)
        try:
            out = np.asarray(self.pdf_f64(x), dtype=float)
            if out.shape != x.shape:
                raise TypeError
        except (TypeError, ValueError):
            out = np.array([float(self.pdf_f64(float(v))) for v in x])
        return out

    def _panels_f64(self) -> dict[str, Any]:
        if self._f64 is not None:
            return self._f64
        rule = _rule(NODES_F64, False)
        eps = np.finfo(float).eps
        width = self.b - self.a

        def floor(lo: float, hi: float) -> float:
            return max(64 * eps * max(abs(lo), abs(hi)), 1e-30 * width)

        panels = self._build(self.a, self.b, rule, self._rho_f64, TOL_F64, floor, False)
        self._f64 = self._pack_f64(panels, rule)
        return self._f64

    def _pack_f64(self, panels: list[tuple[Any, Any, list[Any]]], rule: _Rule
                  ) -> dict[str, Any]:
        lo = np.array([p[0] for p in panels], dtype=float)
        hi = np.array([p[1] for p in panels], dtype=float)
        f = np.array([p[2] for p in panels], dtype=float)
        c, r = (lo + hi) / 2, (hi - lo) / 2
        mass = float(np.sum(r[:, None] * rule.w[None, :] * f))
        f = f / mass
        x = c[:, None] + r[:, None] * rule.t[None, :]
        ends = f @ rule.ends.T  # (K, 2): P(-1), P(1)
        k = len(panels)
        pl = np.concatenate([[0.0], ends[:, 1]])  # the panel left of each boundary at its end
        pr = np.concatenate([ends[:, 0], [0.0]])
        return {"rule": rule, "c": c, "r": r, "f": f, "x": x,
                "fd": DensityOperand._derivative_f64(f, rule),
                "q": r[:, None] * rule.w[None, :] * f, "xb": np.concatenate([lo, hi[-1:]]),
                "pl": pl, "pr": pr, "jump": pr - pl, "k": k, "mass": mass,
                "big": 10 ** (18 / (2 * rule.n))}

    @staticmethod
    def _derivative_f64(f: np.ndarray, rule: _Rule) -> np.ndarray:
        """``P'`` at the nodes as ``sum_j D_kj (f_j - f_k)`` (exactly 0 for a constant)."""
        off = rule.diff - np.diag(np.diag(rule.diff))
        return (off[None, :, :] * (f[:, None, :] - f[:, :, None])).sum(axis=2)

    def _panels_mp(self) -> dict[str, Any]:
        prec = mpmath.mp.prec
        if prec in self._mp:
            return self._mp[prec]
        dps = mpmath.mp.dps
        with mpmath.workdps(dps + GUARD_DPS):
            work = mpmath.mp.prec
            if self.pdf_mp is None:
                # float64 values on the float64 panels, the rule at the working precision
                p64 = self._panels_f64()
                rule = _rule(NODES_F64, True)
                panels = []
                for lo, hi in zip(p64["xb"][:-1], p64["xb"][1:], strict=True):
                    lo_m, hi_m = mpmath.mpf(float(lo)), mpmath.mpf(float(hi))
                    xs = [(lo_m + hi_m) / 2 + (hi_m - lo_m) / 2 * t for t in rule.t]
                    vals = self._rho_f64([float(x) for x in xs])
                    panels.append((lo_m, hi_m, [mpmath.mpf(float(v)) for v in vals]))
            else:
                rule = _rule(_nodes_mp(dps), True)
                a, b = self._ends_mp()
                width = b - a
                tol = mpmath.mpf(10) ** (-(dps + 2))
                pdf = self.pdf_mp

                def values(xs: list[Any]) -> list[Any]:
                    out = []
                    for x in xs:
                        v = pdf(x)
                        if isinstance(v, float | np.floating):
                            raise ValueError(
                                f"density: {self.describe.get('law')} returned a float64 "
                                "value at an mpmath point; for dps give a density in mpmath "
                                "(use mpmath functions in f)")
                        out.append(mpmath.mpf(v))
                    return out

                def floor(lo: Any, hi: Any) -> Any:
                    return max(mpmath.mpf(10) ** (3 - mpmath.mp.dps) * max(abs(lo), abs(hi)),
                               mpmath.mpf(10) ** (-2 * dps - 6) * width)

                panels = self._build(a, b, rule, values, tol, floor, True)
            self._mp[prec] = self._pack_mp(panels, rule, work)
        return self._mp[prec]

    @staticmethod
    def _pack_mp(panels: list[tuple[Any, Any, list[Any]]], rule: _Rule, work: int
                 ) -> dict[str, Any]:
        n = rule.n
        cs = [(lo + hi) / 2 for lo, hi, _ in panels]
        rs = [(hi - lo) / 2 for lo, hi, _ in panels]
        mass = mpmath.fsum(r * wk * v for r, (_, _, f) in zip(rs, panels, strict=True)
                           for wk, v in zip(rule.w, f, strict=True))
        fs = [[v / mass for v in f] for _, _, f in panels]
        fds = [[mpmath.fsum(rule.diff[k][j] * (f[j] - f[k]) for j in range(n) if j != k)
                for k in range(n)] for f in fs]
        xs = [[c + r * t for t in rule.t] for c, r in zip(cs, rs, strict=True)]
        qs = [[r * wk * v for wk, v in zip(rule.w, f, strict=True)]
              for r, f in zip(rs, fs, strict=True)]
        ends = [[mpmath.fsum(e * v for e, v in zip(row, f, strict=True)) for row in rule.ends]
                for f in fs]
        zero = mpmath.mpf(0)
        pl = [zero] + [e[1] for e in ends]
        pr = [e[0] for e in ends] + [zero]
        return {"rule": rule, "c": cs, "r": rs, "f": fs, "fd": fds, "x": xs, "q": qs,
                "xb": [lo for lo, _, _ in panels] + [panels[-1][1]], "pl": pl, "pr": pr,
                "jump": [b - a for a, b in zip(pl, pr, strict=True)], "prec": work,
                "x_flat": [x for row in xs for x in row], "q_flat": [v for row in qs for v in row],
                "big": mpmath.mpf(10) ** (mpmath.mpf(mpmath.mp.dps + 2) / (2 * n))}

    # ------------------------------------------------------------------ float64
    @staticmethod
    def _near_f64(s: np.ndarray, f: np.ndarray, rule: _Rule) -> np.ndarray:
        """``int_{-1}^1 P(t)/(s - t) dt`` for rows ``f`` of node values (exact for ``P``)."""
        t, w, lam = rule.t, rule.w, rule.lam
        rows = np.arange(s.size)
        diff = s[:, None] - t[None, :]
        m = np.argmin(np.abs(diff), axis=1)
        dm, fm = diff[rows, m], f[rows, m]
        with np.errstate(all="ignore"):
            tj = lam[None, :] / diff
            tj[rows, m] = 0
            num = (tj * (f - fm[:, None])).sum(axis=1)
            den = lam[m] + dm * tj.sum(axis=1)
            d_m = num / den
            ps = fm + dm * d_m
            dk = (ps[:, None] - f) / diff
            dk[rows, m] = d_m
            log = (np.log(np.abs(s + 1)) - np.log(np.abs(s - 1))
                   + 1j * (np.angle(s + 1) - np.angle(s - 1)))
        return ps * log - dk @ w

    @staticmethod
    def _ellipse(s: Any) -> Any:
        with np.errstate(all="ignore"):
            u = s + np.sqrt(s - 1) * np.sqrt(s + 1)
            au = np.abs(u)
        return np.maximum(au, 1 / au)

    def _nudge_f64(self, zs: np.ndarray, xb: np.ndarray) -> np.ndarray:
        real = zs.imag == 0
        if not real.any():
            return zs
        inner = xb[1:-1]
        hit = real & np.isin(zs.real, inner)
        if hit.any():
            step = 4 * np.finfo(float).eps * max(abs(self.a), abs(self.b), self.b - self.a)
            zs = np.where(hit, zs + step, zs)
        return zs

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pan = self._panels_f64()
        rule = pan["rule"]
        zs = np.asarray(zs, dtype=complex).ravel()
        zs = zs.real + 1j * (zs.imag + 0.0)
        zs = self._nudge_f64(zs, pan["xb"])
        k, n = pan["k"], rule.n
        xf, qf = pan["x"].ravel(), pan["q"].ravel()
        g = np.empty(zs.shape, dtype=complex)
        dg = np.empty(zs.shape, dtype=complex)
        rows = max(1, BLOCK // xf.size)
        for start in range(0, zs.size, rows):
            z = zs[start:start + rows]
            with np.errstate(all="ignore"):
                d = 1.0 / (z[:, None] - xf[None, :])
                far_g = (d * qf).reshape(z.size, k, n).sum(axis=2)
                far_dg = -(d * d * qf).reshape(z.size, k, n).sum(axis=2)
                s = (z[:, None] - pan["c"][None, :]) / pan["r"][None, :]
            near = self._ellipse(s) < pan["big"]
            gb = np.where(near, 0, far_g).sum(axis=1)
            dgb = np.where(near, 0, far_dg).sum(axis=1)
            ip, ik = np.nonzero(near)
            if ip.size:
                sv = s[ip, ik]
                np.add.at(gb, ip, self._near_f64(sv, pan["f"][ik], rule))
                np.add.at(dgb, ip, self._near_f64(sv, pan["fd"][ik], rule) / pan["r"][ik])
                left = np.concatenate([np.zeros((z.size, 1), bool), near], axis=1)
                right = np.concatenate([near, np.zeros((z.size, 1), bool)], axis=1)
                coef = np.where(left & right, 0.0,
                                np.where(right, pan["pr"][None, :], 0)
                                - np.where(left, pan["pl"][None, :], 0))
                with np.errstate(all="ignore"):
                    term = np.where(left | right, coef / (z[:, None] - pan["xb"][None, :]), 0)
                dgb += term.sum(axis=1)
            g[start:start + rows] = gb
            dg[start:start + rows] = dgb
        return g, dg

    # ------------------------------------------------------------------ mpmath
    @staticmethod
    def _near_mp(s: Any, f: list[Any], rule: _Rule) -> Any:
        t, w, lam = rule.t, rule.w, rule.lam
        diff = [s - x for x in t]
        m = min(range(rule.n), key=lambda j: abs(diff[j]))
        fm, dm = f[m], diff[m]
        tj = [lam[j] / diff[j] if j != m else 0 for j in range(rule.n)]
        num = mpmath.fsum(tj[j] * (f[j] - fm) for j in range(rule.n) if j != m)
        den = lam[m] + dm * mpmath.fsum(tj)
        d_m = num / den
        ps = fm + dm * d_m
        total = mpmath.fsum(w[j] * ((ps - f[j]) / diff[j] if j != m else d_m)
                            for j in range(rule.n))
        log = mpmath.mpc(mpmath.log(abs(s + 1)) - mpmath.log(abs(s - 1)),
                         mpmath.arg(s + 1) - mpmath.arg(s - 1))
        return ps * log - total

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        pan = self._panels_mp()
        rule = pan["rule"]
        with mpmath.workprec(pan["prec"]):
            z = mpmath.mpc(z)
            xb = pan["xb"]
            if mpmath.im(z) == 0 and any(mpmath.re(z) == x for x in xb[1:-1]):
                z += mpmath.mpf(10) ** (-mpmath.mp.dps) * max(abs(xb[0]), abs(xb[-1]),
                                                              xb[-1] - xb[0])
            gs, dgs = [], []
            near = []
            for i, (c, r) in enumerate(zip(pan["c"], pan["r"], strict=True)):
                s = (z - c) / r
                u = s + mpmath.sqrt(s - 1) * mpmath.sqrt(s + 1)
                is_near = max(abs(u), 1 / abs(u)) < pan["big"]
                near.append(is_near)
                if is_near:
                    gs.append(self._near_mp(s, pan["f"][i], rule))
                    dgs.append(self._near_mp(s, pan["fd"][i], rule) / r)
                else:
                    for x, q in zip(pan["x"][i], pan["q"][i], strict=True):
                        d = 1 / (z - x)
                        gs.append(q * d)
                        dgs.append(-q * d * d)
            for j, xv in enumerate(xb):
                left = j > 0 and near[j - 1]
                right = j < len(near) and near[j]
                if left and right:
                    continue
                if left or right:
                    coef = (pan["pr"][j] if right else 0) - (pan["pl"][j] if left else 0)
                else:
                    continue
                dgs.append(coef / (z - xv))
            g, dg = mpmath.fsum(gs), mpmath.fsum(dgs)
        return mpmath.mpc(+g), mpmath.mpc(+dg)


# ---------------------------------------------------------------------- user densities
def density(f: _Pdf, a: Any, b: Any, name: str | None = None) -> DensityOperand:
    """The law with density proportional to ``f`` on ``[a, b]`` (normalised by its
    integral). ``f`` is called on float64 arrays (or point by point) and, for the mpmath
    hooks, on mpmath numbers: write it with ``numpy``/``mpmath``-generic operations (or
    ``mpmath`` functions) to get any precision. Such an operand does not travel in a
    recipe (docs/data-laws.md)."""
    if not callable(f):
        raise ValueError(f"density: f must be callable (got {type(f).__name__})")
    for label, v in (("a", a), ("b", b)):
        if isinstance(v, bool) or not isinstance(v, int | float | Fraction):
            raise ValueError(f"density: {label} must be a finite real number "
                             f"(got {type(v).__name__})")
    label = name or getattr(f, "__name__", "f")
    return DensityOperand(f, f, a, b, {"law": f"density({label}, [{float(a):g}, {float(b):g}])"})


# ---------------------------------------------------------------------- scipy
def _mp_uniform(y: Any, shapes: list[Any]) -> Any:
    return mpmath.mpf(1)


def _mp_beta(y: Any, shapes: list[Any]) -> Any:
    p, q = shapes
    return y ** (p - 1) * (1 - y) ** (q - 1) / mpmath.beta(p, q)


def _mp_gamma(y: Any, shapes: list[Any]) -> Any:
    (k,) = shapes
    return y ** (k - 1) * mpmath.exp(-y) / mpmath.gamma(k)


def _mp_expon(y: Any, shapes: list[Any]) -> Any:
    return mpmath.exp(-y)


def _mp_chi2(y: Any, shapes: list[Any]) -> Any:
    (k,) = shapes
    h = k / 2
    return y ** (h - 1) * mpmath.exp(-y / 2) / (2**h * mpmath.gamma(h))


def _mp_norm(y: Any, shapes: list[Any]) -> Any:
    return mpmath.exp(-y * y / 2) / mpmath.sqrt(2 * mpmath.pi)


def _mp_lognorm(y: Any, shapes: list[Any]) -> Any:
    (s,) = shapes
    if y <= 0:
        return mpmath.mpf(0)
    return mpmath.exp(-mpmath.log(y) ** 2 / (2 * s * s)) / (y * s * mpmath.sqrt(2 * mpmath.pi))


def _tail_gamma(y: Any, shapes: list[Any]) -> Any:
    return mpmath.gammainc(shapes[0], y, mpmath.inf, regularized=True)


def _tail_norm(y: Any, shapes: list[Any]) -> Any:
    return mpmath.erfc(y / mpmath.sqrt(2)) / 2


#: ``name -> (standard density, upper tail mass of the standard law or None)``: the
#: scipy.stats distributions whose density is written in mpmath (any precision)
MP_DENSITIES: dict[str, tuple[Callable[[Any, list[Any]], Any],
                              Callable[[Any, list[Any]], Any] | None]] = {
    "uniform": (_mp_uniform, None),
    "beta": (_mp_beta, None),
    "gamma": (_mp_gamma, _tail_gamma),
    "expon": (_mp_expon, lambda y, s: mpmath.exp(-y)),
    "chi2": (_mp_chi2, lambda y, s: mpmath.gammainc(s[0] / 2, y / 2, mpmath.inf,
                                                   regularized=True)),
    "norm": (_mp_norm, _tail_norm),
    "lognorm": (_mp_lognorm, lambda y, s: _tail_norm(mpmath.log(y) / s[0], [])),
}


def _continuous(name: Any) -> Any:
    """The scipy.stats continuous distribution called ``name``, else a ValueError."""
    import scipy.stats
    from scipy.stats import _continuous_distns

    dist = getattr(scipy.stats, name, None) if isinstance(name, str) else None
    if (not isinstance(name, str) or name not in _continuous_distns._distn_names
            or not isinstance(dist, scipy.stats.rv_continuous)):
        raise ValueError(f"density: {name!r} is not a scipy.stats continuous distribution")
    return dist


def _exact_number(label: str, v: Any) -> Fraction:
    if isinstance(v, bool) or not isinstance(v, int | float | Fraction | np.integer
                                             | np.floating):
        raise ValueError(f"density: scipy parameter {label} must be a real number "
                         f"(got {type(v).__name__})")
    if isinstance(v, float | np.floating) and not math.isfinite(float(v)):
        raise ValueError(f"density: scipy parameter {label} must be finite (got {v!r})")
    return Fraction(v) if isinstance(v, Fraction) else Fraction(
        int(v) if isinstance(v, int | np.integer) else float(v))


def scipy_spec(dist: Any) -> tuple[Any, ...]:
    """The plain spec ``("density", "scipy", name, args, kwds)`` of a frozen scipy.stats
    continuous distribution: the parameters as exact fractions (a float exactly),
    ``kwds`` a sorted tuple of ``(name, Fraction)``."""
    inner = getattr(dist, "dist", None)
    name = getattr(inner, "name", None)
    _continuous(name)
    args = tuple(_exact_number(f"args[{j}]", v) for j, v in enumerate(dist.args))
    kwds = tuple(sorted((str(k), _exact_number(k, v)) for k, v in dist.kwds.items()))
    return ("density", "scipy", name, args, kwds)


def check_dps(operand: Any, dps: int | None) -> None:
    """A ValueError when ``dps`` is asked of a tree holding a float64-only density."""
    if dps is None:
        return
    stack = [operand]
    while stack:
        node = stack.pop()
        if isinstance(node, DensityOperand) and node.float64_only:
            raise ValueError(f"{node.describe.get('law')} evaluates its density in float64 "
                             "only; for dps give a density in mpmath: density(f, a, b)")
        stack.extend(getattr(node, "children", ()))


def _build_scipy(name: str, args: tuple[Fraction, ...], kwds: tuple[tuple[str, Fraction], ...]
                 ) -> DensityOperand:
    gen = _continuous(name)
    fargs = [float(v) for v in args]
    fkwds = {k: float(v) for k, v in kwds}
    try:
        frozen = gen(*fargs, **fkwds)
        shapes, loc, scale = gen._parse_args(*fargs, **fkwds)
        lo, hi = (float(v) for v in frozen.support())
    except TypeError as exc:
        raise ValueError(f"density: bad parameters for scipy.stats.{name} ({exc})") from None
    if not (math.isfinite(loc) and math.isfinite(scale) and scale > 0) or math.isnan(lo) \
            or math.isnan(hi):
        raise ValueError(f"density: scipy.stats.{name} parameters out of range "
                         f"(args={fargs}, kwds={fkwds})")
    cut = []
    if not math.isfinite(lo):
        lo = float(frozen.ppf(TAIL_F64))
        cut.append("lower")
    if not math.isfinite(hi):
        hi = float(frozen.isf(TAIL_F64))
        cut.append("upper")
    shown = [*map(str, fargs)] + [f"{k}={v}" for k, v in fkwds.items()]
    text = f"scipy.stats.{name}({', '.join(shown)})"
    if cut:
        text += f" cut at tail mass {TAIL_F64:g} ({' and '.join(cut)} tail, renormalised)"

    pdf_mp = None
    interval_mp = None
    if name in MP_DENSITIES:
        std, tail = MP_DENSITIES[name]
        shape_names = [s.strip() for s in (gen.shapes or "").split(",") if s.strip()]
        exact_args = dict(zip(["_" + s for s in shape_names] + ["_loc", "_scale"], args,
                              strict=False))
        for k, v in kwds:
            exact_args["_" + k] = v
        loc_x = exact_args.get("_loc", Fraction(0))
        scale_x = exact_args.get("_scale", Fraction(1))
        shape_x = [exact_args["_" + s] for s in shape_names]

        def pdf_mp(x: Any) -> Any:
            sc = exact(scale_x)
            y = (x - exact(loc_x)) / sc
            return std(y, [exact(v) for v in shape_x]) / sc

        if cut:
            lo64, hi64, lower, upper = lo, hi, "lower" in cut, "upper" in cut

            def interval_mp() -> tuple[Any, Any]:
                target = mpmath.mpf(10) ** (-(mpmath.mp.dps + 3))
                sh = [exact(v) for v in shape_x]
                loc_m, sc = exact(loc_x), exact(scale_x)

                def cut_at(y0: float, sign: int) -> Any:
                    # the tail beyond sign*y is tail(y) (norm is symmetric)
                    a_y, b_y = mpmath.mpf(max(y0, 1.0)), mpmath.mpf(max(y0, 1.0))
                    while tail(b_y, sh) > target:
                        b_y *= 2
                    for _ in range(40):
                        m = (a_y + b_y) / 2
                        if tail(m, sh) > target:
                            a_y = m
                        else:
                            b_y = m
                    return loc_m + sign * sc * b_y

                a_m = cut_at(-(lo64 - float(loc_x)) / float(scale_x), -1) if lower \
                    else exact(Fraction(lo64))
                b_m = cut_at((hi64 - float(loc_x)) / float(scale_x), 1) if upper \
                    else exact(Fraction(hi64))
                return a_m, b_m

        with mpmath.workdps(15):
            pdf_mp(mpmath.mpf((lo + hi) / 2))  # fails early on a bad table entry
    return DensityOperand(frozen.pdf, pdf_mp, lo, hi, {"law": text},
                          key=("scipy", name, args, kwds), interval_mp=interval_mp)


def from_scipy(dist: Any) -> DensityOperand:
    """The operand of a frozen scipy.stats continuous distribution (see the module
    docstring: an infinite end is cut at tail mass :data:`TAIL_F64` in float64, deeper at
    the ambient precision, the cut renormalised away)."""
    _, _, name, args, kwds = scipy_spec(dist)
    return _build_scipy(name, args, kwds)


def density_from_spec(args: tuple[Any, ...]) -> DensityOperand:
    """The operand of a ``("density", ...)`` spec's arguments: ``("scipy", name, args,
    kwds)`` (see :func:`scipy_spec`); a Python function has no spec."""
    if not isinstance(args, tuple) or not args:
        raise ValueError("density: a spec is ('density', 'scipy', name, args, kwds)")
    if args[0] == "function":
        raise ValueError("density: a density given as a Python function does not travel as "
                         "a recipe")
    if args[0] != "scipy" or len(args) != 4:
        raise ValueError(f"density: unknown density spec {args[0]!r} (allowed: 'scipy')")
    _, name, pargs, kwds = args
    if not isinstance(pargs, tuple) or not isinstance(kwds, tuple):
        raise ValueError("density: scipy args and kwds must be tuples")
    for v in pargs:
        if not isinstance(v, int | Fraction) or isinstance(v, bool):
            raise ValueError("density: scipy args must be exact numbers (int or Fraction)")
    for item in kwds:
        if (not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], int | Fraction) or isinstance(item[1], bool)):
            raise ValueError("density: scipy kwds must be (name, Fraction) pairs")
    return _build_scipy(name, tuple(Fraction(v) for v in pargs),
                        tuple((k, Fraction(v)) for k, v in kwds))


__all__ = ["DensityOperand", "MP_DENSITIES", "TAIL_F64", "check_dps", "density",
           "density_from_spec", "from_scipy", "scipy_spec"]
