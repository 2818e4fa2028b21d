"""The integrals of a law: ``cdf``, ``sf``, ``ppf``, ``mass``, ``expect``, ``rvs`` and
``entropy`` of :class:`freege.numeric.law_family.Law`, from its density, atoms and support
(theory §7).

Integrals of the continuous part are the law's :class:`freege.numeric.quadrature.Quadrature`
(edge-adapted Gauss-Legendre panels, convergence checked); the atoms (anywhere, several)
are added with their masses; scipy.stats' conventions at the edges are
:mod:`freege.numeric.law_conventions`'. A law answered through an affine image of itself
(:meth:`freege.numeric.law_family.Law._affine_image`) answers through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from freege.numeric import law_conventions, quantile
from freege.numeric.law_conventions import map_batch, shape_like
from freege.numeric.sampling_table import InverseCdfTable
from freege.numeric.solve import find_root


class IntegralMethods:
    """The integral methods of :class:`freege.numeric.law_family.Law` (see the module
    docstring); they use the law's hooks ``_atoms_mp``, ``_intervals_mp``,
    ``_affine_image``, its ``quadrature`` and its density."""

    def entropy(self) -> Any:
        """Differential entropy ``-int pdf log pdf`` (scipy.stats' ``entropy``) of a law
        without atoms (ValueError otherwise)."""
        with self._ctx():
            atoms = self._atoms_mp()
        if atoms:
            where = "an atom at 0" if [x for x, _ in atoms] == [0] else "atoms"
            raise ValueError(f"the law has {where}: its differential entropy is not defined")
        move = self._affine_image()
        if move is not None:
            return move.inner.entropy()
        if self.dps is None:
            return self.quadrature.entropy_f64()
        with self._ctx():
            return +self.quadrature.entropy_mp()

    def cdf(self, x: Any) -> Any:
        """``nu((-inf, x])``: the atoms at or below ``x`` plus the integrated density
        (:mod:`freege.numeric.quadrature`); exactly 0 or 1 at ``-inf``/``+inf`` and beyond
        the support, nan at nan (scipy.stats, :mod:`freege.numeric.law_conventions`)."""
        move = self._affine_image()
        if move is not None:
            return move.cdf(x, self._atom_at)
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            flat = xs.ravel()
            out, todo = law_conventions.cdf_outside_f64(flat, self._hull_f64)
            if todo.any():
                inner = flat[todo]
                total = self.quadrature.cdf_f64(inner)
                for loc, mass in self._atoms_mp():
                    total = total + np.where(inner >= float(loc), float(mass), 0.0)
                out[todo] = np.clip(total, 0.0, 1.0)
            return shape_like(out, xs)
        with self._ctx():
            return map_batch(lambda vs: [self._cdf_public_mp(mpmath.mpf(v)) for v in vs], x)

    def _cdf_public_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        """:meth:`cdf` at one point, the conventions first (no work at ``+-inf``)."""
        fixed = law_conventions.cdf_outside_mp(x, self._hull_mp)
        return self._cdf_mp(x) if fixed is None else +fixed

    def _cdf_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isnan(x):
            return x
        atoms = mpmath.fsum(p for loc, p in self._atoms_mp() if x >= loc)
        return atoms + self.quadrature.cdf_mp(x)

    def sf(self, x: Any) -> Any:
        """``nu((x, inf)) = 1 - cdf(x)`` (exactly 1 or 0 at ``-inf``/``+inf``)."""
        move = self._affine_image()
        if move is not None:
            return move.sf(x, self._atom_at)
        if self.dps is None:
            return 1.0 - self.cdf(x)
        with self._ctx():
            return map_batch(lambda vs: [1 - self._cdf_public_mp(mpmath.mpf(v)) for v in vs],
                             x)

    def mass(self) -> Any:
        """Total mass, atoms plus the integrated density: 1 up to the quadrature's
        accuracy (a check; :class:`ConvergenceError` when the quadrature fails)."""
        move = self._affine_image()
        if move is not None:
            return move.inner.mass()
        if self.dps is None:
            return float(sum(p for _, p in self._atoms_mp())) + self.quadrature.mass_f64()
        with self._ctx():
            return +(mpmath.fsum(p for _, p in self._atoms_mp()) + self.quadrature.mass_mp())

    def ppf(self, q: Any) -> Any:
        """The quantile ``inf{x : cdf(x) >= q}`` for ``q`` in ``[0, 1]`` (an atom where
        ``q`` falls in its jump; ``ppf(0)``, ``ppf(1)`` the ends of the support), nan
        elsewhere (scipy.stats): float64 by inverting the quadrature's cdf series
        (:meth:`freege.numeric.quadrature.Quadrature.ppf_f64`); mpmath from that float64
        quantile when every atom lies at or below the continuous part
        (:func:`freege.numeric.quantile.ppf_mp`: a verified bracket around it), else by a
        verified root of the cdf on the piece that holds ``q``."""
        move = self._affine_image()
        if move is not None:
            return move.ppf(q)
        if self.dps is None:
            qs = law_conventions.probabilities_f64(q)
            return shape_like(self._ppf_f64(qs.ravel()), qs)
        with self._ctx():
            return map_batch(
                lambda vs: [self._ppf_mp(law_conventions.probability_mp(v)) for v in vs], q)

    def _ppf_f64(self, qs: np.ndarray) -> np.ndarray:
        if np.isnan(qs).all():
            return qs.copy()
        lo_s, hi_s = self._hull_f64()
        out = np.full(qs.shape, hi_s)
        out[qs <= 0] = lo_s
        out[np.isnan(qs)] = np.nan
        todo = (qs > 0) & (qs < 1)
        below = np.zeros(qs.shape)  # the atoms' mass wholly below q
        for loc, mass in self._atoms_mp():
            start = float(self.quadrature.cdf_f64(np.array([float(loc)]))[0]) + below
            jump = todo & (qs > start) & (qs <= start + float(mass))
            out[jump] = float(loc)
            todo &= ~jump
            below = below + np.where(qs > start + float(mass), float(mass), 0.0)
        if todo.any():
            out[todo] = self.quadrature.ppf_f64(qs[todo] - below[todo])
        return out

    def _ppf_mp(self, q: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isnan(q):
            return q
        lo_s, hi_s = self._hull_mp()
        if q <= 0:
            return lo_s
        if q >= 1:
            return hi_s
        atoms, ivs = self._atoms_mp(), self._intervals_mp()
        total = mpmath.fsum(p for _, p in atoms)
        if ivs and all(x <= ivs[0][0] for x, _ in atoms):  # atoms below: one solve
            cumulative = mpmath.mpf(0)
            for x, p in atoms:
                cumulative += p
                if q <= cumulative:
                    return x
            return quantile.ppf_mp(self.quadrature, q - total, 1 - total,
                                   float(self._float64().ppf(float(q))), ivs,
                                   lambda x: self._pdf_mp_batch([x])[0],
                                   f"ppf({mpmath.nstr(q, 10)})", self.describe)
        for a, b in sorted([(x, x) for x, _ in atoms] + list(ivs)):
            if q <= self._cdf_mp(b):
                if a == b or q <= self._cdf_mp(a):
                    return a
                return find_root(lambda x: self._cdf_mp(x) - q, (a, b),
                                 df=lambda x: self._pdf_mp_batch([x])[0],
                                 quantity=f"ppf({mpmath.nstr(q, 10)})", params=self.describe)
        return hi_s

    def rvs(self, size: Any = None, random_state: Any = None) -> Any:
        """Samples by inverse cdf of uniform draws (float64): ``random_state`` an int seed,
        a ``numpy.random.Generator`` or None (a fresh one). Atoms are drawn with their
        masses; the rest inverts the float64 cdf of the continuous part through a verified
        table (:mod:`freege.numeric.sampling_table`: within ``U_TOL`` in probability),
        built once per law from its quadrature series (a pure function of the law). A
        uniform ``u`` maps as :meth:`ppf` maps it: into an atom's jump of the cdf, else to
        the continuous part at ``u`` less the atoms below."""
        move = self._affine_image()
        if move is not None:
            return move.rvs(size, random_state)
        rng = (random_state if isinstance(random_state, np.random.Generator)
               else np.random.default_rng(random_state))
        f64 = self if self.dps is None else self._float64()
        atoms = [(float(x), float(p)) for x, p in f64._atoms_mp()]
        if f64._intervals_mp() and all(x == 0 for x, _ in atoms):  # the table draws an
            if "table" not in f64._cache:  # atom at 0 first, then the continuous part
                f64._cache["table"] = InverseCdfTable(
                    f64.quadrature.series_f64(), sum(p for _, p in atoms), f64.describe)
            return f64._cache["table"].sample(rng.random(size))
        return f64._rvs_with_atoms(rng.random(size), atoms)

    def _rvs_with_atoms(self, u: Any, atoms: list[tuple[float, float]]) -> Any:
        """Samples for uniforms ``u`` of a law with atoms anywhere (see :meth:`rvs`)."""
        us = np.asarray(u, dtype=float)
        flat = us.ravel()
        out = np.full(flat.shape, self._hull_f64()[1])
        todo = np.ones(flat.shape, dtype=bool)
        below = np.zeros(flat.shape)  # the atoms' mass wholly below u
        for loc, mass in atoms:
            start = float(self.quadrature.cdf_f64(np.array([loc]))[0]) + below
            jump = todo & (flat >= start) & (flat < start + mass)
            out[jump] = loc
            todo &= ~jump
            below = below + np.where(flat >= start + mass, mass, 0.0)
        if todo.any() and self._intervals_mp():
            if "continuous table" not in self._cache:
                self._cache["continuous table"] = InverseCdfTable(
                    self.quadrature.series_f64(), 0.0, self.describe)
            out[todo] = self._cache["continuous table"].sample(flat[todo] - below[todo])
        shaped = out.reshape(us.shape)
        return shaped.item() if shaped.ndim == 0 else shaped

    # ------------------------------------------------------------------ expectation
    def expect(self, func: Callable[..., Any] | None = None, args: tuple = (),
               lb: Any = None, ub: Any = None, conditional: bool = False) -> Any:
        """``int func dnu`` over ``[lb, ub]`` (None: the whole line; atoms count when they
        lie in the range), scipy.stats' keywords: ``func(x, *args)`` (default ``x``),
        ``conditional`` divides by the mass of ``[lb, ub]``. Real or complex ``func``; it
        must accept numpy arrays in float64 mode and mpmath numbers otherwise
        (:mod:`freege.numeric.quadrature`, convergence checked)."""
        fn = (lambda x: x) if func is None else (lambda x: func(x, *args))
        if lb is not None and ub is not None and lb > ub:
            raise ValueError(f"lb must not exceed ub (got lb={lb}, ub={ub})")
        total = self._expect(fn, lb, ub)
        if conditional:
            one = (lambda x: np.ones_like(x)) if self.dps is None else (lambda x: 1)
            total = total / self._expect(one, lb, ub)
        return total

    def _expect(self, fn: Callable[[Any], Any], lb: Any, ub: Any) -> Any:
        move = self._affine_image()
        if move is not None:
            return move.expect(fn, lb, ub)

        def inside(loc: mpmath.mpf) -> bool:
            return (lb is None or lb <= loc) and (ub is None or loc <= ub)

        with self._ctx():
            if self.dps is None:
                total = sum(float(p) * fn(np.array([float(x)]))[0]
                            for x, p in self._atoms_mp() if inside(x))
                lb = None if lb is None else float(lb)
                ub = None if ub is None else float(ub)
                return np.asarray(total + self.quadrature.expect_f64(fn, lb, ub)).item()
            total = mpmath.fsum(p * fn(x) for x, p in self._atoms_mp() if inside(x))
            lb = None if lb is None else mpmath.mpf(lb)
            ub = None if ub is None else mpmath.mpf(ub)
            return +(total + self.quadrature.expect_mp(fn, lb, ub))


__all__ = ["IntegralMethods"]
