"""Sample softmax MHA and its Gaussian equivalent; Gram spectra (theory §1, §2, §4, §6.1).

One code path over NumPy and CuPy (:mod:`freege.validation.sampling.backend`), in float64, or
float32
as an opt-in (``dtype``; eigenvalues are returned in float64 either way).
Projected matrices are sampled directly (orthogonal inputs, theory §1): ``Q_r, K_r``
(n x dK) and ``V_r`` (n x dV) with i.i.d. N(0, 1) entries, per the sharing scheme of
theory §1.1, and ``W^O`` with i.i.d. N(0, 1/(h dV)) entries, drawn one (dV x dO) head
block at a time. Heads are *streamed*: only one n x n attention matrix is alive at a
time, and the output is accumulated, so peak memory is O(n^2 + n (h dV + dO)) -- never
O(h n^2). After the heads the models are finished one at a time (Z W^O, Gram,
eigenvalues), each array released as soon as the next is made, so at most one Gram is
alive: about 4 n^2 numbers at the paper's d = n sizes (benchmarks/sampling.py). What a
draw costs under this plan, estimated before it runs, is
:func:`freege.validation.sampling.cost.draw_cost`.

Seeds: ``seed`` spawns three independent streams: Q/K/V (in a fixed head order), W^O
and the GE noise, so the softmax and GE models of the same seed see the *same* weights,
whichever of them is computed (theory §6.1).

Gaussian equivalent (theory §2): ``Y_r = (sqrt(theta2) S_r + sqrt(theta1 - theta2) W_r) /
sqrt(n)``. Its conditional, finite-width form (theory §2.3, model ``ge-row``) scales row
``i`` of the noise to ``sqrt(theta1_i - theta2_i)`` with ``theta1_i = e^{x_i} - 1``,
``theta2_i = x_i``, ``x_i = beta^2 |q_i|^2 / dK``, from the same weights and the same
noise draw as ``ge``. Where only ``Y_r V_r`` is needed (value and MHA cases) the n x n noise is
never formed: conditional on ``V_r = U R`` (thin QR, U with orthonormal columns),
``W_r V_r = (W_r U) R`` and ``W_r U`` has i.i.d. N(0, 1) entries, so ``W_r V_r`` is
sampled *exactly in law* as ``G R`` with ``G`` an n x min(n, dV) Gaussian matrix. This
holds for tied values (``V_r = K_r``) too, since ``W_r`` is independent of everything.

Cases and scalings (each Gram's mean eigenvalue tends to the theory §4 mean ``m1``):

==========================  =================================  ====================================
case                        softmax Gram                       GE Gram
==========================  =================================  ====================================
attention                   (n/h) sum_r A_r^perp A_r^perp^T    (1/h) sum_r Y_r Y_r^T
head-average                M M^T, M = sqrt(n/h) sum_r A_r^p   M M^T, M = h^(-1/2) sum_r Y_r
head-average-shared-key     as head-average, one K for all     as head-average, one K for all
value                       Z Z^T, Z = [A_r^perp V_r]_r        (1/n) Z Z^T, Z = [Y_r V_r]_r
mha                         MHA^perp MHA^perp^T                (1/n) MHA^G MHA^G^T
value-tied                  value with V_r = K_r               value with V_r = K_r
mha-tied                    mha with V_r = K_r                 mha with V_r = K_r
==========================  =================================  ====================================

Means: theta1 (attention, head averages), gV theta1 (value), gO theta1 (mha),
gK theta1 + h theta2 (value-tied), gO (theta1 + h theta2 / gK) (mha-tied).

Tied MHA scaling: theory §4 gives the law ``D_{1/gK}(pi(mu_KV, h) ⊠ pi_gO)``. Its mean is
``(1/gK) * gO * h m1(mu_KV)`` with ``m1(mu_KV) = (theta1 - theta2) gK/h + (h/gK) theta2
m2(pi_{gK/h}) = theta1 gK/h + theta2``, i.e. ``gO (theta1 + h theta2 / gK)``. The raw
tied ``MHA^perp MHA^perp^T`` already has this mean: ``MHA^perp = Z_KV W^O`` with
``W^O`` of variance ``1/(h dK)``, so its mean is ``dO/(h dK)`` times the tied value
mean ``gK theta1 + h theta2``, which is ``gO (theta1 + h theta2/gK)``. No extra scaling
is applied (checked numerically in tests/validation/test_moments.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.sampling.backend import Backend, get_backend
from freege.validation.sampling.solvers import solvers

#: a seed: an int, or a tuple of ints (e.g. ``(seed, draw_index)``) -- any entropy that
#: :class:`numpy.random.SeedSequence` accepts
Seed = int | tuple[int, ...]

CASES: tuple[str, ...] = (
    "attention", "head-average", "head-average-shared-key", "value", "mha",
    "value-tied", "mha-tied",
)
MODELS: tuple[str, ...] = ("softmax", "ge")
#: the noise floor's model: a second GE with the same weights and fresh GE noise (its own
#: seed stream), so that GE vs this model pairs like softmax vs GE (theory §6.1)
FLOOR_MODEL = "ge_floor"
#: the conditional Gaussian equivalent of theory §2.3: the GE with each row's noise
#: scaled to that row's own coefficients (:func:`row_noise_scale`), from the same weights
#: and the same noise as ``ge``
ROW_MODEL = "ge-row"
#: the conditional GE with the finite-n row coefficient of theory §2.3
#: (:mod:`freege.numeric.row_coefficient`) in place of ``e^{x_i} - 1``
ROW_N_MODEL = "ge-row-n"
#: its diagnostic twin (theory §2.3): each row's theta1 taken from the softmax row it
#: stands for, ``n |A_i^perp|^2`` (:func:`realised_noise_scale`); needs the softmax
REALISED_MODEL = "ge-realised"


def thetas(beta: float) -> tuple[float, float]:
    """``(theta1, theta2) = (exp(beta^2) - 1, beta^2)`` (theory §2)."""
    b2 = float(beta) ** 2
    return math.expm1(b2), b2


def row_noise_scale(xp: Any, q: Any, beta: float) -> Any:
    """``sqrt(theta1_i - theta2_i)`` for each query row ``q_i`` (theory §2.3): with
    ``x_i = beta^2 |q_i|^2 / dK``, ``theta1_i = e^{x_i} - 1`` and ``theta2_i = x_i``, the
    per-row coefficients of the conditional Gaussian equivalent. ``e^x - 1 - x`` is summed
    as its series below ``x = 1e-3`` (no cancellation)."""
    x = (q * q).sum(axis=1) * (float(beta) ** 2 / q.shape[1])
    small = x < 1e-3
    series = x * x * (0.5 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120 + x / 720))))
    gap = xp.where(small, series, xp.expm1(x) - x)
    return xp.sqrt(gap)


def finite_n_noise_scale(bk: Backend, q: Any, beta: float, n: int) -> Any:
    """``sqrt(max(theta_n(x_i) - x_i, 0))``, ``x_i = beta^2 |q_i|^2 / dK``, with the
    finite-n row coefficient ``theta_n`` of theory §2.3 (interpolated table,
    :func:`freege.numeric.row_coefficient.theta_n`)."""
    from freege.numeric.row_coefficient import theta_n, x_bound

    dk = q.shape[1]
    x = bk.to_numpy((q * q).sum(axis=1)) * (float(beta) ** 2 / dk)
    theta = theta_n(x, n, x_bound(beta, dk))
    return bk.xp.asarray(np.sqrt(np.maximum(theta - x, 0.0)), dtype=q.dtype)


def realised_noise_scale(xp: Any, theta1_rows: Any, q: Any, beta: float) -> Any:
    """``sqrt(max(theta1_i - theta2_i, 0))`` with ``theta1_i`` the softmax row's own
    ``n |A_i^perp|^2`` (``theta1_rows``) and ``theta2_i = beta^2 |q_i|^2 / dK`` (theory
    §2.3)."""
    x = (q * q).sum(axis=1) * (float(beta) ** 2 / q.shape[1])
    return xp.sqrt(xp.maximum(theta1_rows - x, 0.0))


def centred_softmax(xp: Any, scores: Any, beta: float) -> Any:
    """``A^perp = softmax_rows(beta S) - 1 1^T / n`` (theory §1), stable (row max
    subtracted before exp), computed in place in ``scores``' buffer, which it returns."""
    n = scores.shape[1]
    scores *= beta
    scores -= scores.max(axis=1, keepdims=True)
    xp.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    scores -= 1.0 / n
    return scores


def centred_softmax_values(xp: Any, q: Any, k: Any, v: Any, beta: float,
                           scores: Any | None = None, row_theta: bool = False) -> Any:
    """``A^perp V`` for ``A^perp = softmax_rows(beta Q K^T / sqrt(dK)) - 1 1^T / n``
    (theory §1), fused so that exp is the only pass over the n x n block: the shift that
    keeps exp in range is a per-row bound ``c_i = beta |q_i| max_j |k_j| / sqrt(dK)``
    (Cauchy-Schwarz: every exponent lies in ``[-2 c_i, 0]``), subtracted inside the
    product through an extra column of Q (-c) and of K (ones); the row sums come out of
    the value product through a ones column of V; normalisation and centring act on the
    n x dV result, ``A^perp V = diag(1/rowsum) (E V) - 1 (mean_rows V)``. When ``2 c_i``
    could underflow exp in the working dtype (very large ``beta`` or scores) the exact
    row max is subtracted instead (two more passes). ``scores``: an n x n buffer of
    ``q``'s dtype to hold the block (reused across heads: a fresh n x n array costs page
    faults, 9 ms at n = 4096, a quarter of a head's product at dK = 32); it is
    overwritten. ``row_theta``: return ``(A^perp V, n |A_i^perp|^2)``, the second from
    one more pass over the block (theory §2.3). benchmarks/sampling.py."""
    n, dk = q.shape
    dv = v.shape[1]
    scale = beta / math.sqrt(dk)
    shift = xp.sqrt((q * q).sum(axis=1)) * (scale * float(xp.sqrt((k * k).sum(axis=1)).max()))
    if 2.0 * float(shift.max()) < 0.9 * -math.log(float(xp.finfo(q.dtype).tiny)):
        qe, ke = xp.empty((n, dk + 1), dtype=q.dtype), xp.empty((n, dk + 1), dtype=k.dtype)
        xp.multiply(q, scale, out=qe[:, :dk])
        qe[:, dk] = -shift
        ke[:, :dk] = k
        ke[:, dk] = 1.0
        e = xp.matmul(qe, ke.T, out=scores)
        del qe, ke
    else:
        e = xp.matmul(q * scale, k.T, out=scores)
        e -= e.max(axis=1, keepdims=True)
    xp.exp(e, out=e)
    squares = (e * e).sum(axis=1) if row_theta else None  # one n x n temporary
    ve = xp.empty((n, dv + 1), dtype=v.dtype)
    ve[:, :dv] = v
    ve[:, dv] = 1.0
    prod = e @ ve
    del e, ve
    out = prod[:, :dv] / prod[:, dv:]
    out -= v.mean(axis=0, keepdims=True)
    if row_theta:
        return out, n * squares / (prod[:, dv] * prod[:, dv]) - 1.0
    return out


def case_for(dims: Dims) -> str:
    """The MHA case of a configuration: ``mha-tied`` when tied, else ``mha``."""
    return "mha-tied" if dims.sharing == "tied" else "mha"


def _check_case(case: str, dims: Dims) -> None:
    if case not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)} (got {case!r})")
    if case.endswith("-tied") and dims.dV != dims.dK:
        raise ValueError(f"case {case} ties V_r = K_r and needs dV == dK (got {dims.dV}, "
                         f"{dims.dK})")
    if case in ("value", "mha") and dims.sharing == "tied":
        raise ValueError(f"case {case} with tied sharing is case {case}-tied")


@dataclass
class _Head:
    Q: Any
    K: Any
    V: Any | None
    new_kv: bool


def _heads(bk: Backend, gen: Any, dims: Dims, case: str) -> Iterator[_Head]:
    """Weights head by head, always drawn in the same order from ``gen`` (theory §1.1):
    Q_r; K and V when head r opens a new K/V group (one K for all heads in the
    shared-key case; V = K when tied). W^O is drawn afterwards (:func:`output_weights`)."""
    n, h, dK, dV = dims.n, dims.h, dims.dK, dims.dV
    tied = case.endswith("-tied") or dims.sharing == "tied"
    need_v = case.startswith(("value", "mha"))
    shared_key = case == "head-average-shared-key"
    K = bk.normal(gen, (n, dK)) if shared_key else None
    V = None
    group = -1
    for r in range(h):
        Q = bk.normal(gen, (n, dK))
        new_kv = False
        if not shared_key and dims.kv_group(r) != group:
            group, new_kv = dims.kv_group(r), True
            K = bk.normal(gen, (n, dK))
            if need_v:
                V = K if tied else bk.normal(gen, (n, dV))
        yield _Head(Q, K, V, new_kv)


class _GEValueNoise:
    """Exact-in-law sampler of ``W_r V_r`` for a fresh n x n Gaussian ``W_r`` (module
    docstring): rows of ``W_r V_r`` are i.i.d. N(0, V^T V), sampled as ``G L^T`` with
    ``L L^T = V^T V`` (Cholesky; thin QR ``V = U R``, ``L = R^T``, when dV >= n makes
    V^T V singular). The factor is recomputed only when V changes; ``scale`` multiplies
    the sample, folded into the factor (no pass over the n x dV result)."""

    def __init__(self, bk: Backend, gen: Any, scale: float = 1.0):
        self.bk, self.gen, self.scale, self.factor = bk, gen, scale, None

    def __call__(self, V: Any, new_v: bool, gen: Any | None = None) -> Any:
        """The sample for values ``V`` (``new_v``: V changed since the last call), from
        ``gen`` (default: the sampler's own generator)."""
        xp = self.bk.xp
        if new_v or self.factor is None:
            n, dv = V.shape
            if dv < n:
                self.factor = solvers(xp).cholesky(V.T @ V).T
            else:
                self.factor = solvers(xp).qr(V, mode="r")
            self.factor *= self.scale
        return (self.bk.normal(self.gen if gen is None else gen,
                               (V.shape[0], self.factor.shape[0])) @ self.factor)


def _scale(case: str, model: str, n: int, h: int) -> float:
    """Factor ``s`` of the table above: the case matrix is ``s [T_1 | ... | T_h]``
    (attention, value cases) or ``s sum_r T_r`` (head averages) with the per-head terms
    ``T_r`` of :func:`_head_terms`; MHA is ``s [T_1 | ... | T_h] W^O``."""
    if case == "attention" or case.startswith("head-average"):
        return math.sqrt(n / h) if model == "softmax" else 1.0 / math.sqrt(h)
    return 1.0 if model == "softmax" else 1.0 / math.sqrt(n)


#: a Gaussian-equivalent model's per-row noise scale ``sqrt(theta1_i - theta2_i)``
#: (theory §2.3) from ``(bk, dims, Q_r, realised)``, ``realised`` the softmax rows'
#: ``n |A_i^perp|^2`` (None unless :data:`REALISED_MODEL` is asked for)
RowScale = Callable[[Backend, Dims, Any, Any], Any]


@dataclass(frozen=True)
class _NoiseModel:
    """How a Gaussian-equivalent model (theory §2) makes its noise: ``rows``, its per-row
    scale, or None for the constant ``sqrt(theta1 - theta2)``; ``own_noise``: drawn from
    its own stream (the floor's), not the GE noise that the other models share."""

    rows: RowScale | None = None
    own_noise: bool = False


#: the noisy models, in the order their terms are made: the floor on its own noise, then
#: the models of the shared GE noise, ``ge`` last (its term may take the signal's buffer)
_NOISE_MODELS: dict[str, _NoiseModel] = {
    FLOOR_MODEL: _NoiseModel(own_noise=True),
    ROW_MODEL: _NoiseModel(lambda bk, dims, q, _: row_noise_scale(bk.xp, q, float(dims.beta))),
    ROW_N_MODEL: _NoiseModel(
        lambda bk, dims, q, _: finite_n_noise_scale(bk, q, float(dims.beta), dims.n)),
    REALISED_MODEL: _NoiseModel(lambda bk, dims, q, realised: realised_noise_scale(
        bk.xp, realised, q, float(dims.beta))),
    "ge": _NoiseModel(),
}


class _Terms:
    """The per-head terms ``T_r`` of ``models`` in one pass over the heads (base of the
    two routes): the noisy models' streams, each drawn once a head, and the GE
    coefficients ``sqrt(theta2)`` (signal) and ``sqrt(theta1 - theta2)`` (noise)."""

    def __init__(self, dims: Dims, bk: Backend, models: tuple[str, ...], ngen: Any,
                 fgen: Any | None):
        self.dims, self.bk, self.models = dims, bk, models
        self.beta = float(dims.beta)
        t1, t2 = thetas(self.beta)
        self.sq_sig, self.sq_noise = math.sqrt(t2), math.sqrt(t1 - t2)
        self.realised = REALISED_MODEL in models
        noisy = [m for m in _NOISE_MODELS if m in models]
        #: ``(generator, models)`` of each noise stream that some model asked for
        self.streams = [(gen, group) for gen, group in (
            (fgen, [m for m in noisy if _NOISE_MODELS[m].own_noise]),
            (ngen, [m for m in noisy if not _NOISE_MODELS[m].own_noise])) if group]

    def rows(self, model: str, q: Any, realised: Any) -> Any | None:
        """``model``'s per-row noise scale for queries ``q``, None when constant."""
        scale = _NOISE_MODELS[model].rows
        return None if scale is None else scale(self.bk, self.dims, q, realised)


class _ValueTerms(_Terms):
    """Value and MHA cases: ``A_r^perp V_r`` (softmax) and ``Y_r V_r``, its noise
    ``W_r V_r`` sampled exactly in law (:class:`_GEValueNoise`, module docstring)."""

    def __init__(self, dims: Dims, bk: Backend, models: tuple[str, ...], ngen: Any,
                 fgen: Any | None):
        super().__init__(dims, bk, models, ngen, fgen)
        self.value_noise = _GEValueNoise(bk, ngen, self.sq_noise / math.sqrt(dims.n))
        self.scores: Any | None = None  # the softmax's n x n block, one buffer for all heads

    def __call__(self, hd: _Head) -> dict[str, Any]:
        n, terms, realised = self.dims.n, {}, None
        if "softmax" in self.models:
            if self.scores is None:
                self.scores = self.bk.empty((n, n))
            terms["softmax"] = centred_softmax_values(
                self.bk.xp, hd.Q, hd.K, hd.V, self.beta, self.scores, row_theta=self.realised)
            if self.realised:
                terms["softmax"], realised = terms["softmax"]
        if not self.streams:
            return terms
        y = hd.Q @ ((hd.K.T @ hd.V) * (self.sq_sig / math.sqrt(self.dims.dK * n)))
        last, fresh = self.streams[-1][1][-1], hd.new_kv
        for gen, group in self.streams:
            noise = self.value_noise(hd.V, fresh, gen)  # one factor of V for all streams
            fresh = False
            for model in group:
                rows = self.rows(model, hd.Q, realised)
                part = noise if rows is None else (rows / self.sq_noise)[:, None] * noise
                if model == last:  # the signal is not needed after it: its buffer
                    y += part
                    terms[model] = y
                else:
                    terms[model] = y + part
            del noise
        return terms


class _AttentionTerms(_Terms):
    """Attention and head-average cases: ``A_r^perp`` (softmax) and ``Y_r`` (theory §2)
    from the head's scores ``Q_r K_r^T / sqrt(dK)``."""

    def __call__(self, hd: _Head) -> dict[str, Any]:
        xp, n, terms, realised = self.bk.xp, self.dims.n, {}, None
        scores = hd.Q @ hd.K.T
        scores /= math.sqrt(self.dims.dK)
        if self.realised:
            soft = centred_softmax(xp, scores.copy(), self.beta)
            realised = n * (soft * soft).sum(axis=1)
        for gen, group in self.streams:
            noise = self.bk.normal(gen, (n, n))
            for model in group:
                rows = self.rows(model, hd.Q, realised)
                y = self.sq_sig * scores + (
                    self.sq_noise if rows is None else rows[:, None]) * noise
                y /= math.sqrt(n)
                terms[model] = y
            del noise
        if "softmax" in self.models:  # last: in the scores' buffer
            terms["softmax"] = centred_softmax(xp, scores, self.beta)
        return terms


def _head_terms(case: str, dims: Dims, bk: Backend, wgen: Any, ngen: Any,
                models: tuple[str, ...], vmeans: list[Any] | None = None,
                fgen: Any | None = None) -> Iterator[dict[str, Any]]:
    """Per head r, the term ``T_r`` of each model: ``A_r^perp`` or ``Y_r`` (attention,
    head averages), times ``V_r`` (value and MHA cases); :data:`FLOOR_MODEL`'s ``Y_r``
    takes its noise from ``fgen``, the other GE models from ``ngen``
    (:data:`_NOISE_MODELS`). ``vmeans``: when given (value and MHA cases), the column
    means ``V_r^T 1 / n`` are appended to it head by head (one pass over n x dV per K/V
    group)."""
    if REALISED_MODEL in models and "softmax" not in models:
        raise ValueError(f"model {REALISED_MODEL} needs the softmax model in the same pass")
    route = _ValueTerms if case.startswith(("value", "mha")) else _AttentionTerms
    terms = route(dims, bk, models, ngen, fgen)
    vmean = None
    for hd in _heads(bk, wgen, dims, case):
        if vmeans is not None:
            if hd.new_kv or vmean is None:
                vmean = hd.V.mean(axis=0)
            vmeans.append(vmean)
        yield terms(hd)


def output_rows(dims: Dims) -> int:
    """Rows of a W^O block: the whole of W^O (h dV rows) when it is no larger than the
    multi-block route's two n x dO buffers (a block of n rows and one product), else the
    whole heads that fit in n rows (at least one head's dV)."""
    rows = dims.h * dims.dV
    return rows if rows <= 2 * dims.n else dims.dV * max(1, dims.n // dims.dV)


def output_weights(bk: Backend, gen: Any, dims: Dims, heads: range | None = None) -> Any:
    """The rows of ``W^O`` (h dV x dO, i.i.d. N(0, 1/(h dV)), theory §1) that belong to
    ``heads`` (default: all, W^O whole), drawn from ``gen`` one head's dV x dO block per
    call, in head order. Every route draws W^O this way, whole or in blocks of whole
    heads, so its numbers do not depend on the blocking on any random layout: NumPy fills
    sequentially, CuPy fills each call from many generator states at once
    (:mod:`freege.validation.sampling.backend`), and the calls are the same on every
    route."""
    dV = dims.dV
    heads = range(dims.h) if heads is None else heads
    block = bk.empty((len(heads) * dV, dims.dO))
    for i, _ in enumerate(heads):
        block[i * dV:(i + 1) * dV] = bk.normal(gen, (dV, dims.dO))
    block /= math.sqrt(dims.h * dV)
    return block


def _output_blocks(dims: Dims, bk: Backend, gen: Any) -> Iterator[tuple[int, int, Any]]:
    """``W^O`` from ``gen`` as ``(lo, hi, block)`` row blocks of :func:`output_rows` rows
    (:func:`output_weights`): never held whole when it is large (theory §1)."""
    per_block = output_rows(dims) // dims.dV
    for first in range(0, dims.h, per_block):
        heads = range(first, min(dims.h, first + per_block))
        yield heads.start * dims.dV, heads.stop * dims.dV, output_weights(bk, gen, dims,
                                                                         heads)


def _mha(zs: dict[str, Any], dims: Dims, bk: Backend, seq: np.random.SeedSequence,
         vmeans: Any | None = None) -> Iterator[tuple[str, Any, Any | None]]:
    """``(model, Z W^O, vbar)`` one model at a time, the same ``W^O`` for all, drawn once
    from one generator of ``seq``. When W^O is one block it is held and each model's
    ``Z`` is released as its product is made (nothing is kept in this frame across a
    yield); otherwise each block is applied to every model as it is drawn, and the
    ``Z``s are released together. ``vbar = W^O^T vmeans`` for the softmax model when
    ``vmeans`` (the h dV column means of the values) is given, else None: the uncentred
    softmax MHA is ``Z W^O + 1 vbar^T`` (theory §4.1)."""
    gen = bk.generator(seq)
    rows = dims.h * dims.dV
    out: dict[str, Any] = {}
    if output_rows(dims) >= rows:
        w = output_weights(bk, gen, dims)
        while zs:
            model = next(iter(zs))
            _apply({model: zs.pop(model)}, 0, rows, w, out)
            u = vmeans if model == "softmax" else None
            yield model, out.pop(model), None if u is None else u @ w
        return
    vbar = None
    for lo, hi, block in _output_blocks(dims, bk, gen):
        _apply(zs, lo, hi, block, out)
        if vmeans is not None and "softmax" in zs:
            part = vmeans[lo:hi] @ block
            vbar = part if vbar is None else vbar + part
        del block
    zs.clear()
    while out:
        model = next(iter(out))
        yield model, out.pop(model), vbar if model == "softmax" else None


def _apply(zs: dict[str, Any], lo: int, hi: int, block: Any, out: dict[str, Any]) -> None:
    """Add ``Z[:, lo:hi] @ block`` (rows ``lo:hi`` of W^O) to ``out[model]`` for each
    model's ``Z`` in ``zs``, in place after the first block."""
    for model, z in zs.items():
        piece = z[:, lo:hi] @ block
        if model in out:
            out[model] += piece
        else:
            out[model] = piece
        del piece


def _matrices(case: str, dims: Dims, seed: Seed, bk: Backend, models: tuple[str, ...],
              vmeans: list[Any] | None = None
              ) -> tuple[dict[str, Any], np.random.SeedSequence]:
    """The case matrix of each model (table above), heads streamed, and the W^O seed:
    attention is kept as its running Gram ``s^2 sum_r T_r T_r^T`` (the n x hn
    concatenation is never formed), head averages as ``s sum_r T_r``, value cases and MHA
    as ``s [T_r]_r`` (n x h dV; MHA's ``W^O`` is applied by :func:`_mha`). Only one head's
    n x n block is alive at a time. ``vmeans``: filled with the values' column means
    (value and MHA cases, :func:`_head_terms`)."""
    # a fourth stream for the floor's noise: spawn(4)'s first three are spawn(3)'s
    weights_seq, output_seq, noise_seq, floor_seq = np.random.SeedSequence(seed).spawn(4)
    wgen, ngen = bk.generator(weights_seq), bk.generator(noise_seq)
    fgen = bk.generator(floor_seq) if FLOOR_MODEL in models else None
    acc: dict[str, Any] = {}
    if case.startswith(("value", "mha")):
        width = dims.dV
        for model in models:
            acc[model] = bk.empty((dims.n, dims.h * width))
        scales = {model: _scale(case, model, dims.n, dims.h) for model in models}
        for r, terms in enumerate(_head_terms(case, dims, bk, wgen, ngen, models,
                                                    vmeans, fgen)):
            for model, t in terms.items():  # scaled as it is stored: no extra pass
                bk.xp.multiply(t, scales[model], out=acc[model][:, r * width:(r + 1) * width])
            del terms
        return acc, output_seq
    for terms in _head_terms(case, dims, bk, wgen, ngen, models, fgen=fgen):
        for model, t in terms.items():
            piece = t @ t.T if case == "attention" else t
            if model in acc:
                acc[model] += piece
            else:
                acc[model] = piece
        del terms
    for model in models:
        s = _scale(case, model, dims.n, dims.h)
        acc[model] *= s * s if case == "attention" else s
    return acc, output_seq


def _grams(case: str, dims: Dims, seed: Seed, bk: Backend, models: tuple[str, ...],
           tops: dict[str, float] | None = None, lower_only: bool = False
           ) -> Iterator[tuple[str, Any]]:
    """``(model, Gram)``: the n x n Gram of each requested model (table above), one at a
    time, so that a caller that consumes each before the next holds one Gram only.
    ``lower_only``: a product Gram may hold only its lower triangle (:meth:`Backend.gram`),
    for a caller that passes it to :meth:`Backend.eigvalsh` alone.
    ``tops``: for an MHA case with the softmax model, ``tops["softmax"]`` is set to
    ``s_1(MHA)^2 / n`` of the uncentred MHA ``Z W^O + 1 vbar^T`` (theory §4.1; by
    :func:`freege.validation.sampling.eigensolver.top_singular_value`, the rank-one term never
    formed) before its Gram is handed out."""
    mha = case.startswith("mha")
    vmeans: list[Any] | None = [] if mha and tops is not None and "softmax" in models \
        else None
    acc, output_seq = _matrices(case, dims, seed, bk, models, vmeans)
    if case == "attention":
        yield from _pop_all(acc)
        return
    u = bk.xp.concatenate(vmeans) if vmeans else None
    mats = _mha(acc, dims, bk, output_seq, u) if mha else _with_none(_pop_all(acc))
    for model, m, vbar in mats:
        if vbar is not None and tops is not None:
            from freege.validation.sampling.eigensolver import top_singular_value

            tops[model] = top_singular_value(bk.xp, m, shift=vbar) ** 2 / dims.n
        gram = bk.gram(m, lower_only=lower_only)
        del m
        yield model, gram
        del gram


def _with_none(items: Iterator[tuple[str, Any]]) -> Iterator[tuple[str, Any, None]]:
    """``items`` with a None third element (no ``vbar``, see :func:`_mha`)."""
    for model, m in items:
        yield model, m, None


def _pop_all(acc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``acc``'s items, each removed from it as it is handed out."""
    while acc:
        model = next(iter(acc))
        yield model, acc.pop(model)


def case_eigenvalues(case: str, dims: Dims, *, seed: Seed, model: str = "ge",
                     backend: str | Backend = "numpy", dtype: str | None = None
                     ) -> np.ndarray:
    """Ascending eigenvalues (float64 NumPy array) of the n x n Gram of the theory §4
    matrix of ``case`` (module table), for ``model`` ``softmax`` (centred softmax) or
    ``ge`` (Gaussian equivalent, fresh noise, the same Q/K/V for the same ``seed``) or
    :data:`FLOOR_MODEL` (a second GE: the same weights, other noise).
    The mean eigenvalue tends to the theory §4 mean m1 of the case. K/V grouping follows
    ``dims.sharing`` (theory §1.1); ``*-tied`` cases set V_r = K_r. ``dtype``: working
    precision (default: the backend's, float64)."""
    allowed = (*MODELS, FLOOR_MODEL, ROW_MODEL, ROW_N_MODEL)
    if model not in allowed:
        raise ValueError(f"model must be one of {', '.join(allowed)} (got {model!r})")
    _check_case(case, dims)
    bk = get_backend(backend, dtype)
    for _model, gram in _grams(case, dims, seed, bk, (model,), lower_only=True):
        return bk.eigvalsh(gram, overwrite=True)
    raise AssertionError("unreachable: one model was asked for")


@dataclass(frozen=True)
class Draw:
    """One draw of theory §6.1: ascending eigenvalues of ``MHA^perp MHA^perp^T``
    (``softmax``) and ``(1/n) MHA^G MHA^G^T`` (``ge``) for the same weights, with the
    wall time and peak memory of the draw (bytes; see :meth:`Backend.memory`), and
    ``outlier``: ``s_1(MHA)^2 / n`` of the softmax model's uncentred MHA (theory §4.1),
    taken from the draw's own ``Z W^O`` in the working dtype. ``ge_floor``: with
    ``floor=True``, the eigenvalues of :data:`FLOOR_MODEL` (the noise floor's second GE:
    the same weights, fresh GE noise), else None. ``ge_row``, ``ge_row_n``
    and ``ge_realised``: the spectra of the conditional Gaussian equivalent, of the same
    with the finite-n row coefficient, and of its realised-row twin (theory §2.3) when
    the draw was asked for them, else None."""

    softmax: np.ndarray
    ge: np.ndarray
    seconds: float
    peak_bytes: int
    outlier: float
    ge_floor: np.ndarray | None = None
    ge_row: np.ndarray | None = None
    ge_realised: np.ndarray | None = None
    ge_row_n: np.ndarray | None = None


#: the models ``draw(finite_width=True)`` adds (theory §2.3)
FINITE_WIDTH_MODELS: tuple[str, ...] = (ROW_MODEL, ROW_N_MODEL, REALISED_MODEL)


def draw(dims: Dims, *, seed: Seed, backend: str | Backend = "numpy",
         dtype: str | None = None, floor: bool = False, finite_width: bool = False,
         extra: tuple[str, ...] = ()) -> Draw:
    """Sample one draw of theory §6.1 for ``dims`` (``mha``, or ``mha-tied`` when tied):
    both models in one streamed pass over the heads; peak memory O(n^2 + n(h dV + dO)).
    ``dtype``: working precision (default: the backend's, float64). ``floor``: also the
    noise floor's second GE (:data:`FLOOR_MODEL`). ``finite_width``: the
    conditional Gaussian equivalents of theory §2.3 too (``Draw.ge_row``,
    ``Draw.ge_row_n``, ``Draw.ge_realised``); ``extra``: some of them only
    (:data:`FINITE_WIDTH_MODELS`). The softmax and GE spectra are those of the same seed
    without any of these."""
    unknown = sorted(set(extra) - set(FINITE_WIDTH_MODELS))
    if unknown:
        raise ValueError(f"extra models must be among {', '.join(FINITE_WIDTH_MODELS)} (got "
                         f"{', '.join(unknown)})")
    bk = get_backend(backend, dtype)
    case = case_for(dims)
    wanted = FINITE_WIDTH_MODELS if finite_width else extra
    models = (*MODELS, *(m for m in FINITE_WIDTH_MODELS if m in wanted),
              *((FLOOR_MODEL,) if floor else ()))
    start = time.perf_counter()
    with bk.memory() as meter:
        spectra: dict[str, np.ndarray] = {}
        tops: dict[str, float] = {}
        for model, gram in _grams(case, dims, seed, bk, models, tops, lower_only=True):
            spectra[model] = bk.eigvalsh(gram, overwrite=True)
            del gram  # before the next model's arrays are made
        bk.synchronize()
    return Draw(spectra["softmax"], spectra["ge"], time.perf_counter() - start,
                int(meter.peak_bytes or 0), tops["softmax"], ge_floor=spectra.get(FLOOR_MODEL),
                ge_row=spectra.get(ROW_MODEL), ge_realised=spectra.get(REALISED_MODEL),
                ge_row_n=spectra.get(ROW_N_MODEL))


def mha_features(dims: Dims, *, seed: Seed, backend: str | Backend = "numpy",
                 dtype: str | None = None) -> tuple[Any, Any]:
    """``(MHA^perp, MHA^G / sqrt(n))`` as n x dO backend arrays for the same weights
    (theory §2, §5): both Grams tend to the same law with mean m1 (module table)."""
    bk = get_backend(backend, dtype)
    acc, output_seq = _matrices(case_for(dims), dims, seed, bk, MODELS)
    out = {model: m for model, m, _ in _mha(acc, dims, bk, output_seq)}
    return out["softmax"], out["ge"]
