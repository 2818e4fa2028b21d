"""A model's own weights, sampled: softmax MHA with exactly the given ``V_r`` and ``W^O``
against the predicted law of :func:`freege.numeric.weights_law.weights_law`
(docs/weights.md; theory §1, §2, §6.1).

Each draw samples Gaussian queries and keys ``Q_r, K_r`` (n x dK, i.i.d. N(0, 1), per
head), forms ``MHA^perp = [A_1^perp V_1 | ... | A_h^perp V_h] W^O`` with
``A_r^perp = softmax_rows(beta Q_r K_r^T / sqrt(dK)) - 1 1^T / n``
(:func:`freege.validation.sampling.sample.centred_softmax_values`, the sampler's own
kernel) and takes all n eigenvalues of ``MHA^perp (MHA^perp)^T`` -- the normalisation of
:mod:`freege.validation.sampling.sample` (case ``mha``: no extra factor).

**Metrics** (per draw, against the law, not against a second sample):

* relative W1: ``mean_i |x_(i) - F^{-1}((i - 1/2)/n)|`` over the sorted eigenvalues
  ``x_(i)``, divided by the predicted law's mean;
* KS: ``sup_x |F_n(x) - F(x)|``, the law's atoms (its atom at 0 when dO < n) compared as
  atoms (sample values at most :data:`freege.validation.sampling.metrics.ZERO_TOLERANCE`
  of the largest count as exact zeros).

**Noise floor and verdict** (theory §6.1's pairing, adapted to a law): on draw ``i``
the floor is the same metric between the law and a sample of the Gaussian equivalent
drawn with the same weights and the same keys ``K_r`` as the softmax of that draw --
given the keys its rows are independent N(0, Omega / n) (:mod:`freege.weights`), so it
is sampled exactly as ``Z Omega^{1/2} / sqrt(n)`` with a fresh n x dO Gaussian ``Z``.
The floor is what a sample that follows the Gaussian-equivalent model exactly scores
against the prediction at this n: finite-n fluctuation plus the (O(1/dO)) error of the
pooled key draws. The verdict (:mod:`freege.validation.sampling.verdict`) decides the
paired differences ``metric_i - floor_i``: *within the noise floor* (consistent) when
their 95% interval reaches 0 or below, *above the noise floor* when it lies above 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from freege.numeric.weights_law import weights_law
from freege.validation.sampling.metrics import ZERO_TOLERANCE
from freege.validation.sampling.sample import centred_softmax_values
from freege.validation.sampling.verdict import Comparison, compare, overall
from freege.weights import KEY_DRAWS, check_weights, omega, output_blocks

#: default draws of :func:`compare_weights`
DRAWS = 5


def _keys(rng: np.random.Generator, h: int, n: int, dK: int) -> tuple[np.ndarray, np.ndarray]:
    """Queries and keys of every head, ``(h, n, dK)`` each, i.i.d. N(0, 1)."""
    q = rng.standard_normal((h, n, dK))
    k = rng.standard_normal((h, n, dK))
    return q, k


def _gram_eigenvalues(m: np.ndarray) -> np.ndarray:
    """Ascending eigenvalues of the n x n ``m m^T`` (through the dO x dO ``m^T m``, with
    n - dO exact zeros, when dO < n)."""
    n, d_o = m.shape
    if d_o >= n:
        return np.linalg.eigvalsh(m @ m.T)
    small = np.linalg.eigvalsh(m.T @ m)
    return np.sort(np.concatenate([np.zeros(n - d_o), small]))


def softmax_output(V: np.ndarray, WO: np.ndarray, beta: float, q: np.ndarray,
                   k: np.ndarray) -> np.ndarray:
    """``MHA^perp`` (n x dO) for the given weights, queries and keys (module docstring)."""
    h, n, dv = V.shape
    out = np.zeros((n, WO.shape[1]))
    scores = np.empty((n, n))
    for r in range(h):
        z = centred_softmax_values(np, q[r], k[r], V[r], float(beta), scores)
        out += z @ WO[r * dv:(r + 1) * dv]
    return out


def sample_softmax_spectrum(V: Any, WO: Any, beta: float, dK: int,
                            rng: np.random.Generator) -> np.ndarray:
    """Ascending eigenvalues of ``MHA^perp (MHA^perp)^T`` for the given weights (layout of
    :mod:`freege.weights`), queries and keys drawn from ``rng``."""
    v, wo = check_weights(V, WO)
    q, k = _keys(rng, v.shape[0], v.shape[1], int(dK))
    return _gram_eigenvalues(softmax_output(v, wo, beta, q, k))


def ge_spectrum(T: np.ndarray, beta: float, k: np.ndarray, rng: np.random.Generator
                ) -> np.ndarray:
    """Ascending eigenvalues of the Gaussian equivalent's Gram ``M M^T`` for the blocks
    ``T`` (:func:`freege.weights.output_blocks`) and keys ``k``: ``M = Z Omega^{1/2} /
    sqrt(n)``, exact in law given the keys (module docstring)."""
    n = T.shape[1]
    om = omega(T, beta, k.shape[2], k)
    lam, u = np.linalg.eigh(om)
    root = (u * np.sqrt(np.clip(lam, 0.0, None))) @ u.T
    m = rng.standard_normal((n, T.shape[2])) @ root / math.sqrt(n)
    return _gram_eigenvalues(m)


def _zeros(x: np.ndarray) -> np.ndarray:
    x = np.sort(np.asarray(x, dtype=np.float64))
    top = float(np.max(np.abs(x)))
    return np.where(np.abs(x) <= ZERO_TOLERANCE * top, 0.0, x)


def rel_w1_to_law(eigs: np.ndarray, quantiles: np.ndarray, mean: float) -> float:
    """Relative W1 between the sample and the law given by its quantiles at
    ``(i - 1/2)/n`` (module docstring)."""
    return float(np.mean(np.abs(np.sort(eigs) - quantiles)) / mean)


def ks_to_law(eigs: np.ndarray, law: Any) -> float:
    """KS between the sample's empirical CDF and the law's (atoms as atoms)."""
    x = _zeros(eigs)
    n = x.size
    values, first = np.unique(x, return_index=True)
    last = np.append(first[1:], n)  # F_n just after each value: last / n, before: first / n
    f = np.asarray(law.cdf(values), dtype=np.float64)
    atoms = law.atoms()
    jump = np.array([sum(float(p) for a, p in atoms.items() if float(a) == v) for v in values])
    return float(max(np.max(last / n - f), np.max((f - jump) - first / n), 0.0))


@dataclass(frozen=True)
class WeightsComparison:
    """:func:`compare_weights`'s result: the law, its mean, per-draw metrics of the
    softmax and of the floor's Gaussian-equivalent sample, their
    :class:`~freege.validation.sampling.verdict.Comparison` per metric and the overall
    decision (``consistent``: within the noise floor)."""

    law: Any
    mean: float
    rel_w1: Comparison
    ks: Comparison
    decision: str
    per_draw: dict[str, list[float]]

    @property
    def within_floor(self) -> bool:
        return self.decision == "consistent"

    def as_dict(self) -> dict[str, Any]:
        return {"law": str(self.law), "mean": self.mean, "rel_w1": self.rel_w1.as_dict(),
                "ks": self.ks.as_dict(), "decision": self.decision,
                "within_noise_floor": self.within_floor, "per_draw": self.per_draw}


def compare_weights(V: Any, WO: Any, beta: float, dK: int, draws: int = DRAWS,
                    seed: int = 0, key_draws: int = KEY_DRAWS, law: Any = None
                    ) -> WeightsComparison:
    """Sampled softmax with the given weights against the predicted law (module
    docstring): ``draws`` seeded draws (each: queries, keys and the floor's noise from its
    own stream of ``seed``); ``law``: the prediction when already built (default
    :func:`~freege.numeric.weights_law.weights_law` at ``key_draws`` and ``seed``)."""
    v, wo = check_weights(V, WO)
    if isinstance(draws, bool) or int(draws) != draws or draws < 1:
        raise ValueError(f"draws must be an integer >= 1 (got {draws!r})")
    h, n, _ = v.shape
    law = weights_law(v, wo, beta, dK, key_draws, seed) if law is None else law
    mean = float(law.moment(1))
    quantiles = np.asarray(law.ppf((np.arange(n) + 0.5) / n), dtype=np.float64)
    T = output_blocks(v, wo)
    per: dict[str, list[float]] = {"rel_w1": [], "ks": [], "floor_rel_w1": [], "floor_ks": []}
    for stream in np.random.SeedSequence([int(seed), 1]).spawn(int(draws)):
        key_seq, noise_seq = stream.spawn(2)
        q, k = _keys(np.random.default_rng(key_seq), h, n, int(dK))
        soft = _gram_eigenvalues(softmax_output(v, wo, beta, q, k))
        ge = ge_spectrum(T, beta, k, np.random.default_rng(noise_seq))
        for prefix, eigs in (("", soft), ("floor_", ge)):
            per[prefix + "rel_w1"].append(rel_w1_to_law(eigs, quantiles, mean))
            per[prefix + "ks"].append(ks_to_law(eigs, law))
    w1c = compare("relative W1", per["rel_w1"], per["floor_rel_w1"])
    ksc = compare("KS", per["ks"], per["floor_ks"])
    return WeightsComparison(law, mean, w1c, ksc, overall([w1c, ksc]), per)


__all__ = ["DRAWS", "WeightsComparison", "compare_weights", "ge_spectrum", "ks_to_law",
           "rel_w1_to_law", "sample_softmax_spectrum", "softmax_output"]
