"""The numeric layer: theory §4-§5 laws and readout predictions as numbers (theory §7).

Everything here is derived from :mod:`freege.symbolic` (through
:mod:`freege.numeric._symbolic`), never retyped: exact expressions become generated Python
functions (:mod:`freege.numeric.compiled`, cached on disk), so no warm path imports sympy.
API summary (stable):

Laws (:mod:`freege.numeric.law_family`, :mod:`freege.numeric.case_law`)
    Every kind of law is a :class:`~freege.numeric.law_family.Law`: the theory §4 case
    laws (:class:`~freege.numeric.case_law.CaseLaw`) and the laws of expressions of the
    algebra (:mod:`freege.numeric.expression_law`, through :mod:`freege.algebra`).
    ``law(case, config, normalized=False, dps=None) -> CaseLaw`` -- ``case`` in
    ``freege.symbolic.cases.CASES`` (attention, head-average, head-average-shared-key,
    value, mha, value-tied, mha-tied); ``config`` a :class:`freege.params.Ratios` or
    :class:`freege.params.Dims`; sharing ``tied`` turns value -> value-tied and
    mha -> mha-tied (none/gqa/mqa keep the independent laws, theory §4).
    ``mha_law(config, normalized=False, dps=None)``; ``resolve_case(case, sharing)``.

    ``Law`` methods (float64, numpy-vectorised, when ``dps is None``; mpmath numbers at
    ``dps >= 15`` digits otherwise), shaped like ``scipy.stats``:
    ``pdf(x)`` (0 outside the open support), ``cdf(x)``, ``sf(x)`` (exactly 0/1 at
    ``+-inf`` and beyond the support), ``ppf(q)``, ``isf(q)`` (nan outside ``[0, 1]``),
    ``median()``, ``interval(c)`` (broadcasts), ``rvs(size, random_state)`` (inverse cdf,
    float64), ``moment(q)`` (any integer ``q >= 0``: exact symbolic moment up to order 4,
    the verified series at infinity above), ``mean()``, ``var()``, ``std()``,
    ``support()`` -> ``(lo, hi)`` (``lo = 0`` with an atom at 0), ``intervals()`` -> list of
    ``(lo, hi)`` support intervals of the continuous part, ``atoms()`` -> ``{0: mass}`` or
    ``{}``, ``mass()`` (a check: 1 up to quadrature accuracy), ``stieltjes(z)`` (``G(z) =
    int dnu/(z - x)``, real z means ``z + i0``, ``Im G <= 0``), ``s_transform(w)``,
    ``dof(lam)``, ``expect(f)`` (``int f dnu``, atoms included), ``with_dps(dps)``,
    ``as_normalized()``, ``estimate(method, *args) -> Estimate(value, error)`` (error =
    disagreement with an independent route: all-roots solve for densities, another
    discretisation for cdf/expect, quadrature for moments). Working-precision interface
    (ambient mpmath precision): ``parameter_values()``, ``atom_mass()``,
    ``stieltjes_batch(zs)``. ``CaseLaw(case, ratios)`` applies the tying rule itself
    (``CaseLaw("mha", tied ratios)`` is the mha-tied law). A law pickles by its ``recipe()``
    (:mod:`freege.numeric.law_recipe`) and is rebuilt on load; laws of the same case,
    ratios, normalization and precision are equal and hash equal.

Readout (:mod:`freege.numeric.readout`, theory §5; laws are normalized first)
    ``dof(law, lam)``, ``dof_derivative(law, lam)``, ``ridge_error(law, lam, sigma2)``
    (MHA laws), ``flow_loss(law, t)`` (scalar or array), ``arrival_time(law, level)``,
    ``crossover(f, lo, hi, g=None, dps=None)``.

Roots (:mod:`freege.numeric.roots`, theory §7.1)
    ``CauchyEquation(poly, symbols, values, mean, describe)`` -- branch-tracked physical
    root of ``P(G, z)`` (float64 batch with an extended-precision refinement, verified
    mpmath polish), ``support_intervals``, ``atom_at_zero``, ``polynomial_roots``.
Quadrature (:mod:`freege.numeric.quadrature`) -- mass, cdf, ppf, expectations on
    edge-adapted Gauss-Legendre panels. S-transform (:mod:`freege.numeric.s_transform`).

Every kind of law is a :class:`~freege.numeric.law_family.Law` (``isinstance`` holds for
all); ``freege.numeric.law`` is the case-law factory (no module of that name).

Bad input raises ValueError naming the parameter and its range (unknown case, dps < 15,
lam <= 0, t < 0, level outside (L(inf), 1), tied case with gV != gK, confidence outside
[0, 1], a moment order that is not an integer >= 0, ...); a solve or quadrature that
does not verify raises :class:`freege.errors.ConvergenceError` (an ``ArithmeticError``).
"""

from freege.numeric.case_law import CaseLaw, law, mha_law, resolve_case
from freege.numeric.law_family import Estimate, Law
from freege.numeric.readout import (
    arrival_time,
    crossover,
    dof,
    dof_derivative,
    flow_loss,
    ridge_error,
)

#: the laws (the family, the theory §4 case laws and their factory), then the readouts
__all__ = ["CaseLaw", "Estimate", "Law", "law", "mha_law", "resolve_case",
           "arrival_time", "crossover", "dof", "dof_derivative", "flow_loss", "ridge_error"]
