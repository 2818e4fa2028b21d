"""The theory §6.3 readout experiments, theory side.

Each setup lists the configurations theory §6.3 prescribes and evaluates the theory §5
limiting predictions on them (features normalized to the mean-one MHA law):

* :func:`temperature` -- h = 96, n = 8192, d = dO = 12288, (dK, dV) = (128, 128) versus
  (64, 192) (equal parameter counts), coefficient errors over a beta grid, their ratio and
  the beta where the ratio crosses 1;
* :func:`headcount` -- n = d = 4096, dK = dV = 64: learning curves L(t) for
  h in {32, 64, 128} at dO = 2n, and coefficient errors at fixed output dO = 2048 for
  h from 16 to 120;
* :func:`budget` -- the paper's fixed-budget path: dK = dV = 64 fixed and the output
  width solved from ``h dK (3n + dO) = 6 n^2`` at each h (``gO = 6/gV - 3``), whose error
  has two peaks, near ``h dV = n`` (h = 64) and ``dO = n`` (h = 96);
* :func:`budget_widths` -- another fixed-budget path: dO = 2048 fixed and the per-head
  width dK = dV solved from the same budget;
* :func:`sharing` -- n = 4096, d = 8192, dO = 2048, h dK = 2048, dK = dV: GQA with two
  query heads per K/V pair against complete within-head tying;
* :func:`arrival` -- h = 64, n = d = 4096, dO = 2n: time to relative loss 0.1 against
  the number of K/V groups, at fixed widths and at a fixed parameter count.

Each setup's dimensions and constants are written here once: the measured panels of the
paper reproduction (:mod:`freege.validation.paper.panels`) scale these configurations.

Widths solved from a parameter budget are real numbers: the limiting laws depend on the
widths only through the ratios ``gK = h dK / n``, ``gV = h dV / n`` (theory §1.2), so a
solved width enters exactly (as a fraction) through :class:`freege.params.Ratios`;
the finite model would round it to an integer.

Numbers: every evaluation is done by :mod:`freege.numeric` -- float64 (accurate to about
1e-13) when ``dps`` is None, otherwise mpmath values with ``dps`` correct significant
digits (the numeric layer works with guard digits).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from freege.numeric import readout
from freege.numeric.case_law import law as make_law
from freege.numeric.case_law import resolve_case
from freege.params import Dims, Number, Ratios, positive, to_mpf

#: theory §6.3 defaults: inverse temperature, ridge penalty, label-noise variance
BETA = Fraction(1)
LAM = Fraction(1, 10_000)
SIGMA2 = Fraction(1, 10)
#: relative-loss level that defines the arrival time (theory §6.3)
LEVEL = Fraction(1, 10)

#: n = d of the head-count, budget and arrival setups
N = 4096
#: their per-head width dK = dV (the paper's budget path keeps it fixed)
HEAD_WIDTH = 64
#: output width dO of the fixed-output path (and of the budget-widths path)
FIXED_OUTPUT_WIDTH = 2048
#: heads of the arrival setup; h_kv = h is the model without K/V sharing
ARRIVAL_HEADS = 64

#: beta grid of the temperature setup: 0.25, 0.30, ..., 1.50
TEMPERATURE_BETAS: tuple[Fraction, ...] = tuple(Fraction(k, 100) for k in range(25, 151, 5))
#: heads of the learning-curve and fixed-output / fixed-budget setups
CURVE_HEADS: tuple[int, ...] = (32, 64, 128)
HEADCOUNT_HEADS: tuple[int, ...] = tuple(range(16, 121, 8))
#: heads of the paper's fixed-budget path (dO solved; dO > 0 needs h < 2n/dK = 128)
BUDGET_HEADS: tuple[int, ...] = tuple(range(32, 121, 8))
SHARING_HEADS: tuple[int, ...] = (2, 4, 8, 16, 32)
ARRIVAL_GROUPS: tuple[int, ...] = (64, 32, 16, 8, 4, 2, 1)
#: learning-curve times: 1, 2, 5 per decade from 0.01 to 1000 (exact decimals)
CURVE_TIMES: tuple[Fraction, ...] = (
    *(m * Fraction(10) ** e for e in range(-2, 3) for m in (1, 2, 5)), Fraction(1000),
)

Progress = Callable[[str], None]
Row = dict[str, Any]


def quiet(_: str) -> None:
    """The default progress callback: say nothing."""


@dataclass(frozen=True)
class Readout:
    """The theory §5 readout settings shared by the setups."""

    lam: Number = LAM
    sigma2: Number = SIGMA2
    level: Number = LEVEL

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", positive("lam", self.lam))
        sigma2 = self.sigma2
        if sigma2 != 0:
            sigma2 = positive("sigma2", sigma2)
        object.__setattr__(self, "sigma2", sigma2)
        level = positive("level", self.level)
        if level >= 1:
            raise ValueError(f"level must be in (0, 1) (got {self.level!r})")
        object.__setattr__(self, "level", level)


def precision(dps: int | None) -> Any:
    """The working precision for arithmetic on results (ratios, differences): ``dps``
    digits, or the float64-equivalent default when ``dps`` is None."""
    return mpmath.workdps(dps or 15)


def number(x: Number, dps: int | None) -> Any:
    """An input value as an output number: float64, or an mpf at ``dps`` digits."""
    if dps is None:
        return float(x)
    with mpmath.workdps(dps):
        return to_mpf(x)


# -- the numeric layer, in one place ---------------------------------------------------


def setup_law(config: Ratios | Dims, dps: int | None) -> Any:
    """The normalized (mean-one) MHA law of a setup's configuration, tied or not (theory §4,
    §5). Memoised per law -- the theory §4 case (``mha`` or ``mha-tied``) and the five
    ratios -- since a law caches its support, atoms and density nodes: a setup run twice
    in one process, a crossover checked afterwards, or GQA/MQA configurations whose ratios
    equal another's (theory §4: only complete tying changes the law) build it once."""
    ratios = config.ratios if isinstance(config, Dims) else config
    tied = resolve_case("mha", ratios.sharing) != "mha"
    return _law(tied, ratios.beta, ratios.h, ratios.gK, ratios.gV, ratios.gO, dps)


@functools.lru_cache(maxsize=256)
def _law(tied: bool, beta: Number, h: int, gK: Number, gV: Number, gO: Number,
         dps: int | None) -> Any:
    ratios = Ratios(beta=beta, h=h, gK=gK, gV=gV, gO=gO, sharing="tied" if tied else "none")
    return make_law("mha", ratios, normalized=True, dps=dps)


def error(config: Ratios | Dims, settings: Readout, dps: int | None) -> Any:
    """Ridge coefficient error E(lam) of the normalized MHA features (theory §5)."""
    return readout.ridge_error(setup_law(config, dps), settings.lam, settings.sigma2)


# -- configurations (theory §6.3) ---------------------------------------------------------


def temperature_dims(beta: Number = BETA) -> dict[str, Dims]:
    """The two equal-budget allocations of the temperature setup, keyed ``dK_dV``: the
    reference (128, 128) first, then (64, 192)."""
    return {
        f"{dk}_{dv}": Dims(n=8192, d=12288, h=96, dK=dk, dV=dv, dO=12288, beta=beta)
        for dk, dv in ((128, 128), (64, 192))
    }


def curve_dims(h: int, beta: Number = BETA) -> Dims:
    """Learning-curve configuration: n = d = 4096, dK = dV = 64, dO = 2n."""
    return Dims(n=N, h=h, dK=HEAD_WIDTH, dV=HEAD_WIDTH, dO=2 * N, beta=beta)


def fixed_output_dims(h: int, beta: Number = BETA) -> Dims:
    """Fixed-output configuration: n = d = 4096, dK = dV = 64, dO = 2048."""
    return Dims(n=N, h=h, dK=HEAD_WIDTH, dV=HEAD_WIDTH, dO=FIXED_OUTPUT_WIDTH, beta=beta)


def width_for_budget(n_params: int, **dims: Any) -> Fraction:
    """The per-head width ``w = dK = dV`` at which ``Dims(dK=w, dV=w, **dims).n_params``
    equals ``n_params`` (theory §5). The count is linear and homogeneous in ``w`` (every
    term carries one width), so ``w = n_params / count(w = 1)``, exactly; the linearity
    is checked against ``count(w = 2)``."""
    one = Dims(dK=1, dV=1, **dims).n_params
    if Dims(dK=2, dV=2, **dims).n_params != 2 * one:
        raise ValueError("parameter count is not linear in the width for this configuration")
    return Fraction(n_params, one)


def grown_width(dims: Dims, n_params: int) -> Fraction:
    """The per-head width ``dK = dV`` at which the configuration ``dims`` -- its n, d, h,
    dO and K/V sharing, widths replaced -- has ``n_params`` parameters
    (:func:`width_for_budget`)."""
    return width_for_budget(n_params, n=dims.n, d=dims.d, h=dims.h, dO=dims.dO,
                            sharing=dims.sharing, h_kv=dims.h_kv)


def width_ratios(n: int, h: Number, width: Number, dO: Number, beta: Number,
                 sharing: str = "none") -> Ratios:
    """Limit ratios of a configuration with real widths: per-head ``dK = dV = width``,
    output ``dO``, head count ``h``."""
    g = Fraction(h) * width / n
    return Ratios(beta=beta, h=h, gK=g, gV=g, gO=Fraction(dO, n), sharing=sharing)


def fixed_budget(n: int) -> int:
    """The parameter budget ``6 n^2`` of the fixed-budget paths (n = d; theory §6.3)."""
    return 6 * n * n


def budget_output_width(h: Number, n: int = N, dK: int = HEAD_WIDTH) -> Fraction:
    """Output width spending the fixed budget ``h dK (3n + dO) = 6 n^2`` at fixed
    dK = dV (n = d; theory §6.3), exactly: ``dO = 6 n^2 / (h dK) - 3n``, i.e.
    ``gO = 6/gV - 3``. ValueError when it is not positive (``h >= 2n/dK``)."""
    h_ = positive("h", h)
    d_out = Fraction(fixed_budget(n)) / (Fraction(h_) * dK) - 3 * n
    if d_out <= 0:
        raise ValueError(f"h must be < 2n/dK = {Fraction(2 * n, dK)} for a positive "
                         f"output width on the fixed budget (got {h})")
    return d_out


def budget_dims(h: int, n: int = N, width: int = HEAD_WIDTH) -> Dims:
    """A finite model on the paper's fixed-budget path: n = d, dK = dV = ``width`` and the
    output width :func:`budget_output_width` rounded to the nearest integer."""
    return Dims(n=n, h=h, dK=width, dV=width, dO=round(budget_output_width(h, n, width)))


def budget_width(h: int, n: int = N, dO: int = FIXED_OUTPUT_WIDTH) -> Fraction:
    """Per-head width spending the fixed budget ``h dK (3n + dO) = 6 n^2`` (n = d)."""
    return width_for_budget(fixed_budget(n), n=n, h=h, dO=dO)


def sharing_dims(h: int, beta: Number = BETA) -> dict[str, Dims]:
    """GQA (two query heads per K/V pair) and tied configurations with h dK = 2048."""
    if 2048 % h or h % 2:
        raise ValueError(f"h must be an even divisor of 2048 (got {h})")
    dk = 2048 // h
    common = {"n": 4096, "d": 8192, "h": h, "dK": dk, "dV": dk, "dO": 2048, "beta": beta}
    return {
        "gqa": Dims(sharing="gqa", h_kv=h // 2, **common),
        "tied": Dims(sharing="tied", **common),
    }


def arrival_dims(h_kv: int, beta: Number = BETA) -> Dims:
    """Fixed-width arrival configuration: the learning-curve configuration at h = 64
    (n = d = 4096, dK = dV = 64, dO = 2n) with ``h_kv`` K/V groups -- no sharing at
    h_kv = h, MQA at 1, GQA between."""
    sharing = "none" if h_kv == ARRIVAL_HEADS else "mqa" if h_kv == 1 else "gqa"
    return dataclasses.replace(curve_dims(ARRIVAL_HEADS, beta), sharing=sharing, h_kv=h_kv)


# -- setups -----------------------------------------------------------------------------


def temperature(
    betas: Sequence[Number] = TEMPERATURE_BETAS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Coefficient errors of the (64, 192) and (128, 128) allocations over ``betas``,
    ``ratio = error_64_192 / error_128_128``, and ``crossover_beta``: the beta in the grid's
    range where the two errors are equal, found by the numeric crossover finder inside
    the first grid interval where the ratio crosses 1 (None if it never does)."""
    configs = [temperature_dims(beta) for beta in betas]  # every input checked first
    rows: list[Row] = []
    for k, (beta, dims) in enumerate(zip(betas, configs, strict=True), 1):
        progress(f"temperature: beta = {float(beta):g} ({k}/{len(betas)})")
        e64 = error(dims["64_192"], settings, dps)
        e128 = error(dims["128_128"], settings, dps)
        with precision(dps):
            ratio = e64 / e128
        rows.append({
            "beta": number(beta, dps), "error_64_192": e64, "error_128_128": e128,
            "ratio": ratio,
        })
    crossover_beta = None
    for lo, hi, row_lo, row_hi in zip(betas, betas[1:], rows, rows[1:], strict=False):
        if (row_lo["ratio"] > 1) != (row_hi["ratio"] > 1) or row_lo["ratio"] == 1:
            progress(f"temperature: crossover in [{float(lo):g}, {float(hi):g}]")
            crossover_beta = readout.crossover(
                lambda b: error(temperature_dims(b)["64_192"], settings, dps),
                number(lo, dps), number(hi, dps),
                g=lambda b: error(temperature_dims(b)["128_128"], settings, dps), dps=dps,
            )
            break
    return {"rows": rows, "crossover_beta": crossover_beta}


#: points of the fine beta grid on which a figure draws the temperature ratio
CURVE_POINTS = 81


def temperature_curve(lo: Number, hi: Number, settings: Readout = Readout(),
                      through: Sequence[Number] = (), points: int = CURVE_POINTS
                      ) -> tuple[list[float], list[float]]:
    """``(betas, ratios)``: the temperature setup's ratio ``E(64, 192) / E(128, 128)`` in
    float64 on ``points`` equally spaced betas of ``[lo, hi]`` and at the betas
    ``through`` (the table's, the crossover), sorted. A figure draws it as the theory
    curve, so a straight segment between coarse table points never crosses 1 anywhere but
    at the crossover (theory §6.3)."""
    start, stop = float(lo), float(hi)
    betas = sorted({*(start + (stop - start) * k / (points - 1) for k in range(points)),
                    *(float(b) for b in through)})
    ratios = []
    for beta in betas:
        dims = temperature_dims(beta)
        ratios.append(float(error(dims["64_192"], settings, None))
                      / float(error(dims["128_128"], settings, None)))
    return betas, ratios


def headcount_curves(curve_heads: Sequence[int], lo: Number, hi: Number,
                     through: Sequence[Number] = (), points: int = CURVE_POINTS
                     ) -> dict[int, tuple[list[float], list[float]]]:
    """Per head count of ``curve_heads``: ``(times, losses)``, the headcount setup's
    learning curve L(t) (dO = 2n, theory §6.3) in float64 on ``points`` log-spaced times
    of ``[lo, hi]`` and at the times ``through`` (the table's), sorted: the line a figure
    draws, so that two tabulated times are never joined by a straight segment."""
    start, stop = math.log(float(lo)), math.log(float(hi))
    times = sorted({float(lo), float(hi), *(float(t) for t in through),
                    *(math.exp(start + (stop - start) * k / (points - 1))
                      for k in range(1, points - 1))})
    out = {}
    for h in curve_heads:
        law = setup_law(curve_dims(h), None)
        out[h] = (times, [float(readout.flow_loss(law, t)) for t in times])
    return out


def headcount(
    curve_heads: Sequence[int] = CURVE_HEADS,
    times: Sequence[Number] = CURVE_TIMES,
    heads: Sequence[int] = HEADCOUNT_HEADS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Learning curves L(t) at dO = 2n for ``curve_heads`` (``curves``: one row per head
    and time) and coefficient errors at fixed output dO = 2048 for ``heads`` (``rows``).
    theory §6.3 scales the curve features by ``1/sqrt(2(e - 1))``: at beta = 1, dO = 2n the
    MHA mean is ``m = gO theta1 = 2(e - 1)`` (theory §4), so that is the mean-one
    normalization every setup uses."""
    curve_configs = [curve_dims(h) for h in curve_heads]  # every input checked first
    configs = [fixed_output_dims(h) for h in heads]
    times = [positive("t", t) for t in times]
    curves: list[Row] = []
    for dims in curve_configs:
        h = dims.h
        progress(f"headcount: learning curve h = {h}")
        law = setup_law(dims, dps)
        for t in times:
            curves.append({
                "h": h, "dK": dims.dK, "dV": dims.dV, "dO": dims.dO,
                "t": number(t, dps), "loss": readout.flow_loss(law, t),
            })
    rows: list[Row] = []
    for dims in configs:
        h = dims.h
        progress(f"headcount: fixed output h = {h}")
        rows.append({
            "h": h, "dK": dims.dK, "dV": dims.dV, "dO": dims.dO,
            "n_params": dims.n_params, "error": error(dims, settings, dps),
        })
    return {"curves": curves, "rows": rows}


def budget(
    heads: Sequence[Number] = BUDGET_HEADS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
    n: int = N,
    width: int = HEAD_WIDTH,
) -> dict[str, Any]:
    """Coefficient errors along the paper's fixed-budget path: n = d, dK = dV = ``width``
    fixed and dO solved from ``h dK (3n + dO) = 6 n^2`` (:func:`budget_output_width`,
    exact). ``heads`` may be real (the limit formulas are rational in h). Each row also
    gives ``dO_rounded``, the integer width a finite model uses."""
    outs = [budget_output_width(h, n, width) for h in heads]  # every input checked first
    rows: list[Row] = []
    for h, d_out in zip(heads, outs, strict=True):
        progress(f"budget: h = {float(h):g}")
        config = width_ratios(n, h, width, d_out, BETA)
        rows.append({
            "h": number(h, dps) if not isinstance(h, int) else h, "dK": width, "dV": width,
            "dO": number(d_out, dps), "dO_rounded": round(d_out),
            "n_params": fixed_budget(n), "error": error(config, settings, dps),
        })
    return {"rows": rows, "n_params": fixed_budget(n)}


def budget_widths(
    heads: Sequence[int] = HEADCOUNT_HEADS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Coefficient errors at the fixed budget ``h dK (3n + dO) = 6 n^2`` along the
    fixed-output path (n = d = 4096, dO = 2048, dK = dV solved per h as a real width);
    the paper's path is :func:`budget`."""
    n, d_out = N, FIXED_OUTPUT_WIDTH
    widths = [budget_width(h, n, d_out) for h in heads]  # every input checked first
    rows: list[Row] = []
    for h, width in zip(heads, widths, strict=True):
        progress(f"budget-widths: h = {h}")
        config = width_ratios(n, h, width, d_out, BETA)
        rows.append({
            "h": h, "dK": number(width, dps), "dV": number(width, dps), "dO": d_out,
            "n_params": fixed_budget(n), "error": error(config, settings, dps),
        })
    return {"rows": rows, "n_params": fixed_budget(n)}


def sharing(
    heads: Sequence[int] = SHARING_HEADS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Coefficient errors of GQA (h_kv = h/2) and of complete tying, and
    ``difference = error_gqa - error_tied``."""
    configs = [sharing_dims(h) for h in heads]  # every input checked first
    rows: list[Row] = []
    for dims in configs:
        h = dims["gqa"].h
        progress(f"sharing: h = {h}")
        e_gqa = error(dims["gqa"], settings, dps)
        e_tied = error(dims["tied"], settings, dps)
        with precision(dps):
            difference = e_gqa - e_tied
        rows.append({
            "h": h, "dK": dims["gqa"].dK, "error_gqa": e_gqa, "error_tied": e_tied,
            "difference": difference,
        })
    return {"rows": rows}


def arrival(
    groups: Sequence[int] = ARRIVAL_GROUPS,
    settings: Readout = Readout(),
    dps: int | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Time for the gradient-flow loss to reach ``settings.level`` against the number of
    K/V groups: at fixed widths dK = dV = 64 (each configuration's own law, evaluated --
    theory §4 predicts no change), and at the parameter count of the h_kv = h model with
    the per-head width grown to spend the saved K/V weights."""
    reference = arrival_dims(ARRIVAL_HEADS).n_params
    configs = [arrival_dims(h_kv) for h_kv in groups]  # every input checked first
    rows: list[Row] = []
    for dims in configs:
        h_kv = dims.h_kv
        progress(f"arrival: h_kv = {h_kv}")
        width = grown_width(dims, reference)
        grown = width_ratios(dims.n, dims.h, width, dims.dO, dims.beta)
        rows.append({
            "h_kv": h_kv,
            "t_fixed_widths": readout.arrival_time(setup_law(dims, dps), settings.level),
            "t_fixed_budget": readout.arrival_time(setup_law(grown, dps), settings.level),
            "width_fixed_budget": number(width, dps),
        })
    return {"rows": rows, "n_params": reference}


SETUPS: dict[str, Callable[..., dict[str, Any]]] = {
    "temperature": temperature, "headcount": headcount, "budget": budget,
    "budget-widths": budget_widths,
    "sharing": sharing, "arrival": arrival,
}
