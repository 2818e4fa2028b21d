"""The sweep store (:mod:`freege.validation.sweep.store`) without a cluster: round trip
and checksums, a truncated tail cut before appending, foreign files refused."""

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
