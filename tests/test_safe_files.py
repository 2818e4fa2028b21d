"""The one writer of freege's output files (issue 40, :mod:`freege.safe_files`): a random
temporary name created ``O_EXCL | O_NOFOLLOW`` beside the target, renamed into place, mode
from the umask; a link planted at the target's name is replaced, never followed; a folder
owned by another user, or writable by others and not sticky, is refused in one line; a
store owned by another user is never appended to.

Planting "as another user" gives files and folders to uid 65534 (nobody) with ``chown``,
which needs root: those tests are skipped otherwise."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from freege import safe_files

OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="giving a file to another user (uid 65534) needs root")


def plant_link(link: Path, target: Path) -> None:
    """A symbolic link at ``link`` to ``target``, owned by uid 65534."""
    os.symlink(target, link)
    if os.geteuid() == 0:
        os.lchown(link, OTHER, OTHER)


def victim(tmp_path: Path, text: str = "precious\n") -> Path:
    """A file outside the output folder that a planted link points to."""
    path = tmp_path / "victim.txt"
    path.write_text(text)
    return path


@pytest.fixture
def out(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    return folder


def test_write_text_replaces_atomically_with_the_umask_mode(out):
    target = out / "report.md"
    old = os.umask(0o027)
    try:
        safe_files.write_text(target, "one\n")
    finally:
        os.umask(old)
    assert target.read_text() == "one\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    safe_files.write_bytes(target, b"two\n")
    assert target.read_bytes() == b"two\n"
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]  # no temporary left


def test_a_failed_write_leaves_the_target_and_no_temporary(out):
    target = out / "fig.png"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), safe_files.atomic(target) as handle:
        handle.write(b"half")
        raise RuntimeError("savefig failed")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in out.iterdir()) == ["fig.png"]


@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_planted_at_the_target_name_is_replaced_not_followed(tmp_path, out, dangling):
    outside = tmp_path / "new-file.txt" if dangling else victim(tmp_path)
    plant_link(out / "report.json", outside)
    safe_files.write_text(out / "report.json", "report\n")
    assert not (out / "report.json").is_symlink()
    assert (out / "report.json").read_text() == "report\n"
    if dangling:
        assert not outside.exists()  # no file created at the chosen path
    else:
        assert outside.read_text() == "precious\n"


def test_links_at_the_old_fixed_temporary_names_are_ignored(tmp_path, out):
    target = victim(tmp_path)
    for name in ("report.json.tmp", "report.md.tmp", "store.jsonl.tmp"):
        plant_link(out / name, target)
    safe_files.write_text(out / "report.json", "{}\n")
    safe_files.write_text(out / "report.md", "# r\n")
    assert target.read_text() == "precious\n"
    assert (out / "report.json").read_text() == "{}\n"


def test_probe_never_opens_the_target(tmp_path, out):
    outside = tmp_path / "created.png"
    plant_link(out / "x.png", outside)
    assert safe_files.probe(out / "x.png", "--plot") == out / "x.png"
    assert not outside.exists()
    assert sorted(p.name for p in out.iterdir()) == ["x.png"]


def test_probe_of_an_unwritable_folder_is_one_line():
    with pytest.raises(ValueError, match=r"^--plot '/proc/x.png' cannot be written \(") as err:
        safe_files.probe("/proc/x.png", "--plot")
    assert "\n" not in str(err.value)


@needs_root
def test_a_folder_owned_by_another_user_is_refused(out):
    os.chown(out, OTHER, OTHER)
    with pytest.raises(ValueError) as err:
        safe_files.write_text(out / "report.md", "x")
    assert str(err.value) == (f"output folder {out} is owned by uid {OTHER}, not by you "
                              f"(uid {os.getuid()}): refused")
    assert not (out / "report.md").exists()
    with pytest.raises(ValueError, match="owned by uid 65534"):
        safe_files.open_append(out / "s.jsonl")
    with pytest.raises(ValueError, match="owned by uid 65534"):
        safe_files.probe(out / "x.png")


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_folder_writable_by_others_and_not_sticky_is_refused(out, mode):
    out.chmod(mode)
    with pytest.raises(ValueError) as err:
        safe_files.write_text(out / "report.md", "x", "--out")
    assert str(err.value) == (f"--out folder {out} is writable by group or others "
                              f"(mode {mode:o} and not sticky): refused")
    assert list(out.iterdir()) == []


def test_a_sticky_shared_folder_of_yours_is_accepted(tmp_path, out):
    out.chmod(0o1777)
    safe_files.write_text(out / "report.md", "ok\n")
    assert (out / "report.md").read_text() == "ok\n"
    fd = safe_files.open_append(out / "s.jsonl")
    os.close(fd)
    target = victim(tmp_path)
    plant_link(out / "report.json", target)
    safe_files.write_text(out / "report.json", "{}\n")
    assert target.read_text() == "precious\n"


@needs_root
def test_a_sticky_folder_owned_by_another_user_is_refused(out):
    out.chmod(0o1777)
    os.chown(out, OTHER, OTHER)
    with pytest.raises(ValueError, match=f"folder {out} is owned by uid {OTHER}"):
        safe_files.write_text(out / "report.md", "x")


def test_a_store_planted_as_a_link_is_refused_and_the_target_untouched(tmp_path, out):
    target = victim(tmp_path, "")
    plant_link(out / "s.jsonl", target)
    with pytest.raises(ValueError, match=f"^store {out / 's.jsonl'} is a symbolic link: "
                       "refused"):
        safe_files.check_store(out / "s.jsonl")
    with pytest.raises(ValueError, match="is a symbolic link: refused"):
        safe_files.open_append(out / "s.jsonl")
    assert target.read_text() == ""
    dangling = tmp_path / "chosen.jsonl"
    plant_link(out / "t.jsonl", dangling)
    with pytest.raises(ValueError, match="is a symbolic link: refused"):
        safe_files.open_append(out / "t.jsonl")
    assert not dangling.exists()


@needs_root
@pytest.mark.parametrize("content", [b"", b"forged\n"])
def test_a_store_owned_by_another_user_is_refused(out, content):
    store = out / "s.jsonl"
    store.write_bytes(content)
    os.chown(store, OTHER, OTHER)
    with pytest.raises(ValueError) as err:
        safe_files.check_store(store)
    assert str(err.value) == (f"store {store} is owned by uid {OTHER}, not by you "
                              f"(uid {os.getuid()}): refused; a store is resumed only when "
                              "it and its folder are yours alone (give a new path)")
    with pytest.raises(ValueError, match="owned by uid 65534"):
        safe_files.open_append(store)
    assert store.read_bytes() == content  # an empty planted file is not filled


def test_a_store_writable_by_others_is_refused(out):
    store = out / "s.jsonl"
    store.write_bytes(b"")
    store.chmod(0o666)
    with pytest.raises(ValueError, match="writable by group or others"):
        safe_files.check_store(store)
    with pytest.raises(ValueError, match="writable by group or others"):
        safe_files.open_append(store)


def test_your_own_store_is_created_and_appended(out):
    store = out / "s.jsonl"
    safe_files.check_store(store)  # missing: nothing to refuse
    old = os.umask(0o022)
    try:
        fd = safe_files.open_append(store)
    finally:
        os.umask(old)
    os.write(fd, b"a\n")
    os.close(fd)
    assert stat.S_IMODE(store.stat().st_mode) == 0o644
    safe_files.check_store(store)
    fd = safe_files.open_append(store)
    os.write(fd, b"b\n")
    os.close(fd)
    assert store.read_bytes() == b"a\nb\n"


def test_make_folder_creates_a_folder_of_yours_alone(tmp_path):
    old = os.umask(0o002)
    try:
        made = safe_files.make_folder(tmp_path / "new", "--out")
    finally:
        os.umask(old)
    assert made.is_dir() and stat.S_IMODE(made.stat().st_mode) == 0o755
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(ValueError, match=r"^--out folder .*shared is writable by group"):
        safe_files.make_folder(shared / "run", "--out")
    assert not (shared / "run").exists()
