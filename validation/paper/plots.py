"""Figures of the paper reproduction (theory §6.4), one per panel in the paper's layout,
written as PDF and PNG (:func:`freege.plotting.save`, atomic). Each panel draws its own
(:class:`freege.validation.paper.panel.Panel`'s ``draw``): theory curves, measured points
with their 95% intervals, and the reference lines the paper draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from freege import plotting
from freege.validation.paper.panel import Panel


def figure(panel: Panel, part: dict[str, Any], folder: Path) -> list[Path]:
    """Draw ``panel`` (its report part ``part``) into ``folder``/panel_NAME.pdf and .png:
    onto one Axes with a legend, or onto the whole figure when it is ``faceted``."""
    fig = plotting._figure_class()(figsize=panel.figsize)
    if panel.faceted:
        panel.draw(fig, part)
    else:
        ax = fig.add_subplot()
        panel.draw(ax, part)
        ax.legend(fontsize=7)
    paths = [folder / f"panel_{panel.name}.{ext}" for ext in ("pdf", "png")]
    for path in paths:
        plotting.save(fig, path)
    return paths
