"""Eigenvalues of a symmetric matrix on the CPU, LAPACK driver chosen by size (theory §7.1).

Only the eigenvalues are needed, so every driver reduces to a tridiagonal form
(``?sytrd``) and takes its eigenvalues (``?sterf``); the reduction is most of the cost.
Below :data:`TWO_STAGE_MIN_N` that is NumPy's ``eigvalsh`` (``?syevd``). From that size
on, the two-stage reduction of LAPACK >= 3.7 (``?syevd_2stage``: dense -> band by
BLAS-3 -> tridiagonal) replaces it, called through ctypes from the OpenBLAS that NumPy
ships (its LAPACKE entry, 64-bit integers); where that library or symbol is not found
(another NumPy build) NumPy's driver is used. SciPy's ``eigh(eigvals_only=True)``
drivers ``ev``/``evd``/``evr`` run the same one-stage reduction and cost the same, plus
0.5 s to import ``scipy.linalg`` (measured in ``benchmarks/sampling.py``), so they are
not used there. Learning curves need the eigenvectors only through ``u_j^T y``:
:func:`eigenvalues_and_weights` gets those weights from the tridiagonal reduction applied
to ``y`` (SciPy's LAPACK wrappers, imported only when it is called).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np

#: from this size on the two-stage reduction is used. ``benchmarks/sampling.py --sections
#: eig``, one BLAS thread, three runs on the shared 2-core CPU; speed-up NumPy time /
#: two-stage time: 0.50 (n = 512), 0.62 (1024), 0.91-1.30 (1536-2048, mixed), 1.37 and
#: 1.80 (3072), 1.06-1.16 (4096; the issue measured 1.7 at 4096 elsewhere); in CPU time
#: (medians of three, issue 18): 0.83 (1536), 1.04 (2048), 1.29 (2560), 1.41 (4096)
TWO_STAGE_MIN_N = 2560

_COLUMN_MAJOR = 102  # LAPACKE's LAPACK_COL_MAJOR


@functools.cache
def two_stage_driver(dtype: str) -> Callable[..., int] | None:
    """LAPACKE ``?syevd_2stage`` (``dtype`` ``float64`` or ``float32``) of NumPy's
    bundled OpenBLAS, or ``None`` when this NumPy build does not ship it."""
    letter = {"float64": "d", "float32": "s"}[dtype]
    libs = sorted((Path(np.__file__).parent.parent / "numpy.libs").glob("*openblas*"))
    for path in libs:
        try:
            lib = ctypes.CDLL(str(path))
            fn = getattr(lib, f"scipy_LAPACKE_{letter}syevd_2stage64_")
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int64
        fn.argtypes = [ctypes.c_int, ctypes.c_char, ctypes.c_char, ctypes.c_int64,
                       ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
        return fn
    return None


def eigvalsh_two_stage(a: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Ascending eigenvalues of the symmetric float32/float64 matrix ``a`` (the lower
    triangle of its C-ordered data) by LAPACK's two-stage ``?syevd_2stage``. ``a`` is
    destroyed when ``overwrite`` and it is already contiguous. Raises RuntimeError when
    the driver is unavailable and ArithmeticError when LAPACK reports no convergence."""
    fn = two_stage_driver(np.dtype(a.dtype).name)
    if fn is None:
        raise RuntimeError("LAPACK ?syevd_2stage is not available in this NumPy build")
    n = a.shape[0]
    # a symmetric C-contiguous matrix is its own Fortran-ordered transpose
    work = a if overwrite and a.flags.c_contiguous else np.array(a, order="C")
    w = np.empty(n, dtype=a.dtype)
    info = fn(_COLUMN_MAJOR, b"N", b"U", n, work.ctypes.data, n, w.ctypes.data)
    if info > 0:
        raise ArithmeticError(f"?syevd_2stage did not converge ({info} off-diagonal "
                              "elements of the tridiagonal form remained)")
    if info < 0:
        raise ValueError(f"?syevd_2stage rejected argument {-info}")
    return w


def eigvalsh(a: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Ascending eigenvalues of the symmetric matrix ``a`` in its own dtype: the
    two-stage driver from :data:`TWO_STAGE_MIN_N` on when available, else NumPy's."""
    name = np.dtype(a.dtype).name
    if (a.shape[0] >= TWO_STAGE_MIN_N and name in ("float64", "float32")
            and two_stage_driver(name) is not None):
        return eigvalsh_two_stage(a, overwrite=overwrite)
    return np.linalg.eigvalsh(a)


def eigenvalues_and_weights(gram: np.ndarray, y: np.ndarray, *, overwrite: bool = False
                            ) -> tuple[np.ndarray, np.ndarray]:
    """Ascending eigenvalues ``l_j`` of the symmetric float32/float64 matrix ``gram`` and
    the weights ``w_j = (u_j^T y)^2`` of ``y`` on its unit eigenvectors ``u_j`` (theory §5:
    a gradient-flow curve is ``sum_j exp(-2 t l_j) w_j``), both float64, without the n x n
    eigenvector matrix of ``gram``.

    ``gram = Q T Q^T`` by LAPACK ``?sytrd`` (4/3 n^3, the cost of the eigenvalues alone);
    ``c = Q^T y`` by ``?ormqr`` with the reflectors ``?sytrd`` left in the lower triangle
    (O(n^2)); ``T = Z diag(l) Z^T`` by ``dstevd`` (divide and conquer on the tridiagonal:
    at n = 2048 about 0.4 s against 1.3 s for the reduction, one BLAS thread; MRRR
    ``?stemr`` is no faster there and failed on a rank-deficient Gram); then
    ``u_j^T y = z_j^T c``. A full ``eigh`` adds the back-transformation ``Q Z`` (2 n^3) and
    cost about 3x more (measured at n = 1000 and 2048); a learning-curve draw costs about
    what an eigenvalue-only draw costs (``benchmarks/sampling.py --sections targets``).
    Within an eigenvalue cluster the ``u_j`` are not unique but the cluster's total weight
    is, and so is any curve. ``gram`` is destroyed when ``overwrite`` and it is
    contiguous, never otherwise. ValueError for mismatched shapes;
    ArithmeticError when LAPACK reports a failure."""
    from scipy.linalg import get_lapack_funcs
    from scipy.linalg.lapack import dstevd

    a = np.asarray(gram)
    n = a.shape[0]
    if a.ndim != 2 or a.shape[1] != n or np.shape(y) != (n,):
        raise ValueError(f"gram must be n x n and y of length n (got {a.shape} and "
                         f"{np.shape(y)})")
    if np.dtype(a.dtype).name not in ("float32", "float64"):
        a = a.astype(np.float64)
    # a symmetric C-ordered matrix is its own Fortran-ordered transpose: no copy
    if a.flags.c_contiguous or (overwrite and a.flags.f_contiguous):
        fortran, destroy = (a.T if a.flags.c_contiguous else a), overwrite
    else:
        fortran, destroy = np.array(a, order="F"), True  # a private copy
    sytrd, sytrd_lwork, ormqr = get_lapack_funcs(("sytrd", "sytrd_lwork", "ormqr"), (a,))
    lwork, info = sytrd_lwork(n, lower=1)
    if info != 0:
        raise ArithmeticError(f"?sytrd workspace query failed (info {info})")
    c, d, e, tau, info = sytrd(fortran, lower=1, lwork=int(lwork),
                               overwrite_a=int(destroy))
    if info != 0:
        raise ArithmeticError(f"?sytrd failed (info {info})")
    coords = np.array(y, dtype=a.dtype).reshape(n, 1)
    if n > 1:
        # the reflectors of ?sytrd (lower) are those of a QR of rows 2..n, columns 1..n-1
        reflectors = np.asfortranarray(c[1:, :n - 1])
        del c
        tail, _work, info = ormqr("L", "T", reflectors, tau, coords[1:], lwork=max(n, 1))
        if info != 0:
            raise ArithmeticError(f"?ormqr failed (info {info})")
        coords[1:] = tail
        del reflectors
    if n == 1:
        return d.astype(np.float64), coords[0].astype(np.float64) ** 2
    values, z, info = dstevd(d.astype(np.float64), e.astype(np.float64))
    if info != 0:
        raise ArithmeticError(f"?stevd did not converge (info {info})")
    weights = (z.T @ coords[:, 0].astype(np.float64)) ** 2
    return values, weights
