"""Conditional moments of the exponential attention block given the keys (theory §2.1, §2.2).

Fix one head. Given the keys, a query row ``q ~ N(0, I_dK)`` makes the score row
``s = K q / sqrt(dK)`` a centred Gaussian vector with covariance
``Sigma_K = K K^T / dK``. With ``f(t) = exp(beta t - beta^2/2) - 1`` applied entrywise,
the Gaussian moment generating function ``E exp(a^T s) = exp(a^T Sigma_K a / 2)`` gives,
entry by entry (theory §2.2):

* mean ``E[f(s_j) | K] = exp(beta^2 ((Sigma_K)_jj - 1) / 2) - 1``;
* covariance ``(Sigma_f)_jk = exp(beta^2 ((Sigma_K)_jj + (Sigma_K)_kk - 2) / 2)
  (exp(beta^2 (Sigma_K)_jk) - 1)``;
* its Gaussian-equivalent replacement ``Sigma_G = theta2 Sigma_K + (theta1 - theta2) I``.

All functions take and return arrays of the caller's namespace (NumPy or CuPy).
"""

from __future__ import annotations

import math
from typing import Any


def key_covariance(k: Any) -> Any:
    """``Sigma_K = K K^T / dK`` for the n x dK keys ``k`` (theory §2)."""
    return (k @ k.T) / k.shape[1]


def row_mean(xp: Any, sigma_k_diag: Any, beta: float) -> Any:
    """``E[f(s_j) | K] = exp(beta^2 ((Sigma_K)_jj - 1)/2) - 1``, j = 1..n: the mean of
    every row of ``sqrt(n) Y^f`` given the keys (theory §2.2, step 3)."""
    return xp.expm1(beta**2 * (sigma_k_diag - 1.0) / 2)


def sigma_f(xp: Any, sigma_k: Any, beta: float) -> Any:
    """The exact conditional covariance of the rows of ``sqrt(n) Y^f`` given the keys,
    ``(Sigma_f)_jk = exp(beta^2 (S_jj + S_kk - 2)/2) (exp(beta^2 S_jk) - 1)`` with
    ``S = Sigma_K`` (theory §2.2)."""
    b2 = beta**2
    d = xp.exp(b2 * (xp.diagonal(sigma_k) - 1.0) / 2)
    out = xp.expm1(b2 * sigma_k)
    out *= d[:, None]
    out *= d[None, :]
    return out


def sigma_g(xp: Any, sigma_k: Any, beta: float) -> Any:
    """``Sigma_G = theta2 Sigma_K + (theta1 - theta2) I`` (theory §2), the covariance of the
    rows of ``sqrt(n) Y^G`` given the keys."""
    b2 = beta**2
    out = b2 * sigma_k
    idx = xp.arange(out.shape[0])
    out[idx, idx] += math.expm1(b2) - b2
    return out


def diagonal_mean(beta: float, dk: int) -> float:
    """``E (Sigma_f)_jj`` over the keys: with ``d_K (Sigma_K)_jj`` chi-square with d_K
    degrees of freedom, ``(Sigma_f)_jj = e^{beta^2 (2 S_jj - 1)} - e^{beta^2 (S_jj - 1)}``
    has mean ``e^{-beta^2} [(1 - 4 beta^2/dK)^(-dK/2) - (1 - 2 beta^2/dK)^(-dK/2)]``
    (needs ``dK > 4 beta^2``), ``theta1 + beta^4 (4 e^{beta^2} - 1)/dK + O(dK^-2)``; the
    diagonal of Sigma_G has mean theta1 (theory §2.2)."""
    b2 = beta**2
    if not dk > 4 * b2:
        raise ValueError(f"dK must be > 4 beta^2 = {4 * b2:g} (got {dk})")
    return math.exp(-b2) * ((1 - 4 * b2 / dk) ** (-dk / 2) - (1 - 2 * b2 / dk) ** (-dk / 2))


def normalised_frobenius(xp: Any, a: Any) -> float:
    """``||a||_F / sqrt(n)`` of an n x n matrix: the root mean square of its eigenvalues
    when symmetric (the normalisation of theory §2.2, step 5)."""
    return float(xp.sqrt(xp.sum(a * a) / a.shape[0]))
