"""The disk caches run no planted code (issue 17): a planted or foreign-owned entry is never
executed or evaluated (a payload that would write a file does not) and is recomputed with
one warning line; temporary names are not followed through symbolic links; folders are
created 0700; an empty ``FREEGE_CACHE_DIR`` never means the current folder and
``XDG_CACHE_HOME`` is honoured."""

import json
import os
import stat
from pathlib import Path

import pytest
import sympy as sp

from freege import cache_files
from freege.cache_key import cache_dir
from freege.numeric import compiled, exact_results
from freege.symbolic.cache import cached, disk_entry
from tests.cache_helpers import content, plant

ARGS = ", ".join(compiled.ARGUMENTS)
theta1, gO = sp.symbols("theta1 gO")
FOREIGN_UID = 54321


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FREEGE_CACHE_DIR", str(folder))
    cache_files._WARNED.clear()
    return folder


def _foreign(path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(path, FOREIGN_UID, -1)


def _compiled(name: str):
    compiled._LOADED.pop((name, compiled.ARGUMENTS), None)
    return compiled.function(name, lambda: [theta1 * gO + sp.Rational(1, 3)])


def _payload(marker: Path) -> list[str]:
    write = f"open({str(marker)!r}, 'w').write('ran')"
    return [
        f"{write}\ndef f({ARGS}, _q):\n    return [(theta1*gO + _q(1, 3))]\n",
        f"def f({ARGS}, _q):\n    return [({write})]\n",
        f"def f({ARGS}, _q):\n    return [(theta1*gO + _q(1, 3)), __import__('os')]\n",
        f"def f({ARGS}, _q=print):\n    return [(theta1*gO + _q(1, 3))]\n",
        f"@print\ndef f({ARGS}, _q):\n    return [(theta1*gO + _q(1, 3))]\n",
    ]


@pytest.mark.parametrize("which", range(5))
def test_planted_generated_source_is_never_run(cache, tmp_path, capsys, which):
    marker = tmp_path / "ran.txt"
    name = f"test-planted-{which}"
    path, key = compiled.disk_entry(name)
    plant(path, key, _payload(marker)[which])  # a valid checksum: the parser must refuse it
    f = _compiled(name)
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert not marker.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("freege: warning: ignoring cache file")
    assert "_q(1, 3)" in path.read_text() and "open(" not in path.read_text()


def test_foreign_owned_or_shared_entries_are_not_used(cache, capsys):
    name = "test-foreign"
    _compiled(name)
    path, key = compiled.disk_entry(name)
    good = path.read_text()
    plant(path, key, content(path).replace("_q(1, 3)", "_q(1, 7)"))  # well-formed, wrong
    _foreign(path)
    f = _compiled(name)
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    assert "owned by uid 54321" in capsys.readouterr().err
    assert path.read_text() == good and path.stat().st_uid == os.getuid()  # rebuilt
    # a folder others may write: neither read nor written
    plant(path, key, content(path).replace("_q(1, 3)", "_q(1, 7)"))
    os.chmod(path.parent, 0o777)
    f = _compiled(name)
    assert f(2, 0, 0, 0, 0, 5, compiled.exact_rational) == [compiled.exact_rational(31, 3)]
    err = capsys.readouterr().err
    assert "writable by group or others (mode 777)" in err
    assert "_q(1, 7)" in path.read_text()  # not written either


def _counting():
    calls = []

    @cached
    def twice(x: int) -> sp.Expr:
        calls.append(x)
        return 2 * sp.Symbol("theta1", positive=True) * x

    return twice, calls


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def test_symbolic_entries_are_parsed_never_evaluated(cache, tmp_path, capsys):
    twice, calls = _counting()
    expected = twice(3)
    (path,) = _entries(cache)
    assert json.loads(content(path))["srepr"].startswith("Mul(")
    assert disk_entry(twice.__wrapped__, (3,), {})[0] == path
    twice.cache_clear()
    assert twice(3) == expected and calls == [3]  # read back, not recomputed
    marker = tmp_path / "ran.txt"
    for payload in (f"__import__('os').system('touch {marker}')",
                    f"Mul(Integer(6), Symbol('theta1', positive=True), "
                    f"Symbol(__import__('os').system('touch {marker}')))",
                    "Symbol('x').__class__.__base__"):
        plant(path, disk_entry(twice.__wrapped__, (3,), {})[1], json.dumps({"srepr": payload}))
        twice.cache_clear()
        assert twice(3) == expected
        assert not marker.exists()
    assert calls == [3, 3, 3, 3]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(e.startswith("freege: warning: ignoring") for e in err)
    # a correct entry owned by someone else is not read either
    _foreign(path)
    twice.cache_clear()
    assert twice(3) == expected and calls == [3, 3, 3, 3, 3]


def test_exact_results_of_another_user_are_recomputed(cache, capsys):
    exact_results.remember(("foreign",), lambda: [1.5])
    path, key = exact_results.disk_entry(("foreign",))
    plant(path, key, json.dumps(["list", [["float", (2.5).hex()]]]))
    _foreign(path)
    assert exact_results.remember(("foreign",), lambda: [1.5]) == [1.5]
    assert "owned by uid 54321" in capsys.readouterr().err


def test_temporary_and_final_names_are_not_followed(cache, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    twice, _ = _counting()
    twice(1)
    (path,) = _entries(cache)
    path.unlink()
    for i in range(4):  # the old predictable names, and the entry's own name
        os.symlink(victim, path.with_suffix(f".{os.getpid() + i}.tmp"))
    os.symlink(victim, path)
    twice.cache_clear()
    twice(1)
    assert victim.read_text() == "precious"
    assert path.is_file() and not path.is_symlink()


def test_folders_are_created_private(cache):
    exact_results.remember(("mode",), lambda: [0.5])
    for folder in (cache, cache / "numeric", cache / "numeric" / "exact"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    (path,) = (cache / "numeric" / "exact").glob("*.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_cache_folder_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FREEGE_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "freege"
    twice, _ = _counting()
    twice(5)
    assert _entries(tmp_path / "xdg" / "freege") and not _entries(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored
    assert cache_dir() == Path.home() / ".cache" / "freege"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "freege"
    monkeypatch.setenv("FREEGE_CACHE_DIR", "here")
    assert cache_dir() == tmp_path / "here"


def test_parser_rebuilds_derivations_exactly():
    """What the cache stores for real derivations (moments, S-relation, S-transform, with
    symbol assumptions) is rebuilt identical by the parser."""
    from freege.symbolic import closed_forms
    from freege.symbolic.cache import from_srepr

    exprs = [sp.Float("0.1", 30) * sp.pi + sp.exp(sp.Symbol("x")) - sp.Rational(-7, 5),
             *closed_forms.moments("mha", 3), closed_forms.s_relation("mha"),
             closed_forms.s_transform("mha")]
    for expr in exprs:
        text = sp.srepr(expr)
        again = from_srepr(text)
        assert again == expr and sp.srepr(again) == text


def test_a_planted_fifo_neither_blocks_nor_is_read(cache, capsys):
    exact_results.remember(("fifo",), lambda: [0.25])
    (path,) = (cache / "numeric" / "exact").glob("*.json")
    path.unlink()
    os.mkfifo(path)
    assert exact_results.remember(("fifo",), lambda: [0.25]) == [0.25]
    assert "not a regular file" in capsys.readouterr().err
    assert path.is_file()  # replaced by the recomputed entry
