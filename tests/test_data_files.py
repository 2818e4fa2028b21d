"""``freege.data_files.load_values``: .npy/.txt/.csv round trips, and every refusal a
one-line ValueError naming the file (never unpickles, never blocks on a FIFO)."""

from __future__ import annotations

import os
import pickle
import socket
import sys

import numpy as np
import pytest

from freege import data_files
from freege.data_files import load_values

VALUES = np.array([0.25, 1.0, 3.5, 3.5, 7.125, -2.0])
TEXT_VALUES = [0.25, 1.0, 3.5, 3.5, 7.125, -2.0]
TEXT_WEIGHTS = [1.0, 2.0, 0.5, 0.5, 3.0, 1.0]
PAIRS = list(zip(TEXT_VALUES, TEXT_WEIGHTS, strict=True))
WEIGHTS = np.array([1.0, 2.0, 0.5, 0.5, 3.0, 1.0])


def refused(path, *words: str) -> str:
    with pytest.raises(ValueError) as info:
        load_values(path)
    message = str(info.value)
    assert "\n" not in message
    assert os.path.basename(str(path)) in message, message
    for word in words:
        assert word in message, message
    return message


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize("shape", ["1d", "column"])
def test_npy_values(tmp_path, shape):
    path = tmp_path / "spectrum.npy"
    np.save(path, VALUES if shape == "1d" else VALUES[:, None])
    values, weights = load_values(path)
    assert values.dtype == np.float64 and values.ndim == 1
    assert np.array_equal(values, VALUES) and weights is None


def test_npy_values_and_weights_and_integers(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.column_stack([VALUES, WEIGHTS]))
    values, weights = load_values(str(path))
    assert np.array_equal(values, VALUES) and np.array_equal(weights, WEIGHTS)
    np.save(path, np.array([1, 2, 3], dtype=np.int32))
    values, weights = load_values(path)
    assert values.dtype == np.float64 and list(values) == [1.0, 2.0, 3.0]


def test_txt_and_csv(tmp_path):
    txt = tmp_path / "s.txt"
    txt.write_text("# eigenvalues\n" + "\n".join(repr(v) for v in TEXT_VALUES) + "\n")
    values, weights = load_values(txt)
    assert np.array_equal(values, VALUES) and weights is None
    txt.write_text("\n".join(f"{v!r}  {w!r}" for v, w in PAIRS))
    values, weights = load_values(txt)
    assert np.array_equal(values, VALUES) and np.array_equal(weights, WEIGHTS)
    csv = tmp_path / "s.CSV"
    csv.write_text("# value, weight\n" + "\n".join(
        f"{v!r},{w!r}" for v, w in PAIRS) + "\n")
    values, weights = load_values(csv)
    assert np.array_equal(values, VALUES) and np.array_equal(weights, WEIGHTS)
    one = tmp_path / "one.csv"
    one.write_text("2.5\n")
    assert list(load_values(one)[0]) == [2.5]


# ---------------------------------------------------------------------- refusals
def test_missing_directory_and_extension(tmp_path):
    refused(tmp_path / "nope.npy", "no such file")
    folder = tmp_path / "folder.npy"
    folder.mkdir()
    refused(folder, "directory")
    other = tmp_path / "spectrum.json"
    other.write_text("[1, 2]")
    refused(other, "extension", ".json")
    bare = tmp_path / "spectrum"
    bare.write_text("1\n")
    refused(bare, "extension")


def test_fifo_is_refused_without_blocking(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    refused(fifo, "FIFO")  # no writer: a blocking open would hang the test


def test_device_and_socket_are_refused(tmp_path):
    if os.path.exists("/dev/null"):
        link = tmp_path / "null.txt"
        link.symlink_to("/dev/null")
        refused(link, "device")
    if sys.platform.startswith("linux"):
        path = tmp_path / "s.csv"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
            with pytest.raises(ValueError, match="s.csv"):
                load_values(path)


def test_empty_files(tmp_path):
    for name in ("e.npy", "e.txt", "e.csv"):
        path = tmp_path / name
        path.write_bytes(b"")
        refused(path, "empty")
    comments = tmp_path / "c.txt"
    comments.write_text("# nothing here\n\n")
    refused(comments, "no numbers")
    empty_array = tmp_path / "z.npy"
    np.save(empty_array, np.array([]))
    refused(empty_array, "no numbers")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values(tmp_path, bad):
    npy = tmp_path / "bad.npy"
    np.save(npy, np.array([1.0, bad, 2.0]))
    refused(npy, "non-finite")
    txt = tmp_path / "bad.txt"
    txt.write_text(f"1\n{bad}\n2\n")
    refused(txt, "non-finite")


def test_bad_weights(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("1,1\n2,nan\n")
    refused(path, "weight")
    path.write_text("1,1\n2,0\n")
    refused(path, "weight", "> 0")
    path.write_text("1,1\n2,-1\n")
    refused(path, "weight")


def test_too_many_values_and_too_large(tmp_path, monkeypatch):
    path = tmp_path / "many.npy"
    np.save(path, np.arange(data_files.MAX_VALUES + 1, dtype=float))
    refused(path, "limit", str(data_files.MAX_VALUES))
    np.save(path, np.arange(data_files.MAX_VALUES, dtype=float))
    assert load_values(path)[0].size == data_files.MAX_VALUES
    monkeypatch.setattr(data_files, "MAX_BYTES", 100)
    refused(path, "bytes", "limit")


def test_bad_shapes_and_types(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.ones((4, 3)))
    refused(path, "shape")
    np.save(path, np.ones((2, 2, 2)))
    refused(path, "shape")
    np.save(path, np.array([1 + 2j, 3]))
    refused(path, "complex")
    np.save(path, np.array(["a", "b"]))
    refused(path, "real numbers")
    txt = tmp_path / "ragged.txt"
    txt.write_text("1 2 3\n4 5 6\n")
    refused(txt, "shape")


def test_never_unpickles(tmp_path):
    marker = tmp_path / "ran"

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.npy"
    path.write_bytes(pickle.dumps(Boom()))
    refused(path, ".npy")
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([Boom(), 1], dtype=object), allow_pickle=True)
    refused(obj, "obj.npy")
    assert not marker.exists()


def test_unparsable_text_and_binary(tmp_path):
    txt = tmp_path / "words.txt"
    txt.write_text("1.0\nhello\n")
    refused(txt, "cannot read")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage")
    refused(binary, "UTF-8")
    truncated = tmp_path / "cut.npy"
    np.save(truncated, np.arange(100.0))
    truncated.write_bytes(truncated.read_bytes()[:150])
    refused(truncated, "cannot read")


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "locked.npy"
    np.save(path, VALUES)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as patch:  # as root, chmod 0 does not lock a file
        patch.setattr(data_files.os, "open", denied)
        refused(path, "permission")
    if os.geteuid() == 0:
        return
    path.chmod(0)
    try:
        refused(path, "permission")
    finally:
        path.chmod(0o600)


def test_not_a_path():
    with pytest.raises(ValueError, match="must be a path"):
        load_values(3)
