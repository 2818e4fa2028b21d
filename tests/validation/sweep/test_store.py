"""The sweep store (:mod:`freege.validation.sweep.store`) without a cluster: round trip
and checksums, a truncated tail cut before appending, foreign files refused."""

import os

import pytest

from freege.validation.sweep import store as sweep_store
from freege.validation.sweep.grid import expand

STORE_POINT = expand({"n": 8, "h": 1, "dk": 2, "do": 4})[0]


def _theory():
    """The theory §4 limits ``[m1, m2]`` of :data:`STORE_POINT`, as a header holds them."""
    from freege.validation.sampling.limits import limiting_moments

    return limiting_moments(STORE_POINT.case, STORE_POINT.dims, 2)


def _record(i):
    """A well-formed, plausible draw record of :data:`STORE_POINT` (schema of
    ``sweep_schema``); ``x`` is an extra key, ignored on reading."""
    return {"type": "draw", "point": STORE_POINT.key, "draw": i, "status": "ok", "w1": 0.1,
            "rel_w1": 0.1 / _theory()[0], "ks": 0.3,
            "moments": {"softmax": [1.0, 2.0], "ge": [1.0, 2.0]},
            "seconds": 0.01, "peak_bytes": None, "x": 0.1 * i}


def _store(path, n_records=3):
    head = {"type": "header", "format": sweep_store.FORMAT,
            "identity": {"points": [STORE_POINT.as_dict()], "draws": n_records, "seed": 0,
                         "backend": "numpy"},
            "theory": {STORE_POINT.key: _theory()}}
    lines = [sweep_store.encode(head)]
    lines += [sweep_store.encode(_record(i)) for i in range(n_records)]
    path.write_bytes(b"".join(lines))
    return lines


def test_store_round_trip_and_checksum(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _store(path)
    contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 1, 2] and contents.dropped == 0
    key = STORE_POINT.key
    assert sweep_store.finished(contents) == {(key, 0), (key, 1), (key, 2)}
    # a flipped digit in the middle is caught by its checksum and skipped, not truncated
    tampered = lines[2].replace(b'"x":0.1', b'"x":0.7')
    assert tampered != lines[2]
    path.write_bytes(lines[0] + lines[1] + tampered + lines[3])
    with pytest.warns(UserWarning, match="in its middle"):
        contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 2]
    assert contents.valid_end == contents.size


def test_store_truncated_tail_is_cut_before_appending(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _store(path)
    whole = b"".join(lines)
    path.write_bytes(whole[:-25])  # the last record cut mid-line (a kill -9 mid-write)
    with pytest.warns(UserWarning, match="at its end"):
        contents = sweep_store.read(path)
    assert [r["draw"] for r in contents.records] == [0, 1]
    with sweep_store.open_for_append(path, contents, None) as writer:
        writer.append(_record(2))
    assert path.read_bytes() == whole


def test_store_refuses_foreign_files(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\nmore notes\n")
    with pytest.raises(ValueError, match="no valid sweep header"):
        sweep_store.read(path)
    assert path.read_text() == "my notes\nmore notes\n"


# issue 40: a store is written only where no one else can, and never through a link
OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="giving a file to another user (uid 65534) needs root")


def _link(link, target):
    """A symbolic link ``link -> target`` planted by uid 65534 (when root)."""
    os.symlink(target, link)
    if os.geteuid() == 0:
        os.lchown(link, OTHER, OTHER)


@pytest.mark.parametrize("planted", ["empty file", "chosen path"])
def test_store_planted_as_a_link_is_refused(tmp_path, planted):
    folder = tmp_path / "runs"
    folder.mkdir()
    target = tmp_path / ("victim.jsonl" if planted == "empty file" else "chosen.jsonl")
    if planted == "empty file":
        target.write_bytes(b"")
    path = folder / "s.jsonl"
    _link(path, target)
    with pytest.raises(ValueError, match=f"^store {path} is a symbolic link: refused"):
        sweep_store.read(path, resume=True)
    with pytest.raises(ValueError, match="is a symbolic link: refused"), \
            sweep_store.open_for_append(path, sweep_store.Contents(), {"type": "header"}):
        pass
    assert (target.read_bytes() == b"") if planted == "empty file" else not target.exists()


@needs_root
def test_store_owned_by_another_user_is_never_resumed(tmp_path):
    """Forged but self-consistent records (valid checksums and schema) in a store given to
    uid 65534: refused in one line before anything is read, and by the sweep engine."""
    from freege.progress import QUIET
    from freege.validation.sweep import engine as sweep

    path = tmp_path / "s.jsonl"
    _store(path)
    os.chown(path, OTHER, OTHER)
    forged = path.read_bytes()
    with pytest.raises(ValueError) as err:
        sweep_store.read(path, resume=True)
    assert str(err.value) == (f"store {path} is owned by uid {OTHER}, not by you (uid "
                              f"{os.getuid()}): refused; a store is resumed only when it "
                              "and its folder are yours alone (give a new path)")
    with pytest.raises(ValueError, match="owned by uid 65534"):
        sweep.run([STORE_POINT], draws=3, store=path, workers=1, verbosity=QUIET)
    assert path.read_bytes() == forged
    assert len(sweep_store.read(path).records) == 3  # reading it (a report) is still allowed


@needs_root
def test_store_in_a_folder_owned_by_another_user_is_refused(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir()
    path = folder / "s.jsonl"
    _store(path)
    os.chown(folder, OTHER, OTHER)
    with pytest.raises(ValueError, match=f"^store folder {folder} is owned by uid {OTHER}"):
        sweep_store.read(path, resume=True)
    with pytest.raises(ValueError, match="owned by uid 65534"), \
            sweep_store.open_for_append(folder / "new.jsonl", sweep_store.Contents(), {}):
        pass
    assert not (folder / "new.jsonl").exists()


def test_store_in_a_folder_writable_by_others_is_refused(tmp_path, capsys):
    from tests.cli.helpers import bad

    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    path = folder / "s.jsonl"
    err = bad(capsys, "sweep", "--n", "8", "--h", "1", "--dk", "2", "--do", "4",
              "--draws", "2", "--workers", "1", "--store", str(path))
    assert err == (f"freege: error: store folder {folder} is writable by group or others "
                   "(mode 777 and not sticky): refused\n")
    assert not path.exists()


def test_store_in_a_sticky_folder_of_yours_is_resumed(tmp_path):
    folder = tmp_path / "sticky"
    folder.mkdir()
    folder.chmod(0o1777)
    path = folder / "s.jsonl"
    lines = _store(path, 2)
    contents = sweep_store.read(path, resume=True)
    with sweep_store.open_for_append(path, contents, None) as writer:
        writer.append(_record(2))
    assert path.read_bytes() == b"".join(lines) + sweep_store.encode(_record(2))
