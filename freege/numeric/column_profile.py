"""The column profile of finite-width attention (theory §2.3, *rows and columns*; issue 39).

Given its query (``v = |q|^2/dK``) a softmax row has scores i.i.d. ``N(0, v)`` over the
keys; given also the key (``u = |k|^2/dK``) entry ``j`` has score
``S = sqrt(v u dK) c`` with ``c`` the cosine of the angle between ``q`` and ``k``
(density proportional to ``(1 - c^2)^((dK - 3)/2)``). With ``zeta = e^{beta S - x/2}``,
``x = beta^2 v``, and ``1/s = int_0^oo e^{-ts} dt``, ``1/s^2 = int_0^oo t e^{-ts} dt``,
the entry's conditional mean and second moment in a row of ``n`` keys are exact
one-dimensional integrals:

    mu(x, u) = E[n A_ij | v, u]     = int_0^oo E[zeta_j e^{-s zeta_j/n}] Phi(s)^(n-1) ds,
    F2(x, u) = E[(n A_ij)^2 | v, u] = int_0^oo s E[zeta_j^2 e^{-s zeta_j/n}] Phi(s)^(n-1) ds,

with ``Phi(s) = E e^{-s zeta/n}`` over the row's own law ``zeta = e^{sqrt(x) g - x/2}``
(the other keys, ``g ~ N(0, 1)``), as in :mod:`freege.numeric.row_coefficient`; averaged
over ``u`` they give the row coefficient ``theta_n(x) + 1`` and 1 (tested). ``n = None``:
the infinite-``n`` values ``E_c zeta_j`` and ``E_c zeta_j^2``.

The **column load** of a key is the entry's conditional variance averaged over the rows,
``l_c(u) = E_v[F2 - mu^2]``; the **column profile** ``tau_c`` is the law of
``l_c(u)/E l_c`` (``dK u`` chi-square with ``dK`` degrees of freedom). Head ``r``'s
column profile multiplies its values' rows (``D_r V_r``), inside the head's own block, so
``h`` heads enter through the *free* average of their profiles,
``hat tau = (1/h) tau_c^{⊞h}`` (theory §2.3): mean 1, variance ``Var tau_c / h``, whose
Cauchy transform is ``G(z) = h/F_tau(w)`` with ``w - (1 - 1/h) F_tau(w) = z``
(Belinschi-Bercovici's subordination of the free additive power; ``F = 1/G``).
:func:`free_average_density` solves it on a grid; :mod:`freege.numeric.finite_width_law`
makes the profile operands.
"""

from __future__ import annotations

import math

import numpy as np

#: points of the cosine grid, of the Gaussian grid of the other keys and of the ``s`` grid
COS_POINTS, GAUSS_POINTS, S_POINTS = 801, 401, 500
#: points of the ``v`` and ``u`` grids of the column load (each over the chi-square's
#: support cut at :data:`GRID_TAIL` at each end)
V_POINTS, U_POINTS = 48, 64
#: the chi-square tail mass left out of the load's grids
GRID_TAIL = 1e-12


def _cosine_grid(dk: int) -> tuple[np.ndarray, np.ndarray]:
    """The cosine between a uniform direction and a fixed one in ``dK`` dimensions: grid
    and trapezoid weights of its density ``~ (1 - c^2)^((dK - 3)/2)`` (normalised)."""
    c = np.linspace(-1.0, 1.0, COS_POINTS)
    w = np.maximum(1.0 - c * c, 0.0) ** ((dk - 3) / 2)
    return c, w / w.sum()


def entry_moments(x: float, u: float, dk: int, n: int | None, score: bool = False
                  ) -> tuple[float, ...]:
    """``(mu, F2)`` of an entry at ``x = beta^2 v`` and key ratio ``u`` (module
    docstring); ``n = None`` at infinite ``n``. ``score``: also ``E[n A_ij c | v, u]``
    (the same integral as ``mu`` with ``c zeta_j``), so that ``E[n A_ij S_ij | v, u] =
    sqrt(v u dK)`` times it (the sampled row+column model's linear coefficient,
    benchmarks/finite_width_columns.py)."""
    if not (x > 0 and u > 0 and math.isfinite(x) and math.isfinite(u)):
        raise ValueError(f"x and u must be finite numbers > 0 (got {x!r}, {u!r})")
    if isinstance(dk, bool) or not isinstance(dk, int) or dk < 4:
        raise ValueError(f"dK must be an integer >= 4 (got {dk!r})")
    c, wc = _cosine_grid(dk)
    sig = math.sqrt(x * u * dk)
    zj = np.exp(sig * c - x / 2)
    if n is None:
        out = (float(wc @ zj), float(wc @ (zj * zj)))
        return (*out, float(wc @ (c * zj))) if score else out
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2 or None (got {n!r})")
    sx = math.sqrt(x)
    g = np.linspace(-10.0, 10.0 + 2 * sx, GAUSS_POINTS)
    wg = np.exp(-g * g / 2)
    wg /= wg.sum()
    zeta = np.exp(sx * g - x / 2)
    low = -9 - max(x, sig - x / 2) / math.log(10)
    high = 12 + (x / 2 + 4 * sx) / math.log(10)
    s = np.geomspace(10.0 ** low, 10.0 ** high, S_POINTS)
    with np.errstate(divide="ignore", under="ignore"):
        log_phi = np.log(np.exp(-np.outer(s / n, zeta)) @ wg)
        keep = (n - 1) * log_phi > -60  # a prefix: Phi decreases in s
        s, power = s[keep], np.exp((n - 1) * log_phi[keep])
        e = np.exp(-np.outer(s / n, zj))
    mu_s = (e @ (wc * zj)) * power * s  # integrands in log s
    f2_s = (e @ (wc * zj * zj)) * power * s * s
    if keep.all() or f2_s[-1] > 1e-12 * f2_s.max():
        raise ArithmeticError(f"column profile quadrature: the s grid does not hold the "
                              f"integrand at x = {x:g}, u = {u:g}, n = {n}")
    ls = np.log(s)
    out = (float(np.trapezoid(mu_s, ls)), float(np.trapezoid(f2_s, ls)))
    if not score:
        return out
    return (*out, float(np.trapezoid((e @ (wc * c * zj)) * power * s, ls)))


def chi2_grid(dk: int, points: int) -> tuple[np.ndarray, np.ndarray]:
    """``points`` equispaced values of ``chi2_dK/dK`` over its support cut at
    :data:`GRID_TAIL` at each end, and its density there normalised by the trapezoid
    rule."""
    from scipy import special

    k = dk / 2
    lo = float(special.gammaincinv(k, GRID_TAIL)) / k
    hi = float(special.gammainccinv(k, GRID_TAIL)) / k
    v = np.linspace(lo, hi, points)
    p = np.exp(k * math.log(k) + (k - 1) * np.log(v) - k * v - math.lgamma(k))
    return v, p / np.trapezoid(p, v)


def column_load(beta: float, dk: int, n: int | None) -> tuple[np.ndarray, np.ndarray]:
    """``(u, l_c(u))`` on :data:`U_POINTS` points of the key ratio's cut support: the
    entries' conditional variance averaged over the rows, ``E_v[F2 - mu^2]`` (module
    docstring), by the trapezoid rule on :data:`V_POINTS` values of ``v``."""
    b2 = float(beta) ** 2
    v, pv = chi2_grid(dk, V_POINTS)
    u, _ = chi2_grid(dk, U_POINTS)
    mom = np.array([[entry_moments(b2 * vi, uj, dk, n) for uj in u] for vi in v])
    var = mom[:, :, 1] - mom[:, :, 0] ** 2
    load = np.trapezoid(pv[:, None] * var, v, axis=0)
    return u, load


def load_moments(u: np.ndarray, load: np.ndarray, dk: int) -> tuple[float, float]:
    """``(E l_c, Var l_c)`` over the chi-square law of ``u`` (trapezoid rule on the
    column load's grid)."""
    k = dk / 2
    p = np.exp(k * math.log(k) + (k - 1) * np.log(u) - k * u - math.lgamma(k))
    p /= np.trapezoid(p, u)
    mean = float(np.trapezoid(p * load, u))
    return mean, float(np.trapezoid(p * (load - mean) ** 2, u))


def _mixture_cauchy(w: np.ndarray, centres: np.ndarray, weights: np.ndarray, s: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(G, G')`` at ``w`` (upper half plane) of the Gaussian mixture ``sum_k weights_k
    N(centres_k, s^2)`` (weights summing to 1): ``G`` of ``N(c, s^2)`` is
    ``-i sqrt(pi/2)/s wofz((w - c)/(s sqrt 2))``, and ``wofz' (t) = -2 t wofz(t) + 2i/sqrt(pi)``."""
    from scipy.special import wofz

    t = (w[:, None] - centres[None, :]) / (s * math.sqrt(2))
    f = wofz(t)
    g = (-1j * math.sqrt(math.pi / 2) / s) * (f @ weights)
    df = -2 * t * f + 2j / math.sqrt(math.pi)
    dg = (-1j * math.sqrt(math.pi / 2) / s) / (s * math.sqrt(2)) * (df @ weights)
    return g, dg


def free_average_density(centres: np.ndarray, weights: np.ndarray, s: float, h: int,
                         x: np.ndarray) -> np.ndarray:
    """The density at the real points ``x`` of ``(1/h) tau^{⊞h}`` for the Gaussian mixture
    ``tau`` of mean 1 (module docstring): ``w - (1 - 1/h) F_tau(w) = z`` solved by Newton's
    method down a vertical path ``x + i y`` (``y`` from 10 to 1e-12, two steps a decade),
    each solve checked (residual below 1e-10 of ``|z|`` at the end, ``Im w >= 0``); the
    density ``-Im(h/F_tau(w))/pi``. ``h = 1``: ``tau``'s own density."""
    if h == 1:
        return np.maximum(-_mixture_cauchy(x + 1e-300j, centres, weights, s)[0].imag
                          / math.pi, 0.0)
    a = 1.0 - 1.0 / h
    heights = np.geomspace(10.0, 1e-12, 27)
    z = x + 1j * heights[0]
    w = h * z - (h - 1)  # F_tau(w) ~ w - 1 far out
    for y in heights:
        z = x + 1j * y
        for _ in range(30):
            g, dg = _mixture_cauchy(w, centres, weights, s)
            f, df = 1 / g, -dg / (g * g)
            res = w - a * f - z
            step = res / (1 - a * df)
            w = w - step
            w = np.where(w.imag < 0, w.real + 1j * y, w)
            if np.all(np.abs(step) < 1e-13 * (1 + np.abs(w))):
                break
    g = _mixture_cauchy(w, centres, weights, s)[0]
    res = np.abs(w - a / g - z)
    if np.any(res > 1e-10 * (1 + np.abs(z))) or np.any(w.imag < -1e-12):
        raise ArithmeticError("free average: the subordination equation did not converge")
    return np.maximum(-(h * g).imag / math.pi, 0.0)


__all__ = ["chi2_grid", "column_load", "entry_moments", "free_average_density",
           "load_moments"]
