"""The Cauchy polynomial ``P(G, z)`` with numeric parameters and its coefficient functions
(theory §3, §7.1): the part of :class:`freege.numeric.roots.CauchyEquation` that every
route shares.

Holds :func:`coefficient_matrix` / :func:`coefficient_functions` (the exact coefficient
matrix and its mpmath function of the parameters), :class:`CauchyPolynomial` (the float64
matrix rounded from a :data:`COEFF_DPS`-digit evaluation with its extended-precision
correction, the mpmath matrix per precision, the exact polynomial over QQ at the working
precision, the disk cache of exact results, vectorised Horner in ``G`` and ``P_z``, the
companion roots) and Smale's ``gamma`` (:func:`_gamma`, :func:`_gamma_mp`), the root
separation test of every tracking step. Conventions and methods: :mod:`freege.numeric.roots`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from freege.numeric import compiled, exact_results
from freege.params import mpf_fraction

if TYPE_CHECKING:  # sympy is imported only where an exact computation runs
    import sympy as sp

#: digits at which the coefficient matrix is evaluated before it is rounded to float64
COEFF_DPS = 40
#: the coefficient matrix is evaluated at a multiple of this many bits, then rounded
MATRIX_BITS = 128


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
    :class:`CauchyPolynomial`)."""
    import sympy as sp

    return sp.lambdify(symbols, coefficient_matrix(poly), modules="mpmath")


def _to_fraction(x: object) -> Fraction:
    if isinstance(x, Fraction | int):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)
    return mpf_fraction(mpmath.mpf(x))


class CauchyPolynomial:
    """``P(G, z)`` with numeric parameters: its coefficients in float64, mpmath and exactly.

    The constructor's arguments are those of :class:`freege.numeric.roots.CauchyEquation`
    (which adds the tracking, polishing and the branch points to this class). The float64
    coefficient matrix ``A`` is *rounded* from a :data:`COEFF_DPS`-digit evaluation of the
    coefficient formulas (evaluating the expanded formulas in float64 loses up to ~1e-13
    relative to cancellation, amplified near soft edges); ``A_ext`` adds the rounding
    error, in long double, for the extended-precision residual of the float64 refinement.
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
        self._rows_cache: dict[int, list[list[Fraction]]] = {}
        self._disc_cache: dict[int, list[Fraction]] = {}
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

    def exact_rows(self) -> list[list[Fraction]]:
        """The coefficient matrix of :meth:`exact` (``rows[i][j]`` of ``G^i z^j``) as
        fractions; without sympy when the matrix is generated (cached per precision)."""
        prec = mpmath.mp.prec
        if prec not in self._rows_cache:
            if self._generated:
                rows = [[Fraction(c) for c in row] for row in
                        self._matrix(*self._exact_values(), compiled.exact_rational)]
            else:
                poly = self.exact()
                rows = [[Fraction(0)] * (poly.degree(poly.gens[1]) + 1)
                        for _ in range(poly.degree(poly.gens[0]) + 1)]
                for (i, j), c in poly.terms():
                    rows[i][j] = Fraction(int(c.p), int(c.q))
            self._rows_cache[prec] = rows
        return self._rows_cache[prec]

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
        missing roots (leading coefficient 0) are ``inf``, all roots at a z whose
        coefficients are not finite (a nan step of a caller's Newton) ``nan``."""
        c = self.coeffs_f64(zs)
        n = self.degree
        lead = c[:, n]
        finite = np.isfinite(c).all(axis=1)
        ok = finite & (np.abs(lead) > 0)
        comp = np.zeros((zs.size, n, n), dtype=complex)
        comp[:, 1:, :-1] = np.eye(n - 1)
        comp[ok, :, -1] = -c[ok, :n] / lead[ok, None]
        roots = np.full((zs.size, n), np.inf, dtype=complex)
        roots[~finite] = np.nan
        if ok.any():
            roots[ok] = np.linalg.eigvals(comp[ok])
        return roots


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
