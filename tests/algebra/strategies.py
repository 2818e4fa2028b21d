"""Random expressions of the law algebra for property tests (hypothesis): small exact
parameters whose random-matrix models are exact at sizes divisible by 8 (masses in
quarters, rates and ratios in {1/4, 1/2, 1, 2}), trees of depth <= 3; and trees of depth
<= 3 whose Cauchy polynomial stays of small degree in ``G`` (:func:`light_expressions`:
the numeric law of each in a fraction of a second)."""

from __future__ import annotations

import math
from fractions import Fraction as F

from hypothesis import strategies as st

from freege import algebra

RATIOS = (F(1, 4), F(1, 2), 1, 2)
RATES = (F(1, 2), 1, 2)
VARIANCES = (F(1, 4), 1, 2)
LOCATIONS = (-1, 0, 1, 3)
MASSES = ((F(1, 4), F(3, 4)), (F(1, 2), F(1, 2)))


@st.composite
def jump_laws(draw):
    first, second = draw(st.lists(st.sampled_from(LOCATIONS), min_size=2, max_size=2,
                                  unique=True))
    p, q = draw(st.sampled_from(MASSES))
    return algebra.atomic([(first, p), (second, q)])


def leaves():
    return st.one_of(
        st.sampled_from(RATIOS).map(algebra.marchenko_pastur),
        st.sampled_from(VARIANCES).map(algebra.semicircle),
        st.sampled_from((-1, F(1, 2), 2)).map(algebra.point_mass),
        jump_laws(),
        st.sampled_from(RATES).map(algebra.free_poisson),
        st.tuples(st.sampled_from(RATES), jump_laws()).map(lambda a: algebra.free_poisson(*a)),
    )


def positive(law):
    """``law`` when it may enter ``⊠``, else the law of its square (plus 1 for delta_0)."""
    if not law.is_positive:
        law = algebra.pushforward(law, [0, 0, 1])
    return law + 1 if law.mean == 0 else law


@st.composite
def expressions(draw, depth=3):
    """A random expression of at most ``depth`` operations from root to leaf."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(leaves())
    kind = draw(st.sampled_from(("affine", "add", "mult", "push", "poisson")))
    child = draw(expressions(depth=depth - 1))
    if kind == "poisson":
        return algebra.free_poisson(draw(st.sampled_from(RATES)), child)
    if kind == "affine":
        return algebra.affine(child, draw(st.sampled_from((-2, F(1, 2), 2))),
                              draw(st.sampled_from((-1, 0, 3))))
    if kind == "push":
        return algebra.pushforward(child, [draw(st.sampled_from((0, 1))),
                                           draw(st.sampled_from((-1, 0, 2))), 1])
    other = draw(expressions(depth=depth - 1))
    if kind == "add":
        return algebra.free_add(child, other)
    return algebra.free_mult(positive(child), positive(other))


def degree_bound(law) -> int:
    """A bound on the degree in ``G`` of the Cauchy polynomial of ``law``: 2 for MP and
    the semicircle, ``k`` for ``k`` atoms (``k + 1`` for a compound free Poisson law
    with them, twice the jump law's otherwise); affine maps keep it, a quadratic
    pushforward doubles it, ``⊞`` and ``⊠`` multiply the factors' (their eliminations)."""
    if isinstance(law, algebra.MarchenkoPastur | algebra.Semicircle):
        return 2
    if isinstance(law, algebra.Atomic):
        return len(law.points)
    if isinstance(law, algebra.FreePoisson):
        jump = law.jump
        return len(jump.points) + 1 if isinstance(jump, algebra.Atomic) else 2 * degree_bound(jump)
    if isinstance(law, algebra.Affine):
        return degree_bound(law.base)
    if isinstance(law, algebra.Pushforward):
        return degree_bound(law.base) * (2 if law.coeffs[2] != 0 else 1)
    if isinstance(law, algebra.FreeAdd):
        return math.prod(degree_bound(t) for t in law.terms)
    if isinstance(law, algebra.FreeMult):
        return math.prod(degree_bound(f) for f in law.factors)
    raise TypeError(f"no degree bound for {type(law).__name__}")


@st.composite
def light_expressions(draw, depth=3, budget=4, min_depth=0):
    """A random expression of at most ``depth`` operations (the operations and leaves of
    :func:`expressions`) with :func:`degree_bound` at most ``budget``: an operation whose
    result would exceed it gives its first operand instead (no filtering, so no example
    is rejected), and so does a pushforward whose vertex lies inside the operand's
    enclosure (the image folds there: a singular point inside the support, whose
    quadrature takes seconds, docs/algebra.md, Limits); the first ``min_depth`` levels
    of the first operand chain are operations (the shrunk examples would be leaves
    otherwise)."""
    if depth == 0 or (min_depth <= 0 and draw(st.integers(0, 3)) == 0):
        return draw(leaves().filter(lambda law: degree_bound(law) <= budget))
    kind = draw(st.sampled_from(("affine", "add", "mult", "push", "poisson")))
    child = draw(light_expressions(depth=depth - 1, budget=budget, min_depth=min_depth - 1))
    if kind == "poisson":
        out = algebra.free_poisson(draw(st.sampled_from(RATES)), child)
    elif kind == "affine":
        out = algebra.affine(child, draw(st.sampled_from((-2, F(1, 2), 2))),
                             draw(st.sampled_from((-1, 0, 3))))
    elif kind == "push":
        slope = draw(st.sampled_from((-1, 0, 2)))
        out = algebra.pushforward(child, [draw(st.sampled_from((0, 1))), slope, 1])
        lo, hi = child.bounds()
        if lo < -slope / 2 < hi:  # a fold: a singular point inside the support
            out = child
    else:
        other = draw(light_expressions(depth=depth - 1, budget=budget))
        out = (algebra.free_add(child, other) if kind == "add"
               else algebra.free_mult(positive(child), positive(other)))
    return out if degree_bound(out) <= budget else child
