"""The paper protocol's measured points (theory §6.4) against direct computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import softmax

from freege.params import Dims
from freege.validation import finite_readout
from freege.validation.paper import measure as paper_measure
from freege.validation.sampling.backend import get_backend

DIMS = {"n": 24, "d": 30, "h": 4, "dK": 3, "dV": 2, "dO": 20}


def direct_output(dims: Dims, beta: float, entropy: tuple[int, ...], centred: bool = False
                  ) -> np.ndarray:
    """The uncentred MHA of theory §1 (``MHA^perp`` when ``centred``) from the same four
    weight streams, written out: X = sqrt(d)[I_n, 0] and N(0, 1/d) weights make X W^Q
    etc. N(0, 1) matrices."""
    q_seq, k_seq, v_seq, o_seq = np.random.SeedSequence(entropy).spawn(4)
    qg, kg, vg, og = (np.random.default_rng(s) for s in (q_seq, k_seq, v_seq, o_seq))
    heads, group = [], -1
    for r in range(dims.h):
        q = qg.standard_normal((dims.n, dims.dK))
        if dims.kv_group(r) != group:
            group = dims.kv_group(r)
            k = kg.standard_normal((dims.n, dims.dK))
            v = k if dims.sharing == "tied" else vg.standard_normal((dims.n, dims.dV))
        heads.append(softmax(beta * q @ k.T / math.sqrt(dims.dK), axis=1) @ v
                     - (v.mean(axis=0) if centred else 0.0))
    w_o = og.standard_normal((dims.h * dims.dV, dims.dO)) / math.sqrt(dims.h * dims.dV)
    return np.hstack(heads) @ w_o


@pytest.mark.parametrize("sharing", [{}, {"sharing": "gqa", "h_kv": 2},
                                     {"sharing": "tied", "dV": 3}])
def test_uncentred_output_and_the_same_weights_at_every_beta(sharing):
    dims = Dims(**{**DIMS, **sharing})
    got = dict(paper_measure.outputs(dims, [0.5, 2.0], (7, 1, 0), get_backend("numpy")))
    for beta in (0.5, 2.0):
        np.testing.assert_allclose(got[beta], direct_output(dims, beta, (7, 1, 0)),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("betas", [
    [1.5, 0.25, 1.0, 0.5, 1.25, 0.75],  # panel 2(d): one exponential, products after it
    [0.5, 0.7, 0.9, 2.0, 3.1],  # the increment changes, and repeats
    [2.0, 600.0],  # exponents beyond EXP_SAFE: shifted by the row maximum
])
@pytest.mark.parametrize("centred", [False, True])
def test_every_beta_from_one_set_of_scores(betas, centred):
    dims = Dims(**DIMS)
    out = list(paper_measure.outputs(dims, betas, (5, 2, 1), get_backend("numpy"),
                                     centred=centred))
    assert [b for b, _ in out] == betas
    for beta, got in out:
        want = direct_output(dims, beta, (5, 2, 1), centred)
        # exp(b s) carries rounding ~ |b s| eps relative: ~1e-13 at b = 600
        np.testing.assert_allclose(got, want, rtol=1e-12 * max(1.0, beta),
                                   atol=1e-12 * max(1.0, beta))


def config(kind: str, **extra) -> dict:
    return {"key": "k", "kind": kind, "dims": DIMS, "group": "g", "betas": [1.0],
            "lam": 1e-4, "sigma2": 0.1, "target_seed": 3, "draws": 2, **extra}


def test_ridge_and_flow_records_are_the_exact_conditional_quantities():
    dims = Dims(**DIMS)
    entropy = (0, paper_measure.group_word("g"), 1)
    f = direct_output(dims, 1.0, entropy) / math.sqrt(paper_measure.limiting_mean(dims, 1.0))
    gram = f @ f.T
    ridge = paper_measure.task(config("ridge"), 1, 0)["values"][0]["error"]
    want = finite_readout.ridge_error(np.linalg.eigvalsh(gram), 20 / 24, [1e-4], 0.1)[0]
    # rank 8 < n: the zero eigenvalues carry float64 noise ~ eps ||G|| that enters
    # lam^2/(x + lam)^2 relative to lam = 1e-4, so agreement is ~1e-11 ||G|| / lam
    assert ridge == pytest.approx(want, rel=1e-11 * np.linalg.norm(gram, 2) / 1e-4)
    flow = paper_measure.task(config("flow"), 1, 0)["values"][0]
    y = finite_readout.target(24, 3)
    vals, vecs = np.linalg.eigh(gram)
    for t in (0.0, 0.3, 4.0):
        curve = np.dot(flow["weights"], np.exp(-2 * t * np.clip(flow["eigenvalues"], 0, None)))
        assert curve == pytest.approx(finite_readout.gradient_flow_loss(vals, vecs, y, [t])[0],
                                      rel=1e-10)
    assert sum(flow["weights"]) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("shape", [(40, 20), (40, 70)])
def test_ridge_error_from_the_gram_is_the_eigenvalue_formula(shape):
    """The Cholesky route against the eigenvalue formula on the squared singular values
    of F (exact zeros where F F^T is rank-deficient)."""
    f = np.random.default_rng(4).standard_normal(shape) / math.sqrt(shape[1])
    x = np.zeros(shape[0])
    sv = np.linalg.svd(f, compute_uv=False)
    x[:sv.size] = sv**2
    g_o = shape[1] / shape[0]
    for lam in (1e-4, 0.5):
        want = finite_readout.ridge_error(x, g_o, [lam], 0.1)[0]
        gram = f @ f.T
        copy = gram.copy()
        assert finite_readout.ridge_error_gram(gram, g_o, lam, 0.1) == pytest.approx(
            want, rel=1e-12 / lam)
        np.testing.assert_array_equal(gram, copy)  # not overwritten unless asked
        assert finite_readout.ridge_error_gram(gram, g_o, lam, 0.1, overwrite=True) == \
            pytest.approx(want, rel=1e-12 / lam)
    with pytest.raises(ValueError, match="lam"):
        finite_readout.ridge_error_gram(f @ f.T, g_o, 0.0)
    with pytest.raises(ArithmeticError, match="Cholesky"):
        finite_readout.ridge_error_gram(-np.eye(3), 1.0, 0.5)


def test_limiting_mean_matches_the_theory_means():
    from freege.validation.sampling.limits import limiting_moments

    for extra in ({}, {"sharing": "tied", "dV": 3}):
        dims = Dims(**{**DIMS, **extra})
        case = "mha-tied" if extra else "mha"
        assert paper_measure.limiting_mean(dims, 1.0) == pytest.approx(
            limiting_moments(case, dims, 1)[0], rel=1e-12)


def test_gpu_script_skips_cleanly_without_a_device(capsys):
    from benchmarks import gpu_paper
    from freege.validation.sampling.backend import cupy_problem

    if cupy_problem() is None:
        pytest.skip("a GPU is present: the script would run the panel")
    assert gpu_paper.main(["--panels", "3b"]) == 0
    assert "nothing to run" in capsys.readouterr().out


@pytest.mark.parametrize("betas", [[1.0], [2.0, 70.0]])  # 70: beyond float32's EXP_SAFE
def test_float32_outputs_are_the_float64_ones_to_single_precision(betas):
    """``--dtype float32`` (issue 41): the same weights (drawn in float64, rounded), the
    products in float32. Each output entry is a sum of about ``n + h dV`` products of
    rounded numbers, and exp(b s) carries ``b |s| eps`` relative: the bound below, in
    float32's eps, with the largest score measured."""
    dims = Dims(**DIMS)
    f64 = dict(paper_measure.outputs(dims, betas, (5, 2, 1), get_backend("numpy")))
    f32 = dict(paper_measure.outputs(dims, betas, (5, 2, 1),
                                     get_backend("numpy", "float32")))
    eps = float(np.finfo(np.float32).eps)
    q_seq, k_seq, *_ = np.random.SeedSequence((5, 2, 1)).spawn(4)
    q = np.random.default_rng(q_seq).standard_normal((dims.n, dims.dK))
    k = np.random.default_rng(k_seq).standard_normal((dims.n, dims.dK))
    smax = float(np.abs(q @ k.T).max()) / math.sqrt(dims.dK)
    for beta in betas:
        assert f32[beta].dtype == np.float32 and np.isfinite(f32[beta]).all()
        bound = (dims.n + dims.h * dims.dV + dims.dK + beta * smax) * eps
        err = np.linalg.norm(f32[beta] - f64[beta]) / np.linalg.norm(f64[beta])
        assert 0 < err <= bound  # not bit-identical: the dtype reached the products


@pytest.mark.parametrize("kind", ["ridge", "flow", "spectrum"])
def test_a_float32_task_keeps_the_gram_and_the_solver_in_float64(kind):
    """The Gram of a float32 output is made in float64 (:func:`paper_measure._gram`), so
    a record moves only by the output's rounding: relative ``(n + h dV) eps32`` on F,
    amplified by ``||F|| / s_min`` (the smallest nonzero singular value) in a ridge error
    or a learning curve; a float32 Gram would add ``eps32 ||F||^2`` to every eigenvalue
    (0.2-24x relative on the ridge errors of panels 2(c) and 3(b) at S = 4,
    benchmarks/paper_dtype.py)."""
    f32 = np.ones((3, 2), dtype=np.float32)
    assert paper_measure._gram(get_backend("numpy", "float32"), f32).dtype == np.float64
    dims = Dims(**DIMS)
    entropy = (0, paper_measure.group_word("g"), 1)
    sv = np.linalg.svd(direct_output(dims, 1.0, entropy, kind == "spectrum"),
                       compute_uv=False)
    amplify = sv[0] / sv[sv > sv[0] * 1e-8][-1]
    bound = 10 * (dims.n + dims.h * dims.dV) * float(np.finfo(np.float32).eps) * amplify
    a = paper_measure.task(config(kind), 1, 0)["values"][0]
    b = paper_measure.task(config(kind), 1, 0, dtype="float32")["values"][0]
    if kind == "ridge":
        assert 0 < abs(b["error"] - a["error"]) <= bound * abs(a["error"])
    else:
        la, lb = np.array(a["eigenvalues"]), np.array(b["eigenvalues"])
        assert 0 < np.abs(la - lb).max() <= bound * la.max()
    if kind == "flow":
        wa, wb = np.array(a["weights"]), np.array(b["weights"])
        for t in (0.3, 4.0):
            ca, cb = (np.dot(w, np.exp(-2 * t * np.clip(lam, 0, None)))
                      for w, lam in ((wa, la), (wb, lb)))
            assert abs(cb - ca) <= bound * ca
