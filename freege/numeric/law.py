"""Law objects: the theory §4 limiting laws as numbers, shaped like ``scipy.stats``.

``law(case, config, normalized=False, dps=None)`` (or ``Law(case, ratios, ...)``) returns
a :class:`Law` for one theory §4 case and one configuration (:class:`freege.params.Ratios`
or :class:`freege.params.Dims`). The tying rule is applied once, in the constructor
(:func:`resolve_case`): tied sharing makes ``value`` and ``mha`` the tied laws. ``Law`` is
a thin facade over modules with one job each:

* :mod:`freege.numeric.roots` -- the Cauchy polynomial ``P(G, z)`` on its physical branch
  (``pdf = -Im G(x + i0)/pi``, ``stieltjes``), support edges and the atom (theory §7, §7.1);
* :mod:`freege.numeric.quadrature` -- ``cdf``, mass and ``expect`` (edge-adapted
  Gauss-Legendre panels, convergence checked);
* :mod:`freege.numeric.s_transform` -- ``s_transform`` (theory §3);
* the exact symbolic moments for ``moment``/``mean``/``var`` and, above order
  :data:`SYMBOLIC_ORDER`, the series at infinity (:mod:`freege.numeric.law_moments`);
* :mod:`freege.numeric.law_conventions` -- scipy.stats' conventions at the edges (nan
  outside ``[0, 1]`` for ``ppf``/``isf``, exact ``cdf``/``sf`` at infinity, ``interval``
  over arrays);
* :mod:`freege.numeric.law_recipe` -- pickling: a law travels as its recipe and is rebuilt.

Float64 mode (``dps=None``) is vectorised over numpy arrays and aims at ~1e-13 (points
the float64 solve cannot resolve are recomputed at 30 digits). With ``dps`` every result
is an mpmath number computed under ``mpmath.workdps(dps)``; :meth:`Law.estimate` returns a
result with an accuracy estimate from an independent route. Every iterative step either
verifies or raises :class:`freege.errors.ConvergenceError`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import compiled, law_conventions, law_moments, law_recipe, quantile, roots
from freege.numeric.quadrature import HardEdge, Quadrature
from freege.numeric.s_transform import STransform
from freege.numeric.sampling_table import InverseCdfTable
from freege.params import CASES, TIED_CASES, Dims, Ratios, check_case, to_mpf

#: the precision floor of the mpmath mode (below it float64 is the better tool)
MIN_DPS = 15
#: cases the ``tied`` sharing scheme replaces by their tied counterpart (theory §4)
TIED_COUNTERPART = {"value": "value-tied", "mha": "mha-tied"}
#: digits of the reference computations behind float64 estimates
REFERENCE_DPS = 30
#: moments up to this order come from the exact symbolic moments, higher ones from the
#: series at infinity (:meth:`Law.moment`; the symbolic moments of the MHA laws grow past
#: what compiles near order 10)
SYMBOLIC_ORDER = 4


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


def resolve_case(case: str, sharing: str) -> str:
    """The theory §4 case for a sharing scheme -- the one tying rule: ``tied`` turns
    ``value`` into ``value-tied`` and ``mha`` into ``mha-tied``; none/gqa/mqa keep the
    independent laws (an explicitly tied case stays tied; it needs ``gV == gK``)."""
    check_case(case)
    if sharing == "tied":
        return TIED_COUNTERPART.get(case, case)
    return case


def parameter_values(ratios: Ratios) -> tuple[mpmath.mpf, ...]:
    """``(theta1, theta2, h, gK, gV, gO)`` at the ambient precision -- the one place
    ``beta -> theta`` is computed: ``theta1 = exp(beta^2) - 1``, ``theta2 = beta^2``
    (theory §2)."""
    b2 = to_mpf(ratios.beta) ** 2
    return (mpmath.expm1(b2), b2, to_mpf(ratios.h), to_mpf(ratios.gK),
            to_mpf(ratios.gV), to_mpf(ratios.gO))


def _moment_function(case: str, q: int, normalized: bool) -> Callable[..., Any]:
    """``m_q`` of the case (theory §3, §4) as a generated function (:mod:`compiled`)."""

    def build() -> Any:
        from freege.numeric import _symbolic

        return _symbolic.moment_expressions(case, q, normalized)[q - 1]

    return compiled.function(f"moment-{case}-{q}-{int(normalized)}", build)


def _cauchy_polynomial(case: str, normalized: bool) -> Any:
    """``P(G, z)`` as a sympy Poly (loaded only when a caller asks for it)."""
    from freege.numeric import _symbolic

    return _symbolic.cauchy_polynomial(case, normalized)


def _cauchy_matrix(case: str, normalized: bool) -> Callable[..., Any]:
    """The Cauchy polynomial's coefficient matrix (theory §3) as a generated function."""

    def build() -> Any:
        from freege.numeric import _symbolic

        return roots.coefficient_matrix(_symbolic.cauchy_polynomial(case, normalized))

    return compiled.function(f"cauchy-{case}-{int(normalized)}", build)


def _s_matrix(case: str, normalized: bool) -> Callable[..., Any]:
    """The S-relation's coefficient matrix (theory §3) as a generated function."""

    def build() -> Any:
        from freege.numeric import _symbolic

        return roots.coefficient_matrix(_symbolic.s_polynomial(case, normalized))

    return compiled.function(f"s-relation-{case}-{int(normalized)}", build)


def _zero_penalty_coefficients(case: str) -> Callable[..., list]:
    """Coefficients (highest degree first) of ``F(w, 0)`` in ``w`` (``F`` the ridge
    polynomial of the case) as a generated function. ``F(w, 0)`` is a multiple of
    ``Pi(w)^2`` (theory §5) whose roots are the ratios of the free Poisson and
    Marchenko-Pastur factors; the smallest is ``w(0+) = 1 - atom``."""

    def build() -> Any:
        from freege.numeric import _symbolic

        ridge = _symbolic.ridge_polynomial(case)  # gens (w, lam)
        coeffs = [0] * (ridge.degree(ridge.gens[0]) + 1)
        for (i, j), c in ridge.terms():
            if j == 0:
                coeffs[i] = c
        return coeffs[::-1]

    return compiled.function(f"ridge-at-zero-{case}", build)


class Law:
    """One theory §4 law at one configuration; see the module docstring for the methods.

    Attributes: ``case`` (a name of :data:`freege.symbolic.cases.CASES`, after the tying
    rule), ``ratios`` (:class:`freege.params.Ratios`), ``normalized`` (divide by the mean,
    theory §3) and ``dps`` (None: float64).
    """

    def __init__(
        self, case: str, ratios: Ratios, normalized: bool = False, dps: int | None = None
    ) -> None:
        if not isinstance(ratios, Ratios):
            raise ValueError(f"ratios must be freege.params.Ratios (got {type(ratios)})")
        case = resolve_case(case, ratios.sharing)
        if case in TIED_CASES and ratios.gV != ratios.gK:
            raise ValueError(
                f"case {case} ties V_r = K_r and needs gV == gK (got gK={ratios.gK}, "
                f"gV={ratios.gV})"
            )
        self.case = case
        self.ratios = ratios
        self.normalized = bool(normalized)
        self.dps = check_dps(dps)
        self.describe = {"case": self.case, **ratios.as_dict(), "normalized": self.normalized}
        with mpmath.workdps(REFERENCE_DPS):
            self._mean30 = self._moment_mp(1)
        self.equation = roots.CauchyEquation(
            functools.partial(_cauchy_polynomial, case, self.normalized), compiled.ARGUMENTS,
            self.parameter_values, mean=float(self._mean30), describe=self.describe,
            matrix=_cauchy_matrix(case, self.normalized),
            cache_key=f"cauchy-{case}-{int(self.normalized)}")
        self.quadrature = Quadrature(self._intervals_mp, self._hard_order, self._pdf_f64,
                                     self._pdf_mp_batch, self.describe)
        self._cache: dict[Any, Any] = {}

    def __repr__(self) -> str:
        r = self.ratios
        return (
            f"Law({self.case!r}, beta={r.beta}, h={r.h}, gK={r.gK}, gV={r.gV}, gO={r.gO}, "
            f"normalized={self.normalized}, dps={self.dps})"
        )

    # ------------------------------------------------------------------ identity
    def recipe(self) -> law_recipe.Recipe:
        """What this law is rebuilt from (:mod:`freege.numeric.law_recipe`): the case after
        the tying rule, the ratios (sharing included), ``normalized`` and ``dps``."""
        r = self.ratios
        return law_recipe.recipe("law", self.case, (r.beta, r.h, r.gK, r.gV, r.gO, r.sharing),
                                 self.normalized, self.dps)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the recipe only; the law is rebuilt on load (its memos are recomputed,
        to the same bits: a law is a pure function of its recipe)."""
        return law_recipe.reduce(self.recipe())

    def _identity(self) -> tuple[Any, ...]:
        """What the answers depend on: the sharing scheme only chooses the case."""
        r = self.ratios
        return self.case, r.beta, r.h, r.gK, r.gV, r.gO, self.normalized, self.dps

    def __eq__(self, other: object) -> bool:
        """Equal when the case (after tying), the ratios, ``normalized`` and ``dps`` are;
        ``Law("mha", tied ratios) == Law("mha-tied", the same ratios untied)``."""
        if not isinstance(other, Law):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    # ------------------------------------------------------------------ plumbing
    def with_dps(self, dps: int | None) -> Law:
        """The same law evaluated at another precision (None: float64)."""
        return Law(self.case, self.ratios, self.normalized, dps)

    def as_normalized(self) -> Law:
        """``nubar``: this law divided by its mean (theory §3)."""
        return self if self.normalized else Law(self.case, self.ratios, True, self.dps)

    def _ctx(self) -> Any:
        return mpmath.workdps(self.dps if self.dps is not None else REFERENCE_DPS)

    def _out(self, value: mpmath.mpf | mpmath.mpc) -> Any:
        """mpmath number in dps mode, Python float/complex in float64 mode."""
        if self.dps is not None:
            return +value
        return complex(value) if isinstance(value, mpmath.mpc) else float(value)

    # ------------------------------------------------------------------ working precision
    # The public working-precision interface used by :mod:`freege.numeric.readout` and
    # :mod:`freege.numeric.certify` (everything at the *ambient* mpmath precision).
    def parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """``(theta1, theta2, h, gK, gV, gO)`` at the ambient precision (theory §2)."""
        return parameter_values(self.ratios)

    def atom_mass(self) -> mpmath.mpf:
        """The mass at 0 at the ambient precision (0 when there is no atom, theory §7)."""
        with mpmath.workprec(mpmath.mp.prec):
            return +self._atom_mp()

    def stieltjes_batch(self, zs: list[Any]) -> list[mpmath.mpc]:
        """Physical ``G(z)`` at the ambient precision for a list of points (theory §3, §7.1);
        real ``z`` means ``z + i0``."""
        return self._stieltjes_mp_batch(zs)

    # ------------------------------------------------------------------ moments
    def _moment_mp(self, q: int) -> mpmath.mpf:
        return mpmath.mpf(_moment_function(self.case, q, self.normalized)(
            *self.parameter_values(), compiled.mp_rational))

    def moment(self, order: int) -> Any:
        """``m_q = int x^q dnu`` (``q = order``, scipy.stats' keyword), any integer
        ``q >= 0`` (``m_0 = 1``, like scipy). Orders up to :data:`SYMBOLIC_ORDER` come from
        the exact symbolic moments (theory §3, §4); higher ones from the series of the
        physical branch at infinity (:func:`freege.numeric.law_moments.laurent_moments`,
        ``O(q^2)`` operations), computed at two precisions that must agree to the output's
        precision and whose first :data:`SYMBOLIC_ORDER` terms must equal the symbolic
        moments (else :class:`ConvergenceError`). Float64 results are rounded from at
        least 30 digits."""
        q = order
        if isinstance(q, bool) or not isinstance(q, int | float | np.integer | np.floating) \
                or not math.isfinite(q) or int(q) != q or q < 0:
            raise ValueError(f"order: moment order q must be an integer >= 0 (got {q!r})")
        q = int(q)
        if q == 0:
            return self._out(mpmath.mpf(1))
        with self._ctx():
            if q <= SYMBOLIC_ORDER:
                return self._out(self._moment_mp(q))
            return self._out(self._series_moment(q))

    def _series_moment(self, q: int) -> mpmath.mpf:
        """``m_q`` from the Laurent series at infinity (theory §3), verified: at ``p + 10``
        and ``p + 20`` digits (``p`` the ambient precision) the two values agree to
        ``10^-p`` relative, and the first :data:`SYMBOLIC_ORDER` terms equal the exact
        symbolic moments (evaluated at ``p`` digits) to ``10^(2-p)`` relative."""
        digits = mpmath.mp.dps
        values = []
        for extra in (10, 20):
            with mpmath.workdps(digits + extra):
                values.append(law_moments.laurent_moments(self._cauchy_rows(), q,
                                                          self.describe))
        low, high = values
        # the symbolic moments are evaluated at p digits: a few units of rounding allowed
        checks = [(f"m_{q} at two precisions", low[q], high[q], digits)]
        checks += [(f"m_{k} against the exact moment", high[k], self._moment_mp(k), digits - 2)
                   for k in range(1, SYMBOLIC_ORDER + 1)]
        for what, a, b, good in checks:
            if abs(a - b) > mpmath.mpf(10) ** -good * abs(b):
                raise ConvergenceError(f"moment({q})", f"{what} differ by "
                                       f"{mpmath.nstr(abs(a - b) / abs(b), 3)} (relative)",
                                       self.describe)
        return +high[q]

    def _cauchy_rows(self) -> list[list[Any]]:
        """The Cauchy polynomial's coefficient matrix at the ambient precision (the hook a
        law of another kind overrides, :mod:`freege.numeric.expression_law`)."""
        return _cauchy_matrix(self.case, self.normalized)(*self.parameter_values(),
                                                          compiled.mp_rational)

    def mean(self) -> Any:
        """``m_1`` (1 for a normalized law)."""
        return self.moment(1)

    def var(self) -> Any:
        """``m_2 - m_1^2``."""
        with self._ctx():
            return self._out(self._moment_mp(2) - self._moment_mp(1) ** 2)

    def std(self) -> Any:
        """``sqrt(var)``."""
        with self._ctx():
            return self._out(mpmath.sqrt(self._moment_mp(2) - self._moment_mp(1) ** 2))

    def stats(self, moments: str = "mv") -> Any:
        """Like ``scipy.stats``: the requested of mean ``m``, variance ``v``, skewness
        ``s`` and excess kurtosis ``k`` (a tuple, or one value for one letter), from the
        exact moments (theory §3, §4)."""
        if not isinstance(moments, str) or not moments or set(moments) - set("mvsk"):
            raise ValueError(f"moments must be letters of 'mvsk' (got {moments!r})")
        with self._ctx():
            m1, m2, m3, m4 = (self._moment_mp(q) for q in (1, 2, 3, 4))
            var = m2 - m1**2
            mu3 = m3 - 3 * m1 * m2 + 2 * m1**3
            mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
            table = {"m": m1, "v": var, "s": mu3 / var**1.5, "k": mu4 / var**2 - 3}
            out = tuple(self._out(table[c]) for c in moments)
        return out[0] if len(out) == 1 else out

    def entropy(self) -> Any:
        """Differential entropy ``-int pdf log pdf`` (scipy.stats' ``entropy``), for a law
        without atom (a law with an atom at 0 has none: ValueError)."""
        with self._ctx():
            if self._atom_mp() > 0:
                raise ValueError("the law has an atom at 0: its differential entropy is "
                                 "not defined")
        if self.dps is None:
            return self.quadrature.entropy_f64()
        with self._ctx():
            return +self.quadrature.entropy_mp()

    # ------------------------------------------------------------------ support, atoms
    def _edge_dps(self) -> int:
        return self.dps if self.dps is not None else roots.FLOAT64_EDGE_DPS

    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals (:func:`roots.support_intervals`), the interior anchors of
        every candidate interval (:meth:`_interior_anchors`) tracked in the same batch."""
        key = ("intervals", self._edge_dps())
        if key not in self._cache:
            probes = roots.Probes(self._interior_anchors)
            self._cache[key] = roots.support_intervals(self.equation, self._edge_dps(),
                                                       probes=probes)
            self._cache[("interior", self._edge_dps())] = probes.found
        return self._cache[key]

    def _interior_anchors(self, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
        """The interior anchors of an interval ``(a, b)`` (:meth:`_anchors_f64`): 19 points
        ``a + (b - a) (0.05..0.95)`` (none within ``NEAR_ZERO S`` of 0, ``S``:
        :meth:`roots.CauchyEquation.scale`), and the ``eta_min`` of :meth:`_tracked_f64`
        for them (``a``, ``b`` and 0 are the nearest edge or pole of a point inside)."""
        floor = roots.NEAR_ZERO * self.equation.scale()
        xs = a + (b - a) * np.linspace(0.05, 0.95, 19)
        xs = xs[(xs > a) & (xs < b) & (np.abs(xs) >= floor)]
        dist = np.min(np.abs(xs[:, None] - np.array([a, b, 0.0])[None, :]), axis=1)
        return xs, np.clip(1e-3 * dist, 1e-280, 1e-9 * self.equation.radius())

    def intervals(self) -> list[tuple[Any, Any]]:
        """Intervals of the continuous part: a sorted list of ``(lo, hi)`` (one interval
        for every theory §4 law seen so far; several are allowed). Edges are real roots of
        the discriminant, located to working precision (theory §7)."""
        with self._ctx():
            return [(self._out(a), self._out(b)) for a, b in self._intervals_mp()]

    def support(self) -> tuple[Any, Any]:
        """``(lo, hi)`` of the whole law, like ``scipy.stats``: the smallest and largest
        edge, with ``lo = 0`` when there is an atom at 0 (see :meth:`intervals` for the
        continuous part's intervals)."""
        with self._ctx():
            ivs = self._intervals_mp()
            lo = ivs[0][0] if ivs else mpmath.mpf(0)
            hi = ivs[-1][1] if ivs else mpmath.mpf(0)
            if self._atom_mp() > 0:
                lo = min(lo, mpmath.mpf(0))
            return self._out(lo), self._out(hi)

    def _atom_mp(self) -> mpmath.mpf:
        key = ("atom", self._edge_dps())
        if key not in self._cache:
            self._cache[key] = roots.atom_at_zero(self.equation, self._edge_dps(),
                                                  self._continuous_mass)
        return self._cache[key]

    def _continuous_mass(self, precise: bool) -> float:
        """Mass of the continuous part (float64), to pick the atom among the exact
        candidates: ``w(0+)``, the smallest positive root of the ridge polynomial at
        ``lam = 0`` (the degrees of freedom at vanishing penalty count the non-zero
        eigenvalues, theory §5). ``F(w, 0)`` factors into ``(w - g)^2`` over the ratios
        ``g`` of the law (1, h, gV, gO; gK for the tied laws), so no quadrature is needed.
        Float64 roots of that non-square-free polynomial are good to ~1e-4 at a fourfold
        root (~1e-2 where ratios next to 1 make a cluster); ``precise`` finds them at
        ``2 REFERENCE_DPS`` digits (``mpmath.polyroots``, ~15 digits in a cluster), which
        tells ``gO = 0.999`` (an atom of 1e-3) from 1 (issue 16). Enough to choose
        between exact candidates (:func:`roots.atom_at_zero`)."""
        dps = 2 * REFERENCE_DPS if precise else REFERENCE_DPS
        with mpmath.workdps(dps):
            coeffs = [mpmath.mpf(c) for c in _zero_penalty_coefficients(self.case)(
                *self.parameter_values(), compiled.mp_rational)]
            while coeffs and coeffs[0] == 0:
                coeffs = coeffs[1:]
            if not precise:
                return float(min(r.real for r in np.roots([float(c) for c in coeffs])
                                 if r.real > 1e-12))
            try:
                found = mpmath.polyroots(coeffs, maxsteps=400, extraprec=mpmath.mp.prec)
            except mpmath.libmp.libhyper.NoConvergence as exc:
                raise ConvergenceError("continuous mass w(0+)", "polyroots did not converge",
                                       self.describe) from exc
            return float(min(mpmath.re(r) for r in found if mpmath.re(r) > 1e-12))

    def atoms(self) -> dict[Any, Any]:
        """``{location: mass}`` of the point masses: at most one, at 0 (rank deficiency,
        theory §4, §7), from ``lim_{z->0} z G(z)``. Empty when there is none."""
        with self._ctx():
            mass = self._atom_mp()
            return {self._out(mpmath.mpf(0)): self._out(mass)} if mass > 0 else {}

    # ------------------------------------------------------------------ Cauchy transform
    def _edges_f64(self) -> np.ndarray:
        return np.array([float(e) for ab in self._intervals_mp() for e in ab])

    def _tracked_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Physical G in float64 by vertical tracking (:meth:`roots.CauchyEquation.track`)
        and its error estimate, no rescue; the tracking stops well below the distance to
        the nearest edge or to 0 (pole, hard edge)."""
        points = np.concatenate([self._edges_f64(), self._singular_f64()])
        dist = np.min(np.abs(zs[:, None] - points[None, :]), axis=1)
        eta_min = np.clip(1e-3 * dist, 1e-280, 1e-9 * self.equation.radius())
        return self.equation.stieltjes_f64(zs, eta_min)

    def _singular_f64(self) -> np.ndarray:
        """The singular points besides the edges, where vertical tracking stops short
        (:meth:`_tracked_f64`): 0, the atom's pole or a hard edge (theory §7.1)."""
        return np.zeros(1)

    def _anchors_f64(self, k: int, t_lo: float, t_hi: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, logit x, G(x + i0))`` at the fixed anchors of support interval ``k``
        (``[a, b]``, ``w = b - a``) that can be the nearest anchor (in ``logit x``) of a
        point with logit in ``[t_lo, t_hi]``: 19 interior points ``p + (q - p)
        (0.05..0.95)`` of every candidate interval ``(p, q)`` between consecutive
        candidate edges (:func:`roots.support_intervals`) that makes up ``[a, b]`` (of
        ``[a, b]`` itself when the candidates are not known: a law that locates its
        support otherwise), tracked vertically, then the edge chains ``a + w 2^-j`` and
        ``b - w 2^-j`` (``j = 5, 7, .., 49``), each point continued from the one before
        (:meth:`roots.CauchyEquation.continue_f64`) until a step is in doubt. A chain is
        one fixed sequence (each point depends only on the one before), so it is continued
        only as far as asked: until its last point is at least as near its edge as
        ``t_lo`` (``t_hi``), or it ends. Every anchor further along lies beyond that last
        one, so the nearest anchor of every point asked for is the one the whole chain
        would give. The interior anchors are tracked in the batch that located the support
        (:meth:`_intervals_mp`; the same values as a track of their own). Kept per law (a
        pure function of the law: a longer prefix of the same sequences never changes a
        result). Points within ``NEAR_ZERO S`` of 0 (``S``:
        :meth:`roots.CauchyEquation.scale`) are left out (mpmath there, §7.1)."""
        key = ("anchors", k)
        if key not in self._cache:
            a, b = (float(e) for e in self._intervals_mp()[k])
            probed = self._cache.get(("interior", self._edge_dps()), {})
            parts = sorted(pq for pq in probed if a <= pq[0] and pq[1] <= b)
            if parts:  # tracked with the support's midpoints
                xs = np.concatenate([probed[pq][0] for pq in parts])
                g = np.concatenate([probed[pq][1] for pq in parts])
            else:  # a law that locates its support otherwise
                xs = self._interior_anchors(a, b)[0]
                g, _ = self._tracked_f64(xs + 0j)
            good = np.isfinite(g) & (g.imag < 0)
            self._cache[key] = _EdgeChains(self.equation, a, b,
                                           roots.NEAR_ZERO * self.equation.scale(),
                                           xs[good], g[good])
        return self._cache[key].anchors(t_lo, t_hi)

    def _seed_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Physical G in float64 and its error estimate, no rescue. Real points inside a
        support interval are continued from the interval's nearest anchor
        (:meth:`_anchors_f64`, :meth:`roots.CauchyEquation.continue_f64`: one companion
        solve per point, vectorised); the others, and points whose root is in doubt
        there, are tracked vertically (:meth:`_tracked_f64`)."""
        g = np.full(zs.shape, np.nan + 0j)
        err = np.full(zs.shape, np.inf)
        todo = np.ones(zs.shape, dtype=bool)
        # theory §7.1: near 0 (hard edge, atom pole) the expanded polynomial loses float64
        # precision in its coefficients; no float64 seed there (mpmath tracks instead)
        near = np.abs(zs) < roots.NEAR_ZERO * self.equation.scale()
        todo &= ~near
        real = (zs.imag == 0) & todo
        for k, (lo, hi) in enumerate(self._intervals_mp()):
            here = np.flatnonzero(real & (zs.real > float(lo)) & (zs.real < float(hi)))
            if not here.size:
                continue
            t = _logit(zs.real[here], float(lo), float(hi))
            xa, ta, ga = self._anchors_f64(k, float(np.min(t)), float(np.max(t)))
            if not xa.size:
                continue
            j = np.clip(np.searchsorted(ta, t), 1, ta.size - 1) if ta.size > 1 else 0
            if ta.size > 1:
                j = np.where(np.abs(ta[j - 1] - t) < np.abs(ta[j] - t), j - 1, j)
            j = np.broadcast_to(j, t.shape)
            gk, ek, ok = self.equation.continue_f64(zs.real[here], xa[j], ga[j])
            g[here[ok]], err[here[ok]] = gk[ok], ek[ok]
            todo[here[ok]] = False
        if todo.any():
            g[todo], err[todo] = self._tracked_f64(zs[todo])
        return g, err

    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        """Physical G in float64; points whose error estimate (the solve's, plus the
        float64 rounding of ``Im G`` inside the support, of ``G`` elsewhere) exceeds
        :data:`roots.FLOAT64_RTOL` of that size, and points within ``NEAR_ZERO S`` of 0 (``S``:
        :meth:`roots.CauchyEquation.scale`), are recomputed at 30 digits (theory §7.1)."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g, err = self._seed_f64(zs)
        inside = (zs.imag == 0) & self._inside(zs.real)
        scale = np.where(inside, np.abs(g.imag), np.abs(g))
        with np.errstate(all="ignore"):
            err = err + np.finfo(float).eps * scale  # the float64 rounding of what is used
            bad = ~(err <= roots.FLOAT64_RTOL * np.maximum(scale, 1e-300))
        todo = np.flatnonzero(bad)
        if todo.size:
            with mpmath.workdps(roots.RESCUE_DPS):
                fixed = self._stieltjes_mp_batch([_mp_arg(v) for v in zs[todo]], g[todo])
            g[todo] = [complex(v) for v in fixed]
        return self._real_outside(zs, g)

    def _real_outside(self, zs: np.ndarray, g: np.ndarray) -> np.ndarray:
        """On the real axis outside the support G is real (theory §7.1)."""
        real = zs.imag == 0
        inside = self._inside(zs.real)
        return np.where(real & ~inside, g.real + 0j, g)

    def _inside(self, x: np.ndarray) -> np.ndarray:
        inside = np.zeros(np.shape(x), dtype=bool)
        for a, b in self._intervals_mp():
            inside |= (x > float(a)) & (x < float(b))
        return inside

    def _stieltjes_mp_batch(
        self, zs: list[Any], seeds: np.ndarray | None = None
    ) -> list[mpmath.mpc]:
        """Physical G at the ambient precision: float64 seeds for all points in one
        tracked batch, then each polished (:meth:`roots.CauchyEquation.stieltjes_mp`);
        real points inside the support near 0 (no float64 seed there) are continued
        along their interval from one tracked point
        (:meth:`roots.CauchyEquation.density_path_mp`), negative ones near 0 along the
        negative axis (:meth:`roots.CauchyEquation.negative_path_mp`)."""
        zs = [mpmath.mpmathify(v) for v in zs]
        if not zs:
            return []
        if seeds is None:
            seeds = self._seed_f64(np.array([complex(v) for v in zs]))[0]
        out: list[Any] = [None] * len(zs)
        paths: dict[int, list[int]] = {}
        negative: list[int] = []
        near = roots.NEAR_ZERO * self.equation.scale()
        for k, zv in enumerate(zs):
            real = mpmath.im(zv) == 0
            where = [j for j, (a, b) in enumerate(self._intervals_mp())
                     if real and a < mpmath.re(zv) < b]
            if where and zv.real < near:
                paths.setdefault(where[0], []).append(k)
                continue
            if real and -near < zv.real < 0:
                negative.append(k)
                continue
            g = self.equation.stieltjes_mp(zv, seeds[k], bool(where))
            out[k] = mpmath.mpc(g.real, 0) if real and not where else g
        for j, ks in paths.items():
            lower, upper = self._intervals_mp()[j]
            path = self.equation.density_path_mp([zs[k] for k in ks], lower, upper)
            for k, g in zip(ks, path, strict=True):
                out[k] = g
        if negative:
            top = max([b for _, b in self._intervals_mp()], default=mpmath.mpf(0))
            values = self.equation.negative_path_mp([zs[k].real for k in negative], top)
            for k, g in zip(negative, values, strict=True):
                out[k] = mpmath.mpc(g, 0)
        return out

    def stieltjes(self, z: Any) -> Any:
        """``G(z) = int dnu(x)/(z - x)`` (theory §3). Real ``z`` means ``z + i0`` (so
        ``Im G <= 0`` and the density is ``-Im G/pi``); vectorised in float64 mode."""
        if self.dps is None:
            zs = np.asarray(z, dtype=complex)
            return _shape(self._stieltjes_f64(zs.ravel()), zs)
        with self._ctx():
            return _map_batch(lambda vs: [+g for g in self._stieltjes_mp_batch(vs)], z)

    # ------------------------------------------------------------------ density
    def pdf(self, x: Any) -> Any:
        """Density of the continuous part, ``-Im G(x + i0)/pi`` (theory §7.1): never
        negative, exactly 0 outside the open support intervals (edges included)."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            return _shape(self._pdf_f64(xs.ravel()), xs)
        with self._ctx():
            return _map_batch(self._pdf_mp_batch, x)

    def logpdf(self, x: Any) -> Any:
        """``log pdf`` (``-inf`` outside the support), like ``scipy.stats``."""
        return _log(self.pdf(x), self.dps)

    def _pdf_f64(self, xs: np.ndarray) -> np.ndarray:
        out = np.zeros(xs.shape)
        inside = self._inside(xs)
        if inside.any():
            out[inside] = -self._stieltjes_f64(xs[inside] + 0j).imag / math.pi
        out[np.isnan(xs)] = np.nan  # scipy.stats: nan in, nan out
        return np.maximum(out, 0.0)

    def _pdf_mp_batch(self, xs: list[Any]) -> list[mpmath.mpf]:
        xs = [mpmath.mpf(v) for v in xs]
        inside = [any(a < v < b for a, b in self._intervals_mp()) for v in xs]
        gs = iter(self._stieltjes_mp_batch([v for v, k in zip(xs, inside, strict=True) if k]))
        return [max(-mpmath.im(next(gs)) / mpmath.pi, mpmath.mpf(0)) if k
                else mpmath.mpf("nan") if mpmath.isnan(v) else mpmath.mpf(0)
                for v, k in zip(xs, inside, strict=True)]

    def _hard_order(self, a: Any, b: Any) -> HardEdge | None:
        """The hard edge at ``a = 0`` (``pdf ~ x^(-m/(m+1))``, ``m`` ratios equal to 1;
        theory §7.1), from the local exponents of the density on ``[1e-14 b, 1e-13 b]`` and
        ``[1e-13 b, 1e-12 b]`` (computed at 30 digits, correct at tiny x): their mean snapped
        to ``m/(m+1)``, ``m <= 8``; None at a soft edge or when it does not snap (the
        quadrature's convergence test then decides). The deviations ``delta`` of the two
        exponents from ``m/(m+1)`` give the edge's reach: a correction ``A x^p`` to the
        series changes the exponent by ``delta = p A x^p``, so ``p`` is the slope of
        ``log delta`` and ``A x^p`` reaches 1 at ``x (p/delta)^(1/p)``; ``p`` is at least
        ``1/(m+1)`` (the series' step)."""
        if a != 0:
            return None
        key = ("hard", float(b))
        if key not in self._cache:
            with mpmath.workdps(REFERENCE_DPS):
                xs = [mpmath.mpf(b) * mpmath.mpf(10) ** -k for k in (14, 13, 12)]
                dens = self._pdf_mp_batch(xs)
                edge = None
                if all(d > 0 for d in dens):
                    lo, hi = (-float(mpmath.log10(dens[k + 1] / dens[k])) for k in (0, 1))
                    m = min(range(0, 9), key=lambda j: abs((lo + hi) / 2 - j / (j + 1)))
                    if m > 0 and abs((lo + hi) / 2 - m / (m + 1)) < 0.02:
                        edge = HardEdge(m, _reach(lo - m / (m + 1), hi - m / (m + 1), m,
                                                  float(xs[2]) / math.sqrt(10)))
            self._cache[key] = edge
        return self._cache[key]

    # ------------------------------------------------------------------ cdf and inverse
    def cdf(self, x: Any) -> Any:
        """``nu((-inf, x])``: the atom at 0 (if ``x >= 0``) plus the integrated density
        (:mod:`freege.numeric.quadrature`); exactly 0 or 1 at ``-inf``/``+inf`` and beyond
        the support, nan at nan (scipy.stats, :mod:`freege.numeric.law_conventions`)."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            flat = xs.ravel()
            out, todo = law_conventions.cdf_outside_f64(flat, self._hull_f64)
            if todo.any():
                atom = float(self._atom_mp())
                inner = flat[todo]
                out[todo] = np.clip(self.quadrature.cdf_f64(inner)
                                    + np.where(inner >= 0, atom, 0.0), 0.0, 1.0)
            return _shape(out, xs)
        with self._ctx():
            return _map_batch(lambda vs: [self._cdf_public_mp(mpmath.mpf(v)) for v in vs], x)

    def _hull_f64(self) -> tuple[float, float]:
        lower, upper = self._hull_mp()
        return float(lower), float(upper)

    def _hull_mp(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        """Below ``lower`` the cdf is 0 (below the atom at 0 and the continuous part), from
        ``upper`` on it is 1 (the largest edge)."""
        ivs = self._intervals_mp()
        if not ivs:
            return mpmath.mpf(0), mpmath.mpf(0)
        return min(mpmath.mpf(0), ivs[0][0]), ivs[-1][1]

    def _cdf_public_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        """:meth:`cdf` at one point, the conventions first (no work at ``+-inf``)."""
        fixed = law_conventions.cdf_outside_mp(x, self._hull_mp)
        return self._cdf_mp(x) if fixed is None else +fixed

    def _cdf_mp(self, x: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isnan(x):
            return x
        total = self._atom_mp() if x >= 0 else mpmath.mpf(0)
        return total + self.quadrature.cdf_mp(x)

    def logcdf(self, x: Any) -> Any:
        """``log cdf`` like ``scipy.stats`` (``-inf`` below the support)."""
        return _log(self.cdf(x), self.dps)

    def logsf(self, x: Any) -> Any:
        """``log sf`` like ``scipy.stats`` (``-inf`` above the support)."""
        return _log(self.sf(x), self.dps)

    def sf(self, x: Any) -> Any:
        """``nu((x, inf)) = 1 - cdf(x)`` (exactly 1 or 0 at ``-inf``/``+inf``)."""
        if self.dps is None:
            return 1.0 - self.cdf(x)
        with self._ctx():
            return _map_batch(lambda vs: [1 - self._cdf_public_mp(mpmath.mpf(v)) for v in vs],
                              x)

    def mass(self) -> Any:
        """Total mass, atom plus the integrated density: 1 up to the quadrature's
        accuracy (a check; :class:`ConvergenceError` when the quadrature fails)."""
        if self.dps is None:
            return float(self._atom_mp()) + self.quadrature.mass_f64()
        with self._ctx():
            return +(self._atom_mp() + self.quadrature.mass_mp())

    def ppf(self, q: Any) -> Any:
        """The quantile ``inf{x : cdf(x) >= q}`` for ``q`` in ``[0, 1]`` (0 for ``q`` up to
        the atom at 0; ``ppf(0)``, ``ppf(1)`` the ends of the support), nan elsewhere
        (scipy.stats, :mod:`freege.numeric.law_conventions`): float64 by inverting the
        quadrature's cdf series (:meth:`freege.numeric.quadrature.Quadrature.ppf_f64`),
        mpmath from that float64 quantile (:func:`freege.numeric.quantile.ppf_mp`: a
        verified bracket around it)."""
        if self.dps is None:
            qs = law_conventions.probabilities_f64(q)
            return _shape(self._ppf_f64(qs.ravel()), qs)
        with self._ctx():
            return _map_batch(
                lambda vs: [self._ppf_mp(law_conventions.probability_mp(v)) for v in vs], q)

    def _ppf_f64(self, qs: np.ndarray) -> np.ndarray:
        if np.isnan(qs).all():
            return qs.copy()
        lo_s, hi_s = self.support()
        atom = float(self._atom_mp())
        out = np.full(qs.shape, float(hi_s))
        out[qs <= atom] = float(lo_s)
        out[np.isnan(qs)] = np.nan
        todo = (qs > atom) & (qs < 1)
        if todo.any():
            out[todo] = self.quadrature.ppf_f64(qs[todo] - atom)
        return out

    def _ppf_mp(self, q: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isnan(q):
            return q
        atom = self._atom_mp()
        ivs = self._intervals_mp()
        if q <= atom and atom > 0:
            return mpmath.mpf(0)
        if q <= 0:
            return ivs[0][0]
        if q >= 1:
            return ivs[-1][1]
        return quantile.ppf_mp(self.quadrature, q - atom, 1 - atom, self._ppf_guess(q), ivs,
                               lambda x: self._pdf_mp_batch([x])[0],
                               f"ppf({mpmath.nstr(q, 10)})", self.describe)

    def _ppf_guess(self, q: mpmath.mpf) -> float:
        """The float64 quantile that starts the working-precision one
        (:func:`freege.numeric.quantile.ppf_mp`)."""
        return float(self._float64().ppf(float(q)))

    def _float64(self) -> Law:
        """This law in float64 (kept: a pure function of the law)."""
        if "f64" not in self._cache:
            self._cache["f64"] = self.with_dps(None)
        return self._cache["f64"]

    def isf(self, q: Any) -> Any:
        """Inverse survival function, ``ppf(1 - q)`` (nan outside ``[0, 1]``)."""
        if self.dps is None:
            return self.ppf(1.0 - np.asarray(q, dtype=float))
        with self._ctx():
            return self.ppf(_map_batch(lambda vs: [1 - mpmath.mpf(v) for v in vs], q))

    def median(self) -> Any:
        """``ppf(1/2)``."""
        return self.ppf(0.5 if self.dps is None else mpmath.mpf(1) / 2)

    def interval(self, confidence: Any) -> tuple[Any, Any]:
        """The central interval with the given probability: ``(ppf((1 - c)/2),
        ppf((1 + c)/2))``, elementwise over an array of confidences like scipy.stats (nan
        gives nan; a confidence outside ``[0, 1]`` is a ValueError)."""
        if self.dps is None:
            c = np.asarray(confidence, dtype=float)
            law_conventions.check_confidence(c)
            return self.ppf((1 - c) / 2), self.ppf((1 + c) / 2)
        with self._ctx():
            c = _map_batch(lambda vs: [mpmath.mpf(v) for v in vs], confidence)
            law_conventions.check_confidence(c)
            return self.ppf((1 - c) / 2), self.ppf((1 + c) / 2)

    def rvs(self, size: Any = None, random_state: Any = None) -> Any:
        """Samples by inverse cdf of uniform draws (float64): ``random_state`` an int seed,
        a ``numpy.random.Generator`` or None (a fresh one). The atom at 0 is drawn with its
        mass; the rest inverts the float64 cdf through a verified table
        (:mod:`freege.numeric.sampling_table`: within ``U_TOL`` in probability), built once
        per law from its quadrature series (a pure function of the law)."""
        rng = (random_state if isinstance(random_state, np.random.Generator)
               else np.random.default_rng(random_state))
        f64 = self if self.dps is None else self._float64()
        if "table" not in f64._cache:
            f64._cache["table"] = InverseCdfTable(f64.quadrature.series_f64(),
                                                  float(f64._atom_mp()), f64.describe)
        return f64._cache["table"].sample(rng.random(size))

    # ------------------------------------------------------------------ expectation
    def expect(self, func: Callable[..., Any] | None = None, args: tuple = (),
               lb: Any = None, ub: Any = None, conditional: bool = False) -> Any:
        """``int func dnu`` over ``[lb, ub]`` (None: the whole line; the atom at 0 counts
        when it lies in the range), scipy.stats' keywords: ``func(x, *args)`` (default
        ``x``), ``conditional`` divides by the mass of ``[lb, ub]``. Real or complex
        ``func``; it must accept numpy arrays in float64 mode and mpmath numbers otherwise
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
        at_zero = (lb is None or lb <= 0) and (ub is None or ub >= 0)
        with self._ctx():
            if self.dps is None:
                atom = float(self._atom_mp())
                total = atom * fn(np.zeros(1))[0] if atom > 0 and at_zero else 0.0
                lb = None if lb is None else float(lb)
                ub = None if ub is None else float(ub)
                return np.asarray(total + self.quadrature.expect_f64(fn, lb, ub)).item()
            atom = self._atom_mp()
            total = atom * fn(mpmath.mpf(0)) if atom > 0 and at_zero else mpmath.mpf(0)
            lb = None if lb is None else mpmath.mpf(lb)
            ub = None if ub is None else mpmath.mpf(ub)
            return +(total + self.quadrature.expect_mp(fn, lb, ub))

    # ------------------------------------------------------------------ transforms
    @property
    def s_relation(self) -> STransform:
        """The S-relation solver of this law (:class:`freege.numeric.s_transform.STransform`)."""
        if "s" not in self._cache:
            self._cache["s"] = STransform(_s_matrix(self.case, self.normalized),
                                          self.parameter_values, self._mean30, self.describe)
        return self._cache["s"]

    def s_transform(self, w: Any) -> Any:
        """``S(w)`` on the branch with ``S(0) = 1/m1`` (theory §3), continued along the
        straight segment from 0 to ``w`` (:mod:`freege.numeric.s_transform`)."""
        if self.dps is None:
            ws = np.asarray(w, dtype=complex)
            vals = np.array([self.s_relation.f64(v) for v in ws.ravel()])
            out = _shape(vals, ws)
            return out.real if np.isrealobj(w) or np.all(vals.imag == 0) else out
        with self._ctx():
            return _map_batch(lambda vs: [self.s_relation.mp(v) for v in vs], w)

    # ------------------------------------------------------------------ accuracy
    def estimate(self, method: str, *args: Any) -> Estimate:
        """``getattr(self, method)(*args)`` with its estimated absolute error, from an
        *independent* route (theory §7):

        * ``pdf``, ``stieltjes``: a fresh all-roots solve (``mpmath.polyroots``, no
          tracking, no float64 seed) at ``dps + 20`` digits (50 for float64), the physical
          root the unique one in the lower half plane, else the one nearest in ``u = zG``
          to a fresh mpmath tracking at that precision;
        * ``cdf``, ``sf``, ``mass``, ``expect``, ``ppf``: the quadrature at ``dps + 10``
          digits (30 for float64), whose first Gauss-Legendre level differs (float64
          uses Legendre series), i.e. another discretisation;
        * ``moment``, ``mean``, ``var``: the exact moment against quadrature of ``x^q``;
        * anything else: the same computation at ``dps + 10`` (30 for float64).
        """
        value = getattr(self, method)(*args)
        ref_dps = self.dps + 10 if self.dps is not None else REFERENCE_DPS
        if method in ("pdf", "stieltjes"):
            ref = self._independent_stieltjes(method, args[0])
        elif method in ("moment", "mean", "var"):
            q = {"mean": 1, "var": 2}.get(method, args[0] if args else 1)
            ref_law = self.with_dps(ref_dps)
            with mpmath.workdps(ref_dps):
                mq = ref_law.expect(lambda x: x**q)
                ref = mq - ref_law.expect(lambda x: x) ** 2 if method == "var" else mq
        else:
            ref = getattr(self.with_dps(ref_dps), method)(*args)
        return Estimate(value, _max_difference(value, ref))

    def _independent_stieltjes(self, method: str, z: Any) -> Any:
        arr = np.asarray(z, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        for k, zv in enumerate(arr.ravel()):
            out.ravel()[k] = self._independent_one(method, mpmath.mpmathify(zv))
        return out.item() if out.ndim == 0 else out

    def _independent_one(self, method: str, zv: Any) -> Any:
        """One point of :meth:`estimate`'s independent route, at ``dps + 20`` digits plus
        ``2 log10(R/|z|)`` within ``NEAR_ZERO S`` of 0 (``S``:
        :meth:`roots.CauchyEquation.scale`; the roots' conditioning there)."""
        dps = (self.dps or REFERENCE_DPS) + 20
        R = self.equation.radius()
        if abs(complex(zv)) < roots.NEAR_ZERO * self.equation.scale():
            dps += math.ceil(2 * math.log10(R / abs(complex(zv))))
        real = mpmath.im(zv) == 0
        inside = real and any(a < mpmath.re(zv) < b for a, b in self._intervals_mp())
        with mpmath.workdps(dps):
            if real and not inside:
                return (mpmath.mpc(self.equation.stieltjes_mp(zv).real, 0)
                        if method == "stieltjes" else mpmath.mpf(0))
            try:
                g = self.equation.herglotz_root_mp(zv)
            except ConvergenceError:
                g = None
            if g is None:  # not singled out: the root nearest a fresh mpmath tracking
                up = mpmath.im(zv) >= 0
                g = self.equation.track_mp(zv if up else mpmath.conj(zv))
                g = g if up else mpmath.conj(g)
            g = self.equation.polish(zv, g, mpmath.mp.prec, bool(inside))
            if method == "pdf":
                return max(-g.imag / mpmath.pi, mpmath.mpf(0))
            return +g


def _reach(delta_lo: float, delta_hi: float, m: int, x_hi: float) -> float | None:
    """Where a hard edge's series in ``x^(1/(m+1))`` stops holding (see
    :meth:`Law._hard_order`): ``delta_lo``, ``delta_hi`` are the exponent's deviations at
    ``x_hi / 10`` and ``x_hi``; None when no correction shows at 30 digits."""
    if abs(delta_hi) < 1e-20:
        return None
    slope = 1 / (m + 1)
    if delta_lo * delta_hi > 0:
        slope = max(slope, math.log10(delta_hi / delta_lo))
    return x_hi * (slope / abs(delta_hi)) ** (1 / slope)


class _EdgeChains:
    """The anchors of one support interval ``[a, b]`` (:meth:`Law._anchors_f64`): the
    interior ones and the two edge chains, continued on demand."""

    #: the chain steps ``2^-j`` of the interval's length, ``j = 5, 7, .., 49``
    STEPS = 2.0 ** -np.arange(5, 51, 2)

    def __init__(self, equation: roots.CauchyEquation, a: float, b: float, floor: float,
                 xs: np.ndarray, g: np.ndarray) -> None:
        self.equation, self.a, self.b, self.floor = equation, a, b, floor
        self.xs, self.g = list(xs), list(g)
        # per chain: [edge, direction, last x, last G, index of the next step]; the two
        # chains start from the interior anchors nearest each edge
        self.chains = [[a, 1.0, xs[0], g[0], 0], [b, -1.0, xs[-1], g[-1], 0]] if xs.size \
            else []
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def anchors(self, t_lo: float, t_hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, logit x, G)`` sorted, the chains continued far enough for logits in
        ``[t_lo, t_hi]`` (see :meth:`Law._anchors_f64`)."""
        while True:
            todo = [c for c in self.chains if c[4] < self.STEPS.size and (
                _logit(c[2], self.a, self.b) > t_lo if c[1] > 0
                else _logit(c[2], self.a, self.b) < t_hi)]
            if not todo:
                break
            self._step(todo)
        if self._arrays is None:
            xs = np.array(self.xs)
            order = np.argsort(xs)
            xs = xs[order]
            self._arrays = (xs, _logit(xs, self.a, self.b),
                            np.array(self.g, dtype=complex)[order])
        return self._arrays

    def _step(self, todo: list[list[Any]]) -> None:
        """One more point on each chain of ``todo`` (all at once); a chain whose next point
        leaves the interval, nears 0, repeats, or is in doubt ends there."""
        self._arrays = None
        edge = np.array([c[0] for c in todo])
        sign = np.array([c[1] for c in todo])
        prev = np.array([c[2] for c in todo])
        prev_g = np.array([c[3] for c in todo], dtype=complex)
        nxt = edge + sign * (self.b - self.a) * self.STEPS[[c[4] for c in todo]]
        alive = (nxt > self.a) & (nxt < self.b) & (np.abs(nxt) >= self.floor) & (nxt != prev)
        gn = np.full(nxt.shape, np.nan + 0j)
        ok = np.zeros(nxt.shape, dtype=bool)
        if alive.any():
            gn[alive], _, ok[alive] = self.equation.continue_f64(nxt[alive], prev[alive],
                                                                 prev_g[alive])
        for chain, x, gv, good in zip(todo, nxt, gn, ok, strict=True):
            if good:
                self.xs.append(x)
                self.g.append(gv)
                chain[2:] = [x, gv, chain[4] + 1]
            else:
                chain[4] = self.STEPS.size  # the chain ends here


def _logit(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """``log((x - a)/(b - x))``: distances to both edges on one scale (anchors
    :meth:`Law._anchors_f64` are evenly spread in it near the edges)."""
    with np.errstate(all="ignore"):
        return np.log(x - a) - np.log(b - x)


def _log(values: Any, dps: int | None) -> Any:
    """Elementwise natural log, ``log 0 = -inf`` (scipy.stats' convention)."""
    if dps is None:
        with np.errstate(divide="ignore"):
            out = np.log(values)
        return out.item() if np.ndim(out) == 0 else out
    with mpmath.workdps(dps):
        one = lambda v: mpmath.log(v) if v != 0 else mpmath.mpf("-inf")  # noqa: E731
        if isinstance(values, np.ndarray):
            return np.vectorize(one, otypes=[object])(values)
        return one(values)


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


def from_recipe(case: str, ratios: tuple[Any, ...], normalized: bool, dps: int | None) -> Law:
    """The law of a :meth:`Law.recipe` (:func:`freege.numeric.law_recipe.rebuild`):
    ``ratios`` is ``(beta, h, gK, gV, gO, sharing)``."""
    return Law(case, Ratios(*ratios), normalized, dps)


def law(
    case: str, config: Ratios | Dims, normalized: bool = False, dps: int | None = None
) -> Law:
    """The law of ``case`` (one of :data:`CASES`) at ``config`` (Ratios or Dims; Dims map
    to their exact ratios, theory §1.2). The sharing scheme of ``config`` picks the tied
    counterpart where tying changes the law (theory §4, :func:`resolve_case`)."""
    if isinstance(config, Dims):
        config = config.ratios
    if not isinstance(config, Ratios):
        raise ValueError(f"config must be freege.params.Ratios or Dims (got {type(config)})")
    return Law(case, config, normalized, dps)


def mha_law(config: Ratios | Dims, normalized: bool = False, dps: int | None = None) -> Law:
    """The MHA output law (theory §4): ``mha`` or, for tied sharing, ``mha-tied``."""
    return law("mha", config, normalized, dps)


__all__ = ["CASES", "Estimate", "Law", "law", "mha_law", "resolve_case", "check_dps",
           "parameter_values"]
