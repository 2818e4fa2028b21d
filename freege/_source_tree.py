"""Source-checkout support: ``freege.validation`` and ``freege.derivations`` live in the
top-level folders ``validation/`` and ``derivations/`` of the repository.

An installed freege (wheel or ``pip install .``) holds them inside the package, by the
``package-dir`` mapping of ``pyproject.toml``. A source checkout on ``sys.path`` (the
repository root as the working directory, or pytest's rootdir) shadows the installed
package with ``freege/``, which has no such subfolders; :func:`install` then adds one
finder to ``sys.meta_path`` that maps exactly these two names to the sibling folders.
Nothing else of the repository becomes importable under ``freege``, and an installed
package (no ``pyproject.toml`` next to it) is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

#: the subpackages kept outside ``freege/`` in the repository (same names as the folders)
SUBPACKAGES: tuple[str, ...] = ("validation", "derivations")


class _SiblingFolders(importlib.abc.MetaPathFinder):
    """Finds ``freege.<name>`` in the repository folder ``<name>/``."""

    def __init__(self, folders: dict[str, Path]) -> None:
        self.folders = folders

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        folder = self.folders.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder / "__init__.py", submodule_search_locations=[str(folder)])


def install(package_dir: Path, package_name: str) -> None:
    """Map ``<package_name>.<name>`` to ``<root>/<name>`` when ``package_dir`` is the
    package folder of a source checkout (a ``pyproject.toml`` beside it) that lacks the
    subpackage; idempotent."""
    root = package_dir.parent
    if not (root / "pyproject.toml").is_file():
        return
    folders = {f"{package_name}.{name}": root / name for name in SUBPACKAGES
               if not (package_dir / name).exists() and (root / name / "__init__.py").is_file()}
    if folders and not any(isinstance(f, _SiblingFolders) and f.folders == folders
                           for f in sys.meta_path):
        sys.meta_path.append(_SiblingFolders(folders))
