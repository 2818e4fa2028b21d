"""The configurations of the paper's experimental section at a scale S (theory §6.4).

Panels 2(a)-3(b) measure configurations of the theory §6.3 setups, built from
:mod:`freege.validation.paper.setups` (where their dimensions are written); table 2
measures the theory §6.1 presets and D.1 its own spectra configurations. ``scale S``
divides n, d, dK, dV, dO by S (:func:`scale_dims`; h, h_kv and beta unchanged; widths
rounded to the nearest integer, at least 1), except that a width solved from a budget is
solved at the scaled widths; theory is evaluated at the realised widths. Every
configuration is a plain JSON-able dict (the sweep store records it):

``key`` (unique), ``panel``, ``kind`` (:data:`freege.validation.paper.measure.KINDS`),
``dims`` (:class:`freege.params.Dims` fields), ``group`` (configurations of one group
share the weights their shapes have in common, theory §6.4), ``betas``, ``lam``,
``sigma2``, ``target_seed``, ``draws`` and ``label`` (what the report prints).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from freege.params import Dims
from freege.validation.paper import setups

PANELS: tuple[str, ...] = ("2a", "2b", "2c", "2d", "3a", "3b", "table2", "d1")
#: panels with measured points (2b is theory only)
MEASURED: tuple[str, ...] = ("2a", "2c", "2d", "3a", "3b", "table2", "d1")
DRAWS = 10
TARGET_SEED = 0

#: the heads the paper measured on the two paths of panel 2(c), 19 configurations in all:
#: subsets of the theory grids setups.HEADCOUNT_HEADS and setups.BUDGET_HEADS
MEASURED_FIXED_OUTPUT_HEADS = (16, 24, 32, 40, 48, 64, 80, 96, 120)
MEASURED_FIXED_BUDGET_HEADS = (32, 40, 48, 56, 64, 72, 80, 96, 112, 120)
#: the betas the paper measured in panel 2(d): a subset of setups.TEMPERATURE_BETAS
MEASURED_TEMPERATURE_BETAS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
#: the paper's plotted learning-curve times (2(a) and its Table D.1 statistics): the
#: times of setups.CURVE_TIMES through t = 100; the theory curve extends further
LAST_PLOTTED_TIME = 100
MEASURED_CURVE_TIMES = tuple(float(t) for t in setups.CURVE_TIMES if t <= LAST_PLOTTED_TIME)
#: what a configuration's ``dims`` records: the shape, then with K/V sharing
SHAPE = ("n", "d", "h", "dK", "dV", "dO")
SHAPE_AND_SHARING = (*SHAPE, "sharing", "h_kv")
PRESET_NAMES = ("bert-base", "modernbert-large", "dinov3-l16", "llada-8b", "gpt3-175b",
                "falcon-7b", "kayyam-1.2b")


def check_scale(value: object) -> float:
    """``S`` as a float >= 1, else a ValueError naming ``--scale``."""
    try:
        s = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"--scale must be a number >= 1 (got {value!r})") from None
    if not math.isfinite(s) or s < 1:
        raise ValueError(f"--scale must be a number >= 1 (got {value!r})")
    return s


def check_panels(names: list[str]) -> list[str]:
    """The requested panels in the paper's order; ValueError naming an unknown one."""
    for name in names:
        if name not in PANELS:
            raise ValueError(f"unknown panel {name!r}; panels: {', '.join(PANELS)}")
    return [p for p in PANELS if p in names]


def scaled(width: int | Fraction, scale: float) -> int:
    """A width divided by the scale and rounded to the nearest integer (at least 1)."""
    return max(1, round(float(width) / scale))


def scale_dims(dims: Dims, scale: float) -> Dims:
    """``dims`` at scale S: n, d, dK, dV, dO divided by S (:func:`scaled`), the rest
    unchanged; a ValueError now, before any work, when the result is not a configuration."""
    return dataclasses.replace(dims, **{name: scaled(getattr(dims, name), scale)
                                        for name in ("n", "d", "dK", "dV", "dO")})


def _record(dims: Dims, fields: Iterable[str] = SHAPE) -> dict[str, Any]:
    """The named fields of ``dims``, as a configuration's ``dims`` records them."""
    return {name: getattr(dims, name) for name in fields}


def _config(key: str, panel: str, kind: str, dims: dict[str, Any], *, group: str | None = None,
            betas: tuple[float, ...] = (1.0,), draws: int = DRAWS, **label: Any
            ) -> dict[str, Any]:
    return {"key": key, "panel": panel, "kind": kind, "dims": dims, "group": group or key,
            "betas": list(betas), "lam": float(setups.LAM),
            "sigma2": float(setups.SIGMA2), "target_seed": TARGET_SEED, "draws": draws,
            "label": label}


def panel_2a(s: float) -> list[dict[str, Any]]:
    """Learning curves: :func:`setups.curve_dims` for each of ``setups.CURVE_HEADS``."""
    return [_config(f"2a/h={h}", "2a", "flow",
                    _record(scale_dims(setups.curve_dims(h), s)), h=h)
            for h in setups.CURVE_HEADS]


def panel_2c(s: float) -> list[dict[str, Any]]:
    """Fixed output (:func:`setups.fixed_output_dims`, scaled) against the paper's fixed
    budget (:func:`setups.budget_dims`: dO solved at the scaled n and dK = dV)."""
    out = [_config(f"2c/output/h={h}", "2c", "ridge",
                   _record(scale_dims(setups.fixed_output_dims(h), s)),
                   path="fixed output", h=h) for h in MEASURED_FIXED_OUTPUT_HEADS]
    n, width = scaled(setups.N, s), scaled(setups.HEAD_WIDTH, s)
    for h in MEASURED_FIXED_BUDGET_HEADS:
        dims = _record(setups.budget_dims(h, n, width))
        out.append(_config(f"2c/budget/h={h}", "2c", "ridge", dims, path="fixed budget", h=h))
    return out


def panel_2d(s: float) -> list[dict[str, Any]]:
    """Temperature: the two allocations of :func:`setups.temperature_dims`, labelled by
    their unscaled widths, over ``MEASURED_TEMPERATURE_BETAS``."""
    return [_config(f"2d/dK={dims.dK},dV={dims.dV}", "2d", "ridge",
                    _record(scale_dims(dims, s)), group="2d",
                    betas=MEASURED_TEMPERATURE_BETAS, allocation=f"({dims.dK},{dims.dV})")
            for dims in setups.temperature_dims().values()]


def panel_3a(s: float) -> list[dict[str, Any]]:
    """Arrival: :func:`setups.arrival_dims` for each of ``setups.ARRIVAL_GROUPS`` at fixed
    widths, and with the per-head widths grown to the scaled h_kv = h model's parameter
    count (:func:`grown_widths`, chosen jointly). The h_kv = h model is the one unshared
    baseline of both paths: measured once, as ``3a/h_kv=64`` (labelled ``path =
    "baseline"``). A grown configuration whose integer widths the integers could not
    keep apart from another's names those h_kv in its label (``same_widths_as``)."""
    out = []
    base = scale_dims(setups.arrival_dims(setups.ARRIVAL_HEADS), s)
    out.append(_config(f"3a/h_kv={base.h_kv}", "3a", "flow", _record(base, SHAPE_AND_SHARING),
                       path="baseline", h_kv=base.h_kv))
    groups = [h_kv for h_kv in setups.ARRIVAL_GROUPS if h_kv != base.h_kv]
    fixed = {h_kv: scale_dims(setups.arrival_dims(h_kv), s) for h_kv in groups}
    pairs = dict(zip(groups, grown_widths([fixed[h_kv] for h_kv in groups],
                                          base.n_params, s), strict=True))
    for h_kv in groups:
        dims = fixed[h_kv]
        record = _record(dims, SHAPE_AND_SHARING)
        out.append(_config(f"3a/widths/h_kv={h_kv}", "3a", "flow", record,
                           path="fixed widths", h_kv=h_kv))
        dk, dv = pairs[h_kv]
        same = [k for k in groups if k != h_kv and pairs[k] == pairs[h_kv]]
        out.append(_config(f"3a/budget/h_kv={h_kv}", "3a", "flow",
                           {**record, "dK": dk, "dV": dv}, path="fixed N_par", h_kv=h_kv,
                           width=float(setups.grown_width(dims, base.n_params)),
                           n_params=base.n_params, **({"same_widths_as": same} if same
                                                      else {})))
    return out


def grown_widths(configs: list[Dims], n_params: int, s: float) -> list[tuple[int, int]]:
    """Integer widths ``(dK, dV)`` of each configuration for its real width
    :func:`setups.grown_width` that spends ``n_params`` (theory §6.4, 3(a)). At S = 1 the
    paper's: ``dK = dV`` rounded. At S > 1 rounding each alike collapses neighbouring h_kv
    onto one width and leaves the path off its budget, so the widths are chosen jointly:
    each of dK, dV is the floor or the ceiling of its real width, and of all such choices
    the one with the fewest configurations sharing their widths with another, then the
    smallest summed distance of the parameter counts to ``n_params``, then the smallest
    summed ``|dK - dV|``. Configurations that still share widths (more of them than
    integer pairs between their real widths) are the report's to name."""
    widths = [setups.grown_width(dims, n_params) for dims in configs]
    if s == 1:
        return [(round(w), round(w)) for w in widths]
    options = []
    for dims, width in zip(configs, widths, strict=True):
        sides = sorted({max(1, math.floor(width)), max(1, math.ceil(width))})
        options.append([((dk, dv), abs(dataclasses.replace(dims, dK=dk, dV=dv).n_params
                                       - n_params), abs(dk - dv))
                        for dk in sides for dv in sides])

    def rank(choice: tuple[tuple[tuple[int, int], int, int], ...]) -> tuple[int, int, int]:
        chosen = [pair for pair, _, _ in choice]
        return (len(chosen) - len(set(chosen)), sum(off for _, off, _ in choice),
                sum(skew for _, _, skew in choice))

    best = min(itertools.product(*options), key=rank)
    return [pair for pair, _, _ in best]


def panel_3b(s: float) -> list[dict[str, Any]]:
    """Sharing: the GQA and tied configurations of :func:`setups.sharing_dims` for each of
    ``setups.SHARING_HEADS``."""
    out = []
    for h in setups.SHARING_HEADS:
        dims = setups.sharing_dims(h)
        out.append(_config(f"3b/gqa/h={h}", "3b", "ridge",
                           _record(scale_dims(dims["gqa"], s), SHAPE_AND_SHARING),
                           group=f"3b/h={h}", scheme="GQA", h=h))
        out.append(_config(f"3b/tied/h={h}", "3b", "ridge",
                           _record(scale_dims(dims["tied"], s), (*SHAPE, "sharing")),
                           group=f"3b/h={h}", scheme="tied", h=h))
    return out


def panel_table2(s: float) -> list[dict[str, Any]]:
    """GE at the theory §6.1 presets ``PRESET_NAMES``."""
    from freege.validation.models.presets import get_preset

    return [_config(f"table2/{name}", "table2", "ge",
                    _record(scale_dims(get_preset(name), s), SHAPE_AND_SHARING), preset=name)
            for name in PRESET_NAMES]


def panel_d1(s: float) -> list[dict[str, Any]]:
    """Spectra of the centred MHA Gram: head splitting at fixed h dV = 2n, output width,
    within-head tying against across-head sharing (one draw each; gK = gV = 2 keeps the
    densities bounded at 0)."""
    rows = [("heads", "h = 4", dict(h=4, dK=1024, dV=1024, dO=4096)),
            ("heads", "h = 32", dict(h=32, dK=128, dV=128, dO=4096)),
            ("output", "dO = n/2", dict(h=16, dK=256, dV=256, dO=1024)),
            ("output", "dO = 2n", dict(h=16, dK=256, dV=256, dO=4096)),
            ("sharing", "independent", dict(h=16, dK=256, dV=256, dO=4096)),
            ("sharing", "GQA h_kv = 4", dict(h=16, dK=256, dV=256, dO=4096, sharing="gqa",
                                             h_kv=4)),
            ("sharing", "tied K = V", dict(h=16, dK=256, dV=256, dO=4096, sharing="tied"))]
    return [_config(f"d1/{group}/{name}", "d1", "spectrum",
                    _record(scale_dims(Dims(n=2048, d=2048, **kw), s), ("n", "d", *kw)),
                    draws=1, group=f"d1/{group}", facet=group, name=name)
            for group, name, kw in rows]


BUILDERS = {"2a": panel_2a, "2c": panel_2c, "2d": panel_2d, "3a": panel_3a,
            "3b": panel_3b, "table2": panel_table2, "d1": panel_d1}


def configurations(panels: list[str], scale: float, draws: int = DRAWS,
                   finite_width: bool = False) -> list[dict[str, Any]]:
    """Every measured configuration of ``panels`` at ``scale`` (``draws`` per
    configuration; d1 keeps its single draw). ``finite_width``: each ``ge``
    configuration (table 2) is marked ``finite_width: True`` and its draws also sample
    the conditional GE with the finite-n row coefficient (theory §2.3,
    :func:`freege.validation.paper.measure.task`); unmarked configurations are those of
    a run without it."""
    out = []
    for panel in panels:
        if panel in BUILDERS:
            for config in BUILDERS[panel](scale):
                if config["draws"] != 1:
                    config["draws"] = draws
                if finite_width and config["kind"] == "ge":
                    config["finite_width"] = True
                out.append(config)
    return out


def check_finite_width(configs: list[dict[str, Any]]) -> None:
    """ValueError unless ``--finite-width`` applies: some ``ge`` configuration (panel
    table2) is measured, and each has ``dK >= 2`` (the finite-width row coefficient's
    chi-square density is unbounded at 0 for dK = 1; theory §2.3, as ``validate
    --finite-width`` refuses)."""
    ge = [c for c in configs if c["kind"] == "ge"]
    if not ge:
        raise ValueError("--finite-width applies to table 2's GE configurations; add "
                         "table2 to --panels")
    narrow = [c for c in ge if c["dims"]["dK"] < 2]
    if narrow:
        raise ValueError(f"--finite-width needs dK >= 2 (got dK = {narrow[0]['dims']['dK']} "
                         f"for {narrow[0]['key']}); use a smaller --scale")


def cost(config: dict[str, Any]) -> dict[str, float]:
    """Work of one draw, for the run's time estimate: matrix-product flops (per head the
    scores, per head and beta ``E V``; per beta the output product and the Gram),
    elementwise passes over the n x n blocks (per head two, scale and exp, for each
    distinct increment of the sorted betas and one product per further beta:
    :func:`freege.validation.paper.measure.exponentials`), and the eigenproblems as
    ``(n^3, with vectors)``; a ridge error is a Cholesky inverse instead, ``n^3`` flops
    of products per beta. A ``ge`` draw computes softmax and GE: about twice a softmax
    draw of five passes per head; with ``finite_width`` the conditional GE too, one more
    GE (:func:`freege.validation.sampling.cost.draw_cost`'s ``extra_models``)."""
    d = config["dims"]
    n, h, dk, dv, do = d["n"], d["h"], d["dK"], d["dV"], d["dO"]
    betas = len(config["betas"])
    ordered = sorted(set(config["betas"]))
    steps = {b - a for a, b in zip([0.0, *ordered], ordered, strict=False)}
    matmul = h * (2 * n * n * dk + betas * 2 * n * n * dv) + betas * (
        2 * n * h * dv * do + 2 * n * n * do)
    factor = 2 + extra_models(config) if config["kind"] == "ge" else 1
    passes = 5 if config["kind"] == "ge" else 2 * len(steps) + len(ordered) - 1
    ridge = config["kind"] == "ridge"
    return {"matmul": float(factor * matmul + ridge * betas * n**3),
            "elementwise": float(factor * passes * h * n * n),
            "eig": float(0 if ridge else factor * betas * n**3),
            "vectors": float(config["kind"] == "flow")}


def peak_bytes(config: dict[str, Any]) -> int:
    """Peak float64 bytes of one draw (a bound): the per-beta head blocks, three n x n
    softmax buffers or one output with the Gram and its eigenvector copy, and W^O; with
    ``finite_width``, one more n x h dV block per extra model
    (:func:`freege.validation.sampling.cost.draw_cost`)."""
    d = config["dims"]
    n = d["n"]
    betas = len(config["betas"])
    return 8 * ((betas + extra_models(config)) * n * d["h"] * d["dV"] + 2 * n * d["dO"]
                + 3 * n * n + d["h"] * d["dV"] * d["dO"])


def extra_models(config: dict[str, Any]) -> int:
    """Gaussian equivalents a draw of ``config`` samples beyond softmax and GE: 1 for a
    ``finite_width`` one (``ge-row-n``, theory §2.3), else 0."""
    return int(bool(config.get("finite_width", False)))
