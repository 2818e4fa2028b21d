"""The paper's panels (theory §6.3, §6.4): one module per panel, ``panel_NAME.py``,
whose ``PANEL`` (:class:`freege.validation.paper.panel.Panel`) holds everything about it,
and this registry, :data:`PANELS`, listing them in the paper's order. The panel names
``--panels`` accepts, the setups whose ``--measure`` measures them and every panel's
measured configurations are derived from it; adding a panel is one module and one line
here."""

from __future__ import annotations

from collections.abc import Sequence

from freege.validation.paper.configs import DRAWS
from freege.validation.paper.panel import Config, Panel
from freege.validation.paper.panels import (
    panel_2a,
    panel_2b,
    panel_2c,
    panel_2d,
    panel_3a,
    panel_3b,
    panel_d1,
    panel_table2,
)

PANELS: tuple[Panel, ...] = (panel_2a.PANEL, panel_2b.PANEL, panel_2c.PANEL, panel_2d.PANEL,
                             panel_3a.PANEL, panel_3b.PANEL, panel_table2.PANEL,
                             panel_d1.PANEL)
NAMES: tuple[str, ...] = tuple(panel.name for panel in PANELS)
BY_NAME: dict[str, Panel] = {panel.name: panel for panel in PANELS}
#: the ``freege reproduce`` setups that take ``--measure``, and the panels each measures:
#: ``paper`` all of them, every other setup those that name it
SETUPS: dict[str, tuple[str, ...]] = {
    "paper": NAMES,
    **{setup: tuple(p.name for p in PANELS if setup in p.setups)
       for setup in dict.fromkeys(s for p in PANELS for s in p.setups)}}


def check_panels(names: Sequence[str]) -> list[str]:
    """The requested panels in the paper's order; ValueError naming an unknown one."""
    for name in names:
        if name not in BY_NAME:
            raise ValueError(f"unknown panel {name!r}; panels: {', '.join(NAMES)}")
    return [p for p in NAMES if p in names]


def configurations(names: Sequence[str], scale: float, draws: int = DRAWS,
                   finite_width: bool = False) -> list[Config]:
    """Every measured configuration of the panels ``names`` at ``scale`` (``draws`` per
    configuration; d1 keeps its single draw). ``finite_width``: each ``ge``
    configuration (table 2) is marked ``finite_width: True`` and its draws also sample
    the conditional GE with the finite-n row coefficient (theory §2.3,
    :func:`freege.validation.paper.measure.task`); unmarked configurations are those of
    a run without it."""
    out = []
    for panel in (BY_NAME[name] for name in names):
        if panel.build is not None:
            for config in panel.build(scale):
                if config["draws"] != 1:
                    config["draws"] = draws
                if finite_width and panel.kind == "ge":
                    config["finite_width"] = True
                out.append(config)
    return out
