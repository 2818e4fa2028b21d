"""The single-head ladder of theory §6.2: seven matrices from softmax to its GE.

One head, ``X = I``, ``n = d = dK``, so ``Q, K`` are n x n with i.i.d. N(0, 1) entries
and ``S = Q K^T / sqrt(n)``. The steps follow the chain of theory §2 (constant
normalizers, centring, Gaussian rows, Sigma_G):

1. ``sqrt(n) A`` -- softmax attention;
2. ``sqrt(n) A^perp`` -- centred (the reference every step is compared with);
3. ``Y = exp(beta S) / (exp(beta^2/2) sqrt(n))`` -- row normalizers replaced by their mean;
4. ``Y_f = f(S) / sqrt(n)``, ``f(t) = exp(beta t - beta^2/2) - 1``;
5. ``Y_Q = Q_p(S) / sqrt(n)``, ``Q_p`` the degree-p Taylor polynomial of ``f`` at 0,
   centred to Gaussian mean 0, ``p = ceil(2 log n / log log n)``;
6. ``Y_Q_lin`` -- the GE of ``Q_p`` with its exact Gaussian thetas
   ``theta1 = E Q_p(Z)^2``, ``theta2 = (E Z Q_p(Z))^2``;
7. ``Y_f_lin`` -- the GE of theory §2, ``(sqrt(theta2) S + sqrt(theta1 - theta2) W)/sqrt(n)``
   (the two linearizations share the noise ``W``).

Each step's squared singular values (eigenvalues of ``M M^T``) are compared with the
reference on the bulk (top 3 removed from both) by W1 (exact, sorted) and the L1
distance of density histograms; the top 3 values and the normalizer diagnostic
``D_i = Z_i / (n exp(beta^2/2))`` (mean, std, max ``|D_i - 1|``) are reported.

The noise floor of the last comparison (softmax ``sqrt(n) A^perp`` against its GE
``Y_f_lin``, which share ``S``): a second GE :data:`FLOOR` with the same ``S`` and fresh
noise ``W'`` (a third seed stream), compared with ``Y_f_lin`` the same way; the verdict
(:mod:`freege.validation.sampling.verdict`) decides from the per-trial differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.polynomial import polynomial as P

from freege.validation.sampling import metrics, verdict
from freege.validation.sampling.backend import Backend, get_backend
from freege.validation.sampling.cost import COST_OVERHEAD_BYTES, Cost
from freege.validation.sampling.sample import Seed, thetas

STEPS: tuple[str, ...] = (
    "sqrt(n) A", "sqrt(n) A^perp", "Y", "Y_f", "Y_Q", "Y_Q_lin", "Y_f_lin",
)
REFERENCE = "sqrt(n) A^perp"
#: the GE step compared with the reference, and the noise floor's second GE (same S,
#: fresh noise), compared with it
GE_STEP = "Y_f_lin"
FLOOR = "Y_f_lin'"
#: what the printed columns are (theory §6.2)
COLUMNS: dict[str, str] = {
    "top": "top 3 squared singular values = the three largest eigenvalues of M M^T (the "
           "outliers, left out of the bulk)",
    "W1": "W1 = Wasserstein-1 distance between the step's bulk and the reference's bulk "
          "(mean |a_(i) - b_(i)| over the sorted eigenvalues, top 3 removed; not relative)",
    "L1 hist": "L1 hist = sum over 100 common equal-width bins of |density histogram of the "
               "step - that of the reference| x bin width, in [0, 2]",
    "floor": f"noise floor = the same distances between {GE_STEP} and {FLOOR}, a second GE "
             "with the same scores S and fresh noise (paired as the softmax and its GE are)",
}
#: number of top squared singular values removed before bulk comparisons (theory §6.2)
TOP = 3
#: the smallest ladder: n = TOP + 1 leaves one bulk value to compare
N_MIN = TOP + 1


def taylor_degree(n: int) -> int:
    """``p = ceil(2 log n / log log n)`` (theory §6.2); needs n >= 3 (log log n > 0)."""
    if n < 3:
        raise ValueError(f"n must be >= 3 for the Taylor degree (got {n})")
    return math.ceil(2 * math.log(n) / math.log(math.log(n)))


def _gaussian_moments(k: int) -> np.ndarray:
    """``E Z^j`` for j = 0..k, Z ~ N(0, 1): 0 for odd j, (j-1)!! for even j."""
    m = np.zeros(k + 1)
    m[0] = 1.0
    for j in range(2, k + 1, 2):
        m[j] = m[j - 2] * (j - 1)
    return m


def _gauss_mean(coef: np.ndarray) -> float:
    return float(np.dot(coef, _gaussian_moments(len(coef) - 1)))


def centred_taylor(beta: float, p: int) -> np.ndarray:
    """Ascending coefficients of ``Q_p``: the degree-p Taylor polynomial of
    ``f(t) = exp(beta t - beta^2/2) - 1`` at 0, minus its Gaussian mean (theory §6.2)."""
    coef = np.array([math.exp(-beta**2 / 2) * beta**k / math.factorial(k)
                     for k in range(p + 1)])
    coef[0] -= _gauss_mean(coef)
    return coef


def polynomial_thetas(coef: np.ndarray) -> tuple[float, float]:
    """Exact Gaussian ``(theta1, theta2) = (E Q(Z)^2, (E Z Q(Z))^2)`` of a polynomial Q
    (theory §2 definitions applied to Q), from the moments of N(0, 1)."""
    square = P.polymul(coef, coef)
    first = P.polymul(coef, [0.0, 1.0])
    return _gauss_mean(square), _gauss_mean(first) ** 2


def trial_cost(n: int) -> Cost:
    """The :class:`freege.validation.sampling.cost.Cost` of one :func:`trial` at size ``n``:
    at most seven n x n float64 arrays alive at once (S, W, exp(beta S), A, a step's matrix, its
    Gram and LAPACK's copy of it) plus the overhead; S and the seven Grams as matrix
    products; the exp, the Horner passes of Q_p and the scalings as elementwise passes;
    eight eigenvalue problems of size n (the seven steps and the floor's GE); 4 n^2
    normal draws; about 20 array operations per step and 2 per Taylor term (the
    comparison with the reference included)."""
    p = taylor_degree(n)
    models = len(STEPS) + 1
    return Cost(peak_bytes=8 * 7 * n * n + COST_OVERHEAD_BYTES,
                matmul_flops=float(2 * n**3 * (1 + models)),
                elementwise=float((2 * p + 22) * n * n), eig_sizes=(n,) * models,
                normals=float(4 * n * n), operations=float(20 * models + 2 * p + 20))


@dataclass(frozen=True)
class Trial:
    """One ladder trial: ascending squared singular values per step (and of
    :data:`FLOOR`), and the row normalizers ``D_i``."""

    spectra: dict[str, np.ndarray]
    normalizers: np.ndarray


def trial(n: int, *, seed: Seed, beta: float = 1.0,
          backend: str | Backend = "numpy") -> Trial:
    """Sample one single-head ladder (module docstring) at size ``n``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < N_MIN:
        raise ValueError(f"n must be an integer >= {N_MIN} (the top {TOP} values are set "
                         f"apart from the bulk; got {n!r})")
    bk = get_backend(backend)
    xp = bk.xp
    # spawn(3)'s first two streams are spawn(2)'s: the floor's noise is a third
    weights_seq, noise_seq, floor_seq = np.random.SeedSequence(seed).spawn(3)
    wgen = bk.generator(weights_seq)
    S = bk.normal(wgen, (n, n)) @ bk.normal(wgen, (n, n)).T
    S /= math.sqrt(n)
    W = bk.normal(bk.generator(noise_seq), (n, n))
    t1, t2 = thetas(beta)
    q = centred_taylor(beta, taylor_degree(n))
    q1, q2 = polynomial_thetas(q)
    rn = math.sqrt(n)

    def spectrum(m: object) -> np.ndarray:
        return bk.eigvalsh(m @ m.T)

    spectra: dict[str, np.ndarray] = {}
    # exp(beta S - beta^2/2) overflows only for scores beyond ~700/beta: not at N(0,1)
    e = xp.exp(beta * S - beta**2 / 2)
    z = e.sum(axis=1, keepdims=True)
    normalizers = bk.to_numpy(z[:, 0] / n)
    a = e / z
    spectra["sqrt(n) A"] = spectrum(rn * a)
    spectra["sqrt(n) A^perp"] = spectrum(rn * (a - 1.0 / n))
    del a
    spectra["Y"] = spectrum(e / rn)
    spectra["Y_f"] = spectrum((e - 1.0) / rn)
    del e
    poly = xp.zeros_like(S)
    for c in q[::-1]:  # Horner
        poly *= S
        poly += c
    spectra["Y_Q"] = spectrum(poly / rn)
    del poly
    spectra["Y_Q_lin"] = spectrum((math.sqrt(q2) * S + math.sqrt(q1 - q2) * W) / rn)
    spectra["Y_f_lin"] = spectrum((math.sqrt(t2) * S + math.sqrt(t1 - t2) * W) / rn)
    del W
    W = bk.normal(bk.generator(floor_seq), (n, n))
    spectra[FLOOR] = spectrum((math.sqrt(t2) * S + math.sqrt(t1 - t2) * W) / rn)
    return Trial(spectra, np.asarray(normalizers, dtype=np.float64))


def compare(t: Trial) -> dict[str, dict[str, object]]:
    """Per step: top squared singular values (largest first), bulk W1 and L1 histogram
    distance to the reference ``sqrt(n) A^perp`` (theory §6.2); under ``"floor"`` the
    same distances between :data:`GE_STEP` and :data:`FLOOR`."""
    ref = t.spectra[REFERENCE][:-TOP]
    out: dict[str, dict[str, object]] = {}
    for step in STEPS:
        s = t.spectra[step]
        bulk = s[:-TOP]
        out[step] = {
            "top": s[-TOP:][::-1].tolist(),
            "bulk_w1": metrics.w1(bulk, ref),
            "bulk_l1": metrics.hist_l1(bulk, ref),
        }
    ge, floor = t.spectra[GE_STEP][:-TOP], t.spectra[FLOOR][:-TOP]
    out["floor"] = {"bulk_w1": metrics.w1(floor, ge), "bulk_l1": metrics.hist_l1(floor, ge)}
    return out


def normalizer_diagnostic(d: np.ndarray) -> dict[str, float]:
    """Mean, standard deviation and max ``|D_i - 1|`` of the row normalizers (theory §2.1:
    ``max_i |D_i - 1| -> 0`` at rate ``n^(-1/2 + eps)``)."""
    return {"mean": float(d.mean()), "std": float(d.std(ddof=1)),
            "max_dev": float(np.max(np.abs(d - 1.0)))}


def run(n: int = 1000, *, trials: int = 1, seed: int = 0, beta: float = 1.0,
        backend: str | Backend = "numpy",
        on_trial: Callable[[int], None] | None = None) -> tuple[dict, Trial]:
    """Average the ladder over ``trials`` trials (seeds ``(seed, i)``): per step the
    mean of the top values, bulk W1 and L1; the normalizer diagnostic of all trials.
    Returns the summary and the last trial (for plots); ``on_trial(i)`` after each. The
    summary's ``floor`` holds the mean floor distances and ``verdict`` the decision of
    :data:`GE_STEP`'s distances against them, trial by trial."""
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be an integer >= 1 (got {trials!r})")
    bk = get_backend(backend)
    rows: list[dict[str, dict[str, object]]] = []
    norms: list[np.ndarray] = []
    for i in range(trials):
        last = trial(n, seed=(seed, i), beta=beta, backend=bk)
        rows.append(compare(last))
        norms.append(last.normalizers)
        if on_trial is not None:
            on_trial(i)
    steps = {
        step: {
            key: np.mean([r[step][key] for r in rows], axis=0).tolist()
            for key in ("top", "bulk_w1", "bulk_l1")
        }
        for step in STEPS
    }
    q = centred_taylor(beta, taylor_degree(n))
    found = [verdict.compare(label, [r[GE_STEP][key] for r in rows],
                             [r["floor"][key] for r in rows])
             for key, label in (("bulk_w1", "W1"), ("bulk_l1", "L1 hist"))]
    summary = {
        "n": n, "beta": beta, "trials": trials, "seed": seed, "backend": bk.name,
        "taylor_degree": taylor_degree(n),
        "taylor_thetas": list(polynomial_thetas(q)),
        "thetas": list(thetas(beta)),
        "reference": REFERENCE,
        "steps": steps,
        "floor": {key: float(np.mean([r["floor"][key] for r in rows]))
                  for key in ("bulk_w1", "bulk_l1")},
        "verdict": {"decision": verdict.overall(found),
                    "comparisons": [c.as_dict() for c in found],
                    "line": verdict.line(found, more="--trials")},
        "normalizer": normalizer_diagnostic(np.concatenate(norms)),
    }
    return summary, last
