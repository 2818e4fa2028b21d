"""The append-only results store of a sweep: JSON lines with a checksum per line.

Every line is ``{"sha256": <hex of the payload's canonical JSON>, "payload": {...}}``.
The first payload is the header (``type: "header"``): the sweep's identity (points,
draws, seed, backend), which a rerun must match, plus the limiting moments of each
point. Then one ``type: "draw"`` payload per finished task, keyed by ``(point, draw)``:
``status: "ok"`` with its metrics, or ``status: "failed"`` with the error.

Each record is written with one ``write`` on an ``O_APPEND`` descriptor, then flushed and
``fsync``-ed, so ``kill -9`` loses at most the tasks in flight. On opening, a line that
is not valid JSON or whose checksum does not match is dropped with a warning: a corrupt
or truncated *tail* is cut off the file (so the next append starts on a clean line),
a corrupt line in the middle is skipped; its task is simply run again. A checksum proves
nothing against a record rewritten on purpose, so every payload is also checked against
the schema of :mod:`freege.validation.sweep.schema`: a malformed header refuses the
store (one line), and a record that breaks the schema -- or repeats a finished
``(point, draw)`` -- gets one warning naming its line and is left out of everything
(resume, report); its task, if unfinished, is run again. A store is held under an
exclusive ``flock`` while a sweep writes to it.

A store is written only where no one else can (issue 40, :mod:`freege.safe_files`): its
folder must be yours (or root's) and writable by no one else unless sticky, and the store
itself a regular file -- not a symbolic link, which is never followed -- owned by you
(or root) and writable by neither group nor others. A store that fails is refused in one
line before it is read for a resume (``read(..., resume=True)``) and again on the open
descriptor (:func:`open_for_append`): records another user could have forged are never
resumed. A new store is created ``0644`` less the umask.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freege import safe_files
from freege.validation.sweep import schema as sweep_schema

FORMAT = "freege-sweep/1"


def _canonical(payload: dict[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)


def encode(payload: dict[str, Any]) -> bytes:
    """One store line (with its newline) for ``payload``."""
    text = _canonical(payload)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return (json.dumps({"sha256": digest, "payload": payload}, sort_keys=True,
                       separators=(",", ":"), allow_nan=False) + "\n").encode()


def decode(line: bytes) -> dict[str, Any] | None:
    """The payload of a store line, or ``None`` when it is malformed or fails its
    checksum."""
    try:
        obj = json.loads(line)
        payload = obj["payload"]
        ok = hashlib.sha256(_canonical(payload).encode()).hexdigest() == obj["sha256"]
    except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: deep nesting
        return None
    return payload if ok and isinstance(payload, dict) else None


@dataclass
class Contents:
    """What a store holds: its header, its records in file order, and where the valid
    part ends (``valid_end``: the byte offset after the last good line)."""

    header: dict[str, Any] | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    valid_end: int = 0
    size: int = 0
    dropped: int = 0
    rejected: int = 0


def read(path: str | Path, schema: sweep_schema.Schema = sweep_schema.SWEEP, *,
         resume: bool = False) -> Contents:
    """Parse the store at ``path`` (missing: empty). Bad lines are counted in
    ``dropped`` (with a warning), records that break ``schema`` (default: a sweep's) in
    ``rejected`` (one warning each, with the line number); the header must be the first
    line, intact and well formed. With ``resume`` (the store is to be appended to) the
    store and its folder must first pass :func:`freege.safe_files.check_store`."""
    p = Path(path)
    out = Contents()
    if resume:
        safe_files.check_store(p, "store")
    if not p.exists():
        return out
    if p.is_dir():
        raise ValueError(f"store {str(p)!r} is a folder, not a file")
    if not p.is_file():  # /dev/null, a pipe: no appends with fsync, no resume
        raise ValueError(f"store {str(p)!r} is not a regular file (a device, pipe or "
                         "socket); give the path of a new or existing store file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read store {str(p)!r}: {exc.strerror or exc}") from None
    out.size = len(data)
    offset = 0
    context: Any = None
    finished_on: dict[tuple[str, int], int] = {}
    dropped_lines: list[int] = []
    for line, raw in enumerate(data.splitlines(keepends=True), 1):
        start, offset = offset, offset + len(raw)
        payload = decode(raw) if raw.endswith(b"\n") else None
        if payload is None:
            if start == 0 and offset == len(data) and raw.startswith(b'{"payload":'):
                out.dropped += 1  # a header cut short by a kill: the store is empty
                continue
            if start == 0:
                raise ValueError(f"store {str(p)!r} has no valid sweep header; not a freege "
                                 "sweep store (or its first line is corrupt)")
            out.dropped += 1
            dropped_lines.append(line)
            continue
        if start == 0:
            if payload.get("type") != "header" or payload.get("format") != FORMAT:
                raise ValueError(f"store {str(p)!r} is not a {FORMAT} store")
            context = schema.header(payload, f"store {str(p)!r}")
            out.header = payload
        else:
            problem = (schema.record(payload, context) if out.header is not None
                       else "record before the store's header")
            if problem is None and payload["status"] == "ok":
                key = (payload["point"], payload["draw"])
                if key in finished_on:
                    problem = f"repeats the finished draw of line {finished_on[key]}"
                else:
                    finished_on[key] = line
            if problem is None:
                out.records.append(payload)
            else:
                out.rejected += 1
                warnings.warn(f"store {str(p)!r}: line {line}: {problem}; record left out",
                              stacklevel=2)
        out.valid_end = offset
    if out.dropped:
        tail = "at its end" if out.valid_end < out.size else "in its middle"
        shown = ", ".join(map(str, dropped_lines[:10])) + (", ..." if out.dropped > 10 else "")
        warnings.warn(f"store {str(p)!r}: dropped {out.dropped} corrupt or truncated "
                      f"line(s) {tail} (line {shown}): not valid JSON, non-finite, or a "
                      "checksum that does not match; their tasks will run again", stacklevel=2)
    return out


def finished(contents: Contents) -> set[tuple[str, int]]:
    """``(point key, draw)`` of the records with status ``ok``."""
    return {(r["point"], r["draw"]) for r in contents.records if r.get("status") == "ok"}


class Writer:
    """Appends records to an open store (one ``write`` + ``fsync`` each)."""

    def __init__(self, fd: int):
        self.fd = fd

    def append(self, payload: dict[str, Any]) -> None:
        line = encode(payload)
        written = os.write(self.fd, line)
        if written != len(line):  # pragma: no cover - a full disk
            raise OSError(f"short write to the store ({written} of {len(line)} bytes)")
        os.fsync(self.fd)


@contextmanager
def open_for_append(path: str | Path, contents: Contents,
                    header: dict[str, Any] | None) -> Iterator[Writer]:
    """Lock the store, cut a corrupt tail (after ``contents.valid_end``), write
    ``header`` when the store is new, and yield a :class:`Writer`. The store is opened
    by :func:`freege.safe_files.open_append`: a link is not followed, and a store or
    folder another user can write or owns is refused (ValueError, one line)."""
    import fcntl

    fd = safe_files.open_append(path, "store")
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(f"store {str(path)!r} is in use by another sweep") from None
        if os.fstat(fd).st_size != contents.size:
            raise ValueError(f"store {str(path)!r} changed while it was being read")
        if contents.valid_end < contents.size:
            os.ftruncate(fd, contents.valid_end)
        writer = Writer(fd)
        if contents.header is None:
            writer.append(header or {})
        yield writer
    finally:
        os.close(fd)
