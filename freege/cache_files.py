"""Reading and writing freege's disk caches only where no one else can write (issue 17).

A cache entry is read only when the cache folder, every folder between it and the entry,
and the entry itself are owned by the current user (or root) and writable by neither
group nor others, and the entry is a regular file (not a symbolic link: it is opened with
``O_NOFOLLOW`` and checked with ``fstat`` on the open descriptor, so the file checked is
the file read) -- the rule ssh applies to ``~/.ssh`` and pip to its cache. This holds on
every load. Folders freege creates are ``0700``; entries are written through
:func:`tempfile.mkstemp` (a fresh random name created ``O_EXCL``, mode ``0600``, so a
planted file or symbolic link is never followed) and renamed into place atomically.

An entry that fails a check is ignored -- the caller recomputes it -- with one line on
stderr (``freege: warning: ...``), once per file and reason in a process; a folder that
fails is neither read nor written, with one line per folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from freege.cache_key import cache_dir

_WARNED: set[str] = set()
#: open flags of a read: no symbolic link at the last component, never block on a FIFO
_NO_FOLLOW = (getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0))


def warn(message: str) -> None:
    """One ``freege: warning:`` line on stderr, once per message in a process."""
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"freege: warning: {' '.join(message.split())}", file=sys.stderr)


def _problem(st: os.stat_result) -> str | None:
    """Why a file or folder with status ``st`` is not private (``None``: it is). Systems
    without POSIX owners (Windows) rely on the folder's access control list."""
    if not hasattr(os, "getuid"):
        return None
    if st.st_uid not in (os.getuid(), 0):  # root could write anything anyway (as ssh)
        return f"owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
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


def read_text(path: Path) -> str | None:
    """The text of cache entry ``path`` when it and its folders pass the checks above;
    ``None`` when it is absent or fails one (with a warning)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symbolic link; EACCES, ...
        what = "a symbolic link" if os.path.islink(path) else (exc.strerror or str(exc))
        reject(path, what)
        return None
    with os.fdopen(fd, "rb") as handle:
        folder_why = _folder_problem(path.parent)
        if folder_why is not None:
            warn(f"not using the cache folder {path.parent}: {folder_why}")
            return None
        st = os.fstat(handle.fileno())
        why = "not a regular file" if not stat.S_ISREG(st.st_mode) else _problem(st)
        if why is not None:
            reject(path, why)
            return None
        data = handle.read()
    try:
        return data.decode()
    except UnicodeDecodeError:
        reject(path, "not UTF-8 text")
        return None


def reject(path: Path, why: str) -> None:
    """Warn that cache entry ``path`` is ignored (and recomputed) because of ``why``."""
    warn(f"ignoring cache file {path} ({why}); recomputing it")


def make_folder(folder: Path) -> bool:
    """Create ``folder`` (and missing parents) with mode ``0700``; whether it is private
    (a folder that is not is left alone, with a warning, and nothing is written there)."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o700)
    why = _folder_problem(folder)
    if why is not None:
        warn(f"not using the cache folder {folder}: {why}")
        return False
    return True


def write_text(path: Path, text: str) -> None:
    """Store ``text`` as cache entry ``path`` atomically in a private folder (created if
    missing); nothing is written where the folder is not private. OSError when the
    folder cannot be written."""
    if not make_folder(path.parent):
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


__all__ = ["make_folder", "read_text", "reject", "warn", "write_text"]
