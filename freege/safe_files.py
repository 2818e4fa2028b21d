"""Every file freege writes outside its caches goes through here (issue 40): reports,
figures, derivation documents, and the append-only stores of sweeps and runs. The caches
have their own writer, :mod:`freege.cache_files`, whose ownership rule this module reuses.

A file is written by :func:`write_bytes`, :func:`write_text` or :func:`atomic` (a file
object to write into, e.g. for matplotlib's ``savefig``): into a temporary file of an
unpredictable name created in the target's own folder with ``O_CREAT | O_EXCL |
O_NOFOLLOW`` (mode ``0666`` less the umask), then renamed over the target. Nothing is
ever opened through a fixed temporary name, and a symbolic link planted at the target's
name is replaced, never followed. A store is opened for appending by :func:`open_append`
with ``O_NOFOLLOW`` and checked on the open descriptor (a regular file, owned by you or
root, writable by neither group nor others): a store planted or forged by another user is
refused, never resumed. :func:`probe` checks, before any work, that a target can be
written, by creating and removing such a temporary file (never the target itself).

The folder written into must be owned by you (or root) and writable by neither group nor
others unless it is sticky (as ``/tmp``: no one else may rename or remove your file
there) -- the rule of the cache folder (:func:`freege.cache_files._problem`). Another
folder is refused with a ValueError of one line (``<what> folder <path> is ...:
refused``), which the CLI prints with exit code 2. Folders freege creates for output are
writable by you alone (:func:`make_folder`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from freege import cache_files

#: flags of every temporary file: new (never an existing name or link), not inherited
_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
#: flags of a store opened for appending: no symbolic link, never block on a FIFO
_APPEND = (os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
           | getattr(os, "O_BINARY", 0))
#: whether renames and opens can be made relative to an open folder (POSIX)
_AT = os.open in os.supports_dir_fd and os.replace in os.supports_dir_fd


def folder_problem(folder: str | os.PathLike) -> str | None:
    """Why ``folder`` may not be written into (``None``: it may): missing, not a folder,
    owned by another user, or writable by group or others and not sticky."""
    try:
        st = os.stat(folder)
    except OSError as exc:
        return f"cannot be used ({(exc.strerror or str(exc)).lower()})"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    why = cache_files._problem(st, sticky_ok=True)
    return None if why is None else f"is {why}"


def check_folder(folder: str | os.PathLike, what: str = "output") -> Path:
    """``folder``, after :func:`folder_problem`; ValueError of one line when it fails."""
    why = folder_problem(folder)
    if why is not None:
        raise ValueError(f"{what} folder {os.fspath(folder)} {why}: refused")
    return Path(folder)


def make_folder(folder: str | os.PathLike, what: str = "output") -> Path:
    """Create ``folder`` when missing (its parent must pass :func:`check_folder`; the new
    folder is writable by you alone: mode ``0755`` less the umask) and check it."""
    folder = Path(os.path.abspath(folder))
    if not folder.exists():
        check_folder(folder.parent, what)
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o755)
    return check_folder(folder, what)


def _split(path: str | os.PathLike, what: str) -> tuple[Path, str]:
    """The folder (checked) and the file name of ``path``."""
    full = Path(os.path.abspath(path))
    if not full.name:
        raise ValueError(f"{what} {os.fspath(path)!r} is not a file name")
    return check_folder(full.parent, what), full.name


@contextlib.contextmanager
def _folder_fd(folder: Path, what: str) -> Iterator[int | None]:
    """An open descriptor of ``folder``, checked again on the descriptor (so the folder
    checked is the folder written: one swapped for a link after :func:`check_folder` is
    caught); ``None`` where the system has no ``*at`` calls."""
    if not _AT:
        yield None
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        why = cache_files._problem(os.fstat(fd), sticky_ok=True)
        if why is not None:
            raise ValueError(f"{what} folder {folder} is {why}: refused")
        yield fd
    finally:
        os.close(fd)


def _at(folder: Path, dir_fd: int | None, name: str) -> str:
    return name if dir_fd is not None else os.fspath(folder / name)


def _new_temporary(folder: Path, dir_fd: int | None, name: str) -> tuple[str, int]:
    """A fresh temporary file beside ``name`` in ``folder``: its name and a descriptor."""
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(8)}.part"
        try:
            return tmp, os.open(_at(folder, dir_fd, tmp), _CREATE, 0o666, dir_fd=dir_fd)
        except FileExistsError:  # someone else's name: draw another
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


@contextlib.contextmanager
def atomic(path: str | os.PathLike, what: str = "output") -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s content into; on a clean exit it replaces
    ``path`` atomically (a failure leaves ``path`` as it was and no temporary file).
    ValueError when the folder is refused (:func:`check_folder`)."""
    folder, name = _split(path, what)
    with _folder_fd(folder, what) as dir_fd:
        tmp, fd = _new_temporary(folder, dir_fd, name)
        try:
            with os.fdopen(fd, "wb") as handle:
                yield handle
                handle.flush()
            os.replace(_at(folder, dir_fd, tmp), _at(folder, dir_fd, name),
                       src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(_at(folder, dir_fd, tmp), dir_fd=dir_fd)
            raise


def write_bytes(path: str | os.PathLike, data: bytes, what: str = "output") -> Path:
    """Write ``data`` to ``path`` through :func:`atomic`; returns ``path``."""
    with atomic(path, what) as handle:
        handle.write(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str, what: str = "output",
               encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` through :func:`atomic`; returns ``path``."""
    return write_bytes(path, text.encode(encoding), what)


def probe(path: str | os.PathLike, what: str = "output") -> Path:
    """Check before any work that ``path`` can be written: its folder passes
    :func:`check_folder`, and a temporary file can be created there (then removed at
    once; permission bits do not bind root, and a folder like /proc refuses files).
    ValueError of one line otherwise; ``path`` itself is never opened."""
    folder, name = _split(path, what)
    try:
        with _folder_fd(folder, what) as dir_fd:
            tmp, fd = _new_temporary(folder, dir_fd, name)
            os.close(fd)
            os.unlink(_at(folder, dir_fd, tmp), dir_fd=dir_fd)
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise ValueError(f"{what} {os.fspath(path)!r} cannot be written ({reason})") from None
    return Path(path)


def file_problem(st: os.stat_result) -> str | None:
    """Why an existing store with status ``st`` (from ``lstat`` or ``fstat``) may not be
    resumed or appended to (``None``: it may)."""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file (a device, pipe or socket)"
    why = cache_files._problem(st)
    return None if why is None else f"is {why}"


def _store_refused(path: str | os.PathLike, why: str, what: str) -> ValueError:
    return ValueError(f"{what} {os.fspath(path)} {why}: refused; a {what} is resumed only "
                      "when it and its folder are yours alone (give a new path)")


def check_store(path: str | os.PathLike, what: str = "store") -> None:
    """Check before reading a store to resume it, or starting one: its folder, when it
    exists, passes :func:`check_folder` (a missing folder is left to the caller's own
    message), and the store, when present, is not a link and, when a regular
    file, owned by you (or root) and writable by neither group nor others (a folder or a
    device is left to the caller's own message). ValueError of one line otherwise."""
    if os.path.isdir(os.path.dirname(os.path.abspath(path))):
        _split(path, what)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    why = file_problem(st)
    if why is not None and (stat.S_ISLNK(st.st_mode) or stat.S_ISREG(st.st_mode)):
        raise _store_refused(path, why, what)


def open_append(path: str | os.PathLike, what: str = "store") -> int:
    """A descriptor appending to the store ``path`` (created when missing: mode ``0644``
    less the umask), opened without following a link and checked on the descriptor
    (:func:`file_problem`). ValueError of one line when refused or not writable."""
    folder, name = _split(path, what)
    try:
        with _folder_fd(folder, what) as dir_fd:
            fd = os.open(_at(folder, dir_fd, name), _APPEND, 0o644, dir_fd=dir_fd)
    except OSError as exc:
        if os.path.islink(path):
            raise _store_refused(path, "is a symbolic link", what) from None
        raise ValueError(f"cannot write {what} {os.fspath(path)!r}: "
                         f"{exc.strerror or exc}") from None
    why = file_problem(os.fstat(fd))
    if why is not None:
        os.close(fd)
        raise _store_refused(path, why, what)
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


__all__ = ["atomic", "check_folder", "check_store", "file_problem", "folder_problem",
           "make_folder", "open_append", "probe", "write_bytes", "write_text"]
