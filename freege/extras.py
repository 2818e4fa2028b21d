"""The optional packages of freege's extras, in one place.

A plain ``pip install .`` has sympy, mpmath, NumPy and SciPy only; everything else is an
extra (``pyproject.toml``): ``plot`` (matplotlib), ``certify`` (python-flint), ``sweep``
(Dask, distributed, cryptography, threadpoolctl, tqdm), ``data`` (pandas), ``gpu``
(CuPy). An optional package is used in one of two ways:

* :func:`require` -- the command cannot do its job without it: import it, or raise
  :class:`MissingExtraError`, which the CLI prints as one line naming the
  extra to install (exit 2);
* :func:`installed` and :func:`blas_threads` -- it only helps (more workers, fewer BLAS
  threads): the command runs without it.
"""

from __future__ import annotations

import importlib
import importlib.util
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType

from freege.errors import FreegeError


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'freege[extra]'``."""
    return f"pip install 'freege[{extra}]'"


class MissingExtraError(FreegeError, ValueError):
    """An optional package (``module``) that the extra ``extra`` provides is not
    installed; the message names what needed it and the install command (a ValueError:
    the CLI prints it as one line, exit 2)."""

    def __init__(self, module: str, extra: str, what: str):
        self.module = module
        self.extra = extra
        super().__init__(f"{what} needs {module}, the optional extra '{extra}': "
                         f"{install_hint(extra)}")


def require(module: str, extra: str, what: str) -> ModuleType:
    """The imported ``module``; :class:`MissingExtraError` (one line:
    ``what needs PACKAGE, the optional extra 'extra': pip install 'freege[extra]'``, the
    package being the top-level name of ``module``) when it cannot be imported."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(module.partition(".")[0], extra, what) from None


def installed(module: str) -> bool:
    """Whether ``module`` (a top-level name) can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, a broken entry
        return False


def blas_threads(limit: int = 1) -> AbstractContextManager[object]:
    """A context holding the BLAS/OpenMP libraries loaded so far to ``limit`` threads
    (``threadpoolctl``, of the ``sweep`` extra); without threadpoolctl it changes nothing
    (the libraries' default threads: slower on a busy machine, the same results)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=limit)
