"""A model's own weights (docs/weights.md): the weights file, the predicted law
``pi(mu_Omega, gamma_O)`` and the sampled softmax with exactly those weights."""

from __future__ import annotations

import json
import math
import os
import struct

import numpy as np
import pytest

from freege.weights import load_weights, omega_spectrum, output_blocks, thetas


def _weights(seed: int = 0, h: int = 2, n: int = 16, dv: int = 3, do: int = 5):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((h, n, dv)),
            rng.standard_normal((h * dv, do)) / math.sqrt(h * dv))


def _safetensors(path, arrays: dict, dtype: str = "F32", header_extra=None) -> None:
    """A .safetensors file written by hand (the format, not the library)."""
    np_dtype = {"F32": "<f4", "F64": "<f8", "F16": "<f2"}.get(dtype, "<f4")
    header, blobs, offset = dict(header_extra or {}), [], 0
    for name, arr in arrays.items():
        if dtype == "BF16":
            raw = (np.asarray(arr, "<f4").view("<u4") >> 16).astype("<u2").tobytes()
        else:
            raw = np.asarray(arr, np_dtype).tobytes()
        header[name] = {"dtype": dtype, "shape": list(np.shape(arr)),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# ---------------------------------------------------------------- the file
def test_npz_round_trip(tmp_path):
    V, WO = _weights()
    np.savez(tmp_path / "w.npz", V=V, WO=WO)
    v, wo = load_weights(tmp_path / "w.npz")
    assert v.dtype == wo.dtype == np.float64
    np.testing.assert_array_equal(v, V)
    np.testing.assert_array_equal(wo, WO)


@pytest.mark.parametrize("dtype,tol", [("F64", 0), ("F32", 1e-7), ("F16", 1e-3),
                                       ("BF16", 1e-2)])
def test_safetensors_round_trip(tmp_path, dtype, tol):
    V, WO = _weights()
    _safetensors(tmp_path / "w.safetensors", {"V": V, "WO": WO}, dtype,
                 {"__metadata__": {"format": "pt"}})
    v, wo = load_weights(tmp_path / "w.safetensors")
    assert v.shape == V.shape and wo.shape == WO.shape
    np.testing.assert_allclose(v, V, rtol=tol, atol=tol)
    np.testing.assert_allclose(wo, WO, rtol=tol, atol=tol)
    if tol:
        assert not np.array_equal(v, V)  # really read in the lower precision


def _refused(path, *words) -> None:
    with pytest.raises(ValueError) as err:
        load_weights(path)
    message = str(err.value)
    assert "\n" not in message and os.fspath(path) in message
    for word in words:
        assert word in message, message


def test_refusals(tmp_path):
    V, WO = _weights()
    np.savez(tmp_path / "missing.npz", V=V)
    _refused(tmp_path / "missing.npz", "WO")
    np.savez(tmp_path / "extra.npz", V=V, WO=WO, bias=WO[0])
    _refused(tmp_path / "extra.npz", "bias")
    np.savez(tmp_path / "shape.npz", V=V, WO=WO[:-1])
    _refused(tmp_path / "shape.npz", "shape")
    np.savez(tmp_path / "flat.npz", V=V[0], WO=WO)
    _refused(tmp_path / "flat.npz", "(h, n, dV)")
    bad = V.copy()
    bad[0, 0, 0] = np.nan
    np.savez(tmp_path / "nan.npz", V=bad, WO=WO)
    _refused(tmp_path / "nan.npz", "non-finite")
    np.savez(tmp_path / "int.npz", V=V.astype(int), WO=WO)
    _refused(tmp_path / "int.npz", "dtype")
    np.savez(tmp_path / "obj.npz", V=np.array([None, 1], dtype=object), WO=WO)
    _refused(tmp_path / "obj.npz")
    _refused(tmp_path, "not a regular file")
    _refused(tmp_path / "absent.npz", "cannot be read")
    (tmp_path / "w.txt").write_text("1 2 3")
    _refused(tmp_path / "w.txt", ".npz or .safetensors")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    _refused(tmp_path / "junk.npz", "not a readable .npz")
    _safetensors(tmp_path / "i32.safetensors", {"V": V, "WO": WO}, "I32")
    _refused(tmp_path / "i32.safetensors", "I32")
    (tmp_path / "short.safetensors").write_bytes(struct.pack("<Q", 10**6) + b"{}")
    _refused(tmp_path / "short.safetensors", "header length")
    _safetensors(tmp_path / "off.safetensors", {"V": V, "WO": WO}, "F32")
    data = bytearray((tmp_path / "off.safetensors").read_bytes())
    (tmp_path / "off.safetensors").write_bytes(bytes(data[:-4]))  # WO's data cut short
    _refused(tmp_path / "off.safetensors", "data_offsets")


def test_size_limit(tmp_path, monkeypatch):
    import freege.weights as weights

    V, WO = _weights()
    np.savez(tmp_path / "w.npz", V=V, WO=WO)
    monkeypatch.setattr(weights, "MAX_BYTES", 100)
    _refused(tmp_path / "w.npz", "limit")


# ---------------------------------------------------------------- the law
def test_law_mean_is_gamma_o_times_mean_of_omega():
    """m1 = gamma_O (1/dO) tr E[Omega], E over the keys: E K K^T = dK I, so
    tr E Omega = theta1 sum_r tr(T_r^T T_r) -- written here from the definitions; the
    pooled key draws fluctuate around it by O(1/sqrt(key_draws dO dK))."""
    from freege.numeric.weights_law import weights_law

    rng = np.random.default_rng(3)
    h, n, dv, do, dk, beta = 2, 64, 8, 12, 16, 0.8
    V = rng.standard_normal((h, n, dv)) * np.linspace(0.2, 2.0, dv) + 0.5  # means removed
    WO = rng.standard_normal((h * dv, do)) / math.sqrt(h * dv)
    theta1 = math.expm1(beta * beta)
    trace = 0.0
    for r in range(h):
        vc = V[r] - V[r].mean(axis=0)
        t = vc @ WO[r * dv:(r + 1) * dv] / math.sqrt(n)
        trace += theta1 * np.sum(t * t)
    expected = do / n * trace / do
    law = weights_law(V, WO, beta, dk, key_draws=64, seed=1)
    assert float(law.moment(1)) == pytest.approx(expected, rel=0.05)
    # and exactly the pooled spectrum's mean times gamma_O
    vals = omega_spectrum(V, WO, beta, dk, key_draws=64, seed=1)
    assert float(law.moment(1)) == pytest.approx(do / n * vals.mean(), rel=1e-12)


def test_law_close_to_mha_law_for_gaussian_weights():
    """Gaussian V and W^O (the sampler's normalisation): Omega -> theta1 times an MP-like
    law and pi(mu_Omega, gamma_O) -> the theory §4 mha law. Tolerance from the size:
    Omega's spectrum fluctuates by O(1/dO) per edge and O(1/sqrt(h dV dO)) in its mean,
    with dO = 64 allowed 4/sqrt(dO) relative on edges and 3 sd on the mean."""
    from fractions import Fraction

    from freege.numeric import law as case_law
    from freege.numeric.weights_law import weights_law
    from freege.params import Dims

    h, n, dv, do, dk, beta = 4, 256, 32, 64, 32, 1.0
    rng = np.random.default_rng(11)
    V = rng.standard_normal((h, n, dv))
    WO = rng.standard_normal((h * dv, do)) / math.sqrt(h * dv)
    ours = weights_law(V, WO, beta, dk, key_draws=4, seed=2)
    ref = case_law("mha", Dims(n=n, h=h, dK=dk, dV=dv, dO=do, beta=Fraction(1)))
    m1 = do / n * math.expm1(beta**2)
    assert float(ref.moment(1)) == pytest.approx(m1, rel=1e-9)
    assert float(ours.moment(1)) == pytest.approx(m1, rel=3 * math.sqrt(2 / (h * dv * do)))
    (lo, hi), (rlo, rhi) = ours.intervals()[-1], ref.intervals()[-1]
    tol = 4 / math.sqrt(do)
    assert hi == pytest.approx(rhi, rel=tol)
    assert lo == pytest.approx(rlo, rel=tol, abs=tol * rhi)
    assert ours.atoms()[0.0] == pytest.approx(1 - do / n, abs=1e-9)
    xs = np.linspace(rlo, rhi, 9)[2:-2]
    np.testing.assert_allclose(ours.pdf(xs), ref.pdf(xs), rtol=tol)


def test_output_blocks_remove_the_value_means():
    V, WO = _weights()
    shifted = V + np.arange(V.shape[2])  # A^perp 1 = 0: the column means do not matter
    np.testing.assert_allclose(output_blocks(shifted, WO), output_blocks(V, WO), atol=1e-12)
    assert thetas(1.0) == (math.e - 1, 1.0)


# ---------------------------------------------------------------- sampled
def test_sampler_matches_the_sampling_core():
    """Same Q, K, V, W^O: this module's MHA^perp equals the sampling core's formula
    ``[A_r^perp V_r] W^O`` written out with an explicit softmax."""
    from freege.validation.weights_check import softmax_output

    rng = np.random.default_rng(5)
    h, n, dv, do, dk, beta = 2, 32, 4, 6, 8, 1.3
    V, WO = _weights(1, h, n, dv, do)
    q, k = rng.standard_normal((h, n, dk)), rng.standard_normal((h, n, dk))
    blocks = []
    for r in range(h):
        s = beta * q[r] @ k[r].T / math.sqrt(dk)
        a = np.exp(s - s.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)
        blocks.append((a - 1 / n) @ V[r])
    np.testing.assert_allclose(softmax_output(V, WO, beta, q, k), np.hstack(blocks) @ WO,
                               atol=1e-12)


SYNTHETIC = ("orthogonal-spread", "low-rank")


def _synthetic(name: str):
    """Non-Gaussian weights at n = 1024: (a) V with a log-spaced column spectrum over a
    decade, W^O with orthonormal columns scaled; (b) Gaussian V, W^O of rank 16."""
    rng = np.random.default_rng(7)
    h, n, dv, do = 4, 1024, 64, 128
    if name == "orthogonal-spread":
        V = rng.standard_normal((h, n, dv)) * np.logspace(-0.5, 0.5, dv)
        q, _ = np.linalg.qr(rng.standard_normal((h * dv, h * dv)))
        WO = q[:, :do] * math.sqrt(0.5)
    else:
        V = rng.standard_normal((h, n, dv))
        WO = rng.standard_normal((h * dv, 16)) @ rng.standard_normal((16, do)) \
            / math.sqrt(h * dv * 16)
    return V, WO


@pytest.mark.parametrize("name", SYNTHETIC)
def test_synthetic_weights_within_the_noise_floor(name):
    from freege.validation.weights_check import compare_weights

    V, WO = _synthetic(name)
    result = compare_weights(V, WO, 1.0, 128, draws=3, seed=0)
    assert result.within_floor, result.as_dict()
    # the floor is small, and the distance has teeth: against the law of the weights
    # scaled by 1.1 (mean off by 21%) the softmax lies far above the floor
    assert result.rel_w1.floor < 0.05, result.as_dict()
    from freege.numeric.weights_law import weights_law

    wrong = compare_weights(V, WO, 1.0, 128, draws=2, seed=0,
                            law=weights_law(V, WO * 1.1, 1.0, 128))
    assert wrong.rel_w1.distance > 3 * result.rel_w1.floor, wrong.as_dict()
