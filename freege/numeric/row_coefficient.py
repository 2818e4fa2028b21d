"""The finite-n row coefficient of softmax attention (theory §2.3, what the model leaves out);
the sampler (``freege.validation.sampling``) and the finite-width law
(:mod:`freege.numeric.finite_width_law`) both read it.

Given its query, row ``i`` of a head has scores i.i.d. ``N(0, v)`` over the ``n`` keys.
With ``zeta_j = exp(beta S_ij)`` (any scale: it cancels) the row's realised coefficient is
``n |A_i^perp|^2 = n sum_j zeta_j^2 / (sum_j zeta_j)^2 - 1``, and ``1/s^2 = int_0^oo t
e^{-ts} dt`` gives its expectation exactly:

    theta_n(x) = n^2 int_0^oo t phi_2(t) phi_0(t)^(n-1) dt - 1,
    phi_k(t) = E[zeta^k e^{-t zeta}],   x = beta^2 v,

which tends to ``e^x - 1`` as ``n`` grows and lies below it at every ``x > 0``.

Numerics: ``zeta = e^{sqrt(x) g - x/2}`` (mean one), ``g ~ N(0, 1)`` on a uniform grid
(trapezoid: exponentially accurate for this smooth, Gaussian-damped integrand), ``t = u/n``
on a logarithmic grid of ``u`` from ``1e-9 e^{-x}`` to ``1e12 e^{x/2 + 4 sqrt(x)}``, cut
where ``phi_0^(n-1)`` has fallen below ``e^{-60}``; an ``ArithmeticError`` when the
integrand is not negligible at both ends of the grid. :func:`theta_n` interpolates
``log(1 + theta_n)`` linearly on a grid of :data:`TABLE_POINTS` values of ``x`` up to a
bound past which no row of a draw falls (:func:`x_bound`), built once per ``(n, x_max)``:
a pure function of its arguments.
"""

from __future__ import annotations

import functools
import math

import numpy as np

#: points of the ``x`` table
TABLE_POINTS = 161
#: points of the Gaussian grid and of the ``log u`` grid
GAUSS_POINTS, U_POINTS = 601, 701


def x_bound(beta: float, dk: int) -> float:
    """``beta^2 v_max`` with ``v_max = 1 + 14 sqrt(2/dK) + 50/dK``: beyond 14 standard
    deviations of ``v = chi2_dK/dK`` (and its skew) no row of a draw falls."""
    return float(beta) ** 2 * (1 + 14 * math.sqrt(2 / dk) + 50 / dk)


def theta_n_exact(x: float, n: int) -> float:
    """``theta_n(x)`` (module docstring) by quadrature at one ``x >= 0``."""
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"x must be a finite number >= 0 (got {x!r})")
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (got {n!r})")
    s = math.sqrt(x)
    g = np.linspace(-10.0, 10.0 + 2 * s, GAUSS_POINTS)
    w = np.exp(-g * g / 2) * ((g[1] - g[0]) / math.sqrt(2 * math.pi))
    zeta = np.exp(s * g - x / 2)
    low, high, count = _u_grid(x)
    u = np.geomspace(10.0 ** low, 10.0 ** high, count)
    e = np.exp(-np.outer(u / n, zeta))
    with np.errstate(divide="ignore"):  # phi_0 underflows to 0 far out: cut below
        log_phi0 = np.log(e @ w)
    keep = (n - 1) * log_phi0 > -60  # a prefix: phi_0 decreases in u
    u, e, log_phi0 = u[keep], e[keep], log_phi0[keep]
    f = u * (e @ (w * zeta * zeta)) * np.exp((n - 1) * log_phi0)
    weight = f * u  # the integrand in log u; near u = 0 it grows like u^2
    total = float(np.trapezoid(weight, np.log(u)))
    if keep.all() or weight[-1] > 1e-12 * weight.max() or weight[0] / 2 > 1e-12 * total:
        raise ArithmeticError(f"theta_n quadrature: the u grid does not hold the integrand "
                              f"at x = {x:g}, n = {n}")
    return total - 1.0


def _u_grid(x: float) -> tuple[float, float, int]:
    """``(log10 u_min, log10 u_max, points)`` of the ``u`` grid at ``x``: ``t = u/n``;
    small zeta (median ``e^{-x/2}``) can make ``1/sum(zeta)`` far larger than ``1/n``, and
    near 0 the integrand grows like ``u^2 E zeta^2 = u^2 e^x``."""
    low, high = -9 - x / math.log(10), 12 + (x / 2 + 4 * math.sqrt(x)) / math.log(10)
    return low, high, int(U_POINTS * (high - low) / 21)


def table_work(x_max: float) -> float:
    """Elementwise operations of building the :func:`theta_n` table up to ``x_max`` (for
    run estimates): per ``x`` of the table, the ``u`` x Gaussian grid's exponential and
    its two products, counted before the cut (a bound)."""
    return float(sum(3 * GAUSS_POINTS * _u_grid(float(x))[2]
                     for x in np.linspace(0.0, x_max, TABLE_POINTS)))


@functools.lru_cache(maxsize=32)
def _table(n: int, x_max: float) -> tuple[np.ndarray, np.ndarray]:
    xs = np.linspace(0.0, x_max, TABLE_POINTS)
    ys = np.array([math.log1p(theta_n_exact(float(x), n)) for x in xs])
    return xs, ys


def theta_n(x: np.ndarray, n: int, x_max: float) -> np.ndarray:
    """``theta_n`` at each ``x`` in ``[0, x_max]`` (larger ``x`` is clamped to ``x_max``)
    from the interpolated table of ``(n, x_max)``; float64 NumPy in and out."""
    xs, ys = _table(int(n), float(x_max))
    return np.expm1(np.interp(np.asarray(x, dtype=np.float64), xs, ys))
