"""The leading singular value of sampled MHA against its limit (theory §4.1).

``freege validate`` takes ``s_1(MHA)^2 / n`` from each draw's own MHA
(:attr:`freege.validation.sampling.sample.Draw.outlier`) and summarises it with :func:`compare`;
:func:`sample` replays one draw's weights whole, the independent route that the draw's
value is tested against.

The weights are replayed in the order of :mod:`freege.validation.sampling.sample` (seed ``s``
spawns the weights, ``W^O`` and noise streams; Q_r, then K and V when head r opens a K/V
group; ``W^O`` by :func:`~freege.validation.sampling.sample.output_weights`, head block
after head block), so the softmax ``MHA^perp`` here is the one
``freege validate`` compares for the same seed. The uncentred MHA adds ``1 vbar^T``,
``vbar = W^O^T [V_r^T 1 / n]_r``; its largest singular value comes from
:func:`freege.validation.sampling.eigensolver.top_singular_value` (power iteration with a
residual test).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import Backend, get_backend
from freege.validation.sampling.eigensolver import top_singular_value
from freege.validation.sampling.sample import Seed, centred_softmax_values, output_weights


def weights(bk: Backend, gen: Any, dims: Dims) -> list[tuple[Any, Any, Any, bool]]:
    """``(Q_r, K_r, V_r, new_group)`` per head, drawn in the order of
    :mod:`freege.validation.sampling.sample` (theory §1.1; ``V = K`` when tied)."""
    out, group, k, v = [], -1, None, None
    for r in range(dims.h):
        q = bk.normal(gen, (dims.n, dims.dK))
        new = dims.kv_group(r) != group
        if new:
            group = dims.kv_group(r)
            k = bk.normal(gen, (dims.n, dims.dK))
            v = k if dims.sharing == "tied" else bk.normal(gen, (dims.n, dims.dV))
        out.append((q, k, v, new))
    return out


def sample(dims: Dims, *, seed: Seed, backend: str | Backend = "numpy") -> float:
    """``s_1(MHA)^2 / n`` of one softmax draw (the weights of ``freege validate``'s draw
    with the same seed), replayed whole: the independent route against which
    :attr:`freege.validation.sampling.sample.Draw.outlier` (computed inside the draw) is tested."""
    bk = get_backend(backend)
    xp = bk.xp
    weights_seq, output_seq, _ = np.random.SeedSequence(seed).spawn(3)
    w = weights(bk, bk.generator(weights_seq), dims)
    beta = float(dims.beta)
    z = xp.concatenate([centred_softmax_values(xp, q, k, v, beta) for q, k, v, _ in w],
                       axis=1)
    z += xp.concatenate([v.mean(axis=0, keepdims=True) for _, _, v, _ in w], axis=1)
    return top_singular_value(xp, z @ output_weights(bk, bk.generator(output_seq), dims)) ** 2 \
        / dims.n


def compare(values: list[float], theory: dict[str, Any], level: float = 0.95
            ) -> dict[str, Any]:
    """Sampled values of ``s_1(MHA)^2 / n`` (e.g.
    :attr:`freege.validation.sampling.sample.Draw.outlier`
    over the draws of ``freege validate``) against :func:`freege.numeric.outlier.summary`:
    mean ± Student-t half-width at ``level``, sample and predicted standard deviations,
    the limit and the finite-size mean ``gO + c / n``; ``agree`` when the latter lies in
    the interval."""
    mean, half = metrics.mean_ci(values, level)
    return {"mean": mean, "ci95": half, "sd": float(np.std(values, ddof=1)),
            "limit": theory["limit"], "finite_n_mean": theory["finite_n_mean"],
            "predicted_sd": theory["sd"],
            "agree": abs(mean - theory["finite_n_mean"]) <= half}
