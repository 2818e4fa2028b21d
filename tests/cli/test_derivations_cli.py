"""``python -m freege.derivations`` writes the committed documents only in a source checkout:
an installed copy (no ``pyproject.toml`` beside its folder) is refused in one line, exit 2,
unless ``--out DIR`` says where to write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import freege.derivations as documents
from freege.derivations.__main__ import main

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
    assert main(["moments", "--out", str(tmp_path / "missing")]) == 2
    assert "is not an existing folder" in capsys.readouterr().err
    assert main(["--check", "--out", str(tmp_path)]) == 2


def test_out_writes_elsewhere(tmp_path, monkeypatch, capsys):
    folder = _installed_layout(tmp_path)
    monkeypatch.setattr(documents, "FOLDER", folder)
    monkeypatch.setattr(documents, "render", lambda name: f"fresh {name}\n")
    target = tmp_path / "docs"
    target.mkdir()
    assert main(["moments", "--out", str(target)]) == 0
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
