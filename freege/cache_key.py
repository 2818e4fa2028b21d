"""Where freege caches derivations, and the key that invalidates them (sympy-free, so a
warm numeric path never imports sympy; issue 7).

The symbolic layer's results depend only on the sources of :mod:`freege.symbolic` and on
sympy's version, so :func:`source_hash` hashes exactly those; every disk cache (exact
derivations, generated coefficient functions, exact numeric results) is keyed by it.
"""

from __future__ import annotations

import functools
import hashlib
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

_SYMBOLIC_DIR = Path(__file__).resolve().parent / "symbolic"


def _sympy_version() -> str:
    try:
        return version("sympy")
    except PackageNotFoundError:  # an unusual install: ask sympy itself
        import sympy

        return sympy.__version__


@functools.cache
def source_hash() -> str:
    """Hash of every module of ``freege.symbolic`` and sympy's version (changes invalidate
    the disk caches)."""
    digest = hashlib.sha256(_sympy_version().encode())
    for path in sorted(_SYMBOLIC_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """The cache folder, absolute: ``$FREEGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/freege``,
    else ``~/.cache/freege``. An empty variable counts as unset (never the current
    folder), and so does a relative ``XDG_CACHE_HOME`` (the XDG base-directory rule)."""
    chosen = os.environ.get("FREEGE_CACHE_DIR", "")
    if chosen:
        return Path(chosen).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "freege"
    return Path.home() / ".cache" / "freege"


__all__ = ["cache_dir", "source_hash"]
