"""The paper's experimental section, reproduced by stage (theory §6.3, §6.4).

* :mod:`~freege.validation.paper.setups` -- the theory §6.3 setups: each experiment's
  dimensions and constants, written once, and its limiting predictions
  (``freege reproduce SETUP``);
* :mod:`~freege.validation.paper.panels` -- the panels, one module each
  (``panel_NAME.py``, one :class:`~freege.validation.paper.panel.Panel`: its measured
  configurations at a scale S, its report part, its figure, the paper's values), listed
  in the registry ``panels.PANELS``; :mod:`~freege.validation.paper.configs`,
  :mod:`~freege.validation.paper.summary` and :mod:`~freege.validation.paper.drawing`
  hold what the panels share (configurations and their cost, report rows, figure parts);
* :mod:`~freege.validation.paper.measure` -- one draw of one configuration (softmax MHA);
* :mod:`~freege.validation.paper.run` -- every draw, stored as it completes (resumable);
* :mod:`~freege.validation.paper.stats` -- intervals and arrival times from the draws;
* :mod:`~freege.validation.paper.report` and :mod:`~freege.validation.paper.plots` --
  ``report.json`` / ``report.md`` and one figure per panel, put together from the
  panels' parts.

Data flow: setups -> panels (configurations) -> measure -> run (store) -> stats ->
report / plots, with :mod:`~freege.validation.paper.theory` (the limits at the realised
widths, through the setups' numeric layer) beside measure for report and plots.
"""
