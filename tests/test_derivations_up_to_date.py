"""The committed derivation documents equal a fresh regeneration (``python -m derivations``)."""

import pytest

import derivations


@pytest.mark.parametrize("name", derivations.DOCUMENTS)
def test_document_is_up_to_date(name: str) -> None:
    path = derivations.document_path(name)
    assert path.exists(), f"{path} missing: run python -m derivations"
    assert path.read_text(encoding="utf-8") == derivations.render(name), (
        f"derivations/{name}.md is stale: run python -m derivations"
    )


def test_check_flags_a_stale_document(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m derivations --check`` exits 1 naming a document that differs."""
    from derivations.__main__ import main

    name = derivations.DOCUMENTS[0]
    monkeypatch.setattr(derivations, "FOLDER", tmp_path)
    (tmp_path / f"{name}.md").write_text("outdated\n", encoding="utf-8")
    assert derivations.stale((name,)) == [name]
    assert main(["--check", name]) == 1
    derivations.write((name,))
    assert main(["--check", name]) == 0
