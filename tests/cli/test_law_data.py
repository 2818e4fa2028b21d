"""``freege law --expr "... empirical(@FILE) ..."``: a law from a spectrum file (relative
to the current directory) -- the same numbers as the Python expression, and a one-line
error with exit 2 for a missing, empty, non-finite or unreadable file."""

from __future__ import annotations

import numpy as np
import pytest

from freege import algebra
from tests.cli.helpers import bad, result_json, run_cli

TEXT = "mp(1/2) * empirical(@spectrum.npy)"


@pytest.fixture
def spectrum(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "spectrum.npy", np.array([1.0, 3.0, 3.0, 3.0]))
    return tmp_path


def test_law_of_a_spectrum_file_json(capsys, spectrum):
    code, out, err = run_cli(capsys, "law", "--expr", TEXT, "--pdf", "0.5", "2",
                             "--format", "json")
    assert code == 0, err
    data = result_json(out, "law")
    law = (algebra.parse("mp(1/2)") * algebra.empirical([1.0, 3.0, 3.0, 3.0])).law()
    assert data["pdf"] == list(law.pdf([0.5, 2.0]))
    assert data["support"] == [list(edge) for edge in law.intervals()]
    assert data["mean"] == 2.5 and data["m2"] == 10.125 and data["atoms"] == []


def test_law_of_a_spectrum_file_text_normalized_and_plot(capsys, spectrum):
    code, out, err = run_cli(capsys, "law", "--expr", TEXT, "--pdf", "2")
    assert code == 0, err
    assert out.startswith(f"law of {TEXT}\n")
    assert "mean    2.5\n" in out and "atoms   none" in out
    code, out, err = run_cli(capsys, "law", "--expr", TEXT, "--normalized")
    assert code == 0, err
    assert "mean    1.0\n" in out
    code, out, err = run_cli(capsys, "law", "--expr", TEXT, "--plot", "density.png")
    assert code == 0, err
    assert (spectrum / "density.png").stat().st_size > 0


def test_a_text_file_with_weights(capsys, spectrum):
    (spectrum / "w.csv").write_text("# value, weight\n1,1\n3,3\n")
    code, out, err = run_cli(capsys, "law", "--expr", "mp(1/2) * empirical(@w.csv)",
                             "--pdf", "2", "--format", "json")
    assert code == 0, err
    reference = run_cli(capsys, "law", "--expr", TEXT, "--pdf", "2", "--format", "json")[1]
    np.testing.assert_allclose(result_json(out, "law")["pdf"],
                               result_json(reference, "law")["pdf"], rtol=1e-13)


@pytest.mark.parametrize(("name", "content", "words"), [
    ("missing.npy", None, "no such file"),
    ("empty.npy", b"", "is empty"),
    ("empty.txt", b"# only a comment\n", "no numbers"),
    ("nan.npy", "nan", "non-finite"),
    ("nan.txt", b"1\nnan\n3\n", "non-finite"),
    ("garbage.npy", b"\x93NUMPY not really", "cannot read"),
    ("words.csv", b"1\nabc\n", "cannot read"),
    ("spectrum.json", b"[1, 2]", "extension"),
])
def test_bad_files_one_line_exit_2(capsys, spectrum, name, content, words):
    if content == "nan":
        np.save(spectrum / name, np.array([1.0, np.nan]))
    elif content is not None:
        (spectrum / name).write_bytes(content)
    err = bad(capsys, "law", "--expr", f"mp(1/2) * empirical(@{name})")
    assert name in err and words in err, err


def test_bad_data_expressions_one_line_exit_2(capsys, spectrum):
    err = bad(capsys, "law", "--expr", "mp(1/2) * empirical([1, 2])")
    assert "empirical(@FILE)" in err
    err = bad(capsys, "law", "--expr", TEXT, "--certify")
    assert "--certify" in err
    np.save(spectrum / "negative.npy", np.array([-1.0, 2.0]))
    err = bad(capsys, "law", "--expr", "mp(1/2) * empirical(@negative.npy)")
    assert "[0, inf)" in err
    err = bad(capsys, "law", "--expr", TEXT, "--case", "value")
    assert "mutually exclusive" in err
