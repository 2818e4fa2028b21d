"""``freege reproduce paper --measure`` (theory §6.4): bad input refused before any work,
a damaged store resumed into an identical report, figures and both report files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.cli.helpers import bad, run_cli
from tests.stopped_run import run_stopped

ROOT = Path(__file__).resolve().parents[2]
TINY = ("--measure", "--scale", "64", "--draws", "2", "--panels", "3b", "--quiet")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One tiny finished run (panel 3b at S = 64, two draws)."""
    from freege.cli import main

    out = tmp_path_factory.mktemp("paper") / "run"
    assert main(["reproduce", "paper", *TINY, "--out", str(out)]) == 0
    return out


def test_report_figures_and_statistics(finished):
    report = json.loads((finished / "report.json").read_text())
    assert report["scale"] == 64 and report["seed"] == 0 and "finite-size bias" in report["note"]
    panel = report["panels"]["3b"]
    schemes = {(r["h"], r["scheme"]) for r in panel["rows"]}
    assert schemes == {(h, s) for h in (2, 4, 8, 16, 32) for s in ("GQA", "tied", "tied - GQA")}
    for row in panel["rows"]:
        assert row["low"] <= row["measured"] <= row["high"]
    md = (finished / "report.md").read_text()
    assert "| statistic | freege | paper |" in md and "0.75" in md
    for ext in ("pdf", "png"):
        assert (finished / f"panel_3b.{ext}").stat().st_size > 1000


def test_damaged_store_resumes_to_an_identical_report(finished, tmp_path, capsys):
    out = tmp_path / "again"
    out.mkdir()
    stored = (finished / "store.jsonl").read_bytes().splitlines(keepends=True)
    # a kill -9 mid-run: the last records lost, the one in flight cut short
    (out / "store.jsonl").write_bytes(b"".join(stored[:-6]) + stored[-6][:40])
    with pytest.warns(UserWarning, match="truncated"):  # not --quiet: progress lines
        code, printed, err = run_cli(capsys, "reproduce", "paper", *TINY[:-1], "--out",
                                     str(out), "--resume")
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    verdict = report["panels"]["3b"]["verdict"]
    assert verdict["verdict"] in ("agrees", "differs") and verdict["checks"] == 15
    # the command prints each panel's verdict and the overall line, as the report holds them
    assert f"freege: 3b: {verdict['line']}" in printed.splitlines()
    assert f"freege: {report['overall']}" in printed.splitlines()
    assert report["overall"].startswith("overall: ") and "S = 64" in report["overall"]
    md = (out / "report.md").read_text()
    assert f"Verdict: {verdict['line']}." in md and report["overall"][1:] in md
    lines = err.splitlines()
    assert "theory, statistics and figures" in lines[0]  # the estimate covers the report
    stamped = [line for line in lines if " freege reproduce paper: " in line]
    assert stamped and all(line[:4].isdigit() and line[19] == "Z" for line in stamped)
    # the six draws the damage lost are measured again
    assert any(": measure: 6/6 draws" in line for line in stamped), stamped
    assert ": report: 1/1 panels" in stamped[-1]
    for name in ("report.json", "report.md"):
        assert (out / name).read_bytes() == (finished / name).read_bytes()


@pytest.mark.parametrize(("argv", "message"), [
    (["--scale", "0.5"], "--scale must be a number >= 1"),
    (["--scale", "four"], "--scale must be a number >= 1"),
    (["--scale", "nan"], "--scale must be a number >= 1"),
    (["--panels", "2a,9z"], "unknown panel '9z'"),
    (["--draws", "1"], "--draws must be an integer >= 2"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_work(capsys, tmp_path, argv, message):
    out = tmp_path / "new"
    assert message in bad(capsys, "reproduce", "paper", "--measure", "--out", str(out), *argv)
    assert not out.exists()


def test_existing_folder_needs_resume_and_the_same_run(capsys, finished, tmp_path):
    assert "pass --resume" in bad(capsys, "reproduce", "paper", *TINY, "--out", str(finished))
    other = [a if a != "64" else "32" for a in TINY]
    assert "holds a different run" in bad(capsys, "reproduce", "paper", *other, "--out",
                                          str(finished), "--resume")
    # the products' precision is part of the run (issue 41): one line, before any work
    err = bad(capsys, "reproduce", "paper", *TINY, "--dtype", "float32", "--out",
              str(finished), "--resume")
    assert "holds a different run (its dtype differ)" in err and len(err.splitlines()) == 1
    full = tmp_path / "foreign"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert "pass --resume" in bad(capsys, "reproduce", "paper", *TINY, "--out", str(full))
    assert "no freege paper run" in bad(capsys, "reproduce", "paper", *TINY, "--out",
                                        str(full), "--resume")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_folder(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert "not writable" in bad(capsys, "reproduce", "paper", *TINY, "--out",
                                     str(locked / "run"))
    finally:
        locked.chmod(0o700)


def test_measure_is_required(capsys, tmp_path):
    assert "needs --measure" in bad(capsys, "reproduce", "paper", "--out", str(tmp_path / "x"))


def test_a_setup_measures_its_panel_with_the_same_store(finished, tmp_path, capsys):
    """``reproduce sharing --measure`` is panel 3(b): it resumes the paper run's store
    (nothing left to measure) and writes the same report."""
    out = tmp_path / "sharing"
    out.mkdir()
    (out / "store.jsonl").write_bytes((finished / "store.jsonl").read_bytes())
    code, stdout, err = run_cli(capsys, "reproduce", "sharing", *TINY[:5], "--quiet",
                                "--out", str(out), "--resume")
    assert code == 0, err
    assert "0 draws measured now, 20 already in the store" in stdout
    assert (out / "report.md").read_bytes() == (finished / "report.md").read_bytes()



# issue 40: the report, figures and store go only where no one else can write
OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="giving a file to another user (uid 65534) needs root")
#: every name the run writes in --out, and the fixed temporary names older versions used
WRITTEN = ("report.json", "report.md", "panel_3b.pdf", "panel_3b.png", ".freege-rate.pdf",
           ".freege-rate.png", "report.json.tmp", "report.md.tmp")


def _link(link: Path, target: Path) -> None:
    """A symbolic link ``link -> target`` planted by uid 65534 (when root)."""
    os.symlink(target, link)
    if os.geteuid() == 0:
        os.lchown(link, OTHER, OTHER)


def _resumable(finished: Path, out: Path) -> Path:
    out.mkdir()
    (out / "store.jsonl").write_bytes((finished / "store.jsonl").read_bytes())
    return out


def test_links_planted_in_a_sticky_out_folder_are_never_followed(finished, tmp_path, capsys):
    """A shared (sticky, 1777) --out folder of yours is accepted; links another user
    planted there at every name the run writes -- and at the old fixed temporary names --
    are replaced, never followed: the files they point to are untouched, no file is
    created at a chosen path, and the report is the same."""
    out = _resumable(finished, tmp_path / "shared")
    out.chmod(0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    for k, name in enumerate(WRITTEN):
        _link(out / name, victim if k % 2 else chosen / name)
    code, _, err = run_cli(capsys, "reproduce", "paper", *TINY, "--out", str(out), "--resume")
    assert code == 0, err
    assert victim.read_text() == "precious\n" and list(chosen.iterdir()) == []
    for name in ("report.json", "report.md"):
        assert not (out / name).is_symlink()
        assert (out / name).read_bytes() == (finished / name).read_bytes()
    assert not (out / "panel_3b.png").is_symlink()
    assert not (out / "panel_3b.pdf").is_symlink()
    assert stat.S_IMODE(out.stat().st_mode) == 0o1777


@needs_root
@pytest.mark.parametrize("what", ["folder", "store"])
def test_an_out_folder_or_store_of_another_user_is_never_resumed(finished, tmp_path, capsys,
                                                                  what):
    out = _resumable(finished, tmp_path / "theirs")
    os.chown(out if what == "folder" else out / "store.jsonl", OTHER, OTHER)
    err = bad(capsys, "reproduce", "paper", *TINY, "--out", str(out), "--resume")
    if what == "folder":
        assert err == (f"freege: error: --out folder {out} is owned by uid {OTHER}, not by "
                       f"you (uid {os.getuid()}): refused\n")
    else:
        assert err == (f"freege: error: store {out / 'store.jsonl'} is owned by uid {OTHER}, "
                       f"not by you (uid {os.getuid()}): refused; a store is resumed only "
                       "when it and its folder are yours alone (give a new path)\n")
    assert sorted(p.name for p in out.iterdir()) == ["store.jsonl"]


@pytest.mark.parametrize("where", ["out", "parent"])
def test_an_out_folder_writable_by_others_is_refused(finished, tmp_path, capsys, where):
    shared = tmp_path / "shared"
    if where == "out":
        out = _resumable(finished, shared)
        argv = ["--out", str(out), "--resume"]
    else:
        shared.mkdir()
        argv = ["--out", str(shared / "run")]
    shared.chmod(0o777)
    err = bad(capsys, "reproduce", "paper", *TINY, *argv)
    assert err == (f"freege: error: --out folder {shared} is writable by group or others "
                   "(mode 777 and not sticky): refused\n")
    assert not (shared / "run").exists() and not (shared / "report.md").exists()


def _records(store):
    from freege.validation.paper import run as paper_run
    from freege.validation.sweep import store as sweep_store

    return sorted((r["point"], r["draw"], repr({k: v for k, v in r.items() if k != "seconds"}))
                  for r in sweep_store.read(store, paper_run.store_schema()).records)


def test_ctrl_c_says_one_line_and_the_rerun_resumes(finished, tmp_path, capsys):
    """A two-worker ``reproduce paper --measure`` interrupted by Ctrl-C after its first
    draw (issue 27): exit 130, one line on stderr (besides the estimate), no traceback
    from any process; a rerun with --resume completes the store to the records and the
    report of an uninterrupted run."""
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    out = tmp_path / "interrupted"
    argv = ["reproduce", "paper", *TINY, "--out", str(out), "--workers", "2"]
    returncode, err = run_stopped(argv, "os.killpg(0, signal.SIGINT)")
    assert returncode == 130, err
    said = [x for x in err.splitlines() if not x.startswith("freege: paper:")]
    assert said == ["freege: interrupted"], err
    partial = len(_records(out / "store.jsonl"))
    assert 1 <= partial < 20, partial
    code, stdout, err = run_cli(capsys, "reproduce", "paper", *TINY, "--out", str(out),
                                "--resume")
    assert code == 0, err
    assert f"{20 - partial} draws measured now, {partial} already in the store" in stdout
    assert _records(out / "store.jsonl") == _records(finished / "store.jsonl")
    for name in ("report.json", "report.md"):
        assert (out / name).read_bytes() == (finished / name).read_bytes()
