"""The paper's measured configurations (theory §6.4) are the theory §6.3 setups at scale S."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

from freege.params import Dims
from freege.validation.paper import configs, measure, panels, setups
from freege.validation.paper.panels import (
    panel_2a,
    panel_2c,
    panel_2d,
    panel_3a,
    panel_3b,
)


def _dims(config: dict) -> Dims:
    return Dims(**config["dims"])


def _by(configs: list[dict], **label) -> list[dict]:
    return [c for c in configs if all(c["label"].get(k) == v for k, v in label.items())]


def test_at_scale_one_the_panels_measure_the_setups_configurations():
    """At S = 1 every panel configuration is its setup's configuration (beta aside: the
    panels carry their betas separately)."""
    for h in setups.CURVE_HEADS:
        (config,) = _by(panel_2a.build(1), h=h)
        assert _dims(config) == setups.curve_dims(h)
    for h in panel_2c.MEASURED_FIXED_OUTPUT_HEADS:
        (config,) = _by(panel_2c.build(1), path="fixed output", h=h)
        assert _dims(config) == setups.fixed_output_dims(h)
    allocations = {c["label"]["allocation"]: _dims(c) for c in panel_2d.build(1)}
    assert allocations == {f"({d.dK},{d.dV})": d for d in setups.temperature_dims().values()}
    for h_kv in setups.ARRIVAL_GROUPS:
        path = "baseline" if h_kv == setups.ARRIVAL_HEADS else "fixed widths"
        (config,) = _by(panel_3a.build(1), path=path, h_kv=h_kv)
        assert _dims(config) == setups.arrival_dims(h_kv)
    for h in setups.SHARING_HEADS:
        for scheme, key in (("GQA", "gqa"), ("tied", "tied")):
            (config,) = _by(panel_3b.build(1), scheme=scheme, h=h)
            assert _dims(config) == setups.sharing_dims(h)[key]


def test_measured_heads_and_betas_lie_on_the_theory_grids():
    assert set(panel_2c.MEASURED_FIXED_OUTPUT_HEADS) < set(setups.HEADCOUNT_HEADS)
    assert set(panel_2c.MEASURED_FIXED_BUDGET_HEADS) < set(setups.BUDGET_HEADS)
    grid = {float(beta) for beta in setups.TEMPERATURE_BETAS}
    assert set(panel_2d.MEASURED_TEMPERATURE_BETAS) < grid
    for config in panel_2d.build(1):
        assert config["betas"] == list(panel_2d.MEASURED_TEMPERATURE_BETAS)


@pytest.mark.parametrize("scale", [1, 3, 16, 64])
def test_scaling_divides_the_widths_and_keeps_heads_and_sharing(scale):
    dims = setups.arrival_dims(8)
    got = configs.scale_dims(dims, scale)
    for name in ("n", "d", "dK", "dV", "dO"):
        assert getattr(got, name) == max(1, round(getattr(dims, name) / scale))
    assert (got.h, got.h_kv, got.sharing, got.beta) == (dims.h, dims.h_kv, dims.sharing,
                                                         dims.beta)


@pytest.mark.parametrize("scale", [1, 4, 32])
def test_budget_configurations_spend_their_budget_at_the_realised_widths(scale):
    """2(c): dO is solved at the scaled n and dK (not scaled from S = 1), so
    h dK (3n + dO) = 6 n^2 up to dO's rounding; 3(a): the grown width spends the scaled
    h_kv = h model's parameter count up to its rounding."""
    for config in _by(panel_2c.build(scale), path="fixed budget"):
        d = _dims(config)
        exact = setups.budget_output_width(d.h, d.n, d.dK)
        assert d.dO == round(exact) and d.d == d.n and d.dV == d.dK
        assert abs(d.h * d.dK * (3 * d.n + d.dO) - setups.fixed_budget(d.n)) <= d.h * d.dK / 2
    configs = panel_3a.build(scale)
    (base,) = _by(configs, h_kv=setups.ARRIVAL_HEADS)  # one unshared baseline, both paths
    assert base["label"]["path"] == "baseline"
    reference = _dims(base).n_params
    for config in _by(configs, path="fixed N_par"):
        d = _dims(config)
        width = Fraction(config["label"]["width"])
        assert config["label"]["n_params"] == reference
        exact = Dims(**{**config["dims"], "dK": 1, "dV": 1}).n_params * width
        assert exact == pytest.approx(reference, rel=1e-12)
        if scale == 1:  # the paper's rounding
            assert d.dK == d.dV == round(width)
            continue
        # each width the floor or ceiling of the real one
        assert (d.dK, d.dV) in _floor_or_ceiling(width)
    if scale > 1:  # chosen jointly: no configuration could move nearer its budget alone
        grown = _by(configs, path="fixed N_par")
        chosen = [(c["dims"]["dK"], c["dims"]["dV"]) for c in grown]
        for k, config in enumerate(grown):
            d = _dims(config)
            others = chosen[:k] + chosen[k + 1:]
            free = [p for p in _floor_or_ceiling(Fraction(config["label"]["width"]))
                    if p not in others]
            assert all(abs(dataclasses.replace(d, dK=kk, dV=vv).n_params - reference)
                       >= abs(d.n_params - reference) for kk, vv in free)


def _floor_or_ceiling(width: Fraction) -> list[tuple[int, int]]:
    sides = sorted({max(1, math.floor(width)), max(1, math.ceil(width))})
    return [(k, v) for k in sides for v in sides]


@pytest.mark.parametrize("scale", [4, 8, 16, 32, 64])
def test_3a_fixed_budget_widths_stay_distinct_where_the_integers_allow(scale):
    """Rounding dK = dV alike collapsed h_kv = 4, 2, 1 onto one width at S = 4 (issue 29),
    and choosing each nearest count alone still collapsed h_kv = 2, 1 at S = 16: chosen
    jointly, the h_kv stay apart wherever the floor-or-ceiling pairs of their real widths
    hold enough distinct pairs, and those that share a pair say with which h_kv."""
    grown = _by(panel_3a.build(scale), path="fixed N_par")
    chosen = [(c["dims"]["dK"], c["dims"]["dV"]) for c in grown]
    available = {p for c in grown for p in _floor_or_ceiling(Fraction(c["label"]["width"]))}
    assert len({c["label"]["width"] for c in grown}) == len(grown)  # the real widths differ
    assert len(set(chosen)) == min(len(grown), len(available))
    for c, pair in zip(grown, chosen, strict=True):
        same = sorted(o["label"]["h_kv"] for o, p in zip(grown, chosen, strict=True)
                      if p == pair and o is not c)
        assert sorted(c["label"].get("same_widths_as", [])) == same
    if scale <= 32:
        assert len(set(chosen)) == len(grown)


def test_the_registry_lists_each_panel_once_in_the_papers_order():
    assert panels.NAMES == ("2a", "2b", "2c", "2d", "3a", "3b", "table2", "d1")
    assert [panels.BY_NAME[name] for name in panels.NAMES] == list(panels.PANELS)
    assert [p.name for p in panels.PANELS if not p.measured] == ["2b"]
    assert panels.check_panels(["d1", "2a"]) == ["2a", "d1"]
    with pytest.raises(ValueError, match="unknown panel 'x'; panels: 2a, 2b, 2c"):
        panels.check_panels(["x"])


def test_each_measured_panel_builds_configurations_of_its_name_and_kind():
    for panel in panels.PANELS:
        if not panel.measured:
            assert panel.kind is None
            continue
        assert panel.kind in measure.KINDS
        built = panels.configurations([panel.name], 64)
        assert built and {(c["panel"], c["kind"]) for c in built} == {(panel.name, panel.kind)}
        assert len({c["key"] for c in built}) == len(built)


def test_the_setups_measure_the_panels_that_name_them():
    assert panels.SETUPS == {"paper": panels.NAMES, "headcount": ("2a", "2c"),
                             "budget": ("2c",), "temperature": ("2d",), "arrival": ("3a",),
                             "sharing": ("3b",)}
