"""Law objects: the SPEC §4 limiting laws as numbers, shaped like ``scipy.stats``.

``law(case, config, normalized=False, dps=None)`` returns a :class:`Law` for one SPEC §4
case and one configuration (:class:`freege.params.Ratios` or :class:`freege.params.Dims`).
Every method is lambdified from the exact layer (:mod:`freege.numeric._symbolic`):

* ``pdf``/``stieltjes`` -- the Cauchy polynomial ``P(G, z)`` solved on the physical branch
  (:mod:`freege.numeric.roots`; ``density = -Im G(x + i0)/pi``, SPEC §7.1);
* ``support``/``atoms`` -- discriminant edges and the mass ``lim z G(z)`` at 0 (SPEC §7);
* ``moment``/``mean``/``var`` -- the exact symbolic moments, evaluated;
* ``cdf`` -- the density integrated: float64 by a cosine series in ``x = a + (b-a)(1 -
  cos t)/2`` (spectral for square-root and inverse-square-root edges), mpmath by
  ``mpmath.quad`` (tanh-sinh); atoms added as jumps;
* ``s_transform`` -- the S-relation root continued from ``S(0) = 1/m1`` (SPEC §3);
* ``dof`` -- ``w(lam)`` (SPEC §5, delegated to :func:`freege.numeric.readout.dof`).

Float64 mode (``dps=None``) is vectorised over numpy arrays and aims at ~1e-13 (points
the float64 solve cannot resolve are recomputed at 30 digits). With ``dps`` every result
is an mpmath number computed under ``mpmath.workdps(dps)``; :meth:`Law.estimate` returns
any result with an accuracy estimate (disagreement with a ``dps + 10`` evaluation, or with
a 30-digit one in float64 mode).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import mpmath
import numpy as np
import scipy.fft
import sympy as sp

from freege.numeric import _symbolic, roots
from freege.params import Dims, Ratios, to_mpf
from freege.symbolic.cases import CASES, TIED_CASES, check_case

#: the precision floor of the mpmath mode (below it float64 is the better tool)
MIN_DPS = 15
#: |z| / R below which float64 seeds are not trusted (hard edge / pole at 0, SPEC §7.1)
NEAR_ZERO = 1e-6
#: cases the ``tied`` sharing scheme replaces by their tied counterpart (SPEC §4)
TIED_COUNTERPART = {"value": "value-tied", "mha": "mha-tied"}


class Estimate(NamedTuple):
    """A result and its estimated absolute error (max over array entries)."""

    value: Any
    error: float


def check_dps(dps: int | None) -> int | None:
    """``dps`` as an int >= 15 (or None for float64), else a ValueError."""
    if dps is None:
        return None
    if isinstance(dps, bool) or not isinstance(dps, int | np.integer) or dps < MIN_DPS:
        raise ValueError(f"dps must be an integer >= {MIN_DPS} or None for float64 (got {dps!r})")
    return int(dps)


@functools.lru_cache(maxsize=256)
def _moment_function(case: str, q: int, normalized: bool) -> Callable[..., Any]:
    expr = _symbolic.moment_expressions(case, q, normalized)[q - 1]
    return sp.lambdify(_symbolic.PARAMETERS, expr, modules="mpmath")


@functools.lru_cache(maxsize=16)
def _zero_penalty_roots(case: str) -> Callable[..., list]:
    """Coefficients (highest degree first) of the square-free part of ``F(w, 0)`` in ``w``
    (``F`` the ridge polynomial of the case), lambdified in the parameters. ``F(w, 0)`` is
    a multiple of ``Pi(w)^2`` (SPEC §5), whose roots are the ratios of the free Poisson
    and Marchenko-Pastur factors; the smallest is ``w(0+) = 1 - atom``."""
    w, lam = _symbolic.RIDGE_VARIABLES
    poly = sp.Poly(_symbolic.ridge_polynomial(case).as_expr().subs(lam, 0), w).sqf_part()
    return sp.lambdify(_symbolic.PARAMETERS, poly.all_coeffs(), modules="mpmath")


class Law:
    """One SPEC §4 law at one configuration; see the module docstring for the methods.

    Attributes: ``case`` (a name of :data:`freege.symbolic.cases.CASES`), ``ratios``
    (:class:`freege.params.Ratios`), ``normalized`` (divide by the mean, SPEC §3) and
    ``dps`` (None: float64).
    """

    def __init__(
        self, case: str, ratios: Ratios, normalized: bool = False, dps: int | None = None
    ) -> None:
        self.case = check_case(case)
        if case in TIED_CASES and ratios.gV != ratios.gK:
            raise ValueError(
                f"case {case} ties V_r = K_r and needs gV == gK (got gK={ratios.gK}, "
                f"gV={ratios.gV})"
            )
        self.ratios = ratios
        self.normalized = bool(normalized)
        self.dps = check_dps(dps)
        with mpmath.workdps(30):
            mean = float(self._moment_mp(1))
        self.equation = roots.CauchyEquation(
            _symbolic.cauchy_polynomial(case, self.normalized),
            _symbolic.PARAMETERS,
            self._parameter_values,
            mean=mean,
        )
        self._cache: dict[Any, Any] = {}

    def __repr__(self) -> str:
        r = self.ratios
        return (
            f"Law({self.case!r}, beta={r.beta}, h={r.h}, gK={r.gK}, gV={r.gV}, gO={r.gO}, "
            f"normalized={self.normalized}, dps={self.dps})"
        )

    # ------------------------------------------------------------------ plumbing
    def _parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """``(theta1, theta2, h, gK, gV, gO)`` at the ambient precision (SPEC §2)."""
        r = self.ratios
        b2 = to_mpf(r.beta) ** 2
        return (mpmath.expm1(b2), b2, mpmath.mpf(r.h), to_mpf(r.gK), to_mpf(r.gV), to_mpf(r.gO))

    def _moment_mp(self, q: int) -> mpmath.mpf:
        return mpmath.mpf(_moment_function(self.case, q, self.normalized)(
            *self._parameter_values()))

    def with_dps(self, dps: int | None) -> Law:
        """The same law evaluated at another precision (None: float64)."""
        return Law(self.case, self.ratios, self.normalized, dps)

    def as_normalized(self) -> Law:
        """``nubar``: this law divided by its mean (SPEC §3)."""
        return self if self.normalized else Law(self.case, self.ratios, True, self.dps)

    def _ctx(self) -> Any:
        return mpmath.workdps(self.dps if self.dps is not None else 30)

    def _out(self, value: mpmath.mpf | mpmath.mpc) -> Any:
        """mpmath number in dps mode, Python float/complex in float64 mode."""
        if self.dps is not None:
            return +value
        return complex(value) if isinstance(value, mpmath.mpc) else float(value)

    def estimate(self, method: str, *args: Any) -> Estimate:
        """``getattr(self, method)(*args)`` with its estimated absolute error: the largest
        disagreement with the same computation at ``dps + 10`` (or at 30 digits in float64
        mode). SPEC §7: every result can report an honest accuracy estimate."""
        value = getattr(self, method)(*args)
        ref_law = self.with_dps(self.dps + 10 if self.dps is not None else 30)
        ref = getattr(ref_law, method)(*args)
        return Estimate(value, _max_difference(value, ref))

    # ------------------------------------------------------------------ working precision
    # The public working-precision interface used by :mod:`freege.numeric.readout` and
    # :mod:`freege.numeric.certify` (everything at the *ambient* mpmath precision).
    def parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """``(theta1, theta2, h, gK, gV, gO)`` at the ambient precision (SPEC §2)."""
        return self._parameter_values()

    def atom_mass(self) -> mpmath.mpf:
        """The mass at 0 at the ambient precision (0 when there is no atom, SPEC §7)."""
        with mpmath.workprec(mpmath.mp.prec):
            return +self._atom_mp()

    def stieltjes_batch(self, zs: list[Any]) -> list[mpmath.mpc]:
        """Physical ``G(z)`` at the ambient precision for a list of points (SPEC §3, §7.1);
        real ``z`` means ``z + i0``."""
        return self._stieltjes_mp_batch(zs)

    # ------------------------------------------------------------------ moments
    def moment(self, q: int) -> Any:
        """``m_q = int x^q dnu`` from the exact symbolic moment (SPEC §3, §4), q >= 1
        (``m_0 = 1``). Float64 results are rounded from a 30-digit evaluation."""
        q = int(q)
        if q < 0:
            raise ValueError(f"moment order q must be an integer >= 0 (got {q})")
        if q == 0:
            return self._out(mpmath.mpf(1))
        with self._ctx():
            return self._out(self._moment_mp(q))

    def mean(self) -> Any:
        """``m_1`` (1 for a normalized law)."""
        return self.moment(1)

    def var(self) -> Any:
        """``m_2 - m_1^2``."""
        with self._ctx():
            return self._out(self._moment_mp(2) - self._moment_mp(1) ** 2)

    # ------------------------------------------------------------------ support, atoms
    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        dps = self.dps if self.dps is not None else roots.FLOAT64_EDGE_DPS
        key = ("intervals", dps)
        if key not in self._cache:
            self._cache[key] = roots.support_intervals(self.equation, dps)
        return self._cache[key]

    def support(self) -> list[tuple[Any, Any]]:
        """Edges of the continuous part: a list of ``(lo, hi)`` intervals, sorted (one
        interval for every SPEC §4 law seen so far; several are allowed). Edges are real
        roots of the discriminant, located to working precision (SPEC §7)."""
        with self._ctx():
            return [(self._out(a), self._out(b)) for a, b in self._intervals_mp()]

    def _atom_mp(self) -> mpmath.mpf:
        dps = self.dps if self.dps is not None else roots.FLOAT64_EDGE_DPS
        key = ("atom", dps)
        if key not in self._cache:
            self._cache[key] = roots.atom_at_zero(self.equation, dps, self._continuous_mass())
        return self._cache[key]

    def _continuous_mass(self) -> float:
        """Mass of the continuous part (float64), to pick the atom among the exact
        candidates: ``w(0+)``, the smallest positive root of the ridge polynomial at
        ``lam = 0`` (the degrees of freedom at vanishing penalty count the non-zero
        eigenvalues, SPEC §5). ``F(w, 0)`` factors into ``(w - g)^2`` over the ratios
        ``g`` of the law (1, h, gV, gO; gK for the tied laws), so no quadrature is needed."""
        # float64 roots suffice to choose between exact candidates (atom_at_zero accepts
        # 1e-4); the roots are real ratios, so coincident ones (gV = gO) only blur them
        coeffs = [float(c) for c in _zero_penalty_roots(self.case)(*self._parameter_values())]
        return float(min(r.real for r in np.roots(coeffs) if r.real > 1e-12))

    def atoms(self) -> dict[Any, Any]:
        """``{location: mass}`` of the point masses: at most one, at 0 (rank deficiency,
        SPEC §4, §7), from ``lim_{z->0} z G(z)``. Empty when there is none."""
        with self._ctx():
            mass = self._atom_mp()
            return {self._out(mpmath.mpf(0)): self._out(mass)} if mass > 0 else {}

    # ------------------------------------------------------------------ Cauchy transform
    def _edges_f64(self) -> np.ndarray:
        return np.array([float(e) for ab in self._intervals_mp() for e in ab])

    def _seed_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Physical G in float64 and its error estimate, no rescue; the tracking stops
        well below the distance to the nearest edge or to 0 (pole, hard edge)."""
        edges = self._edges_f64()
        R = self.equation.radius()
        points = np.concatenate([edges, [0.0]])  # edges and the pole/hard edge at 0
        dist = np.min(np.abs(zs[:, None] - points[None, :]), axis=1)
        eta_min = np.clip(1e-3 * dist, 1e-280, 1e-9 * R)
        g, err = self.equation.stieltjes_f64(zs, eta_min)
        # SPEC §7.1: near 0 (hard edge, atom pole) the expanded polynomial loses float64
        # precision in its coefficients; no float64 seed there (mpmath tracks instead)
        near = np.abs(zs) < NEAR_ZERO * R
        return np.where(near, np.nan, g), np.where(near, np.inf, err)

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        """Physical G in float64; points whose error estimate exceeds
        :data:`roots.FLOAT64_RTOL`, and points within ``NEAR_ZERO R`` of 0 (``R`` the
        branch point radius), are recomputed at 30 digits (SPEC §7.1)."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g, err = self._seed_f64(zs)
        with np.errstate(all="ignore"):
            bad = ~(err <= roots.FLOAT64_RTOL * np.maximum(np.abs(g), 1e-300))
        for k in np.flatnonzero(bad):
            with mpmath.workdps(roots.RESCUE_DPS):
                g[k] = complex(self.equation.stieltjes_mp(_mp_arg(zs[k]), g[k]))
        return self._real_outside(zs, g)

    def _real_outside(self, zs: np.ndarray, g: np.ndarray) -> np.ndarray:
        """On the real axis outside the support G is real (SPEC §7.1)."""
        real = zs.imag == 0
        inside = self._inside(zs.real)
        return np.where(real & ~inside, g.real + 0j, g)

    def _inside(self, x: np.ndarray) -> np.ndarray:
        inside = np.zeros(np.shape(x), dtype=bool)
        for a, b in self._intervals_mp():
            inside |= (x > float(a)) & (x < float(b))
        return inside

    def _edge_power(self, a: Any, b: Any) -> float:
        """Exponent ``k`` of the substitution ``x = a + (b - a) sin(t/2)^(2k)`` that makes
        ``pdf(x) dx/dt`` smooth and even in ``t`` at both ends of ``[a, b]``.

        Soft edges (``pdf ~ |x - edge|^(1/2)``) and a simple hard edge at 0 (``x^(-1/2)``)
        need ``k = 1`` (the cosine map: ``pdf dx/dt`` smooth and even, spectral
        convergence). Where ``m`` Marchenko-Pastur ratios equal 1 the density is
        ``x^(-m/(m+1))`` times a series in ``x^(1/(m+1))``; ``k = (m+1)/2`` cancels the
        singularity (``pdf dx/dt`` bounded, convergence algebraic but fast: ~1e-9 at 8192
        nodes for m = 2). ``m`` is read off the measured local exponent (snapped to
        ``m/(m+1)``, m <= 8) from the density at ``1e-12 b`` and ``1e-10 b``."""
        key = ("power", float(a), float(b))
        if key not in self._cache:
            k = 1.0
            if a == 0:
                x1, x2 = 1e-12 * float(b), 1e-10 * float(b)
                f64 = self if self.dps is None else self.with_dps(None)
                d1, d2 = f64.pdf(np.array([x1, x2]))
                if d1 > 0 and d2 > 0:
                    alpha = -math.log(d2 / d1) / math.log(x2 / x1)
                    m = min(range(1, 9), key=lambda j: abs(alpha - j / (j + 1)))
                    if abs(alpha - m / (m + 1)) < 0.02:
                        k = (m + 1) / 2
            self._cache[key] = k
        return self._cache[key]

    def _map(self, a: Any, b: Any, t: Any, lib: Any = np) -> tuple[Any, Any]:
        """``x(t)`` and ``dx/dt`` of :meth:`_edge_power`'s substitution (numpy or mpmath)."""
        k = self._edge_power(a, b)
        s = lib.sin(t / 2)
        return a + (b - a) * s ** (2 * k), (b - a) * k * s ** (2 * k - 1) * lib.cos(t / 2)

    def _unmap(self, a: Any, b: Any, x: Any, lib: Any = math) -> Any:
        """``t(x)``, the inverse of :meth:`_map`."""
        k = self._edge_power(a, b)
        return 2 * lib.asin(((x - a) / (b - a)) ** (1 / (2 * k)))

    def _stieltjes_mp_batch(self, zs: list[Any]) -> list[mpmath.mpc]:
        """Physical G at the ambient precision: float64 seeds for all points in one
        tracked batch, then each polished (:meth:`roots.CauchyEquation.stieltjes_mp`)."""
        zs = [mpmath.mpmathify(v) for v in zs]
        if not zs:
            return []
        seeds = self._seed_f64(np.array([complex(v) for v in zs]))[0]
        out = []
        for zv, seed in zip(zs, seeds, strict=True):
            g = self.equation.stieltjes_mp(zv, seed)
            if mpmath.im(zv) == 0 and not any(a < zv < b for a, b in self._intervals_mp()):
                g = mpmath.mpc(g.real, 0)
            out.append(g)
        return out

    def stieltjes(self, z: Any) -> Any:
        """``G(z) = int dnu(x)/(z - x)`` (SPEC §3). Real ``z`` means ``z + i0`` (so
        ``Im G <= 0`` and the density is ``-Im G/pi``); vectorised in float64 mode."""
        if self.dps is None:
            zs = np.asarray(z, dtype=complex)
            return _shape(self._stieltjes_f64(zs.ravel()), zs)
        with self._ctx():
            return _map_batch(lambda vs: [+g for g in self._stieltjes_mp_batch(vs)], z)

    # ------------------------------------------------------------------ density, cdf
    def pdf(self, x: Any) -> Any:
        """Density of the continuous part, ``-Im G(x + i0)/pi`` (SPEC §7.1): never
        negative, exactly 0 outside the open support intervals (edges included)."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            flat = xs.ravel()
            out = np.zeros(flat.shape)
            inside = self._inside(flat)
            if inside.any():
                out[inside] = -self._stieltjes_f64(flat[inside] + 0j).imag / math.pi
            return _shape(np.maximum(out, 0.0), xs)
        with self._ctx():
            return _map_batch(self._pdf_mp_batch, x)

    def _pdf_mp_batch(self, xs: list[Any]) -> list[mpmath.mpf]:
        xs = [mpmath.mpf(v) for v in xs]
        inside = [any(a < v < b for a, b in self._intervals_mp()) for v in xs]
        gs = iter(self._stieltjes_mp_batch([v for v, k in zip(xs, inside, strict=True) if k]))
        return [max(-mpmath.im(next(gs)) / mpmath.pi, mpmath.mpf(0)) if k else mpmath.mpf(0)
                for k in inside]

    def _cosine_series(self, a: float, b: float) -> np.ndarray:
        """Float64 cosine coefficients ``c_j`` of ``g(t) = pdf(x(t)) x'(t)`` on ``[0, pi]``
        (``x(t)`` of :meth:`_map`; the cosine map ``a + (b - a)(1 - cos t)/2`` unless a
        hard edge sits at 0), so that ``int_a^x(t) pdf = c_0 t/2 + sum_j c_j sin(j t)/j``.
        The map makes ``g`` smooth and even, so convergence is spectral; nodes double from
        64 until the last eighth of the coefficients is below 1e-15 (at most 8192)."""
        key = ("series", a, b)
        if key not in self._cache:
            n = 64
            while True:
                t = math.pi * (np.arange(n) + 0.5) / n
                x, dx = self._map(a, b, t)
                g = self.pdf(x) * dx
                coef = scipy.fft.dct(g, type=2) / n  # c_j = (2/n) sum_k g_k cos(j t_k)
                if np.max(np.abs(coef[-n // 8:])) < 1e-15 * max(abs(coef[0]), 1) or n >= 8192:
                    break
                n *= 2
            self._cache[key] = coef
        return self._cache[key]

    def _g_mp(self, a: Any, b: Any, ts: list[Any]) -> list[Any]:
        xs, dxs = zip(*(self._map(a, b, t, mpmath) for t in ts), strict=True)
        return [f * dx for f, dx in zip(self._pdf_mp_batch(list(xs)), dxs, strict=True)]

    def _partial_mass(self, a: Any, b: Any, x: Any) -> Any:
        """``int_a^min(x, b) pdf`` in the variable ``t`` of :meth:`_cosine_series`.
        Float64: the cosine series. mpmath: the full interval by the midpoint rule in
        ``t`` (spectral for this smooth even integrand; nodes double until two levels
        agree to ``10^-(dps+2)``), a part of it by ``mpmath.quad``."""
        if x <= a:
            return 0.0 if self.dps is None else mpmath.mpf(0)
        if self.dps is None:
            coef = self._cosine_series(a, b)
            if x >= b:
                return coef[0] * math.pi / 2
            t = self._unmap(a, b, x)
            j = np.arange(1, coef.size)
            return coef[0] * t / 2 + float(np.sum(coef[1:] * np.sin(j * t) / j))
        if x >= b:
            key = ("mass", a, b, mpmath.mp.prec)
            if key not in self._cache:
                n, prev = 64, None
                tol = mpmath.mpf(10) ** (-mpmath.mp.dps - 2)
                while True:
                    ts = [mpmath.pi * (k + mpmath.mpf(1) / 2) / n for k in range(n)]
                    total = mpmath.fsum(self._g_mp(a, b, ts)) * mpmath.pi / n
                    if prev is not None and abs(total - prev) < tol or n >= 8192:
                        break
                    prev, n = total, 2 * n
                self._cache[key] = total
            return self._cache[key]
        tx = self._unmap(a, b, x, mpmath)
        return mpmath.quad(lambda t: self._g_mp(a, b, [t])[0], [0, tx])

    def cdf(self, x: Any) -> Any:
        """``nu((-inf, x])``: the atom at 0 (if ``x >= 0``) plus the integrated density
        (cosine series per support interval, see :meth:`_cosine_series`)."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            out = np.array([self._cdf_scalar(v) for v in xs.ravel()])
            return _shape(np.clip(out, 0.0, 1.0), xs)
        with self._ctx():
            return _map_batch(lambda vs: [self._cdf_scalar(mpmath.mpf(v)) for v in vs], x)

    def _cdf_scalar(self, x: Any) -> Any:
        total = self._atom_mp() if x >= 0 else 0
        total = +total if self.dps is not None else float(total)
        for a, b in self._intervals_mp():
            if self.dps is None:
                a, b = float(a), float(b)
            total += self._partial_mass(a, b, x)
        return total

    # ------------------------------------------------------------------ transforms
    def s_transform(self, w: Any) -> Any:
        """``S(w)`` on the branch with ``S(0) = 1/m1`` (SPEC §3), continued along the
        straight segment from 0 to ``w`` (exact for real ``w`` in ``(-(1 - atom), 0]``,
        where ``S`` is real-analytic); float64 or mpmath (Newton-polished)."""
        if self.dps is None:
            ws = np.asarray(w, dtype=complex)
            vals = np.array([self._s_f64(v) for v in ws.ravel()])
            out = _shape(vals, ws)
            return out.real if np.isrealobj(w) or np.all(vals.imag == 0) else out
        with self._ctx():
            return _map_batch(lambda vs: [self._s_mp(v) for v in vs], w)

    def _s_matrix(self) -> tuple[np.ndarray, Callable[..., Any]]:
        if "s_fns" not in self._cache:
            poly = _symbolic.s_polynomial(self.case, self.normalized)
            f64, fmp = roots.coefficient_functions(poly, _symbolic.PARAMETERS)
            with mpmath.workdps(20):
                vals = [float(v) for v in self._parameter_values()]
            self._cache["s_fns"] = (np.array(f64(*vals), dtype=float), fmp)
        return self._cache["s_fns"]

    def _s_f64(self, w: complex) -> complex:
        matrix, _ = self._s_matrix()
        return roots.track_segment(matrix, 1 / self.equation.mean, w)

    def _s_mp(self, w: Any) -> Any:
        w = mpmath.mpmathify(w)
        s = mpmath.mpc(self._s_f64(complex(w)))
        _, fmp = self._s_matrix()
        with mpmath.workprec(mpmath.mp.prec + 20):
            rows = fmp(*self._parameter_values())
            c = [mpmath.polyval([mpmath.mpf(v) for v in row[::-1]], w) for row in rows]
            s = mpmath.findroot(lambda v: mpmath.polyval(c[::-1], v), s, solver="newton")
        s = +s
        return s.real if mpmath.im(w) == 0 and abs(s.imag) <= abs(s) * mpmath.eps * 10 else s

    def expect(self, func: Callable[[Any], Any]) -> Any:
        """``int func dnu`` (atom included; real or complex ``func``): ``func`` must accept
        numpy arrays in float64 mode and mpmath numbers otherwise. Integrates in the
        variable ``t`` of :meth:`_map` by the midpoint rule,
        spectrally accurate for smooth ``func`` (float64: nodes double from 64 to 8192
        until two levels agree to 1e-15; mpmath: to ``10^-(dps + 2)``)."""
        with self._ctx():
            mp = self.dps is not None
            total = self._atom_mp() * func(mpmath.mpf(0)) if mp else \
                float(self._atom_mp()) * func(np.zeros(1))[0]
            for a, b in self._intervals_mp():
                n, prev = 64, None
                while True:
                    if mp:
                        ts = [mpmath.pi * (k + mpmath.mpf(1) / 2) / n for k in range(n)]
                        xs = [self._map(a, b, t, mpmath)[0] for t in ts]
                        part = mpmath.fsum(gk * func(xk) for gk, xk in
                                           zip(self._g_mp(a, b, ts), xs, strict=True))
                        part *= mpmath.pi / n
                        tol = mpmath.mpf(10) ** (-self.dps - 2)
                    else:
                        fa, fb = float(a), float(b)
                        t = math.pi * (np.arange(n) + 0.5) / n
                        x, dx = self._map(fa, fb, t)
                        part = np.sum(self.pdf(x) * dx * func(x))
                        part *= math.pi / n
                        tol = 1e-15
                    if prev is not None and abs(part - prev) <= tol * max(abs(part), 1):
                        break
                    if n >= 8192:
                        break
                    prev, n = part, 2 * n
                total += part
            return self._out(total) if mp else np.asarray(total).item()

    def dof(self, lam: Any) -> Any:
        """``w(lam) = int x/(x + lam) dnubar`` of the normalized law (SPEC §5);
        see :func:`freege.numeric.readout.dof`."""
        from freege.numeric import readout

        return readout.dof(self, lam)


def _mp_arg(v: complex) -> Any:
    return mpmath.mpf(v.real) if v.imag == 0 else mpmath.mpc(v)


def _shape(values: np.ndarray, like: np.ndarray) -> Any:
    out = values.reshape(np.shape(like))
    return out.item() if out.ndim == 0 else out


def _map_batch(fn: Callable[[list[Any]], list[Any]], x: Any) -> Any:
    """Apply a list-to-list mpmath function to a scalar, or elementwise to a sequence /
    array (returned as a numpy object array of the same shape)."""
    if isinstance(x, np.ndarray | list | tuple):
        arr = np.asarray(x, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        out.ravel()[:] = fn(list(arr.ravel()))
        return out
    return fn([x])[0]


def _max_difference(a: Any, b: Any) -> float:
    aa = np.asarray(a, dtype=object).ravel()
    bb = np.asarray(b, dtype=object).ravel()
    with mpmath.workdps(60):
        diffs = [abs(mpmath.mpmathify(u) - mpmath.mpmathify(v)) for u, v in zip(aa, bb,
                                                                                 strict=True)]
    return float(max(diffs, default=0.0))


def resolve_case(case: str, sharing: str) -> str:
    """The SPEC §4 case for a sharing scheme: ``tied`` turns ``value`` into ``value-tied``
    and ``mha`` into ``mha-tied``; none/gqa/mqa keep the independent laws (an explicitly
    tied case stays tied; :class:`Law` then checks ``gV == gK``)."""
    check_case(case)
    if sharing == "tied":
        return TIED_COUNTERPART.get(case, case)
    return case


def law(
    case: str, config: Ratios | Dims, normalized: bool = False, dps: int | None = None
) -> Law:
    """The law of ``case`` (one of :data:`CASES`) at ``config`` (Ratios or Dims; Dims map
    to their exact ratios, SPEC §1.2). The sharing scheme of ``config`` picks the tied
    counterpart where tying changes the law (SPEC §4)."""
    if isinstance(config, Dims):
        config = config.ratios
    if not isinstance(config, Ratios):
        raise ValueError(f"config must be freege.params.Ratios or Dims (got {type(config)})")
    return Law(resolve_case(case, config.sharing), config, normalized, dps)


def mha_law(config: Ratios | Dims, normalized: bool = False, dps: int | None = None) -> Law:
    """The MHA output law (SPEC §4): ``mha`` or, for tied sharing, ``mha-tied``."""
    return law("mha", config, normalized, dps)


__all__ = ["CASES", "Estimate", "Law", "law", "mha_law", "resolve_case", "check_dps"]
