"""Figure D.1, spectra (theory §4): the limiting density of the centred MHA Gram over
sampled histograms, for head splitting, output width and sharing, measured by one
``spectrum`` draw per configuration."""

from __future__ import annotations

from typing import Any

import numpy as np

from freege.params import Dims
from freege.validation.paper import configs as cf
from freege.validation.paper import summary as sm
from freege.validation.paper import theory as th
from freege.validation.paper.panel import Config, Panel, Records, Work

NAME, KIND = "d1", "spectrum"
#: the points of each limiting density the figure draws
DENSITY_POINTS = 200


def build(s: float) -> list[Config]:
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
    return [cf.config(f"d1/{group}/{name}", NAME, KIND,
                      cf.record(cf.scale_dims(Dims(n=2048, d=2048, **kw), s), ("n", "d", *kw)),
                      draws=1, group=f"d1/{group}", facet=group, name=name)
            for group, name, kw in rows]


def summarize(configs: list[Config], recs: Records, opts: dict[str, Any]) -> dict:
    """Each configuration's sampled eigenvalues, its limiting density on
    :data:`DENSITY_POINTS` points, and its atom at 0 measured and predicted."""
    spectra, incomplete = [], []
    for c, draws in sm.complete(configs, recs, incomplete, least=1):
        eigs = np.array(draws[0]["values"][0]["eigenvalues"])
        top = float(np.quantile(eigs, 0.995)) * 1.2
        x = np.linspace(top / 400, top, DENSITY_POINTS)
        dens, atom = th.density(c["dims"], x)
        spectra.append({"facet": c["label"]["facet"], "name": c["label"]["name"],
                        "eigenvalues": eigs.tolist(), "x": x.tolist(), "density": dens.tolist(),
                        "atom": atom, "measured_atom": float(np.mean(eigs < 1e-8 * eigs.max()))})
    rows = [{"facet": s["facet"], "name": s["name"], "theory": s["atom"],
             "measured": s["measured_atom"], "low": None, "high": None, "bar": None,
             "relative_difference": None} for s in spectra]
    return {"title": "D.1 spectra: limiting densities over sampled histograms (atom at 0 "
            "in the table)", "rows": rows, "statistics": [], "incomplete": incomplete,
            "columns": ["facet", "name"], "spectra": spectra}


def draw(fig: Any, panel: dict[str, Any]) -> None:
    """One facet per group: each configuration's histogram under its limiting density."""
    spectra = panel["spectra"]
    facets = list(dict.fromkeys(s["facet"] for s in spectra))
    axes = fig.subplots(1, max(1, len(facets)), squeeze=False)[0]
    for ax, facet in zip(axes, facets, strict=False):
        for k, s in enumerate(x for x in spectra if x["facet"] == facet):
            eigs = np.array(s["eigenvalues"])
            top = s["x"][-1]
            ax.hist(eigs[(eigs > top / 400) & (eigs <= top)], bins=60, density=False,
                    weights=np.full(int(np.sum((eigs > top / 400) & (eigs <= top))),
                                    60 / (top * eigs.size)),
                    alpha=0.35, color=f"C{k}", label=f"sample, {s['name']}")
            ax.plot(s["x"], s["density"], color=f"C{k}", label=f"limit, {s['name']}")
        ax.set(xlabel=r"eigenvalue of $F F^\top$ (mean one)", ylabel="density",
               title=f"D.1 {facet}")
        ax.legend(fontsize=7)


def work(configs: list[Config], resamples: int) -> Work:
    """A density point per point of each configuration's curve."""
    return Work(float(DENSITY_POINTS * len(configs)))


PANEL = Panel(
    name=NAME, kind=KIND, build=build, summarize=summarize, draw=draw, work=work,
    faceted=True, figsize=(15, 4.5),
    finite_width_effect="the sampled bulk lies right of the limiting density")
