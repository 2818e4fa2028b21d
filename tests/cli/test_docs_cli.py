"""``freege docs``: the documentation ships with the package and every "theory §N" the
program cites prints from it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import freege
from freege.cli import docs
from tests.cli.helpers import bad, result_json, run_cli

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"theory §(\d+(?:\.\d+)?)")


def _cited() -> set[str]:
    """Every section number cited as ``theory §N`` in the installed Python sources
    (the help texts, messages and plot labels the program prints come from them)."""
    found: set[str] = set()
    for folder in ("freege", "validation", "derivations"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(CITATION.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_cited_section_prints(capsys) -> None:
    cited = _cited()
    assert {"4", "6.1", "7"} <= cited
    theory = docs.text_of("theory")
    for number in sorted(cited):
        text = docs.section(theory, number)
        assert text.startswith("#") and f"§{number} " in text.splitlines()[0]
    code, out, err = run_cli(capsys, "docs", "theory", "--section", "6")
    assert code == 0, err
    assert "§6.1" in out and "§6.3" in out and "§7 " not in out  # subsections, not the next


def test_docs_are_package_data() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["freege.docs"] == "docs"
    shipped = setuptools["package-data"]["freege.docs"]
    for file, _about in docs.DOCUMENTS.values():
        assert (ROOT / "docs" / file).is_file()
        assert any(Path(file).match(pattern) for pattern in shipped), file


def test_an_installed_layout_reads_its_own_copy(tmp_path, monkeypatch) -> None:
    package = tmp_path / "freege"
    (package / "docs").mkdir(parents=True)
    (package / "docs" / "guide.md").write_text("# guide\n\n## 1. One\nfirst\n## 2. Two\n")
    monkeypatch.setattr(freege, "__file__", str(package / "__init__.py"))
    assert docs.docs_folder() == package / "docs"
    assert docs.section(docs.text_of("guide"), "1") == "## 1. One\nfirst"


def test_listing_sections_and_code_blocks(capsys) -> None:
    code, out, _ = run_cli(capsys, "docs", "--format", "json")
    listing = result_json(out, "docs")["documents"]
    assert [s["number"] for s in listing["guide"]["sections"]][:2] == ["1", "2"]
    # a '#' comment inside a fenced code block is not a heading
    guide = docs.text_of("guide")
    assert "```" in docs.section(guide, "1")
    assert docs.section(guide, "1").count("```") % 2 == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["docs", "theory", "--section", "99"], "--section must be one of"),
    (["docs", "--section", "4"], "needs a document"),
    (["docs", "manual"], "invalid choice"),
])
def test_bad_input(capsys, argv, message) -> None:
    assert message in bad(capsys, *argv)
