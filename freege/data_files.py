"""Reading a spectrum from a file, safely: the one reader of the data files of
``empirical(@FILE)`` (:mod:`freege.algebra.data`, ``freege law --expr``).

:func:`load_values` reads ``.npy`` (``numpy.load`` with ``allow_pickle=False``: never
unpickles), ``.txt`` (whitespace-separated) and ``.csv`` (comma-separated) files, ``#``
starting a comment in both text forms. The numbers are one column of values, or two
columns: values and their weights (positive). Refused, each with a one-line ValueError
naming the file and the problem: a missing file, a directory, anything that is not a
regular file (a FIFO, a device, a socket: checked on the opened descriptor, opened
without blocking, before a byte is read), a file larger than :data:`MAX_BYTES`, an empty
file or one without numbers, a non-finite value or weight, a weight that is not > 0, more
than :data:`MAX_VALUES` values, an unreadable or unparsable file, another extension.
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from pathlib import Path
from typing import Any

import numpy as np

#: the largest data file read, in bytes (64 MiB)
MAX_BYTES = 64 * 2**20
#: the most values read (the empirical operand's limit)
MAX_VALUES = 10**5
#: the extensions read
EXTENSIONS = (".npy", ".txt", ".csv")


def _fail(path: Any, problem: str) -> ValueError:
    problem = " ".join(str(problem).split())  # one line
    return ValueError(f"data file {str(path)!r}: {problem}")


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes: a regular file of at most :data:`MAX_BYTES`, checked on the
    descriptor (opened non-blocking: a FIFO without a writer does not hang)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise _fail(path, "no such file") from None
    except IsADirectoryError:
        raise _fail(path, "is a directory, not a file") from None
    except PermissionError:
        raise _fail(path, "permission denied") from None
    except OSError as exc:
        raise _fail(path, f"cannot open ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _fail(path, "is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else
                    "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
            raise _fail(path, f"is {kind}, not a regular file")
        if info.st_size > MAX_BYTES:
            raise _fail(path, f"is {info.st_size} bytes; the limit is {MAX_BYTES} "
                        f"({MAX_BYTES // 2**20} MiB)")
        if info.st_size == 0:
            raise _fail(path, "is empty")
        chunks, size = [], 0
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as exc:
                raise _fail(path, f"cannot read ({exc.strerror or exc})") from None
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_BYTES:  # grew while read
                raise _fail(path, f"is more than {MAX_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parse_npy(path: Any, blob: bytes) -> np.ndarray:
    if not blob.startswith(b"\x93NUMPY"):
        raise _fail(path, "is not a .npy array (no .npy header)")
    try:
        array = np.load(io.BytesIO(blob), allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the file's problem
        raise _fail(path, f"cannot read as .npy ({exc})") from None
    if not isinstance(array, np.ndarray):
        raise _fail(path, "is not a .npy array")
    if array.dtype.kind not in "iuf":
        raise _fail(path, f"holds {array.dtype} data; real numbers (int or float) only")
    return array.astype(float)


def _parse_text(path: Any, blob: bytes, delimiter: str | None) -> np.ndarray:
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _fail(path, "is not UTF-8 text") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": empty, below
            array = np.loadtxt(io.StringIO(text), dtype=float, delimiter=delimiter,
                               comments="#", ndmin=2)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the file's problem
        raise _fail(path, f"cannot read its numbers ({exc})") from None
    return array


def load_values(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray | None]:
    """``(values, weights)`` from the data file ``path`` (module docstring): float64 1-D
    arrays, ``weights`` None without a second column; else a one-line ValueError naming
    the file and the problem."""
    if not isinstance(path, str | os.PathLike):
        raise ValueError(f"data file must be a path (got {type(path).__name__})")
    ext = Path(path).suffix.lower()
    if ext not in EXTENSIONS:
        raise _fail(path, f"extension {ext or '(none)'!r} is not read; give one of "
                    f"{', '.join(EXTENSIONS)}")
    blob = _read_bytes(path)
    if ext == ".npy":
        array = _parse_npy(path, blob)
    else:
        array = _parse_text(path, blob, "," if ext == ".csv" else None)
    if array.ndim == 2 and array.shape[1] == 0:
        array = array.reshape(0)
    if array.size == 0:
        raise _fail(path, "holds no numbers")
    if array.ndim == 1:
        values, weights = array, None
    elif array.ndim == 2 and array.shape[1] in (1, 2):
        values = array[:, 0]
        weights = array[:, 1] if array.shape[1] == 2 else None
    else:
        raise _fail(path, f"has shape {array.shape}; give one column of values, or two: "
                    "values and weights")
    if values.size > MAX_VALUES:
        raise _fail(path, f"holds {values.size} values; the limit is {MAX_VALUES}")
    bad = int((~np.isfinite(values)).sum())
    if bad:
        raise _fail(path, f"holds {bad} non-finite value{'s' if bad > 1 else ''} "
                    "(nan or inf)")
    if weights is not None:
        if not np.all(np.isfinite(weights)):
            raise _fail(path, "holds a non-finite weight (nan or inf)")
        if not np.all(weights > 0):
            raise _fail(path, "holds a weight that is not > 0")
        weights = np.ascontiguousarray(weights, dtype=float)
    return np.ascontiguousarray(values, dtype=float), weights


__all__ = ["EXTENSIONS", "MAX_BYTES", "MAX_VALUES", "load_values"]
