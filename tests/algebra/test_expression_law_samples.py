"""The numeric law of random expressions of depth <= 3 (tests/algebra/strategies.py,
``light_expressions``: Cauchy polynomials of small degree, so that each law costs a
fraction of a second; hypothesis derandomized, the draws seeded) against samples of their
random-matrix models (freege.validation.sampling.algebra_models): the moments (the series
at infinity of the Cauchy polynomial), the distribution (cdf, i.e. the integrated
density, against the pooled eigenvalues), the support's edges against the extreme
eigenvalues, and the atoms with their masses.

Tolerances, from the sample sizes (``n`` eigenvalues per draw, ``M`` pooled):

* moments: :func:`tests.validation.sampling.test_algebra_models.moment_tolerance`;
* distribution: Kolmogorov distance at most ``sqrt(ln(2/ALPHA)/(2M)) + 2/n``: the
  Dvoretzky-Kiefer-Wolfowitz bound of ``M`` independent points at level ``ALPHA`` (the
  eigenvalues of one draw repel, so their counting function fluctuates by
  ``O(sqrt(log n))`` eigenvalues, far less than independent points' ``O(sqrt n)``:
  the bound covers it), plus the ``O(1/n)`` finite-size bias of the expected spectral
  law (atoms' counts rounded to integers: less than one eigenvalue per atom and leaf);
* edges: at a square-root edge the extreme eigenvalue lies ``s`` Tracy-Widom units
  beyond the edge with probability about ``exp(-(2/3) s^(3/2))``; ``s`` units are the
  width that holds ``(2/(3 pi)) s^(3/2)/n`` of the law's mass next to the edge, so the
  allowance, the distance from the edge that holds ``KAPPA/n`` of the mass with
  ``KAPPA = ln(1/ALPHA_EDGE)/pi``, is exceeded with probability ``ALPHA_EDGE`` per edge
  and draw (a hard edge's smallest eigenvalue has a thinner tail on that scale); the
  same width bounds how far inside the extreme eigenvalue can stay (Tracy-Widom's left
  tail, ``exp(-|s|^3/24)``, is thinner still);
* atoms: the share of eigenvalues at the atom within ``6 sqrt(p (1 - p)/M) + 2/n`` of
  the exact mass ``p`` (a binomial count at six standard deviations, the counts'
  rounding).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings

from freege import algebra
from tests.algebra.strategies import degree_bound, light_expressions
from tests.validation.sampling.test_algebra_models import (
    classical_semicircle_sums,
    moment_tolerance,
    sampled,
)

#: matrix size (divisible by 8: the strategies' parameters give exact models) and draws
N, DRAWS = 160, 8
#: failure probability of the distribution bound and of one edge allowance (per draw)
ALPHA, ALPHA_EDGE = 1e-9, 1e-12
#: the mass next to an edge (in eigenvalues per draw) that sets its allowance
KAPPA = math.log(1 / ALPHA_EDGE) / math.pi
#: examples (derandomized: the same expressions on every run)
EXAMPLES = 8
#: the bound on the Cauchy polynomial's degree in G (strategies.degree_bound)
BUDGET = 4
#: eigenvalues this close (relative to the spectrum's reach) to an atom sit on it
AT_ATOM = 1e-9


def edge_allowances(law):
    """``{edge: allowance}`` of every support interval's ends: the distance from the edge
    into its interval that holds ``KAPPA/N`` of the law's mass (the whole interval when
    it holds less)."""
    share = KAPPA / N
    out = {}
    for a, b in law.intervals():
        inner_lo = min(float(law.ppf(min(law.cdf(a) + share, 1.0))), b)
        below_b = law.cdf(b) - law.atoms().get(b, 0.0)
        inner_hi = max(float(law.ppf(max(below_b - share, 0.0))), a)
        out[a] = max(out.get(a, 0.0), inner_lo - a)
        out[b] = max(out.get(b, 0.0), b - inner_hi)
    return out


def outside_excess(ev, law, allowances, reach):
    """For each eigenvalue outside the support (intervals and atoms), how far it lies
    beyond the allowance of its nearest edge (<= 0: within it)."""
    inside = np.zeros(ev.shape, dtype=bool)
    for a, b in law.intervals():
        inside |= (ev >= a) & (ev <= b)
    for loc in law.atoms():
        inside |= np.abs(ev - loc) <= AT_ATOM * reach
    edges = np.array(sorted(allowances))
    if not edges.size:
        return np.zeros(0)
    out = ev[~inside]
    nearest = edges[np.argmin(np.abs(out[:, None] - edges[None, :]), axis=1)]
    return np.abs(out - nearest) - np.array([allowances[e] for e in nearest])


def kolmogorov_distance(pooled, law, reach):
    """``sup |F_M - F|`` with the law's atoms: eigenvalues on an atom are put at it, and
    at every distinct value the empirical and the law's cdf are compared both just
    before and at it."""
    values = pooled.copy()
    atoms = law.atoms()
    for loc in atoms:
        values[np.abs(values - loc) <= AT_ATOM * reach] = loc
    values.sort()
    points = np.unique(values)
    right = np.searchsorted(values, points, side="right") / values.size
    left = np.searchsorted(values, points, side="left") / values.size
    at = law.cdf(points)
    jumps = np.array([atoms.get(x, 0.0) for x in points])
    return max(np.max(np.abs(right - at)), np.max(np.abs(left - (at - jumps))))


@settings(max_examples=EXAMPLES)
@given(light_expressions(depth=3, budget=BUDGET, min_depth=2))
def test_numeric_law_agrees_with_samples(expr):
    assert degree_bound(expr) <= BUDGET
    law = expr.law()
    spectra = sampled(expr, draws=DRAWS)
    pooled = np.concatenate(spectra)
    reach = max(1.0, float(np.max(np.abs(pooled))))
    for k in (1, 2, 3, 4):
        got = np.mean([np.mean(ev**k) for ev in spectra])
        assert abs(got - law.moment(k)) <= moment_tolerance(k, spectra), (expr, k, got)
    dkw = math.sqrt(math.log(2 / ALPHA) / (2 * pooled.size)) + 2 / N
    distance = kolmogorov_distance(pooled, law, reach)
    assert distance <= dkw, (expr, distance, dkw)
    allowances = edge_allowances(law)
    lo, hi = law.support()
    low_end = float(law.ppf(KAPPA / N))  # the lowest eigenvalue lies below it
    high_end = float(law.ppf(1 - KAPPA / N))
    slack = AT_ATOM * reach
    for ev in spectra:
        excess = outside_excess(ev, law, allowances, reach)
        assert np.all(excess <= slack), (expr, law.intervals(), excess.max())
        assert ev.min() <= low_end + slack and ev.max() >= high_end - slack, (
            expr, ev.min(), low_end, ev.max(), high_end)
    assert lo - allowances.get(lo, 0.0) - slack <= pooled.min(), (expr, pooled.min(), lo)
    assert pooled.max() <= hi + allowances.get(hi, 0.0) + slack, (expr, pooled.max(), hi)
    for location, mass in law.atoms().items():
        share = np.mean(np.abs(pooled - location) <= slack)
        tol = 6 * math.sqrt(mass * (1 - mass) / pooled.size) + 2 / N
        assert abs(share - mass) <= tol, (expr, location, mass, share)


def test_the_edge_allowance_rejects_a_classical_sum():
    """Commuting (diagonal, unrotated) semicircle samples spread to the classical sum's
    support [-4, 4], beyond the free sum's edges +-2 sqrt(2) and their allowances; the
    free model's samples stay within them."""
    free = algebra.parse("semicircle(1) + semicircle(1)")
    law = free.law()
    allowances = edge_allowances(law)
    classical = classical_semicircle_sums(N, DRAWS)
    worst = max(outside_excess(ev, law, allowances, 4.0).max(initial=-np.inf)
                for ev in classical)
    assert worst > 0
    worst = max(outside_excess(ev, law, allowances, 4.0).max(initial=-np.inf)
                for ev in sampled(free, draws=DRAWS))
    assert worst <= 0
