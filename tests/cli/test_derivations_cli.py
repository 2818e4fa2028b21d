"""``python -m freege.derivations`` writes the committed documents only in a source checkout:
an installed copy (no ``pyproject.toml`` beside its folder) is refused in one line, exit 2,
unless ``--out DIR`` says where to write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import freege.derivations as documents
from freege.derivations.__main__ import main
from tests.planted import OTHER, hand_over

ROOT = Path(__file__).resolve().parents[2]


def _installed_layout(tmp_path: Path) -> Path:
    """``site-packages/freege/derivations`` with one committed document."""
    folder = tmp_path / "site-packages" / "freege" / "derivations"
    folder.mkdir(parents=True)
    (folder.parent / "__init__.py").write_text("")
    (folder / "moments.md").write_text("installed copy\n")
    return folder


def test_the_checkout_is_recognised():
    assert documents.in_source_checkout()  # the tests run in a clone
    assert documents.FOLDER == ROOT / "derivations"


def test_an_installed_copy_is_never_rewritten(tmp_path, monkeypatch, capsys):
    folder = _installed_layout(tmp_path)
    monkeypatch.setattr(documents, "FOLDER", folder)
    monkeypatch.setattr(documents, "render", lambda name: pytest.fail("derived anyway"))
    assert not documents.in_source_checkout()
    assert main(["moments"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("python -m freege.derivations: error: ") and "--out DIR" in err
    assert str(folder) in err and "not a source checkout" in err
    assert (folder / "moments.md").read_text() == "installed copy\n"
    assert main(["moments", "--out", str(tmp_path / "missing" / "deeper")]) == 2
    assert "missing cannot be used" in capsys.readouterr().err  # its parent must exist
    os.symlink(tmp_path, tmp_path / "link")
    assert main(["moments", "--out", str(tmp_path / "link")]) == 2
    assert "is a link: refused" in capsys.readouterr().err
    assert main(["--check", "--out", str(tmp_path)]) == 2


def test_out_writes_elsewhere(tmp_path, monkeypatch, capsys):
    folder = _installed_layout(tmp_path)
    monkeypatch.setattr(documents, "FOLDER", folder)
    monkeypatch.setattr(documents, "render", lambda name: f"fresh {name}\n")
    target = tmp_path / "docs"  # created: a missing --out folder is made (issue 42)
    assert main(["moments", "--out", str(target)]) == 0
    assert target.stat().st_mode & 0o022 == 0
    assert (target / "moments.md").read_text() == "fresh moments\n"
    assert (folder / "moments.md").read_text() == "installed copy\n"
    assert capsys.readouterr().out == f"wrote {target / 'moments.md'}\n"


def test_refusal_in_a_real_process(tmp_path):
    """The real entry point, run outside a checkout against an installed-looking copy."""
    folder = _installed_layout(tmp_path)
    script = ("import sys, freege.derivations as d; from pathlib import Path; "
              f"d.FOLDER = Path({str(folder)!r}); "
              "from freege.derivations.__main__ import main; sys.exit(main([]))")
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


# issue 40: the documents are written through freege.safe_files


def test_a_link_planted_at_a_document_name_is_not_followed(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(documents, "render", lambda name: f"fresh {name}\n")
    target = tmp_path / "docs"
    target.mkdir()
    victim = tmp_path / "victim.md"
    victim.write_text("precious\n")
    os.symlink(victim, target / "moments.md")
    os.symlink(tmp_path / "chosen.md", target / "ridge.md")
    if os.geteuid() == 0:
        os.lchown(target / "moments.md", OTHER, OTHER)
        os.lchown(target / "ridge.md", OTHER, OTHER)
    assert main(["moments", "ridge", "--out", str(target)]) == 0
    assert victim.read_text() == "precious\n" and not (tmp_path / "chosen.md").exists()
    assert (target / "moments.md").read_text() == "fresh moments\n"
    assert not (target / "ridge.md").is_symlink()
    assert sorted(p.name for p in target.iterdir()) == ["moments.md", "ridge.md"]


@pytest.mark.parametrize("owner", ["others may write", "another user's"])
def test_a_shared_or_foreign_out_folder_is_refused(tmp_path, monkeypatch, capsys, owner):
    monkeypatch.setattr(documents, "render", lambda name: pytest.fail("derived anyway"))
    target = tmp_path / "docs"
    target.mkdir()
    why = hand_over(target, owner)
    assert main(["moments", "--out", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"python -m freege.derivations: error: --out folder {target} {why}: refused\n"
    assert list(target.iterdir()) == []


def test_write_refuses_a_shared_folder_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(documents, "render", lambda name: f"fresh {name}\n")
    target = tmp_path / "docs"
    target.mkdir()
    target.chmod(0o757)
    with pytest.raises(ValueError, match=rf"^--out folder {target} is writable by group or "
                       r"others \(mode 757 and not sticky\): refused$"):
        documents.write(("moments",), target)
    assert list(target.iterdir()) == []
