"""``freege reproduce paper --measure --finite-width`` end to end (theory §2.3, §6.4; issue
29): Table 2 gains the ge-row-n columns, the option is part of the run's identity, and
dK < 2 or a run without table 2 is refused."""

from __future__ import annotations

import json

from tests.cli.helpers import bad, run_cli

ARGS = ("reproduce", "paper", "--measure", "--draws", "2", "--quiet")


def test_table2_gains_the_columns_and_a_resume_must_keep_the_option(capsys, tmp_path):
    out = str(tmp_path / "run")
    code, stdout, _ = run_cli(capsys, *ARGS, "--scale", "32", "--panels", "table2",
                              "--finite-width", "--out", out)
    assert code == 0 and "14 draws measured now" in stdout
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["finite_width"] is True
    rows = report["panels"]["table2"]["rows"]
    assert len(rows) == 7 and all("row_n_rel_w1_percent" in r and "row_n_ks" in r
                                  for r in rows)
    md = (tmp_path / "run" / "report.md").read_text()
    assert "| ge-row-n rel W1 % | ge-row-n KS |" in md and "theory §2.3" in md
    err = bad(capsys, *ARGS, "--scale", "32", "--panels", "table2", "--out", out, "--resume")
    assert "finite_width" in err
    code, stdout, _ = run_cli(capsys, *ARGS, "--scale", "32", "--panels", "table2",
                              "--finite-width", "--out", out, "--resume")
    assert code == 0 and "0 draws measured now, 14 already in the store" in stdout


def test_dK_below_two_and_runs_without_table2_are_refused(capsys, tmp_path):
    err = bad(capsys, *ARGS, "--scale", "64", "--panels", "table2", "--finite-width",
              "--out", str(tmp_path / "a"))
    assert "dK >= 2" in err
    err = bad(capsys, *ARGS, "--scale", "32", "--panels", "2c", "--finite-width",
              "--out", str(tmp_path / "b"))
    assert "table2" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_2c_finite_width_theory_column_and_its_ridge_formula():
    """2(c) with ``--finite-width`` (theory §2.3, §5): the ridge error of the finite-width
    law from its float64 ``(G, G')`` at ``-lam``; the same formula on the plain law
    reproduces the readout's mpmath ridge error (an independent route), and the row and
    the figure carry the finite-width value beside the limit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from freege.numeric import law as case_law
    from validation.paper import theory as th
    from validation.paper.panels import panel_2c

    dims = {"n": 64, "d": 64, "h": 2, "dK": 16, "dV": 16, "dO": 32}
    lam, sigma2 = 1e-4, 0.1
    plain = case_law("mha", th._dims(dims))
    limit = th.ridge(dims)
    again = th.ridge_from_cauchy(plain, float(plain.mean()), 0.5, lam, sigma2)
    assert abs(again / limit - 1) < 1e-5
    fw = th.ridge_finite_width(dims, lam, sigma2)
    assert 1e-4 < abs(fw / limit - 1) < 0.2
    row = {"path": "fixed output", "h": 2, "dO": 32, panel_2c.FINITE_WIDTH: fw,
           "measured": limit, "low": limit, "high": limit, "bar": 0.0, "theory": limit}
    panel = {"curves": {"fixed output": {"h": [2], "error": [limit]}}, "rows": [row],
             "boundaries": {}}
    fig, ax = plt.subplots()
    panel_2c.draw(ax, panel)
    labels = ax.get_legend_handles_labels()[1]
    plt.close(fig)
    assert "finite-width theory, fixed output" in labels
