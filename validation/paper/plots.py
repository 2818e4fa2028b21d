"""Figures of the paper reproduction (theory §6.4), one per panel in the paper's layout,
written as PDF and PNG (:func:`freege.plotting.save`, atomic). Each panel draws its own
(:class:`freege.validation.paper.panel.Panel`'s ``draw``): theory curves, measured points
with their 95% intervals, and the reference lines the paper draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from freege import plotting
from freege.validation.paper import drawing
from freege.validation.paper.panel import Panel


def figure(panel: Panel, part: dict[str, Any], folder: Path, run: str = "") -> list[Path]:
    """Draw ``panel`` (its report part ``part``) into ``folder``/panel_NAME.pdf and .png in
    the house style (:func:`freege.plotting.house_style`): onto one Axes with a legend beside it, or
    onto the whole figure when it is ``faceted``. ``run`` (the scale and the draws of a
    measured panel) closes every title."""
    with plotting.house_style():
        fig = plotting._figure_class()(figsize=panel.figsize)
        if panel.faceted:
            panel.draw(fig, part)
        else:
            ax = fig.add_subplot()
            panel.draw(ax, part)
            # beside the axes, never over the data; theory, then measured, then the rest
            drawing.legend(ax, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                           borderaxespad=0.0)
        if run:
            for ax in fig.axes:
                if ax.get_title():
                    ax.set_title(f"{ax.get_title()}\n{run}")
    paths = [folder / f"panel_{panel.name}.{ext}" for ext in ("pdf", "png")]
    for path in paths:
        plotting.save(fig, path)
    return paths

