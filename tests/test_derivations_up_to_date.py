"""The committed derivation documents equal a fresh regeneration
(``python -m freege.derivations``)."""

import pytest

import freege.derivations


@pytest.mark.slow
@pytest.mark.parametrize("name", freege.derivations.DOCUMENTS)
def test_document_is_up_to_date(name: str) -> None:
    path = freege.derivations.document_path(name)
    assert path.exists(), f"{path} missing: run python -m freege.derivations"
    assert path.read_text(encoding="utf-8") == freege.derivations.render(name), (
        f"derivations/{name}.md is stale: run python -m freege.derivations"
    )


@pytest.mark.slow
def test_check_flags_a_stale_document(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m freege.derivations --check`` exits 1 naming a document that differs, and
    says on stderr which document it is working on."""
    from freege.derivations.__main__ import main

    name = freege.derivations.DOCUMENTS[0]
    monkeypatch.setattr(freege.derivations, "FOLDER", tmp_path)
    (tmp_path / f"{name}.md").write_text("outdated\n", encoding="utf-8")
    assert freege.derivations.stale((name,)) == [name]
    assert main(["--check", name]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"[1/1] checking derivations/{name}.md",
        f"stale: derivations/{name}.md (run python -m freege.derivations)"]
    assert captured.out == f"derivations: 1 of 1 document(s) stale: {name}\n"
    freege.derivations.write((name,))
    assert main(["--check", name]) == 0
    assert capsys.readouterr().out == "derivations: all 1 document(s) up to date\n"
