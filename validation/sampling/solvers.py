"""Linear algebra whose failures raise on every backend (theory §7).

LAPACK reports a failed factorisation on the CPU (NumPy raises
:class:`numpy.linalg.LinAlgError`). cuSOLVER reports one only inside
``cupyx.errstate(linalg="raise")``; by default CuPy returns finite garbage. Every CuPy
factorisation of the sampler goes through :func:`solvers`, which runs it inside that
state, so a failure raises the same :class:`numpy.linalg.LinAlgError` as on the CPU.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np


class _RaisingLinalg:
    """``cupy.linalg`` whose every call runs inside ``cupyx.errstate(linalg="raise")``."""

    def __init__(self, xp: ModuleType):
        self._linalg = xp.linalg

    def __getattr__(self, name: str) -> Any:
        func = getattr(self._linalg, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            import cupyx

            with cupyx.errstate(linalg="raise"):
                return func(*args, **kwargs)
        return call


def solvers(xp: ModuleType) -> Any:
    """``xp.linalg`` with failed factorisations raised :class:`numpy.linalg.LinAlgError`
    (module docstring): NumPy's as it is, CuPy's inside ``cupyx.errstate``."""
    return xp.linalg if xp is np else _RaisingLinalg(xp)
