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
#: the layout of an entry (:mod:`freege.cache_files`), part of :func:`source_hash`: a new
#: layout never looks up an entry of an old one (2: led by a checksum, issue 27)
ENTRY_FORMAT = 2


def _sympy_version() -> str:
    try:
        return version("sympy")
    except PackageNotFoundError:  # an unusual install: ask sympy itself
        import sympy

        return sympy.__version__


@functools.cache
def source_hash() -> str:
    """Hash of every module of ``freege.symbolic``, sympy's version and
    :data:`ENTRY_FORMAT` (changes invalidate the disk caches)."""
    digest = hashlib.sha256(f"{ENTRY_FORMAT}|{_sympy_version()}".encode())
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


__all__ = ["ENTRY_FORMAT", "cache_dir", "source_hash"]
