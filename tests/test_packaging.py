"""Packaging: the repository folders ``validation/`` and ``derivations/`` are the
subpackages ``freege.validation`` and ``freege.derivations`` -- in the wheel by the
``package-dir`` mapping of pyproject.toml, in a source checkout by
:mod:`freege._source_tree` -- and never top-level packages of their own."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from freege import _source_tree

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"]


def _packages_in(folder: Path, name: str) -> set[str]:
    """Dotted names of the package ``folder`` (installed as ``name``) and its subpackages."""
    return {".".join((name, *init.parent.relative_to(folder).parts))
            for init in folder.rglob("__init__.py") if "__pycache__" not in init.parts}


def _folder(package: str) -> Path:
    """The repository folder of ``package`` under the ``package-dir`` mapping."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        mapped = SETUPTOOLS["package-dir"].get(".".join(parts[:cut]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[cut:])
    return ROOT / Path(*parts)


def test_every_package_folder_is_installed_under_freege() -> None:
    mapping = SETUPTOOLS["package-dir"]
    expected = _packages_in(ROOT / "freege", "freege")
    for name in _source_tree.SUBPACKAGES:
        assert mapping[f"freege.{name}"] == name
        expected |= _packages_in(ROOT / name, f"freege.{name}")
    data_only = {name for name in SETUPTOOLS["packages"] if name not in expected}
    assert expected <= set(SETUPTOOLS["packages"])
    # the other entries are folders of package data only (the shipped TOML campaigns)
    assert data_only == set(SETUPTOOLS["package-data"]) - expected
    assert all(name.split(".")[0] == "freege" for name in SETUPTOOLS["packages"])


def test_package_data_globs_match_files() -> None:
    for package, patterns in SETUPTOOLS["package-data"].items():
        folder = _folder(package)
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: {pattern} matches no file"


def test_source_checkout_finds_the_subpackages_and_nothing_else() -> None:
    code = ("import importlib.util, freege.validation, freege.derivations\n"
            "print(freege.validation.__file__); print(freege.derivations.__file__)\n"
            "print(importlib.util.find_spec('freege.tests'),"
            " importlib.util.find_spec('freege.benchmarks'))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out == [str(ROOT / "validation" / "__init__.py"),
                   str(ROOT / "derivations" / "__init__.py"), "None None"]


def test_installed_layout_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``pyproject.toml`` beside the package (site-packages): no finder, even when a
    foreign top-level ``validation`` package sits next to it."""
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    (tmp_path / "validation").mkdir()
    (tmp_path / "validation" / "__init__.py").write_text("")
    package = tmp_path / "fakepkg"
    package.mkdir()
    _source_tree.install(package, "fakepkg")
    assert all(not isinstance(f, _source_tree._SiblingFolders) or "fakepkg.validation"
               not in f.folders for f in sys.meta_path)
    (tmp_path / "pyproject.toml").write_text("")
    _source_tree.install(package, "fakepkg")
    _source_tree.install(package, "fakepkg")  # idempotent
    finders = [f for f in sys.meta_path if isinstance(f, _source_tree._SiblingFolders)
               and "fakepkg.validation" in f.folders]
    assert len(finders) == 1
    assert finders[0].folders == {"fakepkg.validation": tmp_path / "validation"}


#: the extras that install CuPy (one per CUDA major version), left out of ``all``
GPU_EXTRAS = {"gpu", "gpu-cuda12"}
#: the developer tools (tests, the documentation site), left out of ``all``
DEVELOPER_EXTRAS = {"test", "docs"}


def test_all_extra_covers_every_extra_but_the_gpu_ones() -> None:
    """``pip install 'freege[all]'`` installs every extra except CuPy (which needs a GPU
    and the right CUDA) and the developer tools; the GPU extras are CuPy for CUDA 13 and
    CUDA 12."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    named = set()
    for requirement in extras["all"]:
        name, _, rest = requirement.partition("[")
        assert name == "freege", requirement
        named |= set(rest.rstrip("]").split(","))
    assert named == set(extras) - GPU_EXTRAS - DEVELOPER_EXTRAS - {"all"}
    assert extras["gpu"] == ["cupy-cuda13x>=13"]
    assert extras["gpu-cuda12"] == ["cupy-cuda12x>=13"]
    versions = {c.rpartition(" :: ")[2] for c in project["classifiers"]
                if c.startswith("Programming Language :: Python :: 3.")}
    assert versions == {"3.11", "3.12", "3.13"}
    assert project["requires-python"] == ">=3.11"
    assert set(project["urls"]) >= {"Homepage", "Documentation", "Repository", "Issues"}
