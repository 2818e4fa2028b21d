"""Random-matrix models of the law algebra (docs/algebra.md), on any sampling backend.

Every expression of :mod:`freege.algebra` is the limiting eigenvalue law of an ``n x n``
symmetric matrix built the way the expression is:

* ``mp(c)``: the Wishart matrix ``X X^T / m``, ``X`` an ``n x m`` standard Gaussian matrix,
  ``m = round(n / c)``;
* ``semicircle(v)``: the Wigner matrix ``sqrt(v / 2n) (A + A^T)``, ``A`` ``n x n`` Gaussian;
* atomic laws: the diagonal matrix holding each location ``round(n p)`` times (largest
  remainders, so the counts sum to ``n``; exact when every ``n p`` is an integer);
* ``poisson(t, mu)``: ``X D X^T / n``, ``X`` an ``n x m`` Gaussian matrix, ``m = round(t n)``
  rank-one projections with jumps ``D`` (the diagonal of an atomic ``mu`` at size ``m``;
  any other ``mu``: its own model at size ``m``, rotation-invariant through ``X``);
* ``a X + b``: ``a M + b I``; ``phi(X)``: the matrix polynomial ``phi(M)`` (Horner, any
  degree);
* ``⊞``: ``A + U B U^T`` and ``⊠``: ``sqrt(A) U B U^T sqrt(A)`` with ``U`` Haar orthogonal
  (QR of a Gaussian matrix, signs fixed), the factors drawn independently.

Finite-``n`` eigenvalues converge to the law at rate ``1/n`` in the moments (the
rounding of ``m`` and of the counts adds at most ``O(1/n)``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from freege.algebra import (
    Affine,
    Atomic,
    FreeAdd,
    FreeMult,
    FreePoisson,
    LawExpr,
    MarchenkoPastur,
    Pushforward,
    Semicircle,
)
from freege.validation.sampling.backend import Backend


def _exact(x: Any) -> Fraction:
    if getattr(x, "free_symbols", None):
        raise ValueError(f"sampling needs numeric parameters (got {x})")
    return Fraction(int(x.p), int(x.q))


def counts(masses: list[Fraction], n: int) -> list[int]:
    """``round(n p)`` for each mass, by largest remainders so that they sum to ``n``."""
    floors = [int(n * p) for p in masses]
    order = sorted(range(len(masses)), key=lambda i: -(n * masses[i] - floors[i]))
    for i in order[: n - sum(floors)]:
        floors[i] += 1
    return floors


def _diagonal(points: Any, n: int, backend: Backend) -> Any:
    values = np.repeat([float(_exact(x)) for x, _ in points],
                       counts([_exact(p) for _, p in points], n))
    return backend.xp.asarray(values, dtype=backend.dtype)


def haar(n: int, backend: Backend, gen: Any) -> Any:
    """A Haar-distributed orthogonal ``n x n`` matrix (QR with the signs of ``R`` fixed)."""
    xp = backend.xp
    q, r = xp.linalg.qr(backend.normal(gen, (n, n)))
    return q * xp.where(xp.diagonal(r) < 0, -1.0, 1.0)[None, :]


def _rotated(m: Any, n: int, backend: Backend, gen: Any) -> Any:
    u = haar(n, backend, gen)
    return u @ m @ u.T


def _sqrt_psd(m: Any, backend: Backend) -> Any:
    xp = backend.xp
    values, vectors = xp.linalg.eigh(m)
    return (vectors * xp.sqrt(xp.clip(values, 0, None))[None, :]) @ vectors.T


def sample_matrix(expr: LawExpr, n: int, backend: Backend, gen: Any) -> Any:
    """One ``n x n`` symmetric matrix of the model of ``expr`` (module docstring)."""
    xp = backend.xp
    if isinstance(expr, MarchenkoPastur):
        m = max(1, round(n / _exact(expr.ratio)))
        x = backend.normal(gen, (n, m))
        return (x @ x.T) / m
    if isinstance(expr, Semicircle):
        a = backend.normal(gen, (n, n))
        return (a + a.T) * float(np.sqrt(float(_exact(expr.variance)) / (2 * n)))
    if isinstance(expr, Atomic):
        return xp.eye(n, dtype=backend.dtype) * _diagonal(expr.points, n, backend)[None, :]
    if isinstance(expr, FreePoisson):
        m = max(1, round(n * _exact(expr.rate)))
        x = backend.normal(gen, (n, m))
        if isinstance(expr.jump, Atomic):  # rank-one projections with jumps
            return (x * _diagonal(expr.jump.points, m, backend)[None, :]) @ x.T / n
        return x @ sample_matrix(expr.jump, m, backend, gen) @ x.T / n
    if isinstance(expr, Affine):
        inner = sample_matrix(expr.base, n, backend, gen)
        return (float(_exact(expr.scale)) * inner
                + float(_exact(expr.shift)) * xp.eye(n, dtype=backend.dtype))
    if isinstance(expr, Pushforward):
        inner = sample_matrix(expr.base, n, backend, gen)
        eye = xp.eye(n, dtype=backend.dtype)
        total = float(_exact(expr.coeffs[-1])) * eye
        for c in reversed(expr.coeffs[:-1]):  # Horner: phi(M) = (c_d M + c_(d-1)) M + ...
            total = total @ inner + float(_exact(c)) * eye
        return total
    if isinstance(expr, FreeAdd):
        total = sample_matrix(expr.terms[0], n, backend, gen)
        for term in expr.terms[1:]:
            total = total + _rotated(sample_matrix(term, n, backend, gen), n, backend, gen)
        return total
    if isinstance(expr, FreeMult):
        product = sample_matrix(expr.factors[0], n, backend, gen)
        for factor in expr.factors[1:]:
            root = _sqrt_psd(product, backend)
            other = _rotated(sample_matrix(factor, n, backend, gen), n, backend, gen)
            product = root @ other @ root
        return (product + product.T) / 2
    raise TypeError(f"no random-matrix model for {type(expr).__name__}")


def eigenvalues(expr: LawExpr, n: int, backend: Backend, seq: np.random.SeedSequence
                ) -> np.ndarray:
    """The ascending eigenvalues (float64 NumPy) of one draw of the model of ``expr``."""
    matrix = sample_matrix(expr, n, backend, backend.generator(seq))
    return backend.eigvalsh((matrix + matrix.T) / 2)
