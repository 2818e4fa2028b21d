"""The numeric law of an expression of the law algebra (docs/algebra.md, theory §3, §7).

:class:`ExpressionLaw` is a law of :mod:`freege.numeric.law_family` with a Cauchy
polynomial (:class:`freege.numeric.algebraic_law.AlgebraicLaw`, the theory §4 case law's
sibling) whose equations come from an
exact expression of :mod:`freege.algebra` (any free-probability law built from
Marchenko-Pastur, semicircle, free Poisson and atomic laws by affine maps, ⊠, ⊞ and
polynomial pushforwards) instead of a theory §4 case. Everything that solves the Cauchy
polynomial -- branch tracking, the float64/mpmath split, anchors, edges from the exact
discriminant, quadrature, the independent route of ``Law.estimate`` -- is the
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
from freege.numeric import compiled, law_recipe, roots
from freege.numeric.algebraic_law import AlgebraicLaw
from freege.numeric.edge_move import EdgeMove, find_edge_move, find_shift_move
from freege.numeric.expression_closed_forms import (
    ClosedForm,
    Float64Density,
    closed_form,
    density_mp,
)
from freege.numeric.law_family import REFERENCE_DPS
from freege.numeric.quadrature import HardEdge
from freege.numeric.s_transform import STransform
from freege.symbolic import expression_shapes  # noqa: F401 -- registers the shape route
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


class ExpressionLaw(AlgebraicLaw):
    """The numeric law of one expression of :mod:`freege.algebra` at one precision
    (``dps``: None for float64); the methods are :class:`freege.numeric.law_family.Law`'s.
    Attributes: ``expr``, ``text`` (``str(expr)``, which reads back to ``expr``), ``dps``."""

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
        super().__init__(dps, {"expression": self.text})
        self._key = expression_key(self.text)
        with mpmath.workdps(REFERENCE_DPS):
            self._mean30 = self._moment_mp(1)
        exact_atoms = expr.atoms()
        self.equation = ExpressionEquation(
            self._cauchy_poly, (), tuple, mean=float(self._mean30), describe=self.describe,
            matrix=self._cauchy_matrix(), cache_key=f"cauchy-algebra-{self._key}",
            zero_singular=bool(expr.is_positive) or any(x == 0 for x, _ in exact_atoms))

    def __repr__(self) -> str:
        return f"ExpressionLaw({self.text!r}, dps={self.dps})"

    def __str__(self) -> str:
        return self.text

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
        """:meth:`AlgebraicLaw._stieltjes_mp_batch`, and ``G(0)`` where 0 is a regular point (the
        attention laws' routes treat ``z = 0`` as the branch point it is for them):
        :meth:`_stieltjes_at_zero`; through the moved law at a moved edge
        (:meth:`_affine_image`)."""
        zs = [mpmath.mpmathify(v) for v in zs]
        move = self._affine_image()
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
        """:meth:`AlgebraicLaw._stieltjes_f64`; at a moved edge through the moved law where
        ``x - c`` is exact (:meth:`EdgeMove.stieltjes_f64`)."""
        move = self._affine_image()
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
        """:meth:`AlgebraicLaw._seed_f64`, whose anchors are continued along the real axis: a
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
        """:meth:`AlgebraicLaw._independent_one` (the independent route of
        :meth:`Law.estimate`), at a moved edge that of the moved law at the moved point
        (formed at 40 more digits than the route's)."""
        move = self._affine_image()
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
        """The support intervals: the closed form's ends (:meth:`_closed_form`), else the
        real roots of the discriminant over the exact enclosure
        (:func:`roots.support_intervals`, the interior anchors of :meth:`_anchors_f64`
        tracked in its batch), or the moved law's mapped back."""
        key = ("intervals", self._edge_dps())
        if key not in self._cache:
            form = self._closed_form(self._edge_dps())
            with mpmath.workdps(self._edge_dps()):
                if form is not None:
                    self._cache[key] = [(+form.A, +form.B)]
                    return self._cache[key]
            move = self._affine_image()
            with mpmath.workdps(self._edge_dps()):
                if move is not None:
                    self._cache[key] = move.intervals(move.inner._intervals_mp())
                else:  # the interior anchors tracked in the same batch (AlgebraicLaw)
                    probes = roots.Probes(self._interior_anchors)
                    self._cache[key] = roots.support_intervals(
                        self.equation, self._edge_dps(), self._bounds_mp(), probes)
                    self._cache[("interior", self._edge_dps())] = probes.found
        return self._cache[key]

    def _interior_anchors(self, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`AlgebraicLaw._interior_anchors`, tracked down to ``1e-3`` of the distance
        to ``a``, ``b`` and, only where it can be singular, 0."""
        if self.equation.zero_singular:
            return super()._interior_anchors(a, b)
        xs = a + (b - a) * np.linspace(0.05, 0.95, 19)
        dist = np.minimum(xs - a, b - xs)
        return xs, np.clip(1e-3 * dist, 1e-280, 1e-9 * self.equation.radius())

    def _closed_form(self, dps: int) -> ClosedForm | None:
        """The closed-form density of the law to ``dps`` digits, where it has one (MP, the
        semicircle, free Poisson with a point jump, affine images:
        :mod:`freege.numeric.expression_closed_forms`), else None (kept per law)."""
        key = ("closed", dps)
        if key not in self._cache:
            self._cache[key] = closed_form(self.expr, dps)
        return self._cache[key]

    def _pdf_f64(self, xs: np.ndarray) -> np.ndarray:
        """The closed form in float64 where the law has one (within a few units in the
        last place, :class:`Float64Density`), else :meth:`Law._pdf_f64`."""
        form = self._closed_form(REFERENCE_DPS)
        if form is None:
            return super()._pdf_f64(xs)
        if "closed-f64" not in self._cache:
            self._cache["closed-f64"] = Float64Density(form)
        return self._cache["closed-f64"](xs)

    def _pdf_mp_batch(self, xs: list[Any]) -> list[mpmath.mpf]:
        """The closed form at the working precision where the law has one, else
        :meth:`Law._pdf_mp_batch`."""
        form = self._closed_form(mpmath.mp.dps)
        if form is None:
            return super()._pdf_mp_batch(xs)
        return [density_mp(form, mpmath.mpf(v)) for v in xs]

    def _affine_image(self) -> EdgeMove | None:
        """The move of a singular end of the support to 0
        (:func:`freege.numeric.edge_move.find_edge_move`, theory §7.1), else of a far shift
        to 0 (:func:`freege.numeric.edge_move.find_shift_move`), or None. Exact data only;
        kept per law (a pure function of it)."""
        if "move" not in self._cache:
            self._cache["move"] = (
                find_edge_move(self.expr, self.equation, self.dps, ExpressionLaw)
                or find_shift_move(self.expr, self.dps, ExpressionLaw))
        return self._cache["move"]

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
        """:meth:`AlgebraicLaw._hard_order` (a density ``~ x^(-m/(m+1))`` at ``a = 0``), else an
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

    # ------------------------------------------------------------------ readouts, certify
    @property
    def nonnegative(self) -> bool:
        """Whether the expression is provably a law on ``[0, inf)`` (theory §5)."""
        return bool(self.expr.is_positive)

    def certify_data(self) -> Any:
        """The expression's exact data for the certified mode
        (:mod:`freege.numeric.certify`)."""
        from freege.numeric import certify_data

        return certify_data.expression_data(self)


def expression_law(expr: Any, dps: int | None = None) -> ExpressionLaw:
    """The numeric law of an expression of :mod:`freege.algebra` (``expr.law(dps)``,
    registered with :func:`freege.symbolic.expressions.register_numeric_law` below)."""
    return ExpressionLaw(expr, dps)


register_numeric_law(expression_law)

__all__ = ["ExpressionEquation", "ExpressionLaw", "expression_key", "expression_law"]
