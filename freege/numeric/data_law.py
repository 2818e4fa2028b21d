"""The numeric law of an expression with data: free convolutions through the subordination
engine (docs/data-laws.md, theory §3, §7).

:class:`DataLaw` is a law of :mod:`freege.numeric.law_family` whose Cauchy transform comes
from a tree of :mod:`freege.numeric.subordination` nodes over
:mod:`freege.numeric.operands` (empirical spectra, densities, closed-form
Marchenko-Pastur, semicircle and free Poisson laws, exact atoms, any other law of the
family). The tree is described by a *spec*, a plain nested tuple that is also the law's
recipe (:mod:`freege.numeric.law_recipe`, constructor ``"data"``):

* leaves: ``("empirical", values, weights)`` (little-endian float64 bytes; weights None:
  equal), ``("atoms", ((location, mass), ...))`` (exact fractions), ``("mp", ratio)``,
  ``("semicircle", variance)``, ``("free-poisson", rate)``, ``("density", ...)``
  (:mod:`freege.numeric.density_operand`), ``("law", recipe)`` (a law of the family);
* nodes: ``("add", a, b)``, ``("mult", a, b)``, ``("poisson", rate, jump)``,
  ``("affine", scale, shift, base)``, ``("pushforward", coeffs, base)``.

The hooks: ``G`` and ``G'`` from the root (float64 vectorised, mpmath per point), the
intervals from the scan and edge equations (:mod:`freege.numeric.data_support`) checked by
the mass (continuous mass plus atoms equal to 1 to :data:`MASS_TOL`), atoms by the
Bercovici-Voiculescu rules, moments from the operands' moments
(:mod:`freege.numeric.free_series`), the S-transform by inverting ``psi``, the
independent route of ``estimate`` a fresh tree solved in mpmath from far above at
``dps + 20`` digits with no float64 seed.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import law_recipe
from freege.numeric.algebraic_law import AlgebraicLaw
from freege.numeric.law_family import REFERENCE_DPS, Law
from freege.numeric.operands import (
    EmpiricalOperand,
    FreePoissonOperand,
    LawOperand,
    Operand,
    SemicircleOperand,
)
from freege.numeric.subordination import (
    AffineNode,
    FreeAddNode,
    FreeMultNode,
    Node,
    PoissonNode,
    PushforwardNode,
)

#: the largest gap allowed between 1 and the continuous mass plus the atoms (float64)
MASS_TOL = 1e-8
#: the deepest spec read
MAX_SPEC_DEPTH = 40
#: the scans tried in turn, as multiples of the scan's points, until the mass checks
SCAN_REFINE = (1, 4, 16)
#: the first and the largest number of points per interval of the mass check (the rules
#: have N, 3N, 9N, ... points)
MASS_POINTS, MASS_POINTS_MAX = 128, 2**14


def _fraction(name: str, value: Any, positive: bool = False) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise ValueError(f"data law: {name} must be an exact number (int or Fraction), got "
                         f"{type(value).__name__}")
    value = Fraction(value)
    if abs(value) > 10**6 or (value != 0 and abs(value) < Fraction(1, 10**6)):
        raise ValueError(f"data law: {name} must be 1e-6 to 1e6 in size (got {float(value):g})")
    if positive and value <= 0:
        raise ValueError(f"data law: {name} must be > 0 (got {value})")
    return value


def _array(name: str, blob: Any) -> np.ndarray:
    if not isinstance(blob, bytes) or len(blob) % 8:
        raise ValueError(f"data law: {name} must be float64 bytes")
    return np.frombuffer(blob, dtype="<f8").astype(float)


def build_operand(spec: Any, depth: int = 0) -> Operand:
    """The operand tree a spec describes (see the module docstring); every value is
    range-checked first (a ValueError names it)."""
    if depth > MAX_SPEC_DEPTH:
        raise ValueError(f"data law: the spec is nested deeper than {MAX_SPEC_DEPTH}")
    if not isinstance(spec, tuple) or not spec or not isinstance(spec[0], str):
        raise ValueError("data law: a spec is a tuple (kind, ...)")
    kind, args = spec[0], spec[1:]
    try:
        if kind == "empirical":
            values, weights = args
            return EmpiricalOperand(_array("values", values),
                                    None if weights is None else _array("weights", weights))
        if kind == "atoms":
            (points,) = args
            pts = [(_fraction("location", a), _fraction("mass", p, True)) for a, p in points]
            if sum(p for _, p in pts) != 1:
                raise ValueError("data law: atom masses must sum to 1")
            return EmpiricalOperand(None, name="atoms", exact_points=pts)
        if kind == "mp":
            (ratio,) = args
            s = _fraction("ratio", ratio, True)
            return AffineNode(s, 0, FreePoissonOperand(1 / s))
        if kind == "semicircle":
            (variance,) = args
            return SemicircleOperand(_fraction("variance", variance, True))
        if kind == "free-poisson":
            (rate,) = args
            return FreePoissonOperand(_fraction("rate", rate, True))
        if kind == "density":
            from freege.numeric.density_operand import density_from_spec

            return density_from_spec(args)
        if kind == "law":
            (made_from,) = args
            return LawOperand(law_recipe.rebuild(made_from))
        if kind in ("add", "mult"):
            a, b = (build_operand(x, depth + 1) for x in args)
            return FreeAddNode(a, b) if kind == "add" else FreeMultNode(a, b)
        if kind == "poisson":
            rate, jump = args
            return PoissonNode(_fraction("rate", rate, True), build_operand(jump, depth + 1))
        if kind == "affine":
            scale, shift, base = args
            a = _fraction("scale", scale)
            if a == 0:
                raise ValueError("data law: scale must not be 0")
            return AffineNode(a, _fraction("shift", shift), build_operand(base, depth + 1))
        if kind == "pushforward":
            coeffs, base = args
            cs = tuple(_fraction(f"coefficient {j}", c) for j, c in enumerate(coeffs))
            return PushforwardNode(cs, build_operand(base, depth + 1))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError):
            raise
        raise ValueError(f"data law: malformed {kind!r} spec ({exc})") from None
    raise ValueError(f"data law: unknown spec kind {kind!r}")


def spec_digest(spec: Any) -> str:
    """A short hash naming a spec (its repr: bytes and fractions print exactly)."""
    return hashlib.sha256(repr(spec).encode()).hexdigest()[:16]


class DataLaw(Law):
    """The law of a spec (see the module docstring) at ``dps`` digits (None: float64);
    ``text`` names it (``str``)."""

    def __init__(self, spec: Any, dps: int | None = None, text: str | None = None) -> None:
        self.spec = law_recipe.check_plain(spec)
        self.root = build_operand(spec)
        if dps is not None and "density" in repr(spec):
            from freege.numeric.density_operand import check_dps

            check_dps(self.root, dps)  # a float64-only density cannot give dps digits
        self.text = text or self.root.describe.get("law", "data law")
        super().__init__(dps, {"law": self.text, "spec": spec_digest(spec)})

    def __repr__(self) -> str:
        return f"DataLaw({self.text!r}, dps={self.dps})"

    def __str__(self) -> str:
        return self.text

    # ------------------------------------------------------------------ identity
    def recipe(self) -> law_recipe.Recipe:
        return law_recipe.recipe("data", self.spec, self.dps, self.text)

    def _identity(self) -> tuple[Any, ...]:
        return ("data", spec_digest(self.spec), self.dps)

    def with_dps(self, dps: int | None) -> DataLaw:
        return DataLaw(self.spec, dps, self.text)

    def as_normalized(self) -> DataLaw:
        """The law divided by its mean, the mean taken to 40 digits (exactly that
        rounding, as a fraction)."""
        with mpmath.workdps(40):
            m1 = self.root.moments_mp(1)[0]
            if m1 == 0:
                raise ValueError(f"{self.text} has mean 0: no normalized law")
            man, exp = (1 / m1).man_exp
            scale = Fraction(int(man)) * Fraction(2) ** int(exp)
        return DataLaw(("affine", scale, 0, self.spec), self.dps, f"({self.text}) / mean")

    # ------------------------------------------------------------------ numbers
    def _moment_mp(self, q: int) -> mpmath.mpf:
        with mpmath.workdps(mpmath.mp.dps + 10):
            value = self.root.moments_mp(q)[q - 1]
        return +value

    def _atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return [(x, p) for x, p in self.root.atoms_mp() if p > 0]

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The root's intervals, verified by the mass: the continuous mass on them
        (float64, :meth:`_missing_mass`) plus the atoms is 1 within :data:`MASS_TOL`; otherwise the
        scan is repeated with 4 and 16 times the points (a narrow component or gap the
        grid missed), then :class:`ConvergenceError`. A mass quadrature that does not
        converge (an interior singularity such as a cusp, which no finer scan removes;
        the scan halves steep cells, so a gap inside a run is not what stops it) is
        refused at once."""
        key = ("intervals", mpmath.mp.prec)
        if key not in self._cache:
            from freege.numeric.data_support import SCAN_POINTS

            if not isinstance(self.root, Node):
                with mpmath.workdps(max(mpmath.mp.dps, REFERENCE_DPS)):
                    self._cache[key] = self.root.intervals_mp()
                return [(+a, +b) for a, b in self._cache[key]]
            for factor in SCAN_REFINE:
                with mpmath.workdps(max(mpmath.mp.dps, REFERENCE_DPS)):
                    found = self.root.intervals_mp(SCAN_POINTS * factor, self.dps is None)
                self._cache[key] = found
                missing = self._missing_mass(found)
                if abs(missing) <= MASS_TOL:  # nan (the quadrature failed) never passes
                    break
                del self._cache[key]
                if missing != missing:  # no finer scan removes an interior singularity
                    break
            if key not in self._cache:
                why = ("the mass check's quadrature does not converge (a singular point "
                       "inside an interval, such as a cusp where two bulks meet?)"
                       if missing != missing else
                       f"the intervals found miss mass {missing:.3g} (a part of the support "
                       "was not found)")
                raise ConvergenceError("support", f"after a scan of "
                                       f"{SCAN_POINTS * factor} points {why}",
                                       self.describe)
        return [(+a, +b) for a, b in self._cache[key]]

    def _missing_mass(self, found: list[tuple[Any, Any]]) -> float:
        """``1 - (continuous mass on found + atoms)``, float64, with the density straight
        from the root (no interval assumed but ``found``): on each interval ``[a, b]`` the
        midpoint rule in ``theta`` after ``x = (a + b)/2 - (b - a)/2 cos theta`` (spectral
        for a density with square-root or inverse-square-root ends), ``N`` and ``3N``
        points from :data:`MASS_POINTS` until two agree to ``MASS_TOL/10`` (the ``3N``
        rule holds the ``N`` rule's points: one solve a level); nan when they never do
        within :data:`MASS_POINTS_MAX` points (an interior singularity: the check
        fails)."""
        with mpmath.workdps(REFERENCE_DPS):
            atoms = float(mpmath.fsum(p for _, p in self._atoms_mp()))
        total = 0.0
        for a, b in found:
            a, b = float(a), float(b)

            def density(theta: np.ndarray, a: float = a, b: float = b) -> np.ndarray:
                xs = (a + b) / 2 - (b - a) / 2 * np.cos(theta)
                g = self.root.cauchy_f64(xs + 0j)[0]
                return np.maximum(-g.imag / np.pi, 0.0)

            def rule(theta: np.ndarray, dens: np.ndarray, a: float = a, b: float = b
                     ) -> float:
                return float(np.sum(dens * np.sin(theta)) * np.pi / theta.size * (b - a) / 2)

            n = 3 * MASS_POINTS
            theta = np.pi * (np.arange(n) + 0.5) / n
            dens = density(theta)
            coarse = rule(theta[1::3], dens[1::3])
            while True:
                value = rule(theta, dens)
                if abs(value - coarse) <= MASS_TOL / 10:
                    break
                if 3 * n > MASS_POINTS_MAX:
                    return float("nan")
                n *= 3
                theta = np.pi * (np.arange(n) + 0.5) / n
                new = np.arange(n) % 3 != 1
                finer = np.empty(n)
                finer[1::3] = dens
                finer[new] = density(theta[new])
                coarse, dens = value, finer
            total += value
        return 1 - total - atoms

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        zs = np.asarray(zs, dtype=complex).ravel()
        g = self.root.cauchy_f64(zs)[0]
        real = zs.imag == 0
        if real.any():
            out = ~self._inside(zs.real) & real
            g = np.where(out, g.real + 0j, g)
        return g

    def _stieltjes_mp_batch(self, zs: list[Any], seeds: np.ndarray | None = None
                            ) -> list[mpmath.mpc]:
        out = []
        for z in zs:
            z = mpmath.mpmathify(z)
            g = self.root.cauchy_mp(z)[0]
            if mpmath.im(z) == 0 and not any(a < z < b for a, b in self._intervals_mp()):
                g = mpmath.mpc(mpmath.re(g), 0)
            out.append(g)
        return out

    def cauchy_pair_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.root.cauchy_f64(np.asarray(zs, dtype=complex).ravel())

    def cauchy_pair_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        return self.root.cauchy_mp(z)

    def _independent_one(self, method: str, zv: Any) -> Any:
        """A fresh tree solved at ``dps + 20`` digits (50 for float64) in mpmath from far
        above the support, with no float64 seed."""
        dps = (self.dps or REFERENCE_DPS) + 20
        root = build_operand(self.spec)
        with mpmath.workdps(dps):
            zv = mpmath.mpmathify(zv)
            if isinstance(root, Node):
                upper = mpmath.im(zv) >= 0
                u = root.solve_mp(zv if upper else mpmath.conj(zv), seed=None, fresh=True)
                _, jac, _, parts = root._system(u, zv if upper else mpmath.conj(zv), False)
                g = root._value(u, zv if upper else mpmath.conj(zv), jac, parts, False)[0]
                g = g if upper else mpmath.conj(g)
            else:
                g = root.cauchy_mp(zv)[0]
            if method == "pdf":
                inside = mpmath.im(zv) == 0 and any(a < zv < b for a, b in self._intervals_mp())
                return max(-mpmath.im(g) / mpmath.pi, mpmath.mpf(0)) if inside else \
                    mpmath.mpf(0)
            return +g

    @property
    def s_relation(self) -> Any:
        from freege.numeric.data_s_transform import NumericSTransform

        return NumericSTransform(self)

    @property
    def nonnegative(self) -> bool:
        return self.root.nonnegative

    def dof_point(self, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``(w(lam), w'(lam))`` (theory §5) from ``G(-lam)`` and ``G'(-lam)``:
        ``w = 1 + lam G(-lam)``, ``w' = G(-lam) - lam G'(-lam)``, at twice the
        precision's worth of cancelled digits more."""
        lam0 = mpmath.mpmathify(lam)
        extra = 2 * max(0, int(mpmath.log(abs(lam0) + 1, 2))) + 16
        with mpmath.workprec(mpmath.mp.prec + extra):
            g, dg = self.root.cauchy_mp(mpmath.mpf(-lam0))
            w = 1 + lam0 * mpmath.re(g)
            w_prime = mpmath.re(g) - lam0 * mpmath.re(dg)
        return +w, +w_prime

    _hard_order = AlgebraicLaw._hard_order


def law_of_spec(spec: Any, dps: int | None = None, text: str | None = None) -> DataLaw:
    """The recipe constructor ``"data"``: range-checks ``dps`` then builds."""
    if text is not None and not isinstance(text, str):
        raise ValueError("recipe text must be a str")
    return DataLaw(spec, law_recipe.check_dps(dps), text)


def spec_of_expression(expr: Any) -> tuple[Any, ...]:
    """The spec of an expression of the law algebra (numeric parameters): its Marchenko-
    Pastur, semicircle and atomic leaves as closed-form operands, its operations as nodes
    (so the engine evaluates any algebra expression: the tests' polynomial-route
    comparisons)."""
    from freege.symbolic import expressions as ex

    def num(x: Any) -> Fraction:
        if not x.is_Rational:
            raise ValueError(f"data law: {x} is not a rational number")
        return Fraction(int(x.p), int(x.q))

    def walk(e: Any) -> tuple[Any, ...]:
        if isinstance(e, ex.MarchenkoPastur):
            return ("mp", num(e.ratio))
        if isinstance(e, ex.Semicircle):
            return ("semicircle", num(e.variance))
        if isinstance(e, ex.Atomic):
            return ("atoms", tuple((num(a), num(p)) for a, p in e.points))
        if isinstance(e, ex.FreePoisson):
            if isinstance(e.jump, ex.Atomic) and e.jump.points == ((1, 1),):
                return ("free-poisson", num(e.rate))
            return ("poisson", num(e.rate), walk(e.jump))
        if isinstance(e, ex.Affine):
            return ("affine", num(e.scale), num(e.shift), walk(e.base))
        if isinstance(e, ex.FreeMult | ex.FreeAdd):
            parts = e.factors if isinstance(e, ex.FreeMult) else e.terms
            kind = "mult" if isinstance(e, ex.FreeMult) else "add"
            out = walk(parts[0])
            for p in parts[1:]:
                out = (kind, out, walk(p))
            return out
        if isinstance(e, ex.Pushforward):
            return ("pushforward", tuple(num(c) for c in e.coeffs), walk(e.base))
        raise ValueError(f"data law: no engine node for {type(e).__name__}")

    if expr.parameters:
        raise ValueError(f"data law: {expr} needs numeric parameters")
    return walk(expr)


__all__ = ["DataLaw", "MASS_TOL", "build_operand", "law_of_spec", "spec_digest",
           "spec_of_expression"]
