"""Shared helpers of the cache tests: plant an entry as freege would write it (with a valid
checksum), read an entry's content back, and count the warning lines."""

from __future__ import annotations

from pathlib import Path

from freege import cache_files


def plant(path: Path, key: str, content: str) -> None:
    """Write ``content`` as the entry ``path`` of ``key`` with a checksum that matches: only
    the caller's parser can refuse it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(f"{cache_files.TAG}{cache_files.checksum(key, content)}\n{content}")


def content(path: Path) -> str:
    """The content of entry ``path`` (its checksum line removed)."""
    header, _, text = path.read_text().partition("\n")
    assert header.startswith(cache_files.TAG), header
    return text


def warnings(err: str) -> list[str]:
    """The ``freege: warning:`` lines of ``err``; every line of ``err`` must be one."""
    lines = err.strip().splitlines()
    assert all(line.startswith("freege: warning: ") for line in lines), err
    return lines
