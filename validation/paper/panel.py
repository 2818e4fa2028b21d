"""What a panel of the paper's experimental section is (theory §6.3, §6.4): one
:class:`Panel` holds everything the reproduction knows about it -- its measured
configurations, its report part and its figure. Each panel is defined in its own module
of :mod:`freege.validation.paper.panels`, whose registry lists them in the paper's
order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

#: a measured configuration (:mod:`freege.validation.paper.configs`)
Config = dict[str, Any]
#: the store's records: configuration key -> draw -> record
Records = dict[str, dict[int, dict[str, Any]]]


class Work(NamedTuple):
    """A panel's share of the report's work (:func:`freege.validation.paper.report.work`):
    ``limits``, the limit evaluations of its tables and theory curves; ``bootstrap``, the
    elementwise work of its resampled statistics."""

    limits: float
    bootstrap: float = 0.0


def no_work(configs: list[Config], resamples: int) -> Work:
    """The work of a panel whose report evaluates no limits."""
    return Work(0.0)


@dataclass(frozen=True)
class Panel:
    """One panel of the paper, as ``--panels`` names it.

    ``summarize(configs, records, opts)`` is its part of ``report.json`` (a theory-only
    panel is given no configurations and no records); ``draw(target, part)`` draws that
    part onto an Axes, or onto a Figure when ``faceted`` (of size ``figsize``). A measured
    panel has a ``kind`` (:data:`freege.validation.paper.measure.KINDS`) and ``build(S)``,
    its configurations at scale S (:mod:`freege.validation.paper.configs`); ``setups`` are
    the ``freege reproduce`` setups besides ``paper`` whose ``--measure`` measures it.
    ``finite_width_effect`` is what finite width does to its statistic (theory §6.4),
    ``work(configs, resamples)`` its report's work, and ``table(part)`` its ``report.md``
    table when the generic one (:func:`freege.validation.paper.report.table`) does not
    fit. The paper's published values for the panel are its module's ``PAPER`` (or
    ``TABLE2``), set beside freege's by ``summarize``."""

    name: str
    summarize: Callable[[list[Config], Records, dict[str, Any]], dict[str, Any]]
    draw: Callable[[Any, dict[str, Any]], None]
    kind: str | None = None
    build: Callable[[float], list[Config]] | None = None
    setups: tuple[str, ...] = ()
    finite_width_effect: str = ""
    work: Callable[[list[Config], int], Work] = no_work
    faceted: bool = False
    figsize: tuple[float, float] = (7.5, 5.0)
    table: Callable[[dict[str, Any]], list[str]] | None = None

    @property
    def measured(self) -> bool:
        """Whether the panel has measured points (2(b) is theory only)."""
        return self.build is not None
