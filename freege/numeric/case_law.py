"""The theory §4 case laws: one case at one configuration, as a numeric law.

``law(case, config, normalized=False, dps=None)`` returns a :class:`CaseLaw` for one
theory §4 case and one configuration (:class:`freege.params.Ratios` or
:class:`freege.params.Dims`). The tying rule is applied once, in the constructor
(:func:`resolve_case`): tied sharing makes ``value`` and ``mha`` the tied laws.

A :class:`CaseLaw` is a law with a Cauchy polynomial
(:class:`freege.numeric.algebraic_law.AlgebraicLaw`, whose public methods are those of
:class:`freege.numeric.law_family.Law`); this module supplies what is the case's own:

* the case's exact moments, Cauchy polynomial, S-relation and ridge polynomial at zero
  penalty as generated functions of ``(theta1, theta2, h, gK, gV, gO)``
  (:mod:`freege.numeric.compiled`, derived from :mod:`freege.symbolic`);
* the atom at 0 (rank deficiency, theory §4, §7) from the exact candidates
  (:func:`freege.numeric.roots.atom_at_zero`);
* the readouts' ``(w, w')`` from the ridge polynomial (:mod:`freege.numeric.dof_point`)
  and its own output ratio ``gO``; the certified mode's exact data
  (:mod:`freege.numeric.certify`);
* identity, equality, hash and pickling by ``(case, ratios, normalized, dps)``
  (:mod:`freege.numeric.law_recipe`, constructor ``"law"``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import compiled, dof_point, law_recipe, roots
from freege.numeric.algebraic_law import AlgebraicLaw
from freege.numeric.law_family import REFERENCE_DPS
from freege.numeric.s_transform import STransform
from freege.params import CASES, TIED_CASES, Dims, Ratios, check_case, to_mpf

#: cases the ``tied`` sharing scheme replaces by their tied counterpart (theory §4)
TIED_COUNTERPART = {"value": "value-tied", "mha": "mha-tied"}
#: the cases whose law is an MHA output law (the ridge error of theory §5 needs one)
MHA_CASES = ("mha", "mha-tied")


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


class CaseLaw(AlgebraicLaw):
    """One theory §4 law at one configuration (see the module docstring).

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
        super().__init__(dps, {"case": case, **ratios.as_dict(), "normalized": self.normalized})
        with mpmath.workdps(REFERENCE_DPS):
            self._mean30 = self._moment_mp(1)
        self.equation = roots.CauchyEquation(
            functools.partial(_cauchy_polynomial, case, self.normalized), compiled.ARGUMENTS,
            self.parameter_values, mean=float(self._mean30), describe=self.describe,
            matrix=_cauchy_matrix(case, self.normalized),
            cache_key=f"cauchy-{case}-{int(self.normalized)}")

    def __repr__(self) -> str:
        r = self.ratios
        return (
            f"Law({self.case!r}, beta={r.beta}, h={r.h}, gK={r.gK}, gV={r.gV}, gO={r.gO}, "
            f"normalized={self.normalized}, dps={self.dps})"
        )

    # ------------------------------------------------------------------ identity
    def recipe(self) -> law_recipe.Recipe:
        """The case after the tying rule, the ratios (sharing included), ``normalized``
        and ``dps``."""
        r = self.ratios
        return law_recipe.recipe("law", self.case, (r.beta, r.h, r.gK, r.gV, r.gO, r.sharing),
                                 self.normalized, self.dps)

    def _identity(self) -> tuple[Any, ...]:
        """What the answers depend on: the sharing scheme only chooses the case, so
        ``law("mha", tied ratios) == law("mha-tied", the same ratios untied)``."""
        r = self.ratios
        return self.case, r.beta, r.h, r.gK, r.gV, r.gO, self.normalized, self.dps

    def with_dps(self, dps: int | None) -> CaseLaw:
        return CaseLaw(self.case, self.ratios, self.normalized, dps)

    def as_normalized(self) -> CaseLaw:
        return self if self.normalized else CaseLaw(self.case, self.ratios, True, self.dps)

    # ------------------------------------------------------------------ exact data
    def parameter_values(self) -> tuple[mpmath.mpf, ...]:
        """``(theta1, theta2, h, gK, gV, gO)`` at the ambient precision (theory §2)."""
        return parameter_values(self.ratios)

    def _moment_mp(self, q: int) -> mpmath.mpf:
        return mpmath.mpf(_moment_function(self.case, q, self.normalized)(
            *self.parameter_values(), compiled.mp_rational))

    def _cauchy_rows(self) -> list[list[Any]]:
        return _cauchy_matrix(self.case, self.normalized)(*self.parameter_values(),
                                                          compiled.mp_rational)

    @property
    def s_relation(self) -> STransform:
        """The S-relation solver of this law (:class:`freege.numeric.s_transform.STransform`)."""
        if "s" not in self._cache:
            self._cache["s"] = STransform(_s_matrix(self.case, self.normalized),
                                          self.parameter_values, self._mean30, self.describe)
        return self._cache["s"]

    # ------------------------------------------------------------------ the atom at 0
    def _atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """At most one atom, at 0 (rank deficiency, theory §4, §7), from
        ``lim_{z->0} z G(z)`` among the exact candidates (:func:`roots.atom_at_zero`)."""
        key = ("atom", self._edge_dps())
        if key not in self._cache:
            self._cache[key] = roots.atom_at_zero(self.equation, self._edge_dps(),
                                                  self._continuous_mass)
        mass = self._cache[key]
        return [(mpmath.mpf(0), mass)] if mass > 0 else []

    def _continuous_mass(self, precise: bool) -> float:
        """Mass of the continuous part (float64), to pick the atom among the exact
        candidates: ``w(0+)``, the smallest positive root of the ridge polynomial at
        ``lam = 0`` (the degrees of freedom at vanishing penalty count the non-zero
        eigenvalues, theory §5). ``F(w, 0)`` factors into ``(w - g)^2`` over the ratios
        ``g`` of the law (1, h, gV, gO; gK for the tied laws), so no quadrature is needed.
        Float64 roots of that non-square-free polynomial are good to ~1e-4 at a fourfold
        root (~1e-2 where ratios next to 1 make a cluster); ``precise`` finds them at
        ``2 REFERENCE_DPS`` digits (``mpmath.polyroots``, ~15 digits in a cluster), which
        tells ``gO = 0.999`` (an atom of 1e-3) from 1 (issue 16)."""
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

    # ------------------------------------------------------------------ readouts, certify
    def output_ratio(self, g_o: Any) -> Any:
        """The MHA law's own ``gO`` (theory §5); a ``gO`` given, or another case, is a
        ValueError."""
        if g_o is not None:
            raise ValueError(f"gO: given only with an expression law (the {self.case} law "
                             f"has its own)")
        if self.case not in MHA_CASES:
            raise ValueError(f"ridge_error needs an MHA law (case mha or mha-tied), got "
                             f"{self.case}")
        return self.ratios.gO

    def dof_point(self, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``(w(lam), w'(lam))`` from the case's ridge polynomial
        (:func:`freege.numeric.dof_point.ridge_point`, theory §5)."""
        return dof_point.ridge_point(self, lam)

    def certify_data(self) -> Any:
        """The case's exact data for the certified mode (:mod:`freege.numeric.certify`)."""
        from freege.numeric import certify_data

        return certify_data.case_data(self.case, self.ratios, self.normalized)


def from_recipe(case: str, ratios: tuple[Any, ...], normalized: bool,
                dps: int | None) -> CaseLaw:
    """The law of a :meth:`CaseLaw.recipe` (:func:`freege.numeric.law_recipe.rebuild`):
    ``ratios`` is ``(beta, h, gK, gV, gO, sharing)``. Every argument is range-checked
    before anything is built: ``dps`` in the command line's range
    (:func:`freege.numeric.law_recipe.check_dps`), the ratios by :class:`Ratios`,
    ``normalized`` a bool, the case by :class:`CaseLaw`."""
    dps = law_recipe.check_dps(dps)
    normalized = law_recipe.check_flag("normalized", normalized)
    if not (isinstance(ratios, tuple) and len(ratios) == 6):
        raise ValueError(f"recipe ratios must be (beta, h, gK, gV, gO, sharing) "
                         f"(got {ratios!r})")
    if not isinstance(case, str):
        raise ValueError(f"recipe case must be a string (got {case!r})")
    return CaseLaw(case, Ratios(*ratios), normalized, dps)


def law(
    case: str, config: Ratios | Dims, normalized: bool = False, dps: int | None = None,
    *, finite_width: bool = False, row: str = "finite-n", profile: str = "row",
) -> Any:
    """The law of ``case`` (one of :data:`CASES`) at ``config`` (Ratios or Dims; Dims map
    to their exact ratios, theory §1.2). The sharing scheme of ``config`` picks the tied
    counterpart where tying changes the law (theory §4, :func:`resolve_case`).

    ``finite_width=True``: the finite-width law at the finite configuration ``config``
    (Dims only; cases attention, value, mha and their tied forms), theory §2.3,
    :class:`freege.numeric.finite_width_law.FiniteWidthLaw`; ``row``: ``finite-n`` (the
    row coefficient of ``n`` keys, float64 only) or ``infinite-n`` (``e^x - 1``);
    ``profile``: ``row`` or ``row+column`` (the key norms' column profile too)."""
    if finite_width:
        if not isinstance(config, Dims):
            raise ValueError("finite_width needs a finite configuration: config must be "
                             "freege.params.Dims (n, dK, h)")
        from freege.numeric.finite_width_law import FiniteWidthLaw

        fw = FiniteWidthLaw(case, config, dps, row, profile=profile)
        return fw.as_normalized() if normalized else fw
    if isinstance(config, Dims):
        config = config.ratios
    if not isinstance(config, Ratios):
        raise ValueError(f"config must be freege.params.Ratios or Dims (got {type(config)})")
    return CaseLaw(case, config, normalized, dps)


def mha_law(config: Ratios | Dims, normalized: bool = False, dps: int | None = None
            ) -> CaseLaw:
    """The MHA output law (theory §4): ``mha`` or, for tied sharing, ``mha-tied``."""
    return law("mha", config, normalized, dps)


__all__ = ["CASES", "MHA_CASES", "CaseLaw", "law", "mha_law", "parameter_values",
           "resolve_case"]
