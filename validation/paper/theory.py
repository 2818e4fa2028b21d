"""Theory side of the paper reproduction (theory §5, §6.4): limiting ridge errors,
learning curves, arrival times and densities at a configuration's *realised* widths
(float64 through :mod:`freege.validation.paper.setups` and :mod:`freege.numeric.readout`), and
at real ratios; a theory curve refined where it bends (:func:`refined_curve`). What only
one panel evaluates (2(b)'s map, 2(c)'s paths, 2(d)'s ratio and crossover) is in that
panel's module of :mod:`freege.validation.paper.panels`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from freege.numeric import readout
from freege.params import Dims, Ratios
from freege.validation.paper import setups

#: how far a theory curve drawn with straight segments may depart from the theory between
#: two points, as a fraction of the curve's range (about a pixel of a panel's axes)
CURVE_TOLERANCE = 2e-3
#: halvings of a segment at most (:func:`refined_curve`)
CURVE_ROUNDS = 6


def refined_curve(f: Callable[[float], float], xs: Sequence[float], *, log_y: bool = False,
                  tolerance: float = CURVE_TOLERANCE, rounds: int = CURVE_ROUNDS
                  ) -> tuple[list[float], list[float]]:
    """A theory curve ``(x, f(x))`` fine where it bends: ``f`` on ``xs``, then at the
    midpoint of every segment, each midpoint kept and its two halves halved again while
    it lies farther from the segment's chord than ``tolerance`` times the curve's range
    (in ``log y`` with ``log_y``; at most ``rounds`` halvings). Drawn with straight
    segments, the curve then departs from ``f`` by about ``tolerance`` of its range.
    Every point is ``f``'s own value: nothing is interpolated."""
    values = {float(x): float(f(float(x))) for x in xs}

    def level(y: float) -> float:
        return math.log(y) if log_y and y > 0 else y

    todo = list(zip(sorted(values), sorted(values)[1:], strict=False))
    for _ in range(rounds):
        if not todo:
            break
        levels = [level(y) for y in values.values() if math.isfinite(level(y))]
        span = max(levels) - min(levels) if levels else 0.0
        bent = []
        for a, b in todo:
            m = (a + b) / 2
            values[m] = float(f(m))
            gap = level(values[m]) - (level(values[a]) + level(values[b])) / 2
            if abs(gap) > tolerance * span:  # NaN (a value f has not): not refined
                bent += [(a, m), (m, b)]
        todo = bent
    x = sorted(values)
    return x, [values[v] for v in x]


def _dims(config_dims: dict[str, Any], beta: float = 1.0) -> Dims:
    return Dims(**{**config_dims, "beta": beta})


def ratios(config_dims: dict[str, Any]) -> Ratios:
    """The limit parameters of a configuration at its realised widths (theory §1.2)."""
    return _dims(config_dims).ratios


def ridge(config_dims: dict[str, Any], beta: float = 1.0) -> float:
    """Limiting ridge coefficient error at the realised ratios (theory §5)."""
    return float(setups.error(_dims(config_dims, beta), setups.Readout(), None))


def ridge_from_cauchy(law: Any, mean: float, g_o: float, lam: float, sigma2: float
                      ) -> float:
    """Ridge coefficient error ``E(lam) = 1 - w/gO + (lam/gO - sigma^2) w'(lam)`` (theory
    §5) of ``law`` divided by ``mean``, from its float64 ``(G, G')`` at ``-mean lam``
    (``law.cauchy_pair_f64``: each point a verified solve): ``w = 1 + lam Gbar(-lam)``,
    ``w' = Gbar(-lam) - lam Gbar'(-lam)``, ``Gbar(z) = mean G(mean z)``."""
    g, dg = (float(np.real(v[0])) for v in law.cauchy_pair_f64(np.array([-mean * lam + 0j])))
    g_bar, dg_bar = mean * g, mean * mean * dg
    w, w_prime = 1 + lam * g_bar, g_bar - lam * dg_bar
    return 1 - w / g_o + (lam / g_o - sigma2) * w_prime


def ridge_finite_width(config_dims: dict[str, Any], lam: float, sigma2: float,
                       beta: float = 1.0) -> float:
    """Ridge coefficient error of the finite-width law (theory §2.3, the finite-n row
    coefficient: ``freege.numeric.law(case, dims, finite_width=True)``) at the realised
    dimensions, its spectrum divided by the plain limiting mean as the measured Gram is
    (:func:`freege.validation.paper.measure.limiting_mean`); :func:`ridge_from_cauchy`."""
    from freege.numeric import law as case_law

    dims = _dims(config_dims, beta)
    mean = float(case_law("mha", dims).mean())
    fw = case_law("mha", dims, finite_width=True)
    return ridge_from_cauchy(fw, mean, dims.dO / dims.n, lam, sigma2)


#: density grid points of the finite-width law's quantiles (:func:`law_quantiles`; as
#: ``benchmarks/finite_width_law.py``) and the grid's top, in units of the limit's top
#: quantile
FW_GRID, FW_REACH = 2000, 2.5


def has_finite_width_law(dims: Dims) -> bool:
    """Whether the finite-width law exists at ``dims``: ``dK > 4 beta^2`` (theory §2.3,
    the row load's second moment)."""
    return dims.dK > 4 * float(dims.beta) ** 2


@functools.lru_cache(maxsize=8)
def law_quantiles(dims: Dims) -> tuple[np.ndarray, np.ndarray]:
    """``(limit, finite-width)``: the quantiles at ``(i - 1/2)/n`` of the limiting law of
    the preset's MHA case (its verified ``ppf``) and of its finite-width law (theory
    §2.3, the finite-n row coefficient;
    :func:`freege.numeric.finite_width_law.grid_quantiles` on :data:`FW_GRID` points up to
    :data:`FW_REACH` times the limit's top quantile), in the spectra's units (Table 2's
    ``--finite-width`` columns, :func:`freege.validation.paper.measure.task`). Kept per
    process for the draws of one configuration (a pure function of ``dims``). Needs
    :func:`has_finite_width_law`."""
    from freege.numeric import law as case_law
    from freege.numeric.finite_width_law import grid_quantiles
    from freege.validation.sampling.sample import case_for

    case = case_for(dims)
    qs = (np.arange(dims.n) + 0.5) / dims.n
    limit = np.asarray(case_law(case, dims).ppf(qs), dtype=float)
    fw, _ = grid_quantiles(case_law(case, dims, finite_width=True), qs,
                           FW_REACH * float(limit[-1]), FW_GRID)
    return limit, fw


def law(config_dims: dict[str, Any]) -> Any:
    """The normalized limiting MHA law at the realised ratios (theory §4)."""
    return setups.setup_law(_dims(config_dims), None)


def loss(config_dims: dict[str, Any], times: list[float]) -> list[float]:
    """Limiting learning curve ``L(t)`` (theory §5)."""
    lw = law(config_dims)
    return [float(readout.flow_loss(lw, t)) for t in times]


def arrival(config_dims: dict[str, Any], level: float = 0.1) -> float:
    """Limiting arrival time at ``level`` (theory §5)."""
    return float(readout.arrival_time(law(config_dims), level))


def arrival_at_width(config_dims: dict[str, Any], width: float, level: float = 0.1
                     ) -> float:
    """Limiting arrival time with the real (unrounded) per-head width ``width``."""
    d = _dims(config_dims)
    w = Fraction(width)
    ratios = setups.width_ratios(d.n, d.h, w, d.dO, d.beta)
    return float(readout.arrival_time(setups.setup_law(ratios, None), level))


def ridge_ratios(h: float, g_k: float, g_v: float, g_o: float, beta: float = 1.0,
                 sharing: str = "none") -> float:
    """Limiting ridge error at real ratios (real h allowed)."""
    ratios = Ratios(beta=beta, h=h, gK=g_k, gV=g_v, gO=g_o, sharing=sharing)
    return float(setups.error(ratios, setups.Readout(), None))


def density(config_dims: dict[str, Any], x: np.ndarray) -> tuple[np.ndarray, float]:
    """The normalized limiting density on ``x`` and its atom at 0 (theory §4)."""
    lw = law(config_dims)
    mass0 = float(sum(float(m) for m in lw.atoms().values()))
    return np.asarray(lw.pdf(np.asarray(x, dtype=float)), dtype=float), mass0


def theta1_excess(dk: int, beta: float) -> float:
    """Relative excess ``mean(theta1_i) / theta1 - 1`` of the per-row effective
    coefficient at finite width (theory §6.4, finite width): ``theta1_i = exp(beta^2
    |q_i|^2 / dK) - 1`` with ``|q_i|^2 ~ chi2_dK``, whose mean is ``(1 - 2 beta^2 /
    dK)^(-dK/2) - 1``; ``inf`` when ``2 beta^2 >= dK`` (the mean diverges)."""
    if 2 * beta * beta >= dk:
        return math.inf
    mean = math.expm1(-dk / 2 * math.log1p(-2 * beta * beta / dk))
    return mean / math.expm1(beta * beta) - 1
