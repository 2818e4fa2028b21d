"""The verified solvers of :mod:`freege.numeric.solve`: they return a value only when it
passed its tests, and raise :class:`freege.errors.ConvergenceError` otherwise."""

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.errors import ConvergenceError
from freege.numeric.solve import find_root, polish_root


@given(
    root=st.fractions(min_value=-5, max_value=5, max_denominator=1000),
    power=st.sampled_from([1, 3, 5]),
    newton=st.booleans(),
    dps=st.sampled_from([20, 40, 80]),
)
def test_bracketed_root_is_within_its_tolerance(root, power, newton, dps):
    """Odd powers of (x - r) (simple and multiple roots) on a lopsided bracket: the
    returned x is within the relative tolerance of the exact root r."""
    with mpmath.workdps(dps):
        r = mpmath.mpf(root.numerator) / root.denominator

        def f(x):
            return (x - r) ** power

        def df(x):
            return power * (x - r) ** (power - 1)

        x = find_root(f, (r - 3, r + 7), df=df if newton else None, quantity="test root")
        tol = mpmath.ldexp(1, 16 - mpmath.mp.prec) * max(abs(r - 3), abs(r + 7)) * 2
        assert abs(x - r) <= tol


def test_no_sign_change_raises_with_the_quantity_and_parameters():
    with pytest.raises(ConvergenceError, match=r"w\(lam\).*no sign change.*lam=0.5"):
        find_root(lambda x: x**2 + 1, (0, 2), quantity="w(lam)", params={"lam": 0.5})


def test_unresolved_sign_is_an_error_not_an_answer():
    """A function that is pure rounding noise near its 'root' cannot be verified."""
    with mpmath.workdps(30):
        def noisy(x):
            return (x - mpmath.mpf(1) / 3) * mpmath.mpf(10) ** -40 + mpmath.rand() - 0.5

        with pytest.raises(ConvergenceError):
            find_root(noisy, (0, 1), quantity="noisy", noise=lambda x: mpmath.mpf("0.6"))


def test_iteration_cap_raises():
    with mpmath.workdps(30), pytest.raises(ConvergenceError, match="no convergence"):
        find_root(lambda x: (x - mpmath.mpf(1) / 3) ** 3, (0, 1), quantity="capped", maxiter=5)


def test_newton_polish_complex_root_and_failure():
    with mpmath.workdps(40):
        x = polish_root(lambda g: g**2 + 1, lambda g: 2 * g, mpmath.mpc(0.2, -0.7),
                        quantity="G")
        assert abs(x - mpmath.mpc(0, -1)) < mpmath.mpf(10) ** -35
        with pytest.raises(ConvergenceError, match="derivative"):
            polish_root(lambda g: g**2 + 1, lambda g: 2 * g, 0, quantity="G")
        with pytest.raises(ConvergenceError, match="did not converge"):
            # a real start never reaches a complex root of a real polynomial
            polish_root(lambda g: g**2 + 1, lambda g: 2 * g, mpmath.mpf("0.3"),
                        quantity="G", maxiter=30)
