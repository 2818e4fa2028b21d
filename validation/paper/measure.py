"""Measured points of the paper-reproduction protocol (theory §6.4): one task per
configuration and draw.

Features are the full, *uncentred* MHA output ``F = MHA(X) / sqrt(m)`` (``m`` the
theory §4 limiting mean at the configuration's ratios and inverse temperature), with
``X = sqrt(d) [I_n, 0]`` -- so ``X W`` is ``sqrt(d)`` times the first n rows of ``W``
and the projected ``Q_r, K_r, V_r`` have i.i.d. N(0, 1) entries (theory §1); they are
sampled directly. ``W^O`` has i.i.d. N(0, 1/(h dV)) entries.

Seeds: a task's entropy is ``(seed, group word, draw)``. Q, K, V and W^O come from four
independent streams spawned from it, drawn in head (Q), group (K, V) and row-block (W^O)
order, so two configurations of one *group* (theory §6.4: the two allocations of a
temperature replicate, GQA and tied of one head count) share every weight their shapes
have in common; a tied model takes ``V_r = K_r``. Every inverse temperature of a task
uses the same weights.

A task returns, per inverse temperature: ``ridge`` -- the exact conditional ridge
coefficient error (on the CPU from ``F F^T`` by Cholesky,
:func:`freege.validation.finite_readout.ridge_error_gram`; on the GPU from its n
eigenvalues, :func:`freege.validation.finite_readout.ridge_error`); ``flow`` -- the
eigenvalues ``l_j`` of ``F F^T`` and the weights ``(u_j^T y)^2 / ||y||^2`` of the fixed
target ``y`` (learning curves, arrival times); ``spectrum`` -- the eigenvalues of the
centred ``MHA^perp`` Gram over ``m`` (theory §4 compares the bulk); ``ge`` -- the theory
§6.1 relative W1 and KS of softmax against its Gaussian equivalent (with
``finite_width``, ``ge_row_n``: the same against the conditional GE of theory §2.3, and
``law``: the softmax's and the GE's relative W1 to the limit's and the finite-width law's
quantiles, :func:`law_distances`).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.sampling.backend import Backend, get_backend

KINDS: tuple[str, ...] = ("ridge", "flow", "spectrum", "ge")
#: largest exponent taken without shifting a softmax row by its maximum, per working
#: precision: exp(600) ~ 1e260, a row sum of n such terms stays finite in float64;
#: exp(60) ~ 1e26, and so does n |v| of them in float32 (largest 3.4e38)
EXP_SAFE_BY_DTYPE: dict[str, float] = {"float64": 600.0, "float32": 60.0}
EXP_SAFE = EXP_SAFE_BY_DTYPE["float64"]


def group_word(group: str) -> int:
    """A 64-bit word from the group name (seeds do not depend on Python's hash salt)."""
    return int.from_bytes(hashlib.sha256(group.encode()).digest()[:8], "little")


def limiting_mean(dims: Dims, beta: float) -> float:
    """The theory §4 mean of the MHA law at ``dims``' ratios and inverse temperature
    ``beta``: ``gO theta1`` (independent, GQA, MQA), ``gO (theta1 + h theta2 / gK)``
    (tied)."""
    theta1, theta2 = math.expm1(beta * beta), beta * beta
    g_o, g_k = dims.dO / dims.n, dims.h * dims.dK / dims.n
    if dims.sharing == "tied":
        return g_o * (theta1 + dims.h * theta2 / g_k)
    return g_o * theta1


def outputs(dims: Dims, betas: Sequence[float], entropy: tuple[int, ...], bk: Backend,
            centred: bool = False) -> Iterator[tuple[float, Any]]:
    """``(beta, output)``: the n x dO MHA output at each ``beta`` (uncentred, or
    ``MHA^perp`` when ``centred``), heads streamed, the same weights for every beta
    (module docstring); each output is formed only when it is asked for, in the order of
    ``betas``.

    Per head: the scores ``Q K^T`` once, the exponentials of every beta by
    :func:`exponentials`, and ``[V, 1]^T E^T`` by one product, whose last row is the
    softmax row sums; the heads' outputs are kept transposed (head r in rows
    ``r dV .. (r+1) dV``), so each is written as one contiguous block."""
    xp = bk.xp
    q_seq, k_seq, v_seq, o_seq = np.random.SeedSequence(entropy).spawn(4)
    qg, kg, vg = bk.generator(q_seq), bk.generator(k_seq), bk.generator(v_seq)
    n, h, dK, dV = dims.n, dims.h, dims.dK, dims.dV
    z = {b: bk.empty((h * dV, n)) for b in betas}
    group, K, vt1, mean = -1, None, bk.empty((dV + 1, n)), None
    scores, power, step, block = (bk.empty((n, n)), bk.empty((n, n)), bk.empty((n, n)),
                                  bk.empty((dV + 1, n)))
    for r in range(h):
        Q = bk.normal(qg, (n, dK))
        if dims.kv_group(r) != group:
            group = dims.kv_group(r)
            K = bk.normal(kg, (n, dK))
            V = K if dims.sharing == "tied" else bk.normal(vg, (n, dV))
            vt1[:dV] = V.T
            vt1[dV] = 1.0
            mean = V.mean(axis=0)[:, None] if centred else None
        xp.matmul(Q, K.T, out=scores)
        # |q.k| <= |q| |k| (Cauchy-Schwarz) bounds every exponent without a pass over
        # the scores; shift by the row maximum only where exp could overflow
        bound = math.sqrt(float((Q * Q).sum(axis=1).max()) * float((K * K).sum(axis=1).max()))
        if max(betas) * bound / math.sqrt(dK) > EXP_SAFE_BY_DTYPE[bk.dtype]:
            scores -= scores.max(axis=1, keepdims=True)
        for b, e in exponentials(scores, betas, 1.0 / math.sqrt(dK), power, step, xp):
            xp.matmul(vt1, e.T, out=block)
            rows = z[b][r * dV:(r + 1) * dV]
            xp.divide(block[:dV], block[dV], out=rows)
            if centred:
                rows -= mean
    del scores, power, step, block
    og = bk.generator(o_seq)
    w_o = bk.normal(og, (h * dV, dims.dO))
    w_o /= math.sqrt(h * dV)
    for b in betas:
        yield b, z.pop(b).T @ w_o


def exponentials(scores: Any, betas: Sequence[float], scale: float, power: Any, step: Any,
                 xp: Any) -> Iterator[tuple[float, Any]]:
    """``(b, exp(b scale scores))`` for the distinct ``betas`` in ascending order, in the
    buffer ``power`` (overwritten at the next one): each after the first is the previous
    one times ``exp((b - b_prev) scale scores)``, a factor computed (in ``step``) only
    when the increment changes -- so equally spaced betas from ``b_1 = step`` (panel
    2(d)) take one exponential and a product per further beta, exact to a few rounding
    errors per entry."""
    prev, first, step_of = 0.0, 0.0, None
    for k, b in enumerate(sorted(set(betas))):
        if k == 0:
            first = b
            xp.multiply(scores, b * scale, out=power)
            xp.exp(power, out=power)
        else:
            delta = b - prev
            if delta != step_of:
                if k == 1 and delta == first:
                    xp.copyto(step, power)
                else:
                    xp.multiply(scores, delta * scale, out=step)
                    xp.exp(step, out=step)
                step_of = delta
            power *= step
        prev = b
        yield b, power


def task(config: dict[str, Any], draw: int, seed: int, backend: str = "numpy",
         dtype: str = "float64") -> dict[str, Any]:
    """Measure draw ``draw`` of ``config`` (a configuration of
    :mod:`freege.validation.paper.panels`: ``kind``, ``dims``, ``betas``, ``group``,
    ``lam``, ``sigma2``, ``target_seed``) and return its store record. ``dtype``: the
    precision of the products (:func:`outputs`); the Gram, the eigensolvers and the
    ridge and learning-curve formulas run in float64 either way (:func:`gram`)."""
    from freege.validation import finite_readout

    start = time.perf_counter()
    dims = Dims(**config["dims"])
    kind = config["kind"]
    entropy = (seed, group_word(config["group"]), draw)
    bk = get_backend(backend, dtype)
    out: dict[str, Any] = {}
    if kind == "ge":
        out.update(_ge(dims, entropy, bk, bool(config.get("finite_width", False))))
    else:
        betas = [float(b) for b in config.get("betas", [float(dims.beta)])]
        y = finite_readout.target(dims.n, config.get("target_seed", 0))
        per_beta = []
        for b, output in outputs(dims, betas, entropy, bk, centred=kind == "spectrum"):
            gram = _gram(bk, output) / limiting_mean(dims, b)
            del output
            if kind == "flow":
                lam, w = bk.eigenvalues_and_weights(gram, y, overwrite=True)
                per_beta.append({"eigenvalues": lam.tolist(),
                                 "weights": (w / float(y @ y)).tolist()})
            elif kind == "ridge" and bk.numpy_arrays:
                per_beta.append({"error": finite_readout.ridge_error_gram(
                    gram, dims.dO / dims.n, config["lam"], config["sigma2"],
                    overwrite=True)})
            else:
                eigs = bk.eigvalsh(gram, overwrite=True)
                if kind == "ridge":
                    err = finite_readout.ridge_error(eigs, dims.dO / dims.n,
                                                     [config["lam"]], config["sigma2"])
                    per_beta.append({"error": float(err[0])})
                else:
                    per_beta.append({"eigenvalues": eigs.tolist()})
            del gram
        out["values"] = per_beta
    bk.synchronize()
    return {"type": "draw", "point": config["key"], "draw": draw, "status": "ok",
            "seconds": time.perf_counter() - start, **out}


def _gram(bk: Backend, output: Any) -> Any:
    """``F F^T`` of the n x dO output ``F``, in float64 whatever the working dtype: a
    float32 output is promoted first, so that the Gram's small eigenvalues (against the
    ridge's lam and a learning curve's late times) carry float64's absolute error, not
    float32's ``1e-7 ||F||^2`` (docs/performance.md, "The paper in float32")."""
    if bk.dtype != "float64":
        output = output.astype(bk.xp.float64)
    return output @ output.T


def _ge(dims: Dims, entropy: tuple[int, ...], bk: Backend, finite_width: bool = False
        ) -> dict[str, Any]:
    """Theory §6.1 draw: relative W1 and KS of softmax against its GE, same weights;
    ``finite_width``: also against the conditional GE with the finite-n row coefficient
    (``ge_row_n``, theory §2.3) of the same draw -- the softmax and GE spectra are those
    of the same seed without it (:func:`freege.validation.sampling.sample.draw`) -- and,
    where the finite-width law exists, both spectra's distances to it and to the limit
    (``law``, :func:`law_distances`)."""
    from freege.validation.sampling import metrics
    from freege.validation.sampling.sample import ROW_N_MODEL, draw

    d = draw(dims, seed=entropy, backend=bk, extra=(ROW_N_MODEL,) if finite_width else ())
    m1 = limiting_mean(dims, float(dims.beta))
    tol = metrics.zero_tolerance(bk.dtype)
    out: dict[str, Any] = {"rel_w1": metrics.rel_w1(d.softmax, d.ge, m1),
                           "ks": metrics.ks(d.softmax, d.ge, tol)}
    if finite_width:
        out["ge_row_n"] = {"rel_w1": metrics.rel_w1(d.softmax, d.ge_row_n, m1),
                           "ks": metrics.ks(d.softmax, d.ge_row_n, tol)}
        from freege.validation.paper import theory

        if theory.has_finite_width_law(dims):
            out["law"] = law_distances(d.softmax, d.ge, theory.law_quantiles(dims), m1)
    return out


def law_distances(softmax: Any, ge: Any, quantiles: tuple[Any, Any], m1: float
                  ) -> dict[str, float]:
    """Relative W1 (over ``m1``) of the softmax's and the GE's spectra against the
    quantiles of the limiting law and of the finite-width law (theory §2.3,
    :func:`freege.validation.paper.theory.law_quantiles`): ``softmax_limit``,
    ``softmax_fw``, ``ge_limit``, ``ge_fw``."""
    from freege.validation.sampling import metrics

    limit, fw = quantiles
    return {f"{name}_{target}": metrics.rel_w1(eigs, q, m1)
            for name, eigs in (("softmax", softmax), ("ge", ge))
            for target, q in (("limit", limit), ("fw", fw))}
