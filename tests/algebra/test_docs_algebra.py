"""The Python examples of docs/algebra.md run and their closed-form checks hold."""

from __future__ import annotations

import pytest

from tests.test_docs import ROOT, _blocks

PAGE = ROOT / "docs" / "algebra.md"


@pytest.mark.parametrize("block", _blocks(PAGE, "python"), ids=lambda b: f"line {b[0]}")
def test_python_example_runs(block):
    first, body, _ = block
    exec(compile(body, f"algebra.md:{first}", "exec"), {})  # noqa: S102


def test_the_page_has_examples():
    assert len(_blocks(PAGE, "python")) >= 3
