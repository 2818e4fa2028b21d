"""A model's own value and output weights: the weights file, and the matrix ``Omega``
whose spectrum is the jump law of the predicted MHA output law (docs/weights.md,
theory §1, §2).

**The weights file** (``.npz`` or ``.safetensors``) holds exactly two arrays:

* ``V`` -- shape ``(h, n, dV)``: the value matrix ``V_r`` (n tokens x dV) of every head
  ``r``, in theory §1's normalisation (``V_r = X W^V_r`` with entries of order 1: i.i.d.
  N(0, 1) for random weights);
* ``WO`` -- shape ``(h * dV, dO)``: the output projection ``W^O``; rows
  ``r dV .. (r + 1) dV - 1`` are head ``r``'s block ``W^O_r`` (random weights:
  i.i.d. N(0, 1/(h dV))).

Both real floating arrays (``.npz``: any float dtype, read with ``allow_pickle=False``;
``.safetensors``: ``F64``, ``F32``, ``F16`` or ``BF16``), finite, converted to float64.
Nothing else may be in the file (a ``.safetensors`` ``__metadata__`` entry excepted).
Files larger than :data:`MAX_BYTES`, and anything that is not a regular file, are
refused. Every refusal is a one-line ``ValueError`` naming the file and the problem.

**Omega** (docs/weights.md): with ``T_r = V_r^c W^O_r / sqrt(n)`` (``V_r^c`` the values
with their column means removed: ``A_r^perp V_r = A_r^perp V_r^c`` exactly) and keys
``K_r`` (n x dK, i.i.d. N(0, 1)),

    Omega = theta2 sum_r T_r^T K_r K_r^T T_r / dK + (theta1 - theta2) sum_r T_r^T T_r,

a dO x dO matrix; given the keys the rows of the Gaussian equivalent of
``MHA^perp`` are independent N(0, Omega / n). The predicted law
(:func:`freege.numeric.weights_law.weights_law`) is the compound free Poisson law of rate
``dO / n`` whose jump law is Omega's spectrum pooled over a few key draws
(:func:`weights_spec`).

This module is numpy-only (layer 1 of ARCHITECTURE.md); the law object is built in
:mod:`freege.numeric.weights_law`.
"""

from __future__ import annotations

import json
import math
import os
import stat
import struct
import zipfile
from fractions import Fraction
from typing import Any

import numpy as np

#: the largest weights file read (bytes); an .npz's members count uncompressed
MAX_BYTES = 2 * 10**9
#: the arrays a weights file holds
KEYS: tuple[str, ...] = ("V", "WO")
#: safetensors dtypes read, with their little-endian NumPy dtype (BF16: see _bf16)
SAFETENSORS_DTYPES: dict[str, str] = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2"}
#: eigenvalues of Omega at most this fraction of the largest are exact zeros (rank-deficient
#: Omega: h dV < dO, or low-rank W^O), merged into one atom of the jump law
ZERO_FRACTION = 1e-12
#: key draws pooled by default into the jump law
KEY_DRAWS = 4


def _fail(path: Any, problem: str) -> ValueError:
    return ValueError(f"weights file {os.fspath(path)}: {problem}")


def _regular_size(path: Any) -> int:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _fail(path, "is not a regular file")
    if info.st_size > MAX_BYTES:
        raise _fail(path, f"is {info.st_size} bytes; the limit is {MAX_BYTES}")
    return info.st_size


def _bf16(raw: np.ndarray) -> np.ndarray:
    """bfloat16 bits (uint16) as float32: the upper half of a float32."""
    return (raw.astype("<u4") << 16).view("<f4")


def _read_safetensors(path: Any, size: int) -> dict[str, np.ndarray]:
    with open(path, "rb") as fh:
        data = fh.read(size + 1)
    if len(data) < 8:
        raise _fail(path, "is too short for a safetensors header")
    (hlen,) = struct.unpack("<Q", data[:8])
    if hlen > len(data) - 8:
        raise _fail(path, f"safetensors header length {hlen} runs past the end of the file")
    try:
        header = json.loads(data[8:8 + hlen].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"safetensors header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise _fail(path, "safetensors header is not a JSON object")
    body = memoryview(data)[8 + hlen:]
    out: dict[str, np.ndarray] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict) or not {"dtype", "shape", "data_offsets"} <= set(entry):
            raise _fail(path, f"safetensors entry {name!r} lacks dtype, shape or data_offsets")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in SAFETENSORS_DTYPES:
            raise _fail(path, f"array {name!r} has dtype {dtype!r}; supported: "
                        f"{', '.join(SAFETENSORS_DTYPES)}")
        if (not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape)
                or not isinstance(offsets, list) or len(offsets) != 2
                or not all(type(o) is int for o in offsets)):
            raise _fail(path, f"safetensors entry {name!r} has a malformed shape or offsets")
        begin, end = offsets
        np_dtype = np.dtype(SAFETENSORS_DTYPES[dtype])
        if not 0 <= begin <= end <= len(body) or end - begin != math.prod(shape) * \
                np_dtype.itemsize:
            raise _fail(path, f"array {name!r}: data_offsets {offsets} do not match shape "
                        f"{shape} ({dtype}) within the {len(body)}-byte data section")
        raw = np.frombuffer(body[begin:end], dtype=np_dtype).reshape(shape)
        out[name] = (_bf16(raw) if dtype == "BF16" else raw).astype(np.float64)
    return out


def _read_npz(path: Any) -> dict[str, np.ndarray]:
    try:
        with zipfile.ZipFile(path) as zf:
            unpacked = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise _fail(path, f"is not a readable .npz ({exc})") from None
    if unpacked > MAX_BYTES:
        raise _fail(path, f"unpacks to {unpacked} bytes; the limit is {MAX_BYTES}")
    out: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as npz:
            for name in npz.files:
                arr = npz[name]
                if arr.dtype.kind != "f":
                    raise _fail(path, f"array {name!r} has dtype {arr.dtype}; a real "
                                "floating dtype is needed")
                out[name] = arr.astype(np.float64)
    except ValueError as exc:
        if str(exc).startswith("weights file"):
            raise
        raise _fail(path, f"is not a readable .npz ({exc})") from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise _fail(path, f"is not a readable .npz ({exc})") from None
    return out


def check_weights(V: Any, WO: Any, where: str = "weights") -> tuple[np.ndarray, np.ndarray]:
    """``(V, WO)`` as float64 arrays after the layout checks of the module docstring
    (``V`` of shape ``(h, n, dV)``, ``WO`` of shape ``(h dV, dO)``, finite, n >= 2);
    a one-line ValueError starting with ``where`` otherwise."""
    v = np.asarray(V, dtype=np.float64)
    wo = np.asarray(WO, dtype=np.float64)
    if v.ndim != 3 or min(v.shape) < 1 or v.shape[1] < 2:
        raise ValueError(f"{where}: V must have shape (h, n, dV) with n >= 2 (got "
                         f"{tuple(v.shape)})")
    h, _, dv = v.shape
    if wo.ndim != 2 or wo.shape[0] != h * dv or wo.shape[1] < 1:
        raise ValueError(f"{where}: WO must have shape (h*dV, dO) = ({h * dv}, dO) for V of "
                         f"shape {tuple(v.shape)} (got {tuple(wo.shape)})")
    for name, arr in (("V", v), ("WO", wo)):
        bad = int((~np.isfinite(arr)).sum())
        if bad:
            raise ValueError(f"{where}: {name} has {bad} non-finite values")
    return v, wo


def load_weights(path: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(V, WO)`` from a weights file (module docstring: ``.npz`` or ``.safetensors``,
    the layout and the refusals)."""
    size = _regular_size(path)
    suffix = os.fspath(path).lower().rpartition(".")[2]
    if suffix == "npz":
        arrays = _read_npz(path)
    elif suffix == "safetensors":
        arrays = _read_safetensors(path, size)
    else:
        raise _fail(path, "must end in .npz or .safetensors")
    missing = [k for k in KEYS if k not in arrays]
    if missing:
        raise _fail(path, f"lacks the array(s) {', '.join(missing)} (layout: V (h, n, dV), "
                    "WO (h*dV, dO))")
    extra = sorted(set(arrays) - set(KEYS))
    if extra:
        raise _fail(path, f"holds arrays other than V and WO: {', '.join(extra)}")
    return check_weights(arrays["V"], arrays["WO"], f"weights file {os.fspath(path)}")


def thetas(beta: float) -> tuple[float, float]:
    """``(theta1, theta2) = (e^{beta^2} - 1, beta^2)`` (theory §2)."""
    b2 = float(beta) ** 2
    return math.expm1(b2), b2


def output_blocks(V: np.ndarray, WO: np.ndarray) -> np.ndarray:
    """``T_r = V_r^c W^O_r / sqrt(n)`` for every head, shape ``(h, n, dO)`` (module
    docstring; ``V_r^c``: column means removed)."""
    h, n, dv = V.shape
    vc = V - V.mean(axis=1, keepdims=True)
    return np.stack([vc[r] @ WO[r * dv:(r + 1) * dv] for r in range(h)]) / math.sqrt(n)


def omega(T: np.ndarray, beta: float, dK: int, keys: np.ndarray) -> np.ndarray:
    """Omega (module docstring) for the blocks ``T`` (:func:`output_blocks`) and keys
    ``keys`` of shape ``(h, n, dK)``."""
    t1, t2 = thetas(beta)
    kt = np.einsum("rnk,rno->rko", keys, T)
    out = t2 / dK * np.einsum("rko,rkp->op", kt, kt)
    out += (t1 - t2) * np.einsum("rno,rnp->op", T, T)
    return (out + out.T) / 2


def omega_spectrum(V: Any, WO: Any, beta: float, dK: int, key_draws: int = KEY_DRAWS,
                   seed: int = 0) -> np.ndarray:
    """Omega's eigenvalues at ``key_draws`` independent draws of Gaussian keys (seeded),
    pooled (ascending; values at most :data:`ZERO_FRACTION` of the largest set to 0)."""
    v, wo = check_weights(V, WO)
    if isinstance(dK, bool) or int(dK) != dK or dK < 1:
        raise ValueError(f"weights: dK must be an integer >= 1 (got {dK!r})")
    if not (math.isfinite(float(beta)) and float(beta) > 0):
        raise ValueError(f"weights: beta must be a finite number > 0 (got {beta!r})")
    if isinstance(key_draws, bool) or int(key_draws) != key_draws or key_draws < 1:
        raise ValueError(f"weights: key_draws must be an integer >= 1 (got {key_draws!r})")
    h, n, _ = v.shape
    T = output_blocks(v, wo)
    rng = np.random.default_rng(seed)
    vals = np.concatenate([np.linalg.eigvalsh(omega(T, beta, int(dK),
                                                    rng.standard_normal((h, n, int(dK)))))
                           for _ in range(int(key_draws))])
    top = float(np.max(np.abs(vals)))
    if not top > 0:
        raise ValueError("weights: Omega is 0 (V W^O vanishes): no law")
    vals[vals <= ZERO_FRACTION * top] = 0.0
    return np.sort(vals)


def weights_spec(V: Any, WO: Any, beta: float, dK: int, key_draws: int = KEY_DRAWS,
                 seed: int = 0) -> tuple[Any, ...]:
    """The :class:`freege.numeric.data_law.DataLaw` spec of the predicted law:
    ``("poisson", Fraction(dO, n), ("empirical", Omega's pooled spectrum, None))``."""
    v, wo = check_weights(V, WO)
    vals = omega_spectrum(v, wo, beta, dK, key_draws, seed)
    rate = Fraction(wo.shape[1], v.shape[1])
    return ("poisson", rate, ("empirical", np.asarray(vals, "<f8").tobytes(), None))


__all__ = ["KEYS", "KEY_DRAWS", "MAX_BYTES", "check_weights", "load_weights", "omega",
           "omega_spectrum", "output_blocks", "thetas", "weights_spec"]
