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
