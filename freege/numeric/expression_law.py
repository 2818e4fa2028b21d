"""The numeric law of an expression of the law algebra (docs/algebra.md, theory §3, §7).

:class:`ExpressionLaw` is a :class:`freege.numeric.law.Law` whose equations come from an
exact expression of :mod:`freege.algebra` (any free-probability law built from
Marchenko-Pastur, semicircle, free Poisson and atomic laws by affine maps, ⊠, ⊞ and
polynomial pushforwards) instead of a theory §4 case. Everything that solves the Cauchy
polynomial -- branch tracking, the float64/mpmath split, anchors, edges from the exact
discriminant, quadrature, the independent route of :meth:`Law.estimate` -- is the
attention laws' code; this module supplies the few things that differ:

* the Cauchy polynomial ``P(G, z)`` and the exact moments of the expression, as generated
  functions of no parameter (:mod:`freege.numeric.compiled`), named by a hash of the
  expression's text (canonical: it reads back to the same expression) and of the
  algebra's sources;
* the support searched over the expression's exact enclosure ``[lo, hi]`` (a semicircle
  or a shifted law has edges below 0), with the near-0 handling of theory §7.1 (hard
  edge, the atom's pole) only where 0 can be singular: a law on ``[0, inf)`` or with an
  atom at 0;
* a singular end ``c != 0`` of the support (a hard edge such as that of ``mp(1) + 2``,
  or an atom's pole), found from the exact data, moved to 0: the law is answered through
  the law of ``s (X - c)`` (:mod:`freege.numeric.edge_move`), where the near-0 routes
  serve it; an edge at 0 of an exponent other than ``m/(m+1)`` gets its own quadrature
  map (:meth:`ExpressionLaw._hard_order`);
* atoms anywhere, with their exact masses (the expression's Bercovici-Voiculescu rules),
  in ``atoms``, ``cdf``, ``ppf``, ``support``, ``mass`` and ``expect``;
* a pushforward with a critical value inside its support (a singular density whose
  branch the tracking does not follow) refused in one line (docs/algebra.md, Limits);
* identity, equality, hash and pickling by ``(text, dps)``
  (:mod:`freege.numeric.law_recipe`, constructor ``"expression"``).

The expression (:class:`freege.symbolic.expressions.LawExpr`) is used through
``str(expr)``, ``cauchy_polynomial()``, ``moments(q)``, ``mean``, ``s_relation()``,
``atoms()``, ``bounds()``, ``is_positive``, ``parameters`` and ``expr / number``.
"""

from __future__ import annotations

import functools
import hashlib
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import compiled, law_conventions, law_recipe, roots
from freege.numeric.edge_move import EdgeMove
from freege.numeric.law import REFERENCE_DPS, Law, _map_batch, _shape, check_dps
from freege.numeric.quadrature import HardEdge, Quadrature
from freege.numeric.s_transform import STransform
from freege.numeric.solve import find_root
from freege.symbolic.expressions import critical_pushforwards, register_numeric_law

#: the folder of the algebra's sources (their text keys the generated functions)
_ALGEBRA_DIR = Path(__file__).resolve().parent.parent / "algebra"


@functools.cache
def _algebra_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(_ALGEBRA_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def expression_key(text: str) -> str:
    """The hash naming an expression's generated functions and exact results: its text and
    the algebra's sources (the symbolic layer's hash is added by :mod:`compiled`)."""
    return hashlib.sha256(f"{_algebra_hash()}|{text}".encode()).hexdigest()[:24]


def _exact_number(x: Any, dps: int) -> mpmath.mpf:
    """An exact sympy real (rational or algebraic) at ``dps`` digits."""
    import sympy as sp

    value = sp.sympify(x)
    if value.is_Rational:
        return mpmath.mpf(int(value.p)) / int(value.q)
    if value.is_infinite:
        return mpmath.inf if value > 0 else -mpmath.inf
    return mpmath.mpf(str(sp.N(value, dps + 10)))


class ExpressionEquation(roots.CauchyEquation):
    """The Cauchy equation of an expression: as :class:`roots.CauchyEquation`, with the
    near-0 yardstick :meth:`scale` set to 0 where 0 is no singular point of the law (a law
    not on ``[0, inf)`` and without an atom at 0), so float64 and the vertical tracks
    serve every point (theory §7.1's special routes assume a support in ``[0, inf)``)."""

    def __init__(self, *args: Any, zero_singular: bool, **kwargs: Any) -> None:
        self.zero_singular = zero_singular
        super().__init__(*args, **kwargs)

    def scale(self) -> float:
        """:meth:`roots.CauchyEquation.scale` when 0 may be singular, else 0."""
        return super().scale() if self.zero_singular else 0.0

    def _u_predict(self, za: np.ndarray, zb: np.ndarray, g: np.ndarray) -> np.ndarray:
        """:meth:`roots.CauchyEquation._u_predict` (an Euler step in ``u = zG``, bounded at
        a pole or hard edge at 0) when 0 may be singular; else an Euler step in ``G``
        itself (``G' = -P_z/P_G``): ``u / z`` would magnify the step's error near 0, a
        regular point there, and send continuations to the slow vertical tracks."""
        if self.zero_singular:
            return super()._u_predict(za, zb, g)
        c = self.coeffs_f64(za)
        _, dp = self._horner(c, g)
        with np.errstate(all="ignore"):
            dg = -self._dz(za, g) / dp
            return g + np.where(np.isfinite(dg), dg, 0) * (zb - za)


class ExpressionLaw(Law):
    """The numeric law of one expression of :mod:`freege.algebra` at one precision
    (``dps``: None for float64); the methods are :class:`Law`'s. Attributes: ``expr``,
    ``text`` (``str(expr)``, which reads back to ``expr``), ``dps``."""

    def __init__(self, expr: Any, dps: int | None = None) -> None:
        if expr.parameters:
            names = ", ".join(str(s) for s in expr.parameters)
            raise ValueError(f"expr: {expr} has free parameters ({names}); bind them with "
                             f"expr.subs({{...}}) before .law()")
        critical = critical_pushforwards(expr)
        if critical:
            pushed, values = critical[0]
            raise ValueError(f"expr: no numeric law for {pushed}: phi has the critical value "
                             f"{values[0]} inside the support (a singular density there); "
                             "its exact moments and Cauchy polynomial are available")
        self.expr = expr
        self.text = str(expr)
        self.dps = check_dps(dps)
        self.case = "expression"
        self.ratios = None
        self.normalized = False
        self.describe = {"expression": self.text}
        self._key = expression_key(self.text)
        self._cache: dict[Any, Any] = {}
        with mpmath.workdps(REFERENCE_DPS):
            self._mean30 = self._moment_mp(1)
        exact_atoms = expr.atoms()
        self.equation = ExpressionEquation(
            self._cauchy_poly, (), tuple, mean=float(self._mean30), describe=self.describe,
            matrix=self._cauchy_matrix(), cache_key=f"cauchy-algebra-{self._key}",
            zero_singular=bool(expr.is_positive) or any(x == 0 for x, _ in exact_atoms))
        self.quadrature = Quadrature(self._pieces_mp, self._hard_order, self._pdf_f64,
                                     self._pdf_mp_batch, self.describe)

    def __repr__(self) -> str:
        return f"ExpressionLaw({self.text!r}, dps={self.dps})"

    # ------------------------------------------------------------------ identity
    def recipe(self) -> law_recipe.Recipe:
        """``("expression", text, dps)``: rebuilt by parsing the text."""
        return law_recipe.recipe("expression", self.text, self.dps)

    def _identity(self) -> tuple[Any, ...]:
        return "expression", self.text, self.dps

    def with_dps(self, dps: int | None) -> ExpressionLaw:
        return ExpressionLaw(self.expr, dps)

    def as_normalized(self) -> ExpressionLaw:
        """The law divided by its mean (theory §3); a ValueError for mean 0."""
        mean = self.expr.mean
        if mean == 0:
            raise ValueError(f"{self.text} has mean 0: no normalized law")
        return self if mean == 1 else ExpressionLaw(self.expr / mean, self.dps)

    # ------------------------------------------------------------------ equations
    def _cauchy_poly(self) -> Any:
        return self.expr.cauchy_polynomial()

    def _cauchy_matrix(self) -> Any:
        def build() -> Any:
            poly = self.expr.cauchy_polynomial()
            if not all(c.is_Rational for c in poly.coeffs()):
                raise ValueError(f"expr: {self.text} has irrational coefficients; the "
                                 f"numeric law needs rational parameters")
            return roots.coefficient_matrix(poly)

        return compiled.function(f"cauchy-algebra-{self._key}", build, ())

    def _cauchy_rows(self) -> list[list[Any]]:
        return self._cauchy_matrix()(compiled.mp_rational)

    def parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """No parameters: the expression's numbers are in its polynomial."""
        return ()

    def _moment_mp(self, q: int) -> mpmath.mpf:
        def build() -> Any:
            return self.expr.moments(q)[q - 1]

        function = compiled.function(f"moment-algebra-{self._key}-{q}", build, ())
        return mpmath.mpf(function(compiled.mp_rational))

    @property
    def s_relation(self) -> STransform:
        """The S-relation solver (theory §3); a ValueError for a law of mean 0."""
        if "s" not in self._cache:
            if self._mean30 == 0:
                raise ValueError(f"{self.text} has mean 0: no S-transform")

            def build() -> Any:
                import sympy as sp

                from freege.symbolic.symbols import S, w

                return roots.coefficient_matrix(sp.Poly(self.expr.s_relation(), S, w))

            matrix = compiled.function(f"s-relation-algebra-{self._key}", build, ())
            self._cache["s"] = STransform(matrix, tuple,
                                          self._mean30, self.describe)
        return self._cache["s"]

    # ------------------------------------------------------------------ Cauchy transform
    def _stieltjes_mp_batch(
        self, zs: list[Any], seeds: np.ndarray | None = None
    ) -> list[mpmath.mpc]:
        """:meth:`Law._stieltjes_mp_batch`, and ``G(0)`` where 0 is a regular point (the
        attention laws' routes treat ``z = 0`` as the branch point it is for them):
        :meth:`_stieltjes_at_zero`; through the moved law at a moved edge
        (:meth:`_edge_move`)."""
        zs = [mpmath.mpmathify(v) for v in zs]
        move = self._edge_move()
        if move is not None:
            return move.stieltjes_mp_batch(zs, seeds)
        zeros = [k for k, v in enumerate(zs) if v == 0]
        if self.equation.zero_singular or not zeros:
            return super()._stieltjes_mp_batch(zs, seeds)
        others = [k for k, v in enumerate(zs) if v != 0]
        out: list[Any] = [None] * len(zs)
        values = super()._stieltjes_mp_batch(
            [zs[k] for k in others], None if seeds is None else seeds[others])
        for k, g in zip(others, values, strict=True):
            out[k] = g
        g0 = self._stieltjes_at_zero()
        for k in zeros:
            out[k] = g0
        return out

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        """:meth:`Law._stieltjes_f64`; at a moved edge through the moved law where
        ``x - c`` is exact (:meth:`EdgeMove.stieltjes_f64`)."""
        move = self._edge_move()
        if move is None:
            return super()._stieltjes_f64(zs)
        return move.stieltjes_f64(np.asarray(zs, dtype=complex).ravel(),
                                  super()._stieltjes_f64)

    def _singular_f64(self) -> np.ndarray:
        """0 only where it can be singular (``ExpressionEquation.zero_singular``; a law
        regular at 0 is tracked there like anywhere else), and the singular points inside
        the support (:meth:`_pieces_mp`)."""
        inner = [float(a) for a, _ in self._pieces_mp()[1:]]
        zero = [0.0] if self.equation.zero_singular else []
        return np.array(zero + inner)

    def _seed_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`Law._seed_f64`, whose anchors are continued along the real axis: a
        continuation must not cross a singular point inside the support (a critical value
        of a pushforward, where three sheets meet; a pole or hard point inside), which
        the anchors do not know of. Where the support has one (:meth:`_pieces_mp` cuts an
        interval), every point is tracked vertically instead (:meth:`_tracked_f64`, each
        step accepted, theory §7), away from ``NEAR_ZERO S`` of 0 as in the parent."""
        if len(self._pieces_mp()) == len(self._intervals_mp()):
            return super()._seed_f64(zs)
        g = np.full(zs.shape, np.nan + 0j)
        err = np.full(zs.shape, np.inf)
        far = np.abs(zs) >= roots.NEAR_ZERO * self.equation.scale()
        if far.any():
            g[far], err[far] = self._tracked_f64(zs[far])
        return g, err

    def _independent_one(self, method: str, zv: Any) -> Any:
        """:meth:`Law._independent_one` (the independent route of :meth:`Law.estimate`),
        at a moved edge that of the moved law at the moved point (formed at 40 more
        digits than the route's)."""
        move = self._edge_move()
        if move is None:
            return super()._independent_one(method, zv)
        with mpmath.workdps((self.dps or REFERENCE_DPS) + 40):
            inner = move.z_inner_mp(mpmath.mpmathify(zv))
        value = move.inner._independent_one(method, inner)
        return value if method == "pdf" else move.g_outer_mp(value)

    def _stieltjes_at_zero(self) -> mpmath.mpc:
        """``G(0 + i0)`` of a law for which 0 is a regular point: the root of ``P(., 0)``
        nearest the physical ``G`` at ``delta = 1e-8`` of the support's width (``G`` moves
        by ``O(delta)``), which must be 100 times nearer than any other root, then
        verified by :meth:`roots.CauchyEquation.polish`."""
        prec = mpmath.mp.prec
        lo, hi = self._hull_mp()
        delta = (hi - lo) * mpmath.mpf(10) ** -8
        near = super()._stieltjes_mp_batch([delta])[0]
        inside = any(a < 0 < b for a, b in self._intervals_mp())
        with mpmath.workprec(prec + roots.GUARD_BITS):
            found = sorted(self.equation.all_roots_mp(mpmath.mpf(0)),
                           key=lambda r: abs(r - near))
            if len(found) > 1 and not abs(found[1] - near) > 100 * abs(found[0] - near):
                raise ConvergenceError("Stieltjes transform at 0", "the root next to the "
                                       "physical branch is not isolated", self.describe)
            g = self.equation.polish(mpmath.mpf(0), found[0], prec + roots.GUARD_BITS, inside)
        with mpmath.workprec(prec):
            return mpmath.mpc(+g.real, -abs(+g.imag)) if inside else mpmath.mpc(+g.real, 0)

    # ------------------------------------------------------------------ support, atoms
    def _bounds_mp(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        """The expression's exact enclosure of the support, widened by ``1e-10`` of its
        width (an edge on the bound stays a candidate)."""
        lo, hi = (_exact_number(v, mpmath.mp.dps) for v in self.expr.bounds())
        pad = (hi - lo + 1) * mpmath.mpf(10) ** -10
        return lo - pad, hi + pad

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals: the real roots of the discriminant over the exact
        enclosure (:func:`roots.support_intervals`), or the moved law's mapped back."""
        key = ("intervals", self._edge_dps())
        if key not in self._cache:
            move = self._edge_move()
            with mpmath.workdps(self._edge_dps()):
                if move is not None:
                    self._cache[key] = move.intervals(move.inner._intervals_mp())
                else:
                    self._cache[key] = roots.support_intervals(
                        self.equation, self._edge_dps(), self._bounds_mp())
        return self._cache[key]

    def _edge_move(self) -> EdgeMove | None:
        """The move of a singular end of the support to 0 (:mod:`freege.numeric.edge_move`,
        theory §7.1), or None. A real zero ``c != 0`` of the leading coefficient of
        ``P(G, z)`` in ``G`` (where a root escapes to infinity: a hard edge or an atom's
        pole) that is an end of the expression's exact enclosure ``expr.bounds()`` is
        moved when the law of ``s (X - c)`` (``s = 1`` at the lower end, ``-1`` at the
        upper) is provably on ``[0, inf)``, when 0 itself is no singular point of this
        law (:class:`ExpressionEquation`'s ``zero_singular`` with 0 in the enclosure),
        and when the other end is no such zero (two singular ends, as of an arcsine law,
        stay where they are: moving one to 0 would put the other at ``|hi - lo|``, where
        a float64 point keeps fewer digits of its distance to it). Exact data only; kept
        per law (a pure function of it)."""
        if "move" not in self._cache:
            self._cache["move"] = self._find_edge_move()
        return self._cache["move"]

    def _find_edge_move(self) -> EdgeMove | None:
        import sympy as sp

        lo, hi = (sp.sympify(v) for v in self.expr.bounds())
        if self.equation.zero_singular and bool(lo <= 0) and bool(0 <= hi):
            return None

        def on(end: Any, c: Fraction) -> bool:  # exact, after a cheap float filter
            return (bool(end.is_finite) and abs(float(end) - float(c)) <= 1e-9 * (1 + abs(c))
                    and sp.simplify(end - sp.Rational(c.numerator, c.denominator)) == 0)

        ends = [(c, sign) for c in self.equation.lead_real_roots() if c != 0
                for sign, end in ((1, lo), (-1, hi)) if on(end, c)]
        if len(ends) != 1:  # none, or both ends: moving one would take the other from 0
            return None
        (c, sign), = ends
        exact = sp.Rational(c.numerator, c.denominator)
        moved = self.expr - exact if sign > 0 else exact - self.expr
        if moved.is_positive is not True:
            return None
        return EdgeMove(c, sign, ExpressionLaw(moved, self.dps), self.dps)

    def _pieces_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals cut at the real zeros of the leading coefficient and of
        the discriminant inside them (a root of ``P`` escapes to infinity, or two meet:
        the density may be singular, e.g. at 0 for a compound free Poisson law whose jump
        law reaches 0, or at a critical value of a pushforward, docs/algebra.md), so that
        the quadrature's panels end at every singular point (theory §7.1)."""
        key = ("pieces", self._edge_dps())
        if key not in self._cache:
            with mpmath.workdps(self._edge_dps()):
                cuts = [mpmath.mpf(r.numerator) / r.denominator
                        for r in self.equation.lead_real_roots()]
                cuts += self.equation.discriminant_real_roots(self._edge_dps())
            out = []
            for a, b in self._intervals_mp():
                inner = sorted({c for c in cuts if a < c < b})
                ends = [a, *inner, b]
                out += list(zip(ends, ends[1:], strict=False))
            self._cache[key] = out
        return self._cache[key]

    def _hard_order(self, a: Any, b: Any) -> HardEdge | None:
        """:meth:`Law._hard_order` (a density ``~ x^(-m/(m+1))`` at ``a = 0``), else an
        edge at 0 with another exponent ``p``: a pushforward by a quadratic whose vertex
        is a soft edge of its base, e.g. ``pdf ~ x^(-1/4)`` (theory §7.1). The local
        exponent, measured as there on ``[1e-14 b, 1e-12 b]``, snapped to ``1 - j/k``
        (``k <= 8``) gives the map ``x = L v^k`` (``HardEdge(k - 1)``), under which
        ``pdf dx/dv ~ v^(j - 1)``; the quadrature's convergence test still decides
        (a correction series in another power only costs nodes)."""
        edge = super()._hard_order(a, b)
        if edge is not None or a != 0:
            return edge
        key = ("hard-exponent", float(b))
        if key not in self._cache:
            self._cache[key] = None
            with mpmath.workdps(REFERENCE_DPS):
                xs = [mpmath.mpf(b) * mpmath.mpf(10) ** -k for k in (14, 12)]
                dens = self._pdf_mp_batch(xs)
                if all(d > 0 for d in dens):
                    p = -float(mpmath.log10(dens[1] / dens[0])) / 2
                    snap = Fraction(1 - p).limit_denominator(8)
                    if 0 < snap < 1 and abs(1 - p - snap) < 0.02 and snap.denominator > 1:
                        self._cache[key] = HardEdge(snap.denominator - 1)
        return self._cache[key]

    def _atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """``[(location, mass), ...]`` sorted, at the working precision (exact values
        rounded)."""
        dps = mpmath.mp.dps
        key = ("atoms", dps)
        if key not in self._cache:
            self._cache[key] = [(_exact_number(x, dps), _exact_number(p, dps))
                                for x, p in self.expr.atoms()]
        return self._cache[key]

    def _atom_mp(self) -> mpmath.mpf:
        """The mass at 0 (0 when none)."""
        return mpmath.fsum(p for x, p in self._atoms_mp() if x == 0)

    def atoms(self) -> dict[Any, Any]:
        """``{location: mass}`` of every point mass, exact values rounded (empty when
        none)."""
        with self._ctx():
            return {self._out(x): self._out(p) for x, p in self._atoms_mp()}

    def support(self) -> tuple[Any, Any]:
        """``(lo, hi)``: the smallest and largest point of the support (edges and atoms)."""
        with self._ctx():
            lo, hi = self._hull_mp()
            return self._out(lo), self._out(hi)

    def _hull_mp(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        points = [e for ab in self._intervals_mp() for e in ab]
        points += [x for x, _ in self._atoms_mp()]
        return min(points), max(points)

    def entropy(self) -> Any:
        """Differential entropy of a law without atoms (ValueError otherwise)."""
        with self._ctx():
            if self._atoms_mp():
                raise ValueError("the law has atoms: its differential entropy is not defined")
        move = self._edge_move()
        return super().entropy() if move is None else move.inner.entropy()

    def mass(self) -> Any:
        """Total mass: the atoms plus the integrated density (a check, 1 up to the
        quadrature's accuracy); at a moved edge the moved law's."""
        move = self._edge_move()
        if move is not None:
            return move.inner.mass()
        if self.dps is None:
            return float(sum(p for _, p in self._atoms_mp())) + self.quadrature.mass_f64()
        with self._ctx():
            return +(mpmath.fsum(p for _, p in self._atoms_mp()) + self.quadrature.mass_mp())

    # ------------------------------------------------------------------ cdf, ppf
    def cdf(self, x: Any) -> Any:
        """``nu((-inf, x])``: the atoms at or below ``x`` plus the integrated density (at a
        moved edge from the moved law, :mod:`freege.numeric.edge_move`)."""
        move = self._edge_move()
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
            return _shape(out, xs)
        with self._ctx():
            return _map_batch(lambda vs: [self._cdf_public_mp(mpmath.mpf(v)) for v in vs], x)

    def sf(self, x: Any) -> Any:
        """``nu((x, inf)) = 1 - cdf(x)`` (at a moved edge from the moved law)."""
        move = self._edge_move()
        return super().sf(x) if move is None else move.sf(x, self._atom_at)

    def _atom_at(self, x: Any) -> Any:
        """``nu({x})`` elementwise: the exact mass of an atom at ``x``, else 0."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            return sum((np.where(xs == float(loc), float(p), 0.0)
                        for loc, p in self._atoms_mp()), np.zeros(xs.shape))
        with self._ctx():
            return _map_batch(lambda vs: [mpmath.fsum(p for loc, p in self._atoms_mp()
                                                      if mpmath.mpf(v) == loc) for v in vs], x)

    def ppf(self, q: Any) -> Any:
        """The quantile (:meth:`Law.ppf`; at a moved edge from the moved law)."""
        move = self._edge_move()
        return super().ppf(q) if move is None else move.ppf(q)

    def rvs(self, size: Any = None, random_state: Any = None) -> Any:
        """Samples (:meth:`Law.rvs`; at a moved edge the moved law's, mapped back)."""
        move = self._edge_move()
        return (super().rvs(size, random_state) if move is None
                else move.rvs(size, random_state))

    def _cdf_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isnan(x):
            return x
        atoms = mpmath.fsum(p for loc, p in self._atoms_mp() if x >= loc)
        return atoms + self.quadrature.cdf_mp(x)

    def _ppf_f64(self, qs: np.ndarray) -> np.ndarray:
        """The quantile: an atom where ``q`` falls in its jump, else the continuous part's
        cdf inverted at ``q`` less the atoms below."""
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
        pieces = sorted([(x, x) for x, _ in self._atoms_mp()] + list(self._intervals_mp()))
        for a, b in pieces:
            if q <= self._cdf_mp(b):
                if a == b or q <= self._cdf_mp(a):
                    return a
                return find_root(lambda x: self._cdf_mp(x) - q, (a, b),
                                 df=lambda x: self._pdf_mp_batch([x])[0],
                                 quantity=f"ppf({mpmath.nstr(q, 10)})", params=self.describe)
        return hi_s

    # ------------------------------------------------------------------ expectation
    def _expect(self, fn: Any, lb: Any, ub: Any) -> Any:
        move = self._edge_move()
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


def expression_law(expr: Any, dps: int | None = None) -> ExpressionLaw:
    """The numeric law of an expression of :mod:`freege.algebra` (``expr.law(dps)``,
    registered with :func:`freege.symbolic.expressions.register_numeric_law` below)."""
    return ExpressionLaw(expr, dps)


register_numeric_law(expression_law)

__all__ = ["ExpressionEquation", "ExpressionLaw", "expression_key", "expression_law"]
