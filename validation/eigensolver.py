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
not used.
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
#: 1.80 (3072), 1.06-1.16 (4096; the issue measured 1.7 at 4096 elsewhere)
TWO_STAGE_MIN_N = 3072

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
