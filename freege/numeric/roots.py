"""Branch-tracked roots of a Cauchy polynomial ``P(G, z) = 0`` (theory §3, §4, §7, §7.1).

Convention (fixed everywhere in freege): ``G(z) = int dnu(x) / (z - x)``. In the upper
half plane ``Im G < 0``; on the real axis ``G(x)`` means ``G(x + i0)``, so the density is
``-Im G(x + i0) / pi >= 0``. Lower-half-plane arguments use ``G(conj z) = conj G(z)``.

Branch selection (theory §7.1). The physical branch is the one with ``G ~ 1/z`` at
infinity. For each target ``z = x + iy`` it is *tracked*: start at ``x + iY`` with ``|Y|``
well outside every branch point (a root bound of the discriminant), pick the root nearest
``1/z + m1/z^2`` there (companion eigenvalues), then walk down the vertical line
``eta_k = Y 0.7^k`` with an Euler predictor on ``u = z G`` (``G' = -P_z/P_G``) and Newton
correctors, each step well inside the radius of analyticity of the physical branch;
results that break the Herglotz signs (``Im G <= 0``, ``Im zG <= 0``) are re-tracked with
companion eigenvalues at every step. On the real axis the path stops at ``eta = 1e-3 x``
and a last Euler step *in u* reaches ``x``; the root nearest that prediction is taken (at
fixed ``z`` nearest in ``u`` and in ``G`` agree, but across the last step only ``u`` is
smooth: near 0 the atom's pole dominates ``G``, issue 10). ``Im G`` is then forced to
``-|Im G|`` (roots come in conjugate pairs for real ``x``), so no density is negative.

Precision. Float64 batches use numpy (companion eigenvalues once at the start and once on
the axis; the rest is vectorised Horner); the coefficient matrix is rounded from a
40-digit evaluation, and two Newton steps with the residual in extended precision
(``clongdouble``) finish every root. Every float64 value carries a first-order error
estimate ``eps * sum_ij |A_ij||z|^j|G|^i / |P_G(G)|`` (coefficients' rounding included)
plus the float64 rounding of the component that is used (``eps |Im G|`` for a density,
``eps |G|`` otherwise: complex numbers are rounded componentwise);
where it exceeds ``rtol`` (of ``|Im G|`` for a density) the point is recomputed at 30
digits. Real points inside the support are usually not tracked one by one but continued
from fixed anchors of their interval (:meth:`CauchyEquation.continue_f64`, Newton with
Smale's gamma separation test, companion eigenvalues where in doubt); no result depends
on an earlier call (issue 16). Within ``NEAR_ZERO S`` of 0 (``S`` the law's
:meth:`CauchyEquation.scale`; a hard edge, the atom's pole) float64 is not used:
the roots in ``u`` cluster like ``|z|^(1/(m+1))`` and lose ``~2 log2(1/|z|)`` bits, so the
mpmath route raises the precision by the measured conditioning, tracks in mpmath, and
continues along the support interval from point to point. Every mpmath root is verified
(:func:`freege.numeric.solve.polish_root`: step and residual tests), with an all-roots
fallback; otherwise :class:`freege.errors.ConvergenceError`.

Support and atoms (theory §7). Edges are real roots of ``disc_G P(z)``, computed *exactly*
once per precision (sympy over QQ, parameters rationalised at the working precision plus
10 bits), found by ``mpmath.polyroots`` and verified by a bracketed sign change
(:func:`freege.numeric.solve.find_root`); an interval between consecutive candidates is
in the support when the tracked ``G`` at its midpoint is non-real. The mass at 0 is
``lim_{z -> 0} z G(z)``: its candidates are the roots of the lowest-order part of
``P(m/z, z)``; the one consistent with ``w(0+)`` of the ridge polynomial is taken.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import compiled, exact_results
from freege.numeric.solve import find_root, polish_root
from freege.params import mpf_fraction

if TYPE_CHECKING:  # sympy is imported only where an exact computation runs
    import sympy as sp

#: relative float64 accuracy below which a point is recomputed with mpmath
FLOAT64_RTOL = 2e-14
#: digits used when a float64 point needs more precision
RESCUE_DPS = 30
#: digits of the exact edge computation behind float64 laws
FLOAT64_EDGE_DPS = 17
#: digits at which the coefficient matrix is evaluated before it is rounded to float64
COEFF_DPS = 40
#: |z| / R below which float64 is not used (hard edge / pole at 0, theory §7.1)
NEAR_ZERO = 1e-6
#: guard bits of every mpmath root polish
GUARD_BITS = 20
#: the coefficient matrix is evaluated at a multiple of this many bits, then rounded
MATRIX_BITS = 128
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


@functools.lru_cache(maxsize=64)
def coefficient_matrix(poly: sp.Poly) -> list[list[sp.Expr]]:
    """Coefficient matrix ``A[i][j]`` of ``X^i Y^j`` (``poly.gens = (X, Y)``), exact."""
    import sympy as sp

    nG, nz = poly.degree(poly.gens[0]) + 1, poly.degree(poly.gens[1]) + 1
    matrix = [[sp.Integer(0)] * nz for _ in range(nG)]
    for (i, j), coeff in poly.terms():
        matrix[i][j] = coeff
    return matrix


@functools.lru_cache(maxsize=64)
def coefficient_functions(poly: sp.Poly, symbols: tuple[sp.Symbol, ...]) -> Callable:
    """:func:`coefficient_matrix` as an mpmath function of the parameters, lambdified once
    per (poly, symbols). Float64 matrices are rounded from it (see
    :class:`CauchyEquation`)."""
    import sympy as sp

    return sp.lambdify(symbols, coefficient_matrix(poly), modules="mpmath")


def _to_fraction(x: object) -> Fraction:
    if isinstance(x, Fraction | int):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)
    return mpf_fraction(mpmath.mpf(x))


class CauchyEquation:
    """``P(G, z) = 0`` with numeric parameters: the physical branch, edges and atom at 0.

    ``poly`` is a sympy Poly in gens ``(G, z)`` whose coefficients are expressions in
    ``symbols``; ``values()`` returns the parameter values as mpmath numbers *at the
    ambient precision* (it is called again whenever the precision changes, so parameters
    such as ``theta1 = exp(beta^2) - 1`` are always exact to working precision).
    ``mean`` (optional) is the first moment, used only to sharpen the start of tracking;
    ``describe`` (optional) names the parameters in error messages; ``matrix`` (optional)
    is the coefficient matrix as a generated function ``f(*values, _q)`` of
    :mod:`freege.numeric.compiled`; then ``poly`` may be a zero-argument loader, called
    only if :attr:`poly` is read (no sympy expression is needed: the exact polynomial comes
    from the same function at rational values). ``cache_key`` (optional) names the
    generated matrix (with ``matrix`` only): the exact results (edges, atom candidates,
    branch points) are then kept on disk by :func:`freege.numeric.exact_results.remember`.

    The float64 coefficient matrix ``A`` is *rounded* from a :data:`COEFF_DPS`-digit
    evaluation of the coefficient formulas (evaluating the expanded formulas in float64
    loses up to ~1e-13 relative to cancellation, amplified near soft edges).
    """

    def __init__(
        self,
        poly: sp.Poly,
        symbols: tuple[sp.Symbol, ...],
        values: Callable[[], Sequence[mpmath.mpf]],
        mean: float = 1.0,
        describe: dict | None = None,
        matrix: Callable[..., list[list[object]]] | None = None,
        cache_key: str | None = None,
    ) -> None:
        from_symbols = matrix is None
        self._poly = poly
        self.symbols = symbols
        self.values = values
        self.cache_key = None if from_symbols else cache_key
        if from_symbols:
            from freege.symbolic.symbols import G, z

            if tuple(self.poly.gens) != (G, z):
                raise ValueError(
                    f"Cauchy polynomial must have generators (G, z), got {poly.gens}")
        self.mean = float(mean)
        self.describe = dict(describe or {})
        self._generated = matrix is not None
        if matrix is None:
            lambdified = coefficient_functions(self.poly, symbols)
            matrix = lambda *args: lambdified(*args[:-1])  # noqa: E731 -- no _q needed
        self._matrix = matrix
        self._mp_cache: dict[int, list[list[mpmath.mpf]]] = {}
        self._abs_cache: dict[int, list[list[mpmath.mpf]]] = {}
        self._exact_cache: dict[int, sp.Poly] = {}
        self._disc_cache: dict[int, sp.Poly] = {}
        self._radius: float | None = None
        self._scale: float | None = None
        with mpmath.workdps(COEFF_DPS):
            matrix = self.matrix_mp()
            self.A = np.array([[float(c) for c in row] for row in matrix])
            # hi + lo carries 106 bits, more than any long double
            self.A_ext = (self.A.astype(np.longdouble) + np.array(
                [[float(c - float(c)) for c in row] for row in matrix], dtype=np.longdouble))
        self.absA = np.abs(self.A)
        self.degree = self.A.shape[0] - 1
        if self.degree < 1:
            raise ValueError("Cauchy polynomial must have degree >= 1 in G")

    @property
    def poly(self) -> sp.Poly:
        """``P(G, z)`` with symbolic coefficients (loaded on first use when lazy)."""
        import sympy as sp

        if callable(self._poly) and not isinstance(self._poly, sp.Poly):
            self._poly = self._poly()
        return self._poly

    # ------------------------------------------------------------------ coefficients
    def coeffs_f64(self, zs: np.ndarray) -> np.ndarray:
        """Coefficients of ``P(., z)`` (ascending in G), shape ``(len(zs), degree + 1)``."""
        zs = np.asarray(zs, dtype=complex)
        out = np.zeros((zs.size, self.degree + 1), dtype=complex)
        for j in range(self.A.shape[1] - 1, -1, -1):
            out = out * zs[:, None] + self.A[:, j][None, :]
        return out

    def matrix_mp(self) -> list[list[mpmath.mpf]]:
        """The coefficient matrix at the ambient precision: evaluated once at the next
        multiple of :data:`MATRIX_BITS` bits (the polishes run at many nearby precisions)
        and rounded to this one (cached per precision)."""
        prec = mpmath.mp.prec
        if prec not in self._mp_cache:
            top = -(-prec // MATRIX_BITS) * MATRIX_BITS
            if top not in self._mp_cache:
                with mpmath.workprec(top):
                    self._mp_cache[top] = [
                        [mpmath.mpf(c) for c in row]
                        for row in self._matrix(*self.values(), compiled.mp_rational)]
            self._mp_cache[prec] = [[+c for c in row] for row in self._mp_cache[top]]
        return self._mp_cache[prec]

    def _abs_matrix_mp(self) -> list[list[mpmath.mpf]]:
        """``|A_ij|`` at the ambient precision, rows descending in ``z`` (cached)."""
        prec = mpmath.mp.prec
        if prec not in self._abs_cache:
            self._abs_cache[prec] = [[abs(c) for c in row[::-1]] for row in self.matrix_mp()]
        return self._abs_cache[prec]

    def coeffs_mp(self, zv: mpmath.mpc | mpmath.mpf) -> list[mpmath.mpc]:
        """Coefficients of ``P(., z)`` at the ambient precision (ascending in G)."""
        return [mpmath.polyval(row[::-1], zv) for row in self.matrix_mp()]

    def exact(self) -> sp.Poly:
        """``P`` over QQ with the parameters rounded to the working precision + 10 bits
        (cached per precision; short rationals keep the exact discriminant and its root
        isolation fast). Used for the discriminant and the atom polynomial."""
        import sympy as sp

        from freege.symbolic.symbols import G, z

        prec = mpmath.mp.prec
        if prec not in self._exact_cache:
            vals = self._exact_values()
            if self._generated:  # the generated matrix at exact rational values
                rows = self._matrix(*vals, compiled.exact_rational)
                terms = {(i, j): sp.Rational(c.numerator, c.denominator)
                         for i, row in enumerate(rows) for j, c in enumerate(row) if c != 0}
                self._exact_cache[prec] = sp.Poly.from_dict(terms, G, z, domain=sp.QQ)
            else:
                subs = {s: sp.Rational(v.numerator, v.denominator)
                        for s, v in zip(self.symbols, vals, strict=True)}
                expr = self.poly.as_expr().xreplace(subs)
                self._exact_cache[prec] = sp.Poly(sp.expand(expr), G, z, domain=sp.QQ)
        return self._exact_cache[prec]

    def _exact_values(self) -> list[Fraction]:
        """The parameters rounded to the working precision + 10 bits, exactly."""
        with mpmath.workprec(mpmath.mp.prec + 10):
            return [_to_fraction(+mpmath.mpf(v)) for v in self.values()]

    def _remember(self, kind: str, digits: int | None, compute: Callable[[], Any]) -> Any:
        """``compute()`` (an exact result at the working precision), from the disk cache
        when this equation has a :attr:`cache_key`."""
        if self.cache_key is None:
            return compute()
        key = (self.cache_key, kind, mpmath.mp.prec, digits,
               tuple(str(v) for v in self._exact_values()))
        return exact_results.remember(key, compute)

    # ------------------------------------------------------------------ float64 tracking
    def radius(self) -> float:
        """The largest modulus of a branch point (discriminant and leading-coefficient
        roots), at least 1 and the mean:
        outside it the physical branch is its Laurent series ``1/z + m1/z^2 + ...``."""
        if self._radius is None:
            # always at the same precision: R sets the float64/mpmath split, so it must not
            # depend on which discriminant an earlier call happened to compute (issue 16)
            with mpmath.workdps(FLOAT64_EDGE_DPS):
                moduli = self._remember("branch-point-moduli", FLOAT64_EDGE_DPS,
                                        self._branch_point_moduli)
            self._radius = max([1.0, abs(self.mean)] + moduli)
        return self._radius

    def scale(self) -> float:
        """The law's size: the largest of 1e-300, the mean and the real branch points
        (discriminant and leading-coefficient real roots; the largest support edge is one
        of them), at one fixed precision. "Near 0" (:data:`NEAR_ZERO`, where float64 is not
        used) is measured against it, not against :meth:`radius`: a far complex branch
        point on another sheet does not make the whole support "near 0"."""
        if self._scale is None:
            with mpmath.workdps(FLOAT64_EDGE_DPS):
                reals = [abs(float(r)) for r in self.discriminant_real_roots(FLOAT64_EDGE_DPS)]
            reals += [abs(float(r)) for r in self.lead_real_roots()]
            self._scale = max([1e-300, abs(self.mean)] + reals)
        return self._scale

    def _branch_point_moduli(self) -> list[float]:
        """``|r|`` of every root of the discriminant and of the leading coefficient."""
        import sympy as sp

        from freege.symbolic.symbols import G, z

        everything, _ = polynomial_roots(self.discriminant(), FLOAT64_EDGE_DPS)
        lead = sp.Poly(sp.Poly(self.exact().as_expr(), G).LC(), z)
        everything += polynomial_roots(lead, FLOAT64_EDGE_DPS)[0]
        return [float(abs(r)) for r in everything]

    def _horner(self, c: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = np.zeros_like(g)
        dp = np.zeros_like(g)
        for i in range(c.shape[1] - 1, -1, -1):
            dp = dp * g + p
            p = p * g + c[:, i]
        return p, dp

    def _dz(self, zs: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``P_z(G, z)`` (vectorised: the coefficients in G of ``P_z(., z)`` by Horner in z
        over the rows of the differentiated matrix, then Horner in G)."""
        nz = self.A.shape[1]
        if nz < 2:
            return np.zeros(np.broadcast(zs, g).shape, dtype=complex)
        dA = self.A[:, 1:] * np.arange(1, nz)[None, :]
        zs = np.asarray(zs, dtype=complex)
        c = np.zeros((zs.size, self.degree + 1), dtype=complex)
        for j in range(dA.shape[1] - 1, -1, -1):
            c = c * zs.reshape(-1, 1) + dA[:, j][None, :]
        out = np.zeros(zs.size, dtype=complex)
        gs = np.broadcast_to(np.asarray(g, dtype=complex), zs.shape).reshape(-1)
        for i in range(self.degree, -1, -1):
            out = out * gs + c[:, i]
        return out.reshape(zs.shape)

    def all_roots_f64(self, zs: np.ndarray) -> np.ndarray:
        """All roots of ``P(., z)`` for each z (companion eigenvalues), ``(N, degree)``;
        missing roots (leading coefficient 0) are ``inf``."""
        c = self.coeffs_f64(zs)
        n = self.degree
        lead = c[:, n]
        ok = np.abs(lead) > 0
        comp = np.zeros((zs.size, n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        comp[ok, :, -1] = -c[ok, :n] / lead[ok, None]
        roots = np.full((zs.size, n), np.inf, dtype=complex)
        if ok.any():
            roots[ok] = np.linalg.eigvals(comp[ok])
        return roots

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
        eta)`` (default: the root nearest ``1/z + m1/z^2`` at ``eta = 4R + |x|``), by
        steps ``eta -> ratio eta``, each accepted only as in :meth:`_checked_newton` and
        otherwise shortened (``ratio -> sqrt(ratio)``; lengthened again after a success).
        ``robust``: the prediction is first moved to the nearest companion root. A point
        whose step falls below :data:`MIN_STEP` is nan."""
        if start is None:
            Y = 4.0 * self.radius() + np.abs(x)
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

    # ------------------------------------------------------------------ mpmath
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

    # ------------------------------------------------------------------ exact pieces
    def discriminant(self) -> sp.Poly:
        """``disc_G P(z)`` over QQ (parameters rationalised at the working precision);
        its real roots are the candidate support edges (theory §7.1)."""
        import sympy as sp

        from freege.symbolic.symbols import G, z

        prec = mpmath.mp.prec
        if prec not in self._disc_cache:
            exact = sp.Poly(self.exact().as_expr(), G)
            self._disc_cache[prec] = sp.Poly(sp.discriminant(exact, G), z, domain=sp.QQ)
        return self._disc_cache[prec]

    def atom_candidates(self) -> sp.Poly:
        """Polynomial in ``m`` whose roots are the possible masses ``lim_{z->0} z G(z)``:
        the lowest-order part in ``z`` of ``P(m/z, z)`` (exact)."""
        import sympy as sp

        terms = self.exact().terms()
        low = min(j - i for (i, j), _ in terms)
        m = sp.Symbol("m")
        return sp.Poly(sum(c * m**i for (i, j), c in terms if j - i == low), m, domain=sp.QQ)

    def discriminant_real_roots(self, dps: int) -> list[mpmath.mpf]:
        """Real roots of :meth:`discriminant` to ``dps`` digits (the candidate edges)."""
        return self._remember("discriminant-real-roots", dps,
                              lambda: real_roots(self.discriminant(), dps))

    def atom_real_roots(self, dps: int) -> list[mpmath.mpf]:
        """Real roots of :meth:`atom_candidates` to ``dps`` digits (the possible masses)."""
        return self._remember("atom-real-roots", dps,
                              lambda: real_roots(self.atom_candidates(), dps))

    def lead_real_roots(self) -> list[Fraction]:
        """Real zeros of the leading coefficient in G (points where a root escapes to
        infinity: the only places the law can have an atom)."""
        return self._remember("lead-real-roots", None, self._lead_real_roots)

    def _lead_real_roots(self) -> list[Fraction]:
        import sympy as sp

        from freege.symbolic.symbols import G, z

        lead = sp.Poly(sp.Poly(self.exact().as_expr(), G).LC(), z)
        if lead.degree() <= 0:
            return []
        return [Fraction(int(a.p), int(a.q)) for (a, b), _ in lead.intervals() if a == b]


def _gamma(c: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Smale's ``gamma = max_{k >= 2} |P^(k)(G) / (k! P'(G))|^(1/(k-1))`` of the
    polynomials with ascending coefficients ``c`` (rows) at ``g`` (vectorised; Taylor
    coefficients by the binomial sums). Any other root is at least ``(5 - sqrt 17)/(4
    gamma)`` from a simple root ``G`` (Dedieu, Points fixes, zeros et la methode de
    Newton, 2006), so ``gamma`` bounds the root separation from below."""
    n = c.shape[1] - 1
    powers = g[:, None] ** np.arange(n + 1)[None, :]
    taylor = np.zeros(c.shape, dtype=complex)
    for k in range(1, n + 1):
        for i in range(k, n + 1):
            taylor[:, k] += math.comb(i, k) * c[:, i] * powers[:, i - k]
    with np.errstate(all="ignore"):
        ratios = np.abs(taylor[:, 2:] / taylor[:, 1:2])
        exps = 1.0 / np.arange(1, n)[None, :]
        gamma = np.max(ratios ** exps, axis=1) if n >= 2 else np.zeros(g.shape)
    return np.where(np.isfinite(gamma), gamma, np.inf)


def _gamma_mp(c: list[mpmath.mpc], g: mpmath.mpc) -> mpmath.mpf:
    """:func:`_gamma` of one polynomial (ascending coefficients ``c``) at ``g``, at the
    ambient precision (``inf`` where ``P'(g) = 0``)."""
    n = len(c) - 1
    taylor = [mpmath.fsum(math.comb(i, k) * c[i] * g ** (i - k) for i in range(k, n + 1))
              for k in range(n + 1)]
    if n < 2:
        return mpmath.mpf(0)
    if taylor[1] == 0:
        return mpmath.inf
    return max(abs(taylor[k] / taylor[1]) ** (mpmath.mpf(1) / (k - 1)) for k in range(2, n + 1))


def _scale(g: mpmath.mpc, density: bool) -> mpmath.mpf:
    """The size that sets a root's accuracy: ``|Im G|`` on the real axis inside the
    support (the density is ``-Im G/pi``), ``|G|`` otherwise."""
    return abs(g.imag) if density and g.imag != 0 else abs(g)


def polynomial_roots(poly: sp.Poly, dps: int) -> tuple[list[mpmath.mpc], list[mpmath.mpf]]:
    """All distinct roots of an exact univariate polynomial, and its real ones, to ``dps``
    digits.

    The square-free part is taken exactly (so every root is simple; a root at 0 is
    divided out exactly and returned as 0); ``mpmath.polyroots``
    (Durand-Kerner at ``dps + 10`` digits, retried with more steps and ``extraprec`` if it
    does not converge) finds all roots (retried at ``dps + 30`` and ``dps + 80`` digits
    when a sign cannot be resolved: the coefficients are exact). Each root with
    ``|Im| <= 10^-(dps/2) max(1, |r|)`` is a real candidate, verified by
    :func:`freege.numeric.solve.find_root` on the bracket
    ``r -+ 10^-(dps/2) max(1, |r|)`` (cut to 2/5 of the distance from ``Re r`` to the
    nearest other root):
    a sign change there proves a real root (a simple
    root, refined to ``dps + 3`` digits); a candidate with a non-zero imaginary part and no
    sign change is a complex pair near the axis. Anything else raises
    :class:`freege.errors.ConvergenceError`.
    """
    if poly.degree() <= 0:
        return [], []
    sqf = poly.sqf_part()
    if sqf.degree() <= 0:
        return [], []
    quantity = f"real roots of a degree-{sqf.degree()} polynomial"
    failure = None
    for extra in (10, 30, 80):  # exact coefficients: more digits resolve any cancellation
        try:
            return _verified_roots(sqf, dps, extra, quantity)
        except ConvergenceError as exc:
            failure = exc
    raise failure


def _verified_roots(
    sqf: sp.Poly, dps: int, extra: int, quantity: str
) -> tuple[list[mpmath.mpc], list[mpmath.mpf]]:
    exact = sqf.all_coeffs()
    at_zero = exact[-1] == 0  # z divides it (once: square-free): 0 is a root, exactly
    with mpmath.workdps(dps + extra):
        coeffs = [mpmath.mpf(int(c.p)) / int(c.q) for c in exact[:-1 if at_zero else None]]
        scale = max(abs(c) for c in coeffs)
        coeffs = [c / scale for c in coeffs]
        dcoeffs = [c * k for c, k in zip(coeffs[:-1], range(len(coeffs) - 1, 0, -1),
                                         strict=True)]
        sizes = [abs(c) for c in coeffs]
        found = None
        for more in (20, 60, 150, 400):
            try:
                found = mpmath.polyroots(coeffs, maxsteps=100 + more, cleanup=True,
                                         extraprec=more, error=False)
                break
            except mpmath.libmp.libhyper.NoConvergence:
                continue
        if found is None:
            raise ConvergenceError(quantity, "polyroots did not converge")
        found = [mpmath.mpc(r) for r in found]
        tol = mpmath.mpf(10) ** (-(dps // 2))
        noise_factor = mpmath.ldexp(4 * len(coeffs), -mpmath.mp.prec)
        reals = [mpmath.mpf(0)] if at_zero else []
        for k, r in enumerate(found):
            half = tol * max(abs(r), mpmath.mpf(1))
            if abs(r.imag) > half:
                continue
            # no other root near the bracket: distances from the bracket's centre on the
            # axis, so a complex pair whose real part is nearer to 0 than its imaginary
            # part does not bracket the root 0 (issue 16: a pair at -1.4e-12 +- 3e-11 i
            # gave a spurious edge at 6e-60)
            others = [abs(r.real - o) for j, o in enumerate(found) if j != k]
            if at_zero:
                others.append(abs(r.real))
            half = min([half] + [d * 2 / 5 for d in others])
            lo, hi = r.real - half, r.real + half
            f_lo, f_hi = mpmath.polyval(coeffs, lo), mpmath.polyval(coeffs, hi)
            if f_lo * f_hi > 0:
                if r.imag != 0:
                    continue  # a complex pair close to the axis
                raise ConvergenceError(quantity, f"no sign change around the real candidate "
                                       f"{mpmath.nstr(r.real, 15)}")
            reals.append(find_root(
                lambda x: mpmath.polyval(coeffs, x), (lo, hi), quantity=quantity,
                df=lambda x: mpmath.polyval(dcoeffs, x),
                noise=lambda x: noise_factor * mpmath.polyval(sizes, abs(x)),
                rtol=mpmath.mpf(10) ** -(dps + 3)))
    return found + ([mpmath.mpc(0)] if at_zero else []), sorted(reals)


def real_roots(poly: sp.Poly, dps: int) -> list[mpmath.mpf]:
    """Distinct real roots of an exact univariate polynomial (see :func:`polynomial_roots`)."""
    return polynomial_roots(poly, dps)[1]


class Probes:
    """Extra points a caller tracks in the float64 batch of :func:`support_intervals` (a
    vertical track costs its number of steps, hardly its number of points): ``points(a,
    b)`` gives, for a candidate interval with float ends ``(a, b)``, real points ``x`` of
    it and their ``eta_min`` (:meth:`CauchyEquation.track`); :attr:`found` then maps
    ``(a, b)`` to ``(x, G, error)`` from :meth:`CauchyEquation.stieltjes_f64` -- the same
    values a separate call gives (the batch is elementwise)."""

    def __init__(self, points: Callable[[float, float], tuple[np.ndarray, np.ndarray]]
                 ) -> None:
        self.points = points
        self.found: dict[tuple[float, float], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def support_intervals(
    eq: CauchyEquation, dps: int, bounds: tuple[mpmath.mpf, mpmath.mpf] | None = None,
    probes: Probes | None = None,
) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Intervals of the continuous part on ``[0, inf)`` (or, with ``bounds = (lo, hi)``, an
    enclosure of the support, on ``[lo, hi]``), edges to ``dps`` digits.

    Candidates are 0 (when in range), the real zeros of the leading coefficient and of the
    discriminant (theory §7.1: edges are double roots of ``P``); an interval between
    consecutive candidates belongs to the support when ``G`` at its midpoint (all midpoints
    tracked in one float64 batch) is non-real: for a float64 law
    (``dps <= FLOAT64_EDGE_DPS``) decided in float64 where :func:`_inside_f64` settles it,
    otherwise (and for every dps law) by the root refined at ``max(dps, 30)`` digits.
    Adjacent support intervals are merged, so a discriminant root where the density does
    not switch on/off is not an edge. ``probes`` (optional, :class:`Probes`): points of
    every candidate interval tracked in the same batch.
    """
    with mpmath.workdps(dps):
        if bounds is None:
            in_range = lambda r: r > 0  # noqa: E731
            cands = {mpmath.mpf(0)}
        else:
            lo, hi = bounds
            in_range = lambda r: lo <= r <= hi  # noqa: E731
            cands = {mpmath.mpf(0)} if lo <= 0 <= hi else set()
        cands.update(r for r in eq.discriminant_real_roots(dps) if in_range(r))
        lead = (mpmath.mpf(r.numerator) / r.denominator for r in eq.lead_real_roots())
        cands.update(r for r in lead if in_range(r))
    cands = sorted(cands)
    pairs = list(zip(cands, cands[1:], strict=False))
    mids = [(a + b) / 2 for a, b in pairs]
    seeds, decided = _inside_f64(eq, np.array([float(m) for m in mids]), [
        (float(a), float(b)) for a, b in pairs], probes)
    intervals: list[tuple[mpmath.mpf, mpmath.mpf]] = []
    for (a, b), mid, seed, known in zip(pairs, mids, seeds, decided, strict=True):
        if known is not None and dps <= FLOAT64_EDGE_DPS:
            inside = known
        else:
            with mpmath.workdps(max(dps, RESCUE_DPS)):
                g = eq.stieltjes_mp(mpmath.mpf(mid), seed)
                inside = -mpmath.im(g) > mpmath.mpf(10) ** (-(max(dps, RESCUE_DPS) * 2) // 3
                                                          ) * abs(g)
        if inside:
            if intervals and intervals[-1][1] == a:
                intervals[-1] = (intervals[-1][0], b)
            else:
                intervals.append((a, b))
    return intervals


def _inside_f64(eq: CauchyEquation, xs: np.ndarray, pairs: list[tuple[float, float]],
                probes: Probes | None) -> tuple[np.ndarray, list[bool | None]]:
    """The tracked float64 ``G(x + i0)`` at real points (one batch, with the ``probes`` of
    the candidate intervals ``pairs``, :class:`Probes`) and, where float64
    settles it, whether ``x`` is inside the support: inside when ``-Im G`` exceeds
    ``1e-6 |G|`` and a thousand times its error estimate; outside when Newton in real
    arithmetic from ``Re G`` reaches a real root ``r`` with ``|r - G|`` within a fifth of
    the separation Smale's gamma guarantees around ``r`` (so the tracked root is that real
    root, :func:`_gamma`); None otherwise (the caller decides at 30 digits)."""
    if not xs.size:
        return np.zeros(0, dtype=complex), []
    # the default eta_min of CauchyEquation.track, explicit so that probes can join
    etas = [np.clip(1e-3 * np.abs(xs), 1e-280, 1e-9 * eq.radius())]
    extra = [probes.points(a, b) for a, b in pairs] if probes is not None else []
    g, err = eq.stieltjes_f64(np.concatenate([xs, *(x for x, _ in extra)]),
                              np.concatenate([*etas, *(eta for _, eta in extra)]))
    start = xs.size
    for pair, (x, _) in zip(pairs, extra, strict=False):
        probes.found[pair] = (x, g[start:start + x.size], err[start:start + x.size])
        start += x.size
    g, err = g[:xs.size], err[:xs.size]
    err = err + np.finfo(float).eps * np.abs(g)  # the float64 rounding of G (_refine)
    c = eq.coeffs_f64(xs).real
    with np.errstate(all="ignore"):
        r = g.real.copy()
        step = np.full(r.shape, np.inf)
        for _ in range(8):
            p, dp = eq._horner(c, r)
            step = p / dp
            r = r - step
        converged = np.abs(step) <= 1e-13 * np.abs(r)
        sep = (5 - math.sqrt(17)) / 4 / _gamma(c.astype(complex), r.astype(complex))
        outside = converged & (np.abs(r - g) <= 0.2 * sep)
        inside = (-g.imag > 1e-6 * np.abs(g)) & (err <= 1e-3 * -g.imag)
    decided = [True if i else False if o else None
               for i, o in zip(inside, outside & ~inside, strict=True)]
    return g, decided


def atom_at_zero(
    eq: CauchyEquation, dps: int, continuous_mass: Callable[[bool], float]
) -> mpmath.mpf:
    """Mass at 0, ``lim_{z->0} z G(z)`` (theory §7), to ``dps`` digits.

    Candidates are the real roots in ``[0, 1]`` of the lowest-order part of
    ``P(m/z, z)`` (exact); a single candidate is the mass; otherwise the physical one is
    the candidate nearest ``1 - continuous_mass(precise)`` (:class:`freege.numeric.law.Law`
    passes ``w(0+)`` from the ridge polynomial: float64, good to ~1e-2 at worst, or
    ``precise``, good to ~1e-15), so the choice is also a consistency check: the nearest
    must be within 1e-2 and four times closer than the runner-up, and the float64 value
    decides only when the runner-up is 0.05 away or more (its error cannot flip the
    choice); else the precise value decides, or a ConvergenceError.
    """
    with mpmath.workdps(dps):
        cands = [r for r in eq.atom_real_roots(dps) if -1e-30 <= r <= 1 + 1e-30]
    if len(cands) == 1:  # the only admissible mass (nothing to choose, nothing to check)
        return max(cands[0], mpmath.mpf(0))
    for precise in (False, True):
        mass = continuous_mass(precise)
        expected = 1.0 - mass
        ranked = sorted(cands, key=lambda r: abs(r - expected))
        best = ranked[0] if ranked else None
        runner_up = abs(ranked[1] - expected) if len(ranked) > 1 else mpmath.inf
        if best is not None and abs(best - expected) <= min(1e-2, runner_up / 4) and (
                precise or runner_up >= 0.05):
            return max(best, mpmath.mpf(0))
    raise ConvergenceError(
        "atom at 0", f"mass check failed: continuous mass {mass} leaves "
        f"{expected} at 0, atom candidates are {[float(c) for c in cands]}", eq.describe)


def track_segment(
    matrix: np.ndarray, start: complex, target: complex, steps: int = 64
) -> complex:
    """Root of ``E(X, t) = sum A[i][j] X^i t^j`` continued along ``t`` from 0 to
    ``target`` (float64), starting from the root ``start`` at ``t = 0``.

    At each of ``steps`` equal steps the root of ``E(., t)`` nearest the previous value is
    taken (companion eigenvalues), so the path follows one sheet as long as it meets no
    branch point. Used for the S-transform (theory §3: the branch with ``S(0) = 1/m1``).
    """
    value = complex(start)
    n = matrix.shape[0] - 1
    for k in range(1, steps + 1):
        t = target * k / steps
        c = np.array([np.polyval(row[::-1], t) for row in matrix], dtype=complex)
        while n > 0 and c[n] == 0:
            n -= 1
        roots = np.roots(c[: n + 1][::-1])
        value = complex(roots[np.argmin(np.abs(roots - value))])
        n = matrix.shape[0] - 1
    return value
