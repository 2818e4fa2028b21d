"""Reading and writing freege's disk caches only where no one else can write (issue 17),
and only entries whose checksum matches (issue 27).

Every cache entry -- derivations, generated source, exact results, ``derive`` output --
is read by :func:`load` and written by :func:`store`, nowhere else.

A cache entry is read only when the cache folder, every folder between it and the entry,
and the entry itself are owned by the current user (or root) and writable by neither
group nor others, and the entry is a regular file (not a symbolic link: it is opened with
``O_NOFOLLOW`` and checked with ``fstat`` on the open descriptor, so the file checked is
the file read) -- the rule ssh applies to ``~/.ssh`` and pip to its cache. This holds on
every load. Folders freege creates are ``0700``; entries are written through
:func:`tempfile.mkstemp` (a fresh random name created ``O_EXCL``, mode ``0600``, so a
planted file or symbolic link is never followed) and renamed into place atomically.

An entry's first line is :data:`TAG` and the SHA-256 of its key and its content
(:func:`checksum`), so a damaged file (a bit flip, a truncation, an edit) or one written
for another key is detected before its content is parsed; the caller's parser then
refuses any content of the wrong shape.

An entry that fails a check is ignored -- the caller recomputes it and :func:`store`
replaces it -- with one line on stderr (``freege: warning: ...``), once per file and
reason in a process; a folder that fails is neither read, written nor created, with one
line per offending folder (a shared cache folder: one line for all its subfolders).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from freege.cache_key import cache_dir

T = TypeVar("T")
_WARNED: set[str] = set()
#: the start of an entry's first line; the checksum follows it
TAG = "freege-cache-entry sha256="
#: the largest entry read (a larger file is refused unread)
MAX_ENTRY_BYTES = 64 << 20
#: what a parser may raise on content of the wrong shape (the entry is then recomputed)
MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError,
             SyntaxError, RecursionError, MemoryError)
#: open flags of a read: no symbolic link at the last component, never block on a FIFO
_NO_FOLLOW = (getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0))


def warn(message: str) -> None:
    """One ``freege: warning:`` line on stderr, once per message in a process."""
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"freege: warning: {' '.join(message.split())}", file=sys.stderr)


def _problem(st: os.stat_result, sticky_ok: bool = False) -> str | None:
    """Why a file or folder with status ``st`` is not private (``None``: it is). With
    ``sticky_ok`` (an output folder, :mod:`freege.safe_files`) a folder writable by group
    or others passes when it is sticky (as ``/tmp``: no one renames or removes another's
    file there). Systems without POSIX owners (Windows) rely on the folder's access
    control list."""
    if not hasattr(os, "getuid"):
        return None
    if st.st_uid not in (os.getuid(), 0):  # root could write anything anyway (as ssh)
        return f"owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        if sticky_ok and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            return None
        sticky = " and not sticky" if sticky_ok and stat.S_ISDIR(st.st_mode) else ""
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):o}{sticky})"
    return None


def _folder_problem(folder: Path) -> str | None:
    """Why ``folder`` and the folders from the cache folder down to it are not private
    (``None``: all are); a missing folder is a problem too."""
    root = cache_dir()
    chain = [folder, *folder.parents]
    if root in chain:
        chain = chain[:chain.index(root) + 1]
    else:  # a folder outside the cache folder: check it alone
        chain = [folder]
    for part in chain:
        try:
            st = os.stat(part)  # a link is judged by its target
        except OSError as exc:
            return f"{part}: {exc.strerror or exc}"
        if not stat.S_ISDIR(st.st_mode):
            return f"{part} is not a folder"
        why = _problem(st)
        if why is not None:
            return f"{part} is {why}"
    return None


def _read_text(path: Path) -> str | None:
    """The text of cache entry ``path`` when it and its folders pass the checks above;
    ``None`` when it is absent or fails one (with a warning)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symbolic link; EACCES, ...
        what = "a symbolic link" if os.path.islink(path) else (exc.strerror or str(exc))
        _reject(path, what)
        return None
    with os.fdopen(fd, "rb") as handle:
        folder_why = _folder_problem(path.parent)
        if folder_why is not None:
            warn(f"not using the cache: {folder_why}")
            return None
        st = os.fstat(handle.fileno())
        why = "not a regular file" if not stat.S_ISREG(st.st_mode) else _problem(st)
        if why is None and st.st_size > MAX_ENTRY_BYTES:
            why = f"larger than {MAX_ENTRY_BYTES} bytes"
        if why is not None:
            _reject(path, why)
            return None
        data = handle.read(MAX_ENTRY_BYTES)  # grown since: fails the checksum
    try:
        return data.decode()
    except UnicodeDecodeError:
        _reject(path, "not UTF-8 text")
        return None


def _reject(path: Path, why: str) -> None:
    """Warn that cache entry ``path`` is ignored (and recomputed) because of ``why``."""
    warn(f"ignoring cache file {path} ({why}); recomputing it")


def _make_folder(folder: Path) -> bool:
    """Create ``folder`` (and missing parents) with mode ``0700``; whether it is private
    (a folder that is not is left alone, with a warning, and nothing is written there --
    nor created: a missing folder inside a cache folder that is not private is not made)."""
    chain = (folder, *folder.parents)
    missing = [p for p in chain if not p.exists()]
    present = chain[len(missing)]
    root = cache_dir()
    if root == present or root in present.parents:
        why = _folder_problem(present)
        if why is not None:
            warn(f"not using the cache: {why}")
            return False
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o700)
    why = _folder_problem(folder)
    if why is not None:
        warn(f"not using the cache: {why}")
        return False
    return True


def _write_text(path: Path, text: str) -> None:
    """Store ``text`` as cache entry ``path`` atomically in a private folder (created if
    missing); nothing is written where the folder is not private. OSError when the
    folder cannot be written."""
    if not _make_folder(path.parent):
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)  # atomic: concurrent readers never see half a file
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def checksum(key: str, content: str) -> str:
    """The SHA-256 (hex) of an entry's ``key`` and ``content``."""
    return hashlib.sha256(f"{len(key)}:{key}\n{content}".encode()).hexdigest()


def load(path: Path, key: str, parse: Callable[[str], T]) -> T | None:
    """``parse(content)`` of the cache entry ``path`` written for ``key``; ``None`` when
    the entry is absent, not private, damaged or for another key (its checksum does not
    match), or its content is malformed (``parse`` raises one of :data:`MALFORMED`) --
    each with one warning, except absence. ``parse`` must bound its own work."""
    text = _read_text(path)
    if text is None:
        return None
    header, newline, content = text.partition("\n")
    if not newline or header != TAG + checksum(key, content):
        _reject(path, "damaged or written for another key: its checksum does not match")
        return None
    try:
        return parse(content)
    except MALFORMED as exc:
        _reject(path, f"not a valid entry: {type(exc).__name__}: {exc}")
        return None


def store(path: Path, key: str, content: str) -> None:
    """Write ``content`` as the cache entry ``path`` for ``key``, led by its checksum,
    atomically in a private folder; a folder that cannot be written (full, read-only,
    not private) is ignored, and a partly written temporary file removed."""
    with contextlib.suppress(OSError):
        _write_text(path, f"{TAG}{checksum(key, content)}\n{content}")


__all__ = ["MALFORMED", "MAX_ENTRY_BYTES", "TAG", "checksum", "load", "store", "warn"]
