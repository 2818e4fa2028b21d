"""Checks of rendered figures (matplotlib Agg): where the text of a figure lands."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def _boxes(fig: Figure) -> tuple[list, list]:
    """After the layout :func:`plotting.save` makes: the window extents of the x-axis
    furniture (tick labels, axis label) and of every other visible text drawn in an axes
    (annotations, legends)."""
    from matplotlib.text import Text

    fig.tight_layout()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # legends and annotations are placed when drawn
    renderer = canvas.get_renderer()
    axis: list = []
    for ax in fig.axes:
        lo, hi = sorted(ax.get_xlim())
        axis += [tick.label1 for tick in ax.xaxis.get_major_ticks()
                 if lo <= tick.get_loc() <= hi and tick.label1.get_visible()
                 and tick.label1.get_text()]  # the ones drawn
        axis.append(ax.xaxis.label)
    furniture = {id(t) for ax in fig.axes
                 for t in (*ax.get_xticklabels(), *ax.get_yticklabels(), ax.yaxis.label,
                           ax.title)} | {id(t) for t in axis}
    drawn = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
             and id(t) not in furniture and t.get_figure() is not None]
    return ([t.get_window_extent(renderer) for t in axis],
            [t.get_window_extent(renderer) for t in drawn])


def clear_of_the_x_axis(fig: Figure) -> None:
    """No text drawn in an axes (annotation, legend) overlaps an x tick label or an x-axis
    label, and none leaves the figure at the left, right or bottom."""
    axis, drawn = _boxes(fig)
    frame = fig.bbox
    for box in drawn:
        assert not any(box.overlaps(a) for a in axis), box
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0, box
