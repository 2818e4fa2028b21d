"""A law as a scientific-Python citizen (issue 28): it pickles by its recipe and gives
the same bits after a round trip and in a process-pool worker; equal laws are equal and
hash equal; scipy.stats' edge conventions (checked against scipy itself); moments of any
order; answers independent of the order and batching of the points asked."""

from __future__ import annotations

import concurrent.futures
import copy
import functools
import math
import multiprocessing
import pickle
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from freege.errors import ConvergenceError
from freege.numeric import compiled, law_moments, law_recipe
from freege.numeric.case_law import CaseLaw, _moment_function, law
from freege.numeric.law_family import SYMBOLIC_ORDER
from freege.params import Ratios
from tests.numeric.law_worker import answers, in_worker

#: the attention law (a soft lower edge, no atom) and the MHA law with an atom at 0
ATTENTION = Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=2)
ATOM = Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=2, gO=Fraction(7, 10))
#: a scipy law of the same kind (a lower edge at 0, an upper edge at infinity)
SCIPY = sps.gamma(2)
PROBABILITIES = np.array([-0.1, 0.0, 0.25, 0.5, 1.0, 1.5, np.nan])


@functools.cache
def atom_law() -> CaseLaw:
    """One law shared by the convention tests (its memos are no history: see the last
    test)."""
    return law("mha", ATOM, normalized=True)


def points(L: CaseLaw) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = L.support()
    xs = np.array([lo - 1, lo, lo + 1e-9 * (hi - lo), *np.linspace(lo, hi, 7)[1:-1],
                   hi - 1e-6 * (hi - lo), hi, hi + 1, np.inf, -np.inf, np.nan])
    return xs, np.array([0.0, 1e-6, 0.1, 0.5, 0.9, 1 - 1e-9, 1.0, 2.0, np.nan])


def same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(np.array_equal(u, v, equal_nan=True) for u, v in zip(a, b, strict=True))


# ------------------------------------------------------------------ pickling, identity
def test_a_law_pickles_by_its_recipe_and_gives_the_same_bits() -> None:
    L = law("attention", ATTENTION)
    xs, qs = points(L)
    before = answers(L, xs, qs)
    again = pickle.loads(pickle.dumps(L))
    assert again == L and again is not L and again.recipe() == L.recipe()
    assert same_bits(answers(again, xs, qs), before)
    # the recipe is plain: it pickles by value, no function or array inside
    name, arguments = L.recipe()
    assert name == "law" and law_recipe.check_plain(arguments) == arguments
    assert pickle.loads(pickle.dumps(L.recipe())) == L.recipe()
    assert copy.deepcopy(L) == L and same_bits(answers(copy.copy(L), xs, qs), before)
    # every CaseLaw-returning path pickles too, and to an equal law
    for other in (L.with_dps(None), L.as_normalized(), L.with_dps(20),
                  law("mha", ATTENTION), CaseLaw("mha", Ratios(**{**ATTENTION.as_dict(),
                                                              "sharing": "tied"}))):
        again = pickle.loads(pickle.dumps(other))
        assert again == other and hash(again) == hash(other) and repr(again) == repr(other)
        assert again.ratios == other.ratios and again.describe == other.describe


def test_a_dps_law_pickles_and_keeps_its_mpmath_answers() -> None:
    L = law("attention", ATTENTION, dps=20)
    again = pickle.loads(pickle.dumps(L))
    assert again.dps == 20
    for q in (2, 9):
        a, b = L.moment(q), again.moment(q)
        assert isinstance(a, mpmath.mpf) and a == b


def test_a_process_pool_worker_gives_the_same_bits() -> None:
    """A fresh interpreter (spawn) rebuilds the law from its pickle: the same bits."""
    L = law("mha", ATOM, normalized=True)
    xs, qs = points(L)
    here = in_worker(L, xs, qs)
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = pool.submit(in_worker, L, xs, qs).result(timeout=300)
    assert same_bits(there, here)


def test_equal_parameters_give_equal_and_equally_hashed_laws() -> None:
    a = law("attention", ATTENTION)
    b = law("attention", Ratios(beta=Fraction(1), h=4, gK="0.5", gV=0.5, gO=2))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert {a: 1}[b] == 1
    assert a.with_dps(20).with_dps(None) == a
    assert a.as_normalized() == law("attention", ATTENTION, normalized=True)
    # sharing only chooses the case: tied mha is mha-tied
    tied = Ratios(**{**ATTENTION.as_dict(), "sharing": "tied"})
    assert CaseLaw("mha", tied) == CaseLaw("mha-tied", ATTENTION)
    assert CaseLaw("mha", tied) != CaseLaw("mha", ATTENTION)
    different = [law("attention", ATTENTION, normalized=True), a.with_dps(20),
                 law("value", ATTENTION), law("attention", Ratios(**{**ATTENTION.as_dict(),
                                                                     "beta": 2}))]
    for other in different:
        assert other != a and len({a, other}) == 2
    assert a != "attention" and a != a.recipe()


def test_a_recipe_names_a_known_constructor() -> None:
    with pytest.raises(ValueError, match="name must be one of"):
        law_recipe.rebuild(("bogus", ()))
    with pytest.raises(ValueError, match="plain values"):
        law_recipe.recipe("law", "attention", (np.float64(1.0),), False, None)


class Forged:
    """A hand-made pickle: loading it calls :func:`law_recipe.rebuild` on ``made_from``."""

    def __init__(self, made_from: object) -> None:
        self.made_from = made_from

    def __reduce__(self) -> tuple:
        return law_recipe.rebuild, (self.made_from,)


def test_a_recipe_is_range_checked_on_load() -> None:
    """A pickle asking for ``dps = 10**9`` is a ValueError on load (it used to load and
    hang on first use); every parameter of a recipe is checked before building."""
    ratios = (1, 4, Fraction(1, 2), Fraction(1, 2), 2, "none")
    forged = pickle.dumps(Forged(("law", ("attention", ratios, False, 10**9))))
    with pytest.raises(ValueError, match=r"dps must be an integer in \[15, 200\]"):
        pickle.loads(forged)
    bad = [(("law", ("attention", ratios, False, 14)), r"dps must be an integer in \[15"),
           (("law", ("attention", ratios, False, "20")), "recipe dps must be None or an "
                                                          "integer"),
           (("law", ("attention", ratios, 1, None)), "normalized must be True or False"),
           (("law", ("attention", (100, *ratios[1:]), False, None)), "beta must be"),
           (("law", ("attention", (1, 4, 0, Fraction(1, 2), 2, "none"), False, None)),
            "gK must be"),
           (("law", ("attention", ratios[:5], False, None)), "recipe ratios must be"),
           (("law", ("bogus", ratios, False, None)), "case must be one of"),
           (("law", ("attention", ratios, False)), "recipe 'law'"),
           (("expression", ("MP(2)", 10**9)), r"dps must be an integer in \[15, 200\]"),
           (("expression", ("(" * 3000, None)), "expression: longer than"),
           (("law", "attention"), r"a recipe is \(constructor name")]
    for made_from, message in bad:
        with pytest.raises(ValueError, match=message):
            pickle.loads(pickle.dumps(Forged(made_from)))
    # the range a recipe keeps: None and 15 .. MAX_DPS load
    assert pickle.loads(pickle.dumps(Forged(("law", ("attention", ratios, False, 15))))) \
        == law("attention", ATTENTION, dps=15)


# ------------------------------------------------------------------ scipy's edge conventions
def test_ppf_and_isf_give_nan_outside_0_1_like_scipy() -> None:
    L = atom_law()
    lo, hi = L.support()
    for name in ("ppf", "isf"):
        mine, theirs = getattr(L, name)(PROBABILITIES), getattr(SCIPY, name)(PROBABILITIES)
        assert mine.shape == theirs.shape
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
        grid = PROBABILITIES.reshape(7, 1)  # shape kept
        assert getattr(L, name)(grid).shape == getattr(SCIPY, name)(grid).shape
        for q in (-0.1, 1.5, np.nan):  # a scalar in, a scalar nan out
            assert np.ndim(getattr(L, name)(q)) == 0 and math.isnan(getattr(L, name)(q))
            assert math.isnan(getattr(SCIPY, name)(q))
    # ppf(0), ppf(1) (isf(1), isf(0)) are the ends of the support, as in scipy
    assert (SCIPY.ppf(0), SCIPY.ppf(1)) == SCIPY.support()
    assert (L.ppf(0), L.ppf(1)) == (lo, hi) == (L.isf(1), L.isf(0))


def test_interval_broadcasts_like_scipy() -> None:
    L = atom_law()
    for c in (np.array([0.5, 0.9]), np.array([[0.1], [0.2], [np.nan]]), 0.9, [0.0, 1.0]):
        mine, theirs = L.interval(c), SCIPY.interval(c)
        for m, t, side in zip(mine, theirs, (-1, 1), strict=True):
            assert np.shape(m) == np.shape(t)
            np.testing.assert_array_equal(np.isnan(m), np.isnan(t))
            np.testing.assert_array_equal(m, L.ppf((1 + side * np.asarray(c)) / 2))
    for bad in (1.5, [0.5, -0.1]):
        with pytest.raises(ValueError):
            SCIPY.interval(bad)
        with pytest.raises(ValueError, match="confidence must be in"):
            L.interval(bad)


@pytest.mark.parametrize("dps", [None, 30])
def test_cdf_and_sf_at_infinity_are_exact_and_cost_nothing(monkeypatch, dps) -> None:
    """``cdf(+-inf)``, ``sf(+-inf)`` and their logs equal scipy's exactly; a fresh law
    answers them without locating its support (at dps 30 that took 24 s)."""
    L = law("attention", ATTENTION, dps=dps)

    def refuse() -> None:
        raise AssertionError("the support was located")

    monkeypatch.setattr(L, "_intervals_mp", refuse)
    ends = np.array([-np.inf, np.inf])
    for name in ("cdf", "sf", "logcdf", "logsf"):
        mine, theirs = getattr(L, name)(ends), getattr(SCIPY, name)(ends)
        assert [float(v) for v in mine] == list(theirs), name
        for end, value in zip(ends, theirs, strict=True):
            one = getattr(L, name)(end)
            assert float(one) == value
            assert isinstance(one, mpmath.mpf) if dps else isinstance(one, float)
    if dps:
        assert mpmath.isnan(L.ppf(-0.1)) and mpmath.isnan(L.isf(1.5))


def test_cdf_is_exact_beyond_the_support() -> None:
    L = law("attention", ATTENTION)
    lo, hi = L.support()
    np.testing.assert_array_equal(L.cdf([lo - 1, -1e300, hi, hi + 1, 1e300]), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(L.sf([hi, 1e300]), [0, 0])
    assert L.logsf(hi) == -np.inf and L.logcdf(hi) == 0


def test_dps_interval_and_ppf_keep_mpmath_numbers() -> None:
    L = law("attention", ATTENTION, dps=20)
    lo, hi = L.interval(np.array([np.nan, np.nan]))
    assert lo.dtype == object and all(mpmath.isnan(v) for v in (*lo, *hi))
    out = L.ppf([-0.1, 1.5])
    assert out.dtype == object and all(isinstance(v, mpmath.mpf) and mpmath.isnan(v)
                                       for v in out)
    with pytest.raises(ValueError, match="confidence must be in"):
        L.interval(2)


# ------------------------------------------------------------------ moments of any order
@pytest.mark.parametrize(("case", "ratios"), [("attention", ATTENTION), ("mha", ATOM)])
def test_moment_of_order_20_agrees_with_quadrature(case, ratios) -> None:
    L = law(case, ratios)
    assert L.moment(20) == pytest.approx(L.expect(lambda x: x**20), rel=1e-9)


def test_series_moments_equal_the_exact_symbolic_moments() -> None:
    """Beyond :data:`SYMBOLIC_ORDER` the series at infinity gives the moments; where the
    symbolic moments also compile (attention, q <= 8) the two agree to 30 digits."""
    L = law("attention", ATTENTION, dps=30)
    with mpmath.workdps(30):
        values = L.parameter_values()
        for q in range(SYMBOLIC_ORDER + 1, 9):
            exact = mpmath.mpf(_moment_function("attention", q, False)(*values,
                                                                       compiled.mp_rational))
            assert abs(L.moment(q) - exact) <= mpmath.mpf(10) ** -28 * exact


def test_laurent_series_of_a_known_law() -> None:
    """The free Poisson law pi_1 (theory §3): ``z G^2 - z G + 1 = 0``, moments the Catalan
    numbers ``C(2k, k)/(k + 1)``; a double or missing branch at infinity is refused."""
    rows = [[1, 0], [0, -1], [0, 1]]  # rows[i][j]: G^i z^j
    with mpmath.workdps(30):
        m = law_moments.laurent_moments([[mpmath.mpf(c) for c in r] for r in rows], 25)
        assert m == [math.comb(2 * k, k) // (k + 1) for k in range(26)]
        for bad in ([[1, 0, 0], [0, -2, 0], [0, 0, 1]], [[-2, 0], [0, 1]]):
            with pytest.raises(ConvergenceError, match="simple root"):
                law_moments.laurent_moments([[mpmath.mpf(c) for c in r] for r in bad], 3)


@pytest.mark.parametrize("order", [1.5, -1, "2", True, float("nan"), None])
def test_moment_order_must_be_an_integer_at_least_0(order) -> None:
    with pytest.raises(ValueError, match="order"):
        law("attention", ATTENTION).moment(order)


def test_moment_0_is_1_like_scipy() -> None:
    assert law("attention", ATTENTION).moment(0) == SCIPY.moment(0) == 1


# ------------------------------------------------------------------ purity
def test_answers_do_not_depend_on_order_batching_or_pickling() -> None:
    """The same points alone, in batches, in other orders, on fresh and pickled laws:
    identical bits (a law's answers are a pure function of its arguments)."""
    L = law("mha", ATOM, normalized=True)
    xs, qs = points(L)
    batch = answers(L, xs, qs)
    fresh = law("mha", ATOM, normalized=True)
    perm_x, perm_q = np.random.default_rng(3).permutation(xs.size), np.arange(qs.size)[::-1]
    shuffled = answers(fresh, xs[perm_x], qs[perm_q])
    unshuffled = [shuffled[k][np.argsort(perm_x)] for k in range(3)]
    unshuffled.append(shuffled[3][np.argsort(perm_q)])
    assert same_bits(unshuffled, batch)
    alone = law("mha", ATOM, normalized=True)
    singles = [np.array([getattr(alone, name)(x) for x in xs[::-1]])[::-1]
               for name in ("pdf", "cdf", "sf")]
    singles.append(np.array([alone.ppf(q) for q in qs]))
    assert same_bits(singles, batch)
    used = pickle.loads(pickle.dumps(L))  # rebuilt after L answered everything
    assert same_bits(answers(used, xs[::-1], qs[::-1]), [a[::-1] for a in batch])
