"""Folders as another local user would leave them, for the writers' security tests
(freege/safe_files.py): one shared by everyone, or one owned by uid 65534."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: the other user (``nobody``) whose plants the writers must refuse
OTHER = 65534


def hand_over(folder: Path, owner: str) -> str:
    """Make ``folder`` ``"others may write"`` (mode 777, not sticky) or ``"another
    user's"`` (owned by :data:`OTHER`; skips unless root), and return the reason the
    writers give for refusing it."""
    if owner == "others may write":
        folder.chmod(0o777)
        return "is writable by group or others (mode 777 and not sticky)"
    if os.geteuid() != 0:
        pytest.skip(f"giving a folder to another user (uid {OTHER}) needs root")
    os.chown(folder, OTHER, OTHER)
    return f"is owned by uid {OTHER}, not by you (uid {os.getuid()})"
