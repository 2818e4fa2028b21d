"""Every cache entry is checked before use (issue 27): a damaged entry (an edit under the
old checksum, a truncation, a bit flip), a malformed one under a valid checksum, a huge
power, a FIFO, a shared cache folder or a full disk gives at most one warning line, the
right result, and a replaced entry -- never a wrong result, a traceback or a hang."""

from __future__ import annotations

import argparse
import errno
import os
import stat

import pytest
import sympy as sp

from freege import cache_files
from freege.cli import derive
from freege.numeric import compiled
from freege.symbolic.cache import cached, disk_entry
from tests.cache_helpers import content, plant, warnings
from tests.cli.helpers import run_cli

ARGV = ("derive", "moments", "--case", "attention", "--order", "2")
theta1, gO = sp.symbols("theta1 gO")


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache folder holding the derive entry of ``ARGV`` (derived once per module)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def cache(warm, monkeypatch):
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(warm))
    cache_files._WARNED.clear()
    return warm


def _derive_entry(capsys):
    """The expected output of ``ARGV`` and its derive entry's path."""
    code, out, _ = run_cli(capsys, *ARGV)
    assert code == 0
    args = argparse.Namespace(quantity="moments", case="attention", order=2,
                              normalized=False, format="text", form="collected")
    return out, derive._cache_entry(args)[0]


def _check_recovered(capsys, expected: str, path, count: int = 1) -> None:
    code, out, err = run_cli(capsys, *ARGV)
    assert (code, out) == (0, expected)
    assert len(warnings(err)) == count, err
    assert path.is_file() and content(path)  # replaced by a valid entry
    assert run_cli(capsys, *ARGV) == (0, expected, "")  # and read back silently


def _flip_bit(path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x04
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["truncate", "bit flip in the content",
                                    "bit flip in the checksum", "edit", "other key"])
def test_a_damaged_derive_entry_is_recomputed(cache, capsys, damage):
    expected, path = _derive_entry(capsys)
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[:len(text) // 2])
    elif damage.startswith("bit flip"):
        _flip_bit(path, len(text) - 10 if "content" in damage else len(cache_files.TAG) + 3)
    elif damage == "edit":  # the text changed under the old checksum
        path.write_text(text.replace("m_2 = ", "m_2 = 2*"))
    else:  # a valid entry of another command
        plant(path, "another key", content(path).replace("m_2 = ", "m_2 = 2*"))
    assert path.read_text() != text
    _check_recovered(capsys, expected, path)


def test_a_fifo_in_place_of_a_derive_entry_neither_blocks_nor_is_read(cache, capsys):
    expected, path = _derive_entry(capsys)
    path.unlink()
    os.mkfifo(path)
    _check_recovered(capsys, expected, path)
    assert stat.S_ISREG(path.stat().st_mode)


def test_a_full_disk_leaves_no_temporary_file(cache, capsys, monkeypatch):
    expected, path = _derive_entry(capsys)
    path.unlink()

    def full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_files.os, "replace", full)
    assert run_cli(capsys, *ARGV) == (0, expected, "")
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(
        p.name for p in path.parent.glob("*.json"))  # no temporary left behind
    assert not path.exists()


def test_a_tampered_generated_function_under_the_old_checksum_is_rebuilt(cache, capsys):
    name = "test-integrity-tampered"
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])
    path, _ = compiled.disk_entry(name)
    good = path.read_text()
    tampered = good.replace("return [(gO*theta1", "return [(gO*(2*theta1)")
    assert tampered != good
    path.write_text(tampered)  # the checksum line is kept
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    f = compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert len(warnings(capsys.readouterr().err)) == 1
    assert path.read_text() == good
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)


@pytest.mark.parametrize("srepr", [
    "Pow(Integer(10), Integer(10000000000))",
    "Pow(Pow(Integer(10), Integer(10000)), Integer(10000))",
    "Pow(Symbol('theta1'), Integer(100000))",
    "Mul(Integer(6), Float('1e99999999', precision=53))",
    "Mul(" * 300 + "Integer(1)" + ")" * 300,
])
def test_a_huge_expression_under_a_valid_checksum_is_refused_at_once(cache, capsys, srepr):
    calls = []

    @cached
    def six(x: int) -> sp.Expr:
        calls.append(x)
        return 6 * sp.Symbol("theta1", positive=True) * x

    path, key = disk_entry(six.__wrapped__, (1,), {})
    plant(path, key, f'{{"srepr": "{srepr}"}}')
    assert six(1) == 6 * sp.Symbol("theta1", positive=True) and calls == [1]
    assert len(warnings(capsys.readouterr().err)) == 1
    assert content(path).startswith('{"srepr": "Mul(Integer(6)')  # replaced


def test_a_shared_cache_folder_is_neither_used_nor_written(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(shared))
    cache_files._WARNED.clear()
    name = "test-integrity-shared"
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    f = compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert len(warnings(capsys.readouterr().err)) == 1
    assert list(shared.iterdir()) == []  # no numeric/ (nor anything else) created
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
