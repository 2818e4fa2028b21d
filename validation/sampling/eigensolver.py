"""Eigenvalues of a symmetric matrix on the CPU, LAPACK driver chosen by size (theory §7.1).

Only the eigenvalues are needed, so every driver reduces to a tridiagonal form
(``?sytrd``) and takes its eigenvalues (``?sterf``); the reduction is most of the cost.
Below :data:`TWO_STAGE_MIN_N` that is what NumPy's ``eigvalsh`` runs, but in place
(NumPy copies the matrix first: 13.7 against 11.4 ms at n = 512, 78 against 67 ms at
1024, CPU-time medians, one BLAS thread). From that size on, LAPACK's (>= 3.7) two-stage
reduction replaces it: dense -> band of half-width :data:`TWO_STAGE_BAND` by BLAS-3
(``?sytrd_sy2sb``), then band -> tridiagonal (``?sytrd_sb2st``), with the band chosen
here (``?syevd_2stage`` takes LAPACK's one-thread choice, 32, about 10% slower at n =
2048-4096). All are called through ctypes from the OpenBLAS that NumPy ships (LAPACKE or
Fortran entries, 64-bit integers), and so is ``?syrk`` for the Gram matrices the draws
make (:func:`gram`: one triangle only); where that library or a symbol is not found
(another NumPy build) NumPy's routines are used. SciPy's ``eigh(eigvals_only=True)``
drivers ``ev``/``evd``/``evr`` run the same one-stage reduction and cost the same, plus
0.5 s to import ``scipy.linalg`` (measured in ``benchmarks/sampling.py``), so they are
not used there. Learning curves need the eigenvectors only through ``u_j^T y``:
:func:`eigenvalues_and_weights` gets those weights from the tridiagonal reduction
applied to ``y`` (SciPy's LAPACK wrappers, imported only when it is called).

:func:`top_singular_value` is the one routine here for any backend (NumPy or CuPy): the
leading singular value of a draw's MHA by power iteration (theory §4.1).
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from freege.errors import ConvergenceError
from freege.validation.sampling.solvers import solvers

#: from this size on the two-stage reduction is used: CPU time of the one-stage over the
#: two-stage (band :data:`TWO_STAGE_BAND`), medians of three, one BLAS thread (issue 18):
#: 0.61 (n = 1024), 0.80-0.82 (1536), 1.05-1.09 (2048), 1.28 (2560); with LAPACK's own
#: ``?syevd_2stage`` band the crossing was above 2048
TWO_STAGE_MIN_N = 2048

_COLUMN_MAJOR = 102  # LAPACKE's LAPACK_COL_MAJOR
#: half-width of the band of the two-stage reduction's first stage (dense -> band by BLAS-3,
#: 4/3 n^3; then band -> tridiagonal, O(n^2 b)). CPU seconds, one BLAS thread (issue 18):
#: n = 2048 16: 0.67, 32: 0.55, 64: 0.49, 128: 0.61; n = 3072 (three runs) 32: 2.08-2.16,
#: 64: 1.83-1.96, 96: 1.99-2.01; n = 4096 32: 3.68, 64: 3.22, 96: 3.30. LAPACK's
#: ``iparam2stage`` takes 32 for one thread
TWO_STAGE_BAND = 64


_LETTERS = {"float64": "d", "float32": "s"}
_ROW_MAJOR, _LOWER, _NO_TRANS = 101, 122, 111  # CBLAS enums
_I64, _PTR = ctypes.c_int64, ctypes.c_void_p


def _bundled(symbol: str, restype: Any, argtypes: list[Any] | None
             ) -> Callable[..., Any] | None:
    """``symbol`` of NumPy's bundled OpenBLAS (64-bit integers) with its C signature
    (``argtypes`` None: unchecked, see :func:`_fortran`), or ``None`` when this NumPy
    build ships no such library or symbol."""
    libs = sorted((Path(np.__file__).parent.parent / "numpy.libs").glob("*openblas*"))
    for path in libs:
        try:
            fn = getattr(ctypes.CDLL(str(path)), symbol)
        except (OSError, AttributeError):
            continue
        fn.restype, fn.argtypes = restype, argtypes
        return fn
    return None


def _all_or_none(*routines: Callable[..., Any] | None) -> tuple[Callable[..., Any], ...] | None:
    """``routines`` when none of them is None, else None."""
    return None if any(fn is None for fn in routines) else routines  # type: ignore[return-value]


@functools.cache
def sterf_routine(dtype: str) -> Callable[..., int] | None:
    """LAPACKE ``?sterf`` (eigenvalues of a symmetric tridiagonal matrix, Pal-Walker-Kahan
    QR; MRRR ``?stemr``'s dqds is no faster for all of them: 4.4 against 3.3 ms at
    n = 512) of NumPy's bundled OpenBLAS for ``dtype``, or ``None``."""
    return _bundled(f"scipy_LAPACKE_{_LETTERS[dtype]}sterf64_", _I64, [_I64, _PTR, _PTR])


@functools.cache
def one_stage_driver(dtype: str) -> tuple[Callable[..., int], ...] | None:
    """LAPACKE ``?sytrd`` (the reduction of NumPy's ``eigvalsh``, here in place) and
    ``?sterf`` (:func:`sterf_routine`), or ``None``."""
    return _all_or_none(
        _bundled(f"scipy_LAPACKE_{_LETTERS[dtype]}sytrd64_", _I64,
                 [ctypes.c_int, ctypes.c_char, _I64, _PTR, _I64, _PTR, _PTR, _PTR]),
        sterf_routine(dtype))


@functools.cache
def two_stage_driver(dtype: str) -> tuple[Callable[..., Any], ...] | None:
    """LAPACK's two-stage reduction of NumPy's bundled OpenBLAS for ``dtype``: the Fortran
    routines ``?sytrd_sy2sb`` (dense -> band) and ``?sytrd_sb2st`` (band -> tridiagonal),
    and ``?sterf`` (:func:`sterf_routine`), or ``None``."""
    return _all_or_none(*(_bundled(f"scipy_{_LETTERS[dtype]}{name}_64_", None, None)
                          for name in ("sytrd_sy2sb", "sytrd_sb2st")), sterf_routine(dtype))


@functools.cache
def syrk_routine(dtype: str) -> Callable[..., None] | None:
    """CBLAS ``?syrk`` of NumPy's bundled OpenBLAS, or ``None``."""
    scalar = ctypes.c_double if dtype == "float64" else ctypes.c_float
    return _bundled(f"scipy_cblas_{_LETTERS[dtype]}syrk64_", None,
                    [ctypes.c_int, ctypes.c_int, ctypes.c_int, _I64, _I64, scalar, _PTR, _I64,
                     scalar, _PTR, _I64])


def _fortran(fn: Callable[..., None], *args: bytes | int | np.ndarray) -> int:
    """Call the Fortran LAPACK routine ``fn`` (64-bit integers) with ``args`` and a final
    INFO, which it returns: characters as bytes (their hidden lengths appended, gfortran's
    convention), integers by reference, arrays by address."""
    info = _I64(0)
    refs: list[Any] = []
    lengths = []
    for arg in args:
        if isinstance(arg, bytes):
            refs.append(ctypes.c_char_p(arg))
            lengths.append(ctypes.c_size_t(len(arg)))
        elif isinstance(arg, int):
            refs.append(ctypes.byref(_I64(arg)))
        else:
            refs.append(_PTR(arg.ctypes.data))
    fn(*refs, ctypes.byref(info), *lengths)
    return info.value


def _check(name: str, info: int) -> None:
    """Raise for a LAPACK ``info``: ArithmeticError when positive (no convergence),
    ValueError when negative (an argument rejected)."""
    if info > 0:
        raise ArithmeticError(f"{name} failed to converge (info {info})")
    if info < 0:
        raise ValueError(f"{name} rejected argument {-info} (LAPACKE also rejects a "
                         "matrix with NaN entries)")


def _working_copy(a: np.ndarray, overwrite: bool) -> np.ndarray:
    """``a`` itself when ``overwrite`` and it is C-contiguous, else a C-ordered copy. A
    symmetric C-contiguous matrix is its own Fortran-ordered transpose: the lower triangle
    of its C-ordered data is LAPACK's upper one ("U")."""
    return a if overwrite and a.flags.c_contiguous else np.array(a, order="C")


def eigvalsh_one_stage(a: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Ascending eigenvalues of the symmetric float32/float64 matrix ``a`` (the lower
    triangle of its C-ordered data) by LAPACK's ``?sytrd`` (in place when ``overwrite``
    and ``a`` is contiguous) and ``?sterf``. RuntimeError when the routines are
    unavailable and ArithmeticError when LAPACK reports a failure."""
    routines = one_stage_driver(np.dtype(a.dtype).name)
    if routines is None:
        raise RuntimeError("LAPACKE ?sytrd/?sterf are not available in this NumPy build")
    sytrd, sterf = routines
    n = a.shape[0]
    work = _working_copy(a, overwrite)
    d, e = np.empty(n, dtype=a.dtype), np.zeros(max(n, 1), dtype=a.dtype)
    tau = np.empty(max(n - 1, 1), dtype=a.dtype)
    _check("?sytrd", sytrd(_COLUMN_MAJOR, b"U", n, work.ctypes.data, max(n, 1), d.ctypes.data,
                           e.ctypes.data, tau.ctypes.data))
    del work
    _check("?sterf", sterf(n, d.ctypes.data, e.ctypes.data))
    return d


def eigvalsh_two_stage(a: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Ascending eigenvalues of the symmetric float32/float64 matrix ``a`` (the lower
    triangle of its C-ordered data) by LAPACK's two-stage reduction (:func:`two_stage_driver`)
    to a band of half-width :data:`TWO_STAGE_BAND` and then to a tridiagonal form, whose
    eigenvalues ``?sterf`` takes. ``a`` is destroyed when ``overwrite`` and it is
    already contiguous. Raises RuntimeError when the routines are unavailable and
    ArithmeticError when LAPACK reports a failure."""
    routines = two_stage_driver(np.dtype(a.dtype).name)
    if routines is None:
        raise RuntimeError("LAPACK's two-stage reduction is not available in this NumPy build")
    sy2sb, sb2st, sterf = routines
    n = a.shape[0]
    if n == 0:
        return np.empty(0, dtype=a.dtype)
    work = _working_copy(a, overwrite)
    kd = max(1, min(TWO_STAGE_BAND, n - 1))
    band = np.zeros((n, kd + 1), dtype=a.dtype)  # Fortran (kd + 1) x n
    tau = np.empty(max(n - kd, 1), dtype=a.dtype)
    query, query2 = np.empty(1, dtype=a.dtype), np.empty(1, dtype=a.dtype)
    d, e = np.empty(n, dtype=a.dtype), np.zeros(n, dtype=a.dtype)
    _check("?sytrd_sy2sb", _fortran(sy2sb, b"U", n, kd, work, n, band, kd + 1, tau, query,
                                    -1))
    scratch = np.empty(max(int(query[0]), 1), dtype=a.dtype)
    _check("?sytrd_sy2sb", _fortran(sy2sb, b"U", n, kd, work, n, band, kd + 1, tau, scratch,
                                    scratch.size))
    del scratch, work
    _check("?sytrd_sb2st", _fortran(sb2st, b"Y", b"N", b"U", n, kd, band, kd + 1, d, e,
                                    query, -1, query2, -1))
    hous = np.empty(max(int(query[0]), 1), dtype=a.dtype)
    scratch = np.empty(max(int(query2[0]), 1), dtype=a.dtype)
    _check("?sytrd_sb2st", _fortran(sb2st, b"Y", b"N", b"U", n, kd, band, kd + 1, d, e,
                                    hous, hous.size, scratch, scratch.size))
    del band, hous, scratch
    _check("?sterf", sterf(n, d.ctypes.data, e.ctypes.data))
    return d


def eigvalsh(a: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Ascending eigenvalues of the symmetric matrix ``a`` (the lower triangle of its
    C-ordered data is read) in its own dtype: the two-stage reduction from
    :data:`TWO_STAGE_MIN_N` on, the one-stage below it (in place when ``overwrite``),
    each when available, else NumPy's ``eigvalsh``."""
    name = np.dtype(a.dtype).name
    if name in _LETTERS and a.ndim == 2:
        if a.shape[0] >= TWO_STAGE_MIN_N and two_stage_driver(name) is not None:
            return eigvalsh_two_stage(a, overwrite=overwrite)
        if a.shape[0] < TWO_STAGE_MIN_N and one_stage_driver(name) is not None:
            return eigvalsh_one_stage(a, overwrite=overwrite)
    return np.linalg.eigvalsh(a)


def gram(m: np.ndarray, *, lower_only: bool = False) -> np.ndarray:
    """``m m^T`` of a 2-D array. ``lower_only``: only the lower triangle of the C-ordered
    result is computed (BLAS ``?syrk`` of NumPy's OpenBLAS; the rest is zero), the
    triangle :func:`eigvalsh` reads: half a product's flops and no pass that mirrors the
    triangle (NumPy's ``m @ m.T`` makes one: 0.1 s of 0.28 s at n = 2048, one BLAS
    thread). Without it, or where ``?syrk`` is not found, NumPy's ``m @ m.T``."""
    name = np.dtype(m.dtype).name
    fn = syrk_routine(name) if lower_only and name in _LETTERS and m.ndim == 2 else None
    if fn is None:
        return m @ m.T
    m = np.ascontiguousarray(m)
    n, k = m.shape
    out = np.zeros((n, n), dtype=m.dtype)
    fn(_ROW_MAJOR, _LOWER, _NO_TRANS, n, k, 1.0, m.ctypes.data, max(k, 1), 0.0,
       out.ctypes.data, max(n, 1))
    return out


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


def top_singular_value(xp: Any, m: Any, *, shift: Any | None = None, tol: float = 1e-10,
                       max_iter: int = 100) -> float:
    """Largest singular value of ``m`` (plus ``1 shift^T`` when ``shift``, a vector of
    ``m``'s columns, is given: the uncentred MHA of theory §4.1, never formed on the
    power-iteration route). Power iteration on ``M M^T`` from the all-ones direction (the
    outlier's), accepted when the residual ``||M M^T x - l x||`` is at most ``tol * l``
    (an eigenvalue lies within the residual of ``l``, and the outlier is separated from
    the bulk by a gap of order n); when the gap is too small for that within ``max_iter``
    steps (small n), the largest eigenvalue of the smaller Gram matrix by a dense
    symmetric eigensolver."""
    x = xp.ones(m.shape[0]) / math.sqrt(m.shape[0])
    for _ in range(max_iter):
        w = m.T @ x
        if shift is not None:
            w += shift * float(x.sum())
        y = m @ w
        if shift is not None:
            y += float(shift @ w)
        lam = float(x @ y)
        if lam > 0 and float(xp.linalg.norm(y - lam * x)) <= tol * lam:
            return math.sqrt(lam)
        x = y / xp.linalg.norm(y)
    if shift is not None:
        m = m + shift
    gram = m.T @ m if m.shape[1] < m.shape[0] else m @ m.T
    top = float(solvers(xp).eigvalsh(gram)[-1])
    if not top > 0:
        raise ConvergenceError("leading singular value", f"no positive eigenvalue ({top})",
                               {"shape": tuple(m.shape)})
    return math.sqrt(top)
