"""What every panel's report part (:class:`freege.validation.paper.panel.Panel`'s
``summarize``) shares: a configuration's finished draws, a measured row beside its
theory, a statistic beside the paper's value, and the largest error bars.

Everything is computed from the store's records (sorted by draw), so a resumed run gives
an identical report. A configuration with fewer than two finished draws is incomplete.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from freege.validation.paper import stats as st
from freege.validation.paper.panel import Config, Records

#: a row of a panel's table, or one of its statistics
Row = dict[str, Any]


def draws(config: Config, recs: Records) -> list[dict[str, Any]]:
    """The finished draws of ``config`` in the store, by draw."""
    got = recs.get(config["key"], {})
    return [got[i] for i in sorted(got) if i < config["draws"]]


def complete(configs: list[Config], recs: Records, incomplete: list[str], least: int = 2
             ) -> Iterator[tuple[Config, list[dict[str, Any]]]]:
    """Each configuration with at least ``least`` draws in the store, with its draws; the
    keys of the others are appended to ``incomplete`` (the report lists them)."""
    for c in configs:
        got = draws(c, recs)
        if len(got) < least:
            incomplete.append(c["key"])
            continue
        yield c, got


def relative(measured: float, theory: float) -> float:
    """``(measured - theory) / theory`` (NaN at zero theory)."""
    return (measured - theory) / theory if theory else math.nan


def interval_row(iv: st.Interval, theory: float) -> Row:
    """The measured columns of a row: estimate, 95% interval, its half-width, the theory
    and the relative difference."""
    return {"measured": iv.estimate, "low": iv.low, "high": iv.high, "bar": iv.bar,
            "theory": theory, "relative_difference": relative(iv.estimate, theory)}


def stat(name: str, value: Any, paper: Any = None) -> Row:
    """One statistic: freege's value beside the paper's (None when it states none)."""
    return {"statistic": name, "freege": value, "paper": paper}


def paper_check(name: str, iv: st.Interval, paper: float,
                paper_half_width: float | None = None) -> Row:
    """A value the paper states beside freege's estimate and 95% half-width, for the
    panel's verdict at S = 1 (:mod:`freege.validation.paper.verdict`; ``paper_half_width``
    None: the paper states none)."""
    return {"name": name, "freege": iv.estimate, "half_width": iv.bar, "paper": paper,
            "paper_half_width": paper_half_width}


def bars(name: str, intervals: list[st.Interval], paper: Mapping[str, float],
         suffix: str = "") -> list[Row]:
    """The largest absolute and relative error bars of ``intervals`` beside the paper's
    ``max_bar_absolute{suffix}`` and ``max_bar_relative_percent{suffix}``."""
    b = st.largest_bars(intervals)
    return [stat(f"maximum error bar, absolute{name}", b["absolute"],
                 paper.get(f"max_bar_absolute{suffix}")),
            stat(f"maximum error bar, relative %{name}", 100 * b["relative"],
                 paper.get(f"max_bar_relative_percent{suffix}"))]


def curves(got: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues and target weights of ``flow`` draws, one row per draw."""
    lam = np.array([d["values"][0]["eigenvalues"] for d in got])
    w = np.array([d["values"][0]["weights"] for d in got])
    return lam, w
