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
once per precision (over QQ in plain integers, :mod:`freege.numeric.exact_univariate`;
parameters rationalised at the working precision plus 10 bits), found by float64
companion roots refined by Weierstrass sweeps (else ``mpmath.polyroots``) and verified
by a bracketed sign change (:func:`freege.numeric.solve.find_root`); an interval between
consecutive candidates is in the support when the tracked ``G`` at its midpoint is
non-real. The mass at 0 is
``lim_{z -> 0} z G(z)``: its candidates are the roots of the lowest-order part of
``P(m/z, z)``; the one consistent with ``w(0+)`` of the ridge polynomial is taken.

The equation is assembled from its parts (issue 37): :mod:`freege.numeric.cauchy_polynomial`
(the polynomial and its coefficient functions), :mod:`freege.numeric.branch_points`
(discriminant, support-edge and atom candidates, radius and scale),
:mod:`freege.numeric.tracking_f64` (float64 tracking and continuation),
:mod:`freege.numeric.polish_mp` and :mod:`freege.numeric.tracking_mp` (verified mpmath
roots, mpmath tracking and continuation). This module holds :class:`CauchyEquation`, the
support intervals and the atom at 0, and names every constant of the parts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric.branch_points import (
    FLOAT64_EDGE_DPS,
    BranchPoints,
    polynomial_roots,
    real_roots,
)
from freege.numeric.cauchy_polynomial import (
    COEFF_DPS,
    MATRIX_BITS,
    CauchyPolynomial,
    _gamma,
    coefficient_functions,
    coefficient_matrix,
)
from freege.numeric.polish_mp import GUARD_BITS, MpPolish
from freege.numeric.tracking_f64 import ACCEPT, FINAL_TRIES, LOWER, MIN_STEP, Float64Tracking
from freege.numeric.tracking_mp import NEAR_ZERO, MpTracking

#: relative float64 accuracy below which a point is recomputed with mpmath
FLOAT64_RTOL = 2e-14
#: digits used when a float64 point needs more precision
RESCUE_DPS = 30


class CauchyEquation(Float64Tracking, MpTracking):
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

    Its parts: :class:`freege.numeric.cauchy_polynomial.CauchyPolynomial` (coefficients),
    :class:`freege.numeric.branch_points.BranchPoints` (discriminant, edges, atoms, radius,
    scale), :class:`freege.numeric.tracking_f64.Float64Tracking`,
    :class:`freege.numeric.polish_mp.MpPolish` and
    :class:`freege.numeric.tracking_mp.MpTracking`.
    """


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


__all__ = [
    "ACCEPT", "COEFF_DPS", "FINAL_TRIES", "FLOAT64_EDGE_DPS", "FLOAT64_RTOL", "GUARD_BITS",
    "LOWER", "MATRIX_BITS", "MIN_STEP", "NEAR_ZERO", "RESCUE_DPS", "BranchPoints",
    "CauchyEquation", "CauchyPolynomial", "Float64Tracking", "MpPolish", "MpTracking",
    "Probes", "atom_at_zero", "coefficient_functions", "coefficient_matrix",
    "polynomial_roots", "real_roots", "support_intervals", "track_segment",
]
