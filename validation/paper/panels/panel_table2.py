"""Table 2, softmax against its Gaussian equivalent at published dimensions (theory
§6.1): the relative W1 and KS distance at each preset, measured by ``ge`` draws (with
``--finite-width`` also against ``ge-row-n``, theory §2.3)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from freege.validation.paper import configs as cf
from freege.validation.paper import stats as st
from freege.validation.paper import summary as sm
from freege.validation.paper.drawing import errorbar, legend
from freege.validation.paper.panel import Config, Panel, Records

NAME, KIND = "table2", "ge"
PRESET_NAMES = ("bert-base", "modernbert-large", "dinov3-l16", "llada-8b", "gpt3-175b",
                "falcon-7b", "kayyam-1.2b")
#: the paper's Table 2: preset -> (rel W1 %, its half-width, KS, its half-width)
TABLE2: dict[str, tuple[float, float, float, float]] = {
    "bert-base": (1.66, 0.23, 0.0109, 0.0010),
    "modernbert-large": (1.37, 0.21, 0.0052, 0.0005),
    "dinov3-l16": (2.82, 0.40, 0.0280, 0.0018),
    "llada-8b": (0.92, 0.06, 0.0022, 0.0001),
    "gpt3-175b": (0.62, 0.07, 0.0040, 0.0004),
    "kayyam-1.2b": (0.24, 0.01, 0.0020, 0.0001),
}
#: the row fields of the paper's Table 2 values (:data:`TABLE2`'s order; None for a
#: preset the paper does not list), which the figure sets beside the measured ones
TABLE2_PAPER_FIELDS = ("paper_rel_w1_percent", "paper_rel_w1_half_width", "paper_ks",
                       "paper_ks_half_width")
#: the one-line explanation of the ``--finite-width`` columns of Table 2
TABLE2_ROW_N_NOTE = (
    "ge-row-n columns (`--finite-width`): softmax against the conditional Gaussian "
    "equivalent whose rows carry their own finite-n coefficient theta1_i from the drawn "
    "queries (same weights and seed as the GE columns; theory §2.3): the finite-width "
    "correction that halves the softmax-vs-GE gap in docs/findings-finite-width.md.")
#: the distances of a ``--finite-width`` draw to the laws (relative W1,
#: :func:`freege.validation.paper.measure.law_distances`)
LAW_DISTANCES = ("softmax_limit", "softmax_fw", "ge_limit", "ge_fw")
#: the one-line explanation of the finite-width law's columns of Table 2
TABLE2_LAW_NOTE = (
    "law columns (`--finite-width`, where dK > 4 beta^2): relative W1 of the softmax's "
    "and the GE's spectra to the quantiles of the limiting law and of the finite-width law "
    "(theory §2.3, computed without sampling); gap explained: the share of the softmax's "
    "excess over the GE's distance to the limit that the finite-width law removes.")


def build(s: float) -> list[Config]:
    """GE at the theory §6.1 presets ``PRESET_NAMES``."""
    from freege.validation.models.presets import get_preset

    return [cf.config(f"table2/{name}", NAME, KIND,
                      cf.record(cf.scale_dims(get_preset(name), s), cf.SHAPE_AND_SHARING),
                      preset=name)
            for name in PRESET_NAMES]


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Table 2 (theory §6.1): per preset the mean relative W1 (in %) and KS of softmax
    against its GE with 95% Student-t half-widths; for a ``finite_width`` configuration
    also against ``ge-row-n`` (theory §2.3), fields prefixed ``row_n_``, and the
    finite-width law's (:func:`law_fields`, prefixed ``law_``)."""
    rows, incomplete = [], []
    for c, draws in sm.complete(configs, recs, incomplete):
        w1 = st.student([100 * d["rel_w1"] for d in draws])
        ks = st.student([d["ks"] for d in draws])
        paper = TABLE2.get(c["label"]["preset"])
        row_n = {}
        if c.get("finite_width"):
            rw1 = st.student([100 * d["ge_row_n"]["rel_w1"] for d in draws])
            rks = st.student([d["ge_row_n"]["ks"] for d in draws])
            row_n = {"row_n_rel_w1_percent": rw1.estimate, "row_n_rel_w1_half_width": rw1.bar,
                     "row_n_ks": rks.estimate, "row_n_ks_half_width": rks.bar,
                     **law_fields(draws)}
        rows.append({"preset": c["label"]["preset"], "n": c["dims"]["n"],
                     "rel_w1_percent": w1.estimate, "rel_w1_half_width": w1.bar,
                     "ks": ks.estimate, "ks_half_width": ks.bar, **row_n,
                     "paper": None if paper is None else
                     f"{paper[0]} ± {paper[1]} % / {paper[2]} ± {paper[3]}",
                     **dict(zip(TABLE2_PAPER_FIELDS, paper or (None,) * 4, strict=True)),
                     "paper_checks": [] if paper is None else [
                         sm.paper_check("rel W1 %", w1, paper[0], paper[1]),
                         sm.paper_check("KS", ks, paper[2], paper[3])]})
    return {"title": "table 2: softmax vs GE at published dimensions (theory §6.1)",
            "rows": rows, "statistics": [], "incomplete": incomplete, "columns": ["preset"]}


def law_fields(draws: list[dict[str, Any]]) -> dict[str, Any]:
    """The finite-width law's fields of a row (``--finite-width``, theory §2.3; none where
    the draws carry no ``law`` distances, :func:`freege.validation.paper.measure.
    law_distances`): per distance of :data:`LAW_DISTANCES` its mean in % and 95% Student-t
    half-width (``law_<name>_percent``, ``law_<name>_half_width``), and
    ``law_gap_explained_percent``: the share of the softmax's excess over the GE's own
    distance to the limit, ``softmax_limit - ge_limit``, that the finite-width law
    removes, ``1 - (softmax_fw - ge_limit)/(softmax_limit - ge_limit)`` from the means
    (NaN where there is no excess)."""
    if not all("law" in d for d in draws):
        return {}
    out: dict[str, Any] = {}
    for name in LAW_DISTANCES:
        iv = st.student([100 * d["law"][name] for d in draws])
        out[f"law_{name}_percent"], out[f"law_{name}_half_width"] = iv.estimate, iv.bar
    excess = out["law_softmax_limit_percent"] - out["law_ge_limit_percent"]
    left = out["law_softmax_fw_percent"] - out["law_ge_limit_percent"]
    out["law_gap_explained_percent"] = 100 * (1 - left / excess) if excess > 0 else math.nan
    return out


def table(panel: dict[str, Any]) -> list[str]:
    """Table 2's Markdown: mean ± 95% half-width per preset, the ``ge-row-n`` columns
    beside the GE's when the rows carry them (with :data:`TABLE2_ROW_N_NOTE` above), and
    the finite-width law's (:func:`law_fields`, with :data:`TABLE2_LAW_NOTE`)."""
    rows = panel["rows"]
    row_n = any("row_n_ks" in r for r in rows)
    laws = any("law_gap_explained_percent" in r for r in rows)
    extra = " ge-row-n rel W1 % | ge-row-n KS |" if row_n else ""
    if laws:
        extra += (" softmax vs limit rel W1 % | softmax vs finite-width law rel W1 % |"
                  " GE vs limit rel W1 % | gap explained by the law |")
    out = [TABLE2_ROW_N_NOTE, ""] if row_n else []
    out += [TABLE2_LAW_NOTE, ""] if laws else []
    out += [f"| preset | n | rel W1 % | KS |{extra} paper (rel W1 % / KS) |",
            "|---|---|---|---|" + "---|---|" * row_n + "---|---|---|---|" * laws + "---|"]
    for r in rows:
        cells = [r["preset"], r["n"],
                 f"{r['rel_w1_percent']:.3g} ± {r['rel_w1_half_width']:.2g}",
                 f"{r['ks']:.3g} ± {r['ks_half_width']:.2g}"]
        if row_n:
            cells += ([f"{r['row_n_rel_w1_percent']:.3g} ± {r['row_n_rel_w1_half_width']:.2g}",
                       f"{r['row_n_ks']:.3g} ± {r['row_n_ks_half_width']:.2g}"]
                      if "row_n_ks" in r else ["", ""])
        if laws:
            cells += ([f"{r[f'law_{k}_percent']:.3g} ± {r[f'law_{k}_half_width']:.2g}"
                       for k in ("softmax_limit", "softmax_fw", "ge_limit")]
                      + [f"{r['law_gap_explained_percent']:+.0f} %"]
                      if "law_gap_explained_percent" in r else ["", "", "", ""])
        out.append("| " + " | ".join(map(str, cells)) + f" | {r['paper'] or ''} |")
    return out


def _intervals(rows: list[dict[str, Any]], stat: str, bar: str) -> list[dict[str, Any]]:
    """``mean ± half-width`` of ``rows`` as :func:`drawing.errorbar` reads them."""
    return [{"measured": r[stat], "low": r[stat] - (r[bar] or 0),
             "high": r[stat] + (r[bar] or 0)} for r in rows]


def draw(fig: Any, panel: dict[str, Any]) -> None:
    """Table 2 as two facets, relative W1 and KS per preset: the measured mean with its
    95% half-width beside the paper's value and half-width (presets the paper does not
    list show the measured point alone); with ``--finite-width`` the distance to
    ``ge-row-n`` (theory §2.3) between them, and in the relative W1 facet the softmax's
    distance to the limiting law and to the finite-width law (where it exists) at the
    sides."""
    rows = panel["rows"]
    x = np.arange(len(rows))
    for ax, (stat, bar, label) in zip(fig.subplots(1, 2), (
            ("rel_w1_percent", "rel_w1_half_width", "relative W1 (%)"),
            ("ks", "ks_half_width", "KS distance")), strict=True):
        # distances are positive: an interval reaching 0 turns the axis logarithmic and
        # ends in an arrow (drawing.errorbar), never below 0
        errorbar(ax, list(x - 0.12), _intervals(rows, stat, bar), color="C0",
                 label="freege (softmax vs GE)")
        row_n = [(k, r) for k, r in enumerate(rows) if f"row_n_{stat}" in r]
        if row_n:  # --finite-width: the conditional GE of theory §2.3
            errorbar(ax, [k for k, _ in row_n],
                     _intervals([r for _, r in row_n], f"row_n_{stat}", f"row_n_{bar}"),
                     fmt="^", color="C2", label="freege (softmax vs ge-row-n)")
        laws = [(k, r) for k, r in enumerate(rows) if "law_softmax_fw_percent" in r]
        if laws and stat == "rel_w1_percent":  # --finite-width: the laws, not sampled
            for key, dx, fmt, colour, name in (
                    ("softmax_limit", -0.24, "<", "C1", "softmax vs limiting law"),
                    ("softmax_fw", 0.24, "D", "C4", "softmax vs finite-width law")):
                errorbar(ax, [k + dx for k, _ in laws],
                         _intervals([r for _, r in laws], f"law_{key}_percent",
                                    f"law_{key}_half_width"),
                         fmt=fmt, color=colour, label=name)
        paper = [(k, r) for k, r in enumerate(rows) if r.get(f"paper_{stat}") is not None]
        if paper:
            errorbar(ax, [k + 0.12 for k, _ in paper],
                     _intervals([r for _, r in paper], f"paper_{stat}", f"paper_{bar}"),
                     fmt="s", mfc="none", color="C3", label="paper (Table 2)")
        ax.set_xticks(x, [r["preset"] for r in rows], rotation=30, ha="right")
        ax.set(ylabel=label, title=f"Table 2: {label}, softmax vs GE")
        legend(ax, loc="best")  # where it covers the fewest points


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw, table=table,
    faceted=True, figsize=(12, 4.5),
    finite_width_effect="the GE's scalar theta1 misses the per-row spread: the distance "
    "grows")
