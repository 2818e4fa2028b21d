"""The paper's experimental section, reproduced by stage (theory §6.3, §6.4).

* :mod:`~freege.validation.paper.setups` -- the theory §6.3 setups: each experiment's
  dimensions and constants, written once, and its limiting predictions
  (``freege reproduce SETUP``);
* :mod:`~freege.validation.paper.panels` -- the measured configurations of each panel:
  the setups at a scale S, the heads and betas the paper measured, and their cost;
* :mod:`~freege.validation.paper.measure` -- one draw of one configuration (softmax MHA);
* :mod:`~freege.validation.paper.run` -- every draw, stored as it completes (resumable);
* :mod:`~freege.validation.paper.stats` -- intervals and arrival times from the draws;
* :mod:`~freege.validation.paper.report` and :mod:`~freege.validation.paper.plots` --
  ``report.json`` / ``report.md`` and one figure per panel, the paper's values
  (:mod:`~freege.validation.paper.reference`) beside freege's.

Data flow: setups -> panels (configurations) -> measure -> run (store) -> stats ->
report / plots, with :mod:`~freege.validation.paper.theory` (the limits at the realised
widths, through the setups' numeric layer) beside measure for report and plots.
"""
