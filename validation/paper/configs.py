"""The measured configurations of the paper's panels (theory §6.4): what one is, and
what every panel's builder (:class:`freege.validation.paper.panel.Panel`'s ``build``)
shares.

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
import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from freege.params import Dims
from freege.validation.paper import setups
from freege.validation.paper.panel import Config

DRAWS = 10
TARGET_SEED = 0
#: what a configuration's ``dims`` records: the shape, then with K/V sharing
SHAPE = ("n", "d", "h", "dK", "dV", "dO")
SHAPE_AND_SHARING = (*SHAPE, "sharing", "h_kv")


def check_scale(value: object) -> float:
    """``S`` as a float >= 1, else a ValueError naming ``--scale``."""
    try:
        s = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"--scale must be a number >= 1 (got {value!r})") from None
    if not math.isfinite(s) or s < 1:
        raise ValueError(f"--scale must be a number >= 1 (got {value!r})")
    return s


def scaled(width: int | Fraction, scale: float) -> int:
    """A width divided by the scale and rounded to the nearest integer (at least 1)."""
    return max(1, round(float(width) / scale))


def scale_dims(dims: Dims, scale: float) -> Dims:
    """``dims`` at scale S: n, d, dK, dV, dO divided by S (:func:`scaled`), the rest
    unchanged; a ValueError now, before any work, when the result is not a configuration."""
    return dataclasses.replace(dims, **{name: scaled(getattr(dims, name), scale)
                                        for name in ("n", "d", "dK", "dV", "dO")})


def record(dims: Dims, fields: Iterable[str] = SHAPE) -> dict[str, Any]:
    """The named fields of ``dims``, as a configuration's ``dims`` records them."""
    return {name: getattr(dims, name) for name in fields}


def config(key: str, panel: str, kind: str, dims: dict[str, Any], *, group: str | None = None,
           betas: tuple[float, ...] = (1.0,), draws: int = DRAWS, **label: Any) -> Config:
    """One configuration of ``panel`` (module docstring): its group defaults to its own
    key, lam and sigma2 are the setups' (:data:`freege.validation.paper.setups.LAM`,
    ``SIGMA2``), and the keyword arguments left over are its label."""
    return {"key": key, "panel": panel, "kind": kind, "dims": dims, "group": group or key,
            "betas": list(betas), "lam": float(setups.LAM),
            "sigma2": float(setups.SIGMA2), "target_seed": TARGET_SEED, "draws": draws,
            "label": label}


def check_finite_width(configs: list[Config]) -> None:
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


def cost(config: Config) -> dict[str, float]:
    """Work of one draw, for the run's time estimate: matrix-product flops (per head the
    scores, per head and beta ``E V``; per beta the output product and the Gram),
    elementwise passes over the n x n blocks (per head two, scale and exp, for each
    distinct increment of the sorted betas and one product per further beta:
    :func:`freege.validation.paper.measure.exponentials`), and the eigenproblems as
    ``(n^3, with vectors)``; a ridge error is a Cholesky inverse instead, ``n^3`` flops
    of products per beta; ``double``, the share of ``matmul`` that runs in float64
    whatever ``--dtype`` (the Gram and the Cholesky inverse of a ridge, not a ``ge``
    draw's, :func:`freege.validation.paper.measure.task`). A ``ge`` draw computes softmax
    and GE: about twice a softmax draw of five passes per head; with ``finite_width``
    the conditional GE too, one more GE
    (:func:`freege.validation.sampling.cost.draw_cost`'s ``extra_models``)."""
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
            "double": float(0 if config["kind"] == "ge"
                            else betas * 2 * n * n * do + ridge * betas * n**3),
            "elementwise": float(factor * passes * h * n * n),
            "eig": float(0 if ridge else factor * betas * n**3),
            "vectors": float(config["kind"] == "flow")}


def peak_bytes(config: Config) -> int:
    """Peak float64 bytes of one draw (a bound): the per-beta head blocks, three n x n
    softmax buffers or one output with the Gram and its eigenvector copy, and W^O; with
    ``finite_width``, one more n x h dV block per extra model
    (:func:`freege.validation.sampling.cost.draw_cost`)."""
    d = config["dims"]
    n = d["n"]
    betas = len(config["betas"])
    return 8 * ((betas + extra_models(config)) * n * d["h"] * d["dV"] + 2 * n * d["dO"]
                + 3 * n * n + d["h"] * d["dV"] * d["dO"])


def extra_models(config: Config) -> int:
    """Gaussian equivalents a draw of ``config`` samples beyond softmax and GE: 1 for a
    ``finite_width`` one (``ge-row-n``, theory §2.3), else 0."""
    return int(bool(config.get("finite_width", False)))
