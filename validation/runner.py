"""The theory §6.1 protocol: draws of softmax MHA vs its Gaussian equivalent, summarised.

Draw ``i`` of a run with seed ``s`` uses the seed ``(s, i)``; every draw compares all n
eigenvalues (largest included) of ``MHA^perp MHA^perp^T`` and ``(1/n) MHA^G MHA^G^T``
for the same weights by relative W1 (divided by the limiting mean of theory §4) and KS,
and reports mean ± Student-t 95% half-width over draws.

Beside each distance, its noise floor, paired like the comparison: on every draw the same
metric between the GE spectrum and a second GE with the *same* weights and fresh GE noise
(:data:`freege.validation.sampling.sample.FLOOR_MODEL`, one more model per draw), the
distance that sampling noise alone produces with the weights shared as softmax and GE
share them (:func:`noise_floor`). The verdict (:mod:`freege.validation.sampling.verdict`)
decides from the per-draw differences distance - floor. :data:`DEFINITIONS` says in one
line what each printed metric is.

Imports: the sampling path (this module, :mod:`freege.validation.sampling.sample`) loads neither
sympy
nor scipy.stats; the limiting moments (:mod:`freege.validation.sampling.limits`) read generated
source (sympy derives them once, on a cold cache) and :meth:`Validation.summary` takes
its Student-t quantile from scipy.special (tests/validation/test_draws_imports.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from freege.params import Dims
from freege.validation.sampling import metrics, verdict
from freege.validation.sampling.backend import PEAK_MEMORY_MEANS, Backend, get_backend
from freege.validation.sampling.sample import ROW_N_MODEL, Draw, case_for, draw

#: one-line definitions of the printed metrics (theory §6.1)
DEFINITIONS: dict[str, str] = {
    "rel_w1": "relative W1 = mean_i |a_(i) - b_(i)| / m1 (W1 of the sorted spectra a, b over "
              "the limiting mean)",
    "ks": "KS = max_x |F_a(x) - F_b(x)|, the largest gap between the two empirical CDFs",
    "noise_floor": "noise floor = the same metric between the GE and a second GE with the "
                   "same weights and fresh noise, per draw (paired as softmax vs GE are)",
    "moment_error": "m_q error = empirical m_q / limit - 1 (theory §4); '*' marks a 95% "
                    "interval that excludes 0: a finite-n bias beyond sampling noise (the "
                    "other model's error shows how much of it the GE shares)",
    "verdict": verdict.DEFINITION,
}


def floor_values(draws: list[Draw], m1: float, tolerance: float) -> dict[str, list[float]]:
    """Per draw, relative W1 (over ``m1``) and KS between the GE spectrum and the floor's
    second GE (drawn with ``floor=True``). ``tolerance``: the numerical-zero rule of
    :func:`metrics.ks`."""
    if any(d.ge_floor is None for d in draws):
        raise ValueError("a noise floor needs draws made with floor=True")
    return {"rel_w1": [metrics.rel_w1(d.ge, d.ge_floor, m1) for d in draws],
            "ks": [metrics.ks(d.ge, d.ge_floor, tolerance) for d in draws]}


def noise_floor(values: dict[str, list[float]]) -> dict:
    """``{"draws": k, "rel_w1": {"mean", "ci95"}, "ks": {...}}`` of the per-draw floor
    values of :func:`floor_values`, the CI a Student-t 95% half-width over the ``k >= 2``
    draws."""
    out: dict = {"draws": len(values["rel_w1"])}
    for name, v in values.items():
        mean, ci = metrics.mean_ci(v)
        out[name] = {"mean": mean, "ci95": ci}
    return out


@dataclass
class Validation:
    """Per-draw results of a validation run (theory §6.1)."""

    dims: Dims
    backend: str
    seed: int
    limiting_moments: list[float]
    dtype: str = "float64"
    draws: list[Draw] = field(default_factory=list)
    rel_w1: list[float] = field(default_factory=list)
    ks: list[float] = field(default_factory=list)
    floor: dict[str, list[float]] = field(default_factory=lambda: {"rel_w1": [], "ks": []})
    #: the finite-width moments of theory §2.3 (finite-n row coefficient) when the run
    #: compares the conditional Gaussian equivalent too, else None
    finite_width_moments: list[float] | None = None

    @property
    def limiting_mean(self) -> float:
        return self.limiting_moments[0]

    def summary(self) -> dict:
        """Mean ± 95% half-width of rel W1 and KS (fractions) and of the relative errors
        of the first two empirical moments per model (theory §4), the distances'
        :func:`noise_floor` and the ``verdict`` from both (its decision, its per-metric
        comparisons and its text line), seconds per draw (mean) and peak memory (max; what
        it measures: ``peak_memory_means``)."""
        w1_mean, w1_ci = metrics.mean_ci(self.rel_w1)
        ks_mean, ks_ci = metrics.mean_ci(self.ks)
        moment_err = {}
        for model in ("softmax", "ge"):
            errs = np.array([metrics.moment_errors(getattr(d, model), self.limiting_moments)
                             for d in self.draws])
            moment_err[model] = {
                f"m{q + 1}": dict(zip(("mean", "ci95"), metrics.mean_ci(errs[:, q]),
                                      strict=True))
                for q in range(errs.shape[1])
            }
        out = {
            "case": case_for(self.dims),
            "draws": len(self.draws),
            "backend": self.backend,
            "dtype": self.dtype,
            "seed": self.seed,
            "limiting_mean": self.limiting_mean,
            "rel_w1": {"mean": w1_mean, "ci95": w1_ci},
            "ks": {"mean": ks_mean, "ci95": ks_ci},
            "noise_floor": noise_floor(self.floor),
            "verdict": self.verdict(),
            "limiting_m2": self.limiting_moments[1],
            "moment_rel_error": moment_err,
            "seconds_per_draw": float(np.mean([d.seconds for d in self.draws])),
            "peak_memory_bytes": max(d.peak_bytes for d in self.draws),
            "peak_memory_means": PEAK_MEMORY_MEANS[self.backend],
        }
        if self.finite_width_moments is not None:
            out["finite_width"] = self._finite_width_summary()
        return out

    def _finite_width_summary(self) -> dict:
        """The softmax against the conditional Gaussian equivalent with the finite-n row
        coefficient (``ge_row_n``) and against the finite-width moments (theory §2.3)."""
        tol = metrics.zero_tolerance(self.dtype)
        limits = self.finite_width_moments
        cond = [d.ge_row_n for d in self.draws]

        def ci(values: list[float]) -> dict:
            return dict(zip(("mean", "ci95"), metrics.mean_ci(values), strict=True))

        errors = {}
        for model, spectra in (("softmax", [d.softmax for d in self.draws]),
                               ("ge_row_n", cond)):
            errs = np.array([metrics.moment_errors(e, limits) for e in spectra])
            errors[model] = {f"m{q + 1}": ci(errs[:, q]) for q in range(errs.shape[1])}
        return {
            "model": ROW_N_MODEL,
            "rel_w1": ci([metrics.rel_w1(d.softmax, c, self.limiting_mean)
                          for d, c in zip(self.draws, cond, strict=True)]),
            "ks": ci([metrics.ks(d.softmax, c, tol) for d, c in zip(self.draws, cond,
                                                                     strict=True)]),
            # the plain GE's paired floor (GE vs a second GE with the same weights)
            "noise_floor": noise_floor(self.floor),
            "limiting_moments": limits,
            "moment_rel_error": errors,
        }

    def verdict(self) -> dict:
        """The verdict of relative W1 and KS against their paired floors
        (:mod:`freege.validation.sampling.verdict`)."""
        found = [verdict.compare(name, getattr(self, key), self.floor[key])
                 for key, name in (("rel_w1", "relative W1"), ("ks", "KS"))]
        return {"decision": verdict.overall(found),
                "comparisons": [c.as_dict() for c in found], "line": verdict.line(found)}


def validate(dims: Dims, *, draws: int, seed: int = 0, backend: str | Backend = "auto",
             dtype: str | None = None,
             on_draw: Callable[[int, Draw], None] | None = None,
             finite_width: bool = False) -> Validation:
    """Run ``draws`` draws of theory §6.1 for ``dims`` (``draws >= 2``: a CI is reported),
    each with the noise floor's second GE (``draw(..., floor=True)``), in ``dtype``
    (float64 by default, or float32; :mod:`freege.validation.sampling.backend`).
    ``on_draw(i, draw)`` is called after each draw (progress bars). ``finite_width``: each
    draw also samples the conditional Gaussian equivalent with the finite-n row
    coefficient (theory §2.3), summarised against the finite-width moments (needs
    ``dK >= 2``)."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 2:
        raise ValueError(f"draws must be an integer >= 2 for a 95% CI (got {draws!r})")
    fw_moments = None
    if finite_width:
        from freege.validation.finite_width import finite_n_moments

        fw_moments = finite_n_moments(dims)  # refuses dK < 2 before any draw
    bk = get_backend(backend, dtype)
    from freege.validation.sampling.limits import limiting_moments  # sympy only on a cold cache

    limits = limiting_moments(case_for(dims), dims, 2)
    m1 = limits[0]
    result = Validation(dims=dims, backend=bk.name, seed=seed, limiting_moments=limits,
                        dtype=bk.dtype, finite_width_moments=fw_moments)
    extra = (ROW_N_MODEL,) if finite_width else ()
    for i in range(draws):
        d = draw(dims, seed=(seed, i), backend=bk, floor=True, extra=extra)
        result.draws.append(d)
        tol = metrics.zero_tolerance(bk.dtype)
        result.rel_w1.append(metrics.rel_w1(d.softmax, d.ge, m1))
        result.ks.append(metrics.ks(d.softmax, d.ge, tol))
        for key, values in floor_values([d], m1, tol).items():
            result.floor[key] += values
        if on_draw is not None:
            on_draw(i, d)
    return result
