"""The law family: every numeric law's public methods, once, shaped like ``scipy.stats``.

:class:`Law` is the base of every kind of numeric law (theory §7), in the manner of
``scipy.stats.rv_continuous``: the public methods -- ``pdf``, ``cdf``, ``sf``, ``ppf``,
``support``, ``intervals``, ``atoms``, ``moment``, ``expect``, ``rvs``, ``stieltjes``,
``s_transform``, ``mass``, ``entropy``, ``estimate``, pickling and equality (and the ones
:class:`freege.numeric.law_conventions.ScipyConventions` derives from them), and the
operators ``+ - * /`` that compose laws (:mod:`freege.numeric.law_composition`) -- live
here and dispatch to a few per-kind hooks:

* identity: :meth:`recipe`, :meth:`_identity`, :meth:`with_dps`, :meth:`as_normalized`;
* the Cauchy transform ``G`` (theory §3) at a batch of points: :meth:`_stieltjes_f64`
  (float64 array) and :meth:`_stieltjes_mp_batch` (ambient precision); the density is
  ``-Im G(x + i0)/pi`` inside the support;
* where the law lives: :meth:`_intervals_mp` (support intervals of the continuous part),
  :meth:`_atoms_mp` (point masses anywhere), optionally :meth:`_pieces_mp` (the intervals
  cut at inner singular points) and :meth:`_hard_order` (a singular edge for the
  quadrature, :mod:`freege.numeric.quadrature`);
* moments: :meth:`_moment_mp` (exact), optionally :meth:`_high_moment_mp`;
* :attr:`s_relation` (the S-transform solver), :meth:`_independent_one` (the independent
  route of :meth:`estimate`);
* what the readouts (theory §5, :mod:`freege.numeric.readout`) and the certified mode
  (:mod:`freege.numeric.certify`) need: :attr:`nonnegative`, :meth:`output_ratio`,
  :meth:`dof_point`, :meth:`certify_data`;
* optionally :meth:`_affine_image`: a law answered through an affine image of itself
  (:mod:`freege.numeric.edge_move`).

A new kind of law implements these hooks and nothing else; no caller asks a law its kind.
The kinds today: :class:`freege.numeric.case_law.CaseLaw` (a theory §4 case) and
:class:`freege.numeric.expression_law.ExpressionLaw` (an expression of the law algebra),
both laws with a Cauchy polynomial (:class:`freege.numeric.algebraic_law.AlgebraicLaw`).

Float64 mode (``dps=None``) is vectorised over numpy arrays; with ``dps`` every result is
an mpmath number computed under ``mpmath.workdps(dps)``. A law is a pure function of its
recipe: what it keeps (``_cache``) never changes an answer.
"""

from __future__ import annotations

import abc
import math
from typing import Any, NamedTuple

import mpmath
import numpy as np

from freege.numeric import law_composition, law_recipe
from freege.numeric.law_conventions import ScipyConventions, map_batch, shape_like
from freege.numeric.law_integrals import IntegralMethods
from freege.numeric.quadrature import HardEdge, Quadrature
from freege.numeric.s_transform import STransform
from freege.params import check_dps, positive

#: the precision floor of the mpmath mode (below it float64 is the better tool)
MIN_DPS = 15
#: digits of the reference computations behind float64 results and estimates
REFERENCE_DPS = 30
#: moments up to this order come from the exact moments, higher ones from the law's own
#: route (:meth:`Law._high_moment_mp`)
SYMBOLIC_ORDER = 4


class Estimate(NamedTuple):
    """A result and its estimated absolute error (max over array entries)."""

    value: Any
    error: float


class Law(IntegralMethods, ScipyConventions, abc.ABC):
    """One numeric law at one precision (``dps``: None for float64); the hooks a kind
    implements are listed in the module docstring. ``describe`` names the law in error
    messages. The integrals of the law (``cdf``, ``sf``, ``ppf``, ``mass``, ``expect``,
    ``rvs``, ``entropy``) are :class:`freege.numeric.law_integrals.IntegralMethods`'."""

    def __init__(self, dps: int | None, describe: dict[str, Any]) -> None:
        self.dps = None if dps is None else check_dps(dps, minimum=MIN_DPS, maximum=None)
        self.describe = describe
        self._cache: dict[Any, Any] = {}
        self.quadrature = Quadrature(self._pieces_mp, self._hard_order, self._pdf_f64,
                                     self._pdf_mp_batch, self.describe)

    # ------------------------------------------------------------------ hooks: identity
    @abc.abstractmethod
    def recipe(self) -> law_recipe.Recipe:
        """What this law is rebuilt from (:mod:`freege.numeric.law_recipe`)."""

    @abc.abstractmethod
    def _identity(self) -> tuple[Any, ...]:
        """What the answers depend on (equality and hash)."""

    @abc.abstractmethod
    def with_dps(self, dps: int | None) -> Law:
        """The same law at another precision (None: float64)."""

    @abc.abstractmethod
    def as_normalized(self) -> Law:
        """``nubar``: this law divided by its mean (theory §3)."""

    # ------------------------------------------------------------------ hooks: numbers
    @abc.abstractmethod
    def _moment_mp(self, q: int) -> mpmath.mpf:
        """The exact moment ``m_q``, ``q >= 1``, at the ambient precision."""

    @abc.abstractmethod
    def _intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals of the continuous part, sorted (edge precision)."""

    @abc.abstractmethod
    def _atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """``[(location, mass), ...]`` of the point masses, sorted (empty when none)."""

    @abc.abstractmethod
    def _stieltjes_f64(self, zs: np.ndarray) -> np.ndarray:
        """Physical ``G`` at a flat complex array (real ``z``: ``z + i0``), float64."""

    @abc.abstractmethod
    def _stieltjes_mp_batch(self, zs: list[Any], seeds: np.ndarray | None = None
                            ) -> list[mpmath.mpc]:
        """Physical ``G`` at the ambient precision (``seeds``: float64 values, if known)."""

    @abc.abstractmethod
    def _independent_one(self, method: str, zv: Any) -> Any:
        """``pdf`` or ``stieltjes`` at one point by a route independent of the law's own
        (:meth:`estimate`)."""

    @property
    @abc.abstractmethod
    def s_relation(self) -> STransform:
        """The S-relation solver (theory §3)."""

    def parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """The law's parameters at the ambient precision (none by default)."""
        return ()

    def _pieces_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The quadrature's pieces: the support intervals (cut at inner singular points
        by a kind that has them)."""
        return self._intervals_mp()

    def _hard_order(self, a: Any, b: Any) -> HardEdge | None:
        """A singular edge of the density at ``a`` for the quadrature (None: none)."""
        return None

    def _high_moment_mp(self, q: int) -> mpmath.mpf:
        """``m_q`` above :data:`SYMBOLIC_ORDER` (by default the exact moment)."""
        return self._moment_mp(q)

    def _affine_image(self) -> Any:
        """An :class:`freege.numeric.edge_move.EdgeMove` when the law is answered through
        an affine image of itself, else None."""
        return None

    # ------------------------------------------------------------------ hooks: readouts
    @property
    def nonnegative(self) -> bool:
        """Whether the law lives on ``[0, inf)`` (a Gram spectrum: theory §5's readouts)."""
        return True

    def output_ratio(self, g_o: Any) -> Any:
        """``gO`` of the ridge error (theory §5): by default the one given (a law without
        theory §2 ratios), as an exact number > 0."""
        if g_o is None:
            raise ValueError("gO: ridge_error of an expression law needs the output ratio "
                             "gO > 0 (gO=...)")
        return positive("gO", g_o)

    @abc.abstractmethod
    def dof_point(self, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``(w(lam), w'(lam))`` of this (normalized) law at the ambient precision."""

    def certify_data(self) -> Any:
        """The exact data of the certified mode (:mod:`freege.numeric.certify`)."""
        raise ValueError(f"no certified mode for {self!r}")

    # ------------------------------------------------------------------ identity
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the recipe only; the law is rebuilt on load (its memos are recomputed,
        to the same bits: a law is a pure function of its recipe)."""
        return law_recipe.reduce(self.recipe())

    def __copy__(self) -> Law:
        """A law is an immutable value (its memos never change an answer): itself."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Law:
        return self

    def __repr__(self) -> str:
        from freege import display  # lazily: it imports sympy

        return display.law_repr(self)

    def _repr_html_(self) -> str:
        """Jupyter: kind, parameters, support, atoms, mean, variance (freege.display)."""
        from freege import display

        return display.law_html(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Law):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    # ------------------------------------------------------------------ composition
    # the law of the combined expression (freege.numeric.law_composition): + is ⊞ or a
    # shift, * is ⊠ or a dilation, with any law whose expression is known (an expression
    # law, a theory §4 case law, a law from data) or a number; a TypeError for a law
    # without one (a finite-width law)
    def __add__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: a + b)

    def __radd__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: b + a)

    def __sub__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: a - b)

    def __rsub__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: b - a)

    def __mul__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: a * b)

    def __rmul__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: b * a)

    def __truediv__(self, other: Any) -> Law:
        return law_composition.compose(self, other, lambda a, b: a / b)

    def __neg__(self) -> Law:
        return law_composition.compose(self, -1, lambda a, b: b * a)

    # ------------------------------------------------------------------ plumbing
    def _ctx(self) -> Any:
        return mpmath.workdps(self.dps if self.dps is not None else REFERENCE_DPS)

    def _out(self, value: mpmath.mpf | mpmath.mpc) -> Any:
        """mpmath number in dps mode, Python float/complex in float64 mode."""
        if self.dps is not None:
            return +value
        return complex(value) if isinstance(value, mpmath.mpc) else float(value)

    def _float64(self) -> Law:
        """This law in float64 (kept: a pure function of the law)."""
        if "f64" not in self._cache:
            self._cache["f64"] = self.with_dps(None)
        return self._cache["f64"]

    def atom_mass(self) -> mpmath.mpf:
        """The mass at 0 at the ambient precision (0 when there is no atom there)."""
        with mpmath.workprec(mpmath.mp.prec):
            return +mpmath.fsum(p for x, p in self._atoms_mp() if x == 0)

    def cauchy_pair_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(G, G')`` at a flat complex array off the support, float64 (the subordination
        engine's operands, :mod:`freege.numeric.operands`). By default ``G'`` is the
        four-point complex difference of ``G`` (step ``1e-3`` of the distance to the real
        axis): a Newton Jacobian, never a returned value; a kind with an exact ``G'``
        overrides this."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g = self._stieltjes_f64(zs)
        h = 1e-3 * np.maximum(np.abs(zs.imag), 1e-8 * np.maximum(np.abs(zs), 1.0))
        ups = self._stieltjes_f64(np.concatenate([zs + h, zs - h, zs + 1j * h, zs - 1j * h]))
        a, b, c, d = np.split(ups, 4)
        return g, ((a - b) - 1j * (c - d)) / (4 * h)

    def cauchy_pair_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        """``(G, G')`` at one point off the support, at the ambient precision; by default
        ``G'`` by mpmath's numerical differentiation at ``2 x`` the digits (a kind with an
        exact ``G'`` overrides this)."""
        z = mpmath.mpmathify(z)
        g = self._stieltjes_mp_batch([z])[0]
        with mpmath.workprec(2 * mpmath.mp.prec):
            h = mpmath.ldexp(abs(mpmath.im(z)) or abs(z) or 1, -mpmath.mp.prec // 4)
            pts = self._stieltjes_mp_batch([z + h, z - h])
            dg = (pts[0] - pts[1]) / (2 * h)
        return g, +dg

    def stieltjes_batch(self, zs: list[Any]) -> list[mpmath.mpc]:
        """Physical ``G(z)`` at the ambient precision for a list of points (theory §3);
        real ``z`` means ``z + i0``."""
        return self._stieltjes_mp_batch(zs)

    # ------------------------------------------------------------------ moments
    def moment(self, order: int) -> Any:
        """``m_q = int x^q dnu`` (``q = order``), any integer ``q >= 0`` (``m_0 = 1``,
        like scipy): the exact moments up to :data:`SYMBOLIC_ORDER`, above it the kind's
        own verified route (:meth:`_high_moment_mp`). Float64 results are rounded from at
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
            return self._out(self._high_moment_mp(q))

    # ------------------------------------------------------------------ support, atoms
    def intervals(self) -> list[tuple[Any, Any]]:
        """Intervals of the continuous part: a sorted list of ``(lo, hi)``."""
        with self._ctx():
            return [(self._out(a), self._out(b)) for a, b in self._intervals_mp()]

    def support(self) -> tuple[Any, Any]:
        """``(lo, hi)`` of the whole law, like ``scipy.stats``: the smallest and largest
        point of the support (edges and atoms; see :meth:`intervals` for the continuous
        part's intervals)."""
        with self._ctx():
            lo, hi = self._hull_mp()
            return self._out(lo), self._out(hi)

    def _hull_mp(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        """Below ``lo`` the cdf is 0, from ``hi`` on it is 1."""
        points = [e for ab in self._intervals_mp() for e in ab]
        points += [x for x, _ in self._atoms_mp()]
        return (min(points), max(points)) if points else (mpmath.mpf(0), mpmath.mpf(0))

    def _hull_f64(self) -> tuple[float, float]:
        lower, upper = self._hull_mp()
        return float(lower), float(upper)

    def atoms(self) -> dict[Any, Any]:
        """``{location: mass}`` of every point mass (empty when none)."""
        with self._ctx():
            return {self._out(x): self._out(p) for x, p in self._atoms_mp()}

    def _atom_at(self, x: Any) -> Any:
        """``nu({x})`` elementwise: the mass of an atom at ``x``, else 0."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            return sum((np.where(xs == float(loc), float(p), 0.0)
                        for loc, p in self._atoms_mp()), np.zeros(xs.shape))
        with self._ctx():
            return map_batch(lambda vs: [mpmath.fsum(p for loc, p in self._atoms_mp()
                                                     if mpmath.mpf(v) == loc) for v in vs], x)

    def _inside(self, x: np.ndarray) -> np.ndarray:
        inside = np.zeros(np.shape(x), dtype=bool)
        for a, b in self._intervals_mp():
            inside |= (x > float(a)) & (x < float(b))
        return inside

    # ------------------------------------------------------------------ Cauchy transform
    def stieltjes(self, z: Any) -> Any:
        """``G(z) = int dnu(x)/(z - x)`` (theory §3). Real ``z`` means ``z + i0`` (so
        ``Im G <= 0`` and the density is ``-Im G/pi``); vectorised in float64 mode."""
        if self.dps is None:
            zs = np.asarray(z, dtype=complex)
            return shape_like(self._stieltjes_f64(zs.ravel()), zs)
        with self._ctx():
            return map_batch(lambda vs: [+g for g in self._stieltjes_mp_batch(vs)], z)

    def pdf(self, x: Any) -> Any:
        """Density of the continuous part, ``-Im G(x + i0)/pi`` (theory §7.1): never
        negative, exactly 0 outside the open support intervals (edges included)."""
        if self.dps is None:
            xs = np.asarray(x, dtype=float)
            return shape_like(self._pdf_f64(xs.ravel()), xs)
        with self._ctx():
            return map_batch(self._pdf_mp_batch, x)

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

    # ------------------------------------------------------------------ transforms
    def s_transform(self, w: Any) -> Any:
        """``S(w)`` on the branch with ``S(0) = 1/m1`` (theory §3), continued along the
        straight segment from 0 to ``w`` (:mod:`freege.numeric.s_transform`)."""
        if self.dps is None:
            ws = np.asarray(w, dtype=complex)
            vals = np.array([self.s_relation.f64(v) for v in ws.ravel()])
            out = shape_like(vals, ws)
            return out.real if np.isrealobj(w) or np.all(vals.imag == 0) else out
        with self._ctx():
            return map_batch(lambda vs: [self.s_relation.mp(v) for v in vs], w)

    # ------------------------------------------------------------------ accuracy
    def estimate(self, method: str, *args: Any) -> Estimate:
        """``getattr(self, method)(*args)`` with its estimated absolute error, from an
        *independent* route (theory §7):

        * ``pdf``, ``stieltjes``: the kind's independent route (:meth:`_independent_one`;
          for a law with a Cauchy polynomial a fresh all-roots solve);
        * ``moment``, ``mean``, ``var``: the exact moment against quadrature of ``x^q``;
        * ``cdf``, ``sf``, ``mass``, ``expect``, ``ppf`` and anything else: the same
          method at ``dps + 10`` digits (30 for float64), whose quadrature's first
          Gauss-Legendre level differs (float64 uses Legendre series): another
          discretisation.
        """
        value = getattr(self, method)(*args)
        ref_dps = self.dps + 10 if self.dps is not None else REFERENCE_DPS
        if method in ("pdf", "stieltjes"):
            arr = np.asarray(args[0], dtype=object)
            ref = np.empty(arr.shape, dtype=object)
            for k, zv in enumerate(arr.ravel()):
                ref.ravel()[k] = self._independent_one(method, mpmath.mpmathify(zv))
            ref = ref.item() if ref.ndim == 0 else ref
        elif method in ("moment", "mean", "var"):
            q = {"mean": 1, "var": 2}.get(method, args[0] if args else 1)
            ref_law = self.with_dps(ref_dps)
            with mpmath.workdps(ref_dps):
                mq = ref_law.expect(lambda x: x**q)
                ref = mq - ref_law.expect(lambda x: x) ** 2 if method == "var" else mq
        else:
            ref = getattr(self.with_dps(ref_dps), method)(*args)
        return Estimate(value, _max_difference(value, ref))


def _max_difference(a: Any, b: Any) -> float:
    aa = np.asarray(a, dtype=object).ravel()
    bb = np.asarray(b, dtype=object).ravel()
    with mpmath.workdps(60):
        diffs = [abs(mpmath.mpmathify(u) - mpmath.mpmathify(v)) for u, v in zip(aa, bb,
                                                                                 strict=True)]
    return float(max(diffs, default=0.0))


__all__ = ["Estimate", "Law", "MIN_DPS", "REFERENCE_DPS", "SYMBOLIC_ORDER"]
