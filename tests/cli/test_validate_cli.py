"""``freege validate`` and ``freege ladder``: output contract and bad input."""

import json
import subprocess
import sys

import pytest

from freege.cli import main
from freege.validation.sampling.backend import cupy_problem

SMALL = ["--n", "48", "--h", "3", "--dk", "8", "--do", "40", "--draws", "2",
         "--backend", "numpy"]


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_validate_json_contract(capsys):
    code, out, err = _run(capsys, ["validate", *SMALL, "--format", "json"])
    assert code == 0
    data = json.loads(out)
    for key in ("preset", "rel_w1", "ks", "draws", "backend", "seconds_per_draw"):
        assert key in data
    assert data["preset"] is None and data["draws"] == 2 and data["backend"] == "numpy"
    for key in ("rel_w1", "ks"):
        assert set(data[key]) == {"mean", "ci95"}
        assert 0 <= data[key]["mean"] < 1 and data[key]["ci95"] >= 0
    assert data["config"]["dV"] == 8 and data["limiting_mean"] > 0
    assert "2/2" in err  # progress bar on stderr


def test_validate_quiet_prints_nothing_on_stderr(capsys):
    """``--quiet``: no progress and no estimate line (issue 40), the answer on stdout."""
    code, out, err = _run(capsys, ["validate", *SMALL, "--format", "json", "--quiet"])
    assert code == 0 and json.loads(out)["draws"] == 2
    assert err == ""


def test_validate_preset_text_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "spectrum.png"
    code, out, _ = _run(capsys, ["validate", "dinov3-l16", "--draws", "2", "--backend",
                                 "numpy", "--plot", str(png)])
    assert code == 0 and "dinov3-l16" in out and "relative W1" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ladder_json(capsys):
    code, out, _ = _run(capsys, ["ladder", "--n", "40", "--trials", "1", "--format", "json",
                                 "--backend", "numpy"])
    assert code == 0
    data = json.loads(out)
    assert data["n"] == 40 and data["reference"] == "sqrt(n) A^perp"
    assert data["steps"]["sqrt(n) A^perp"]["bulk_w1"] == 0.0
    assert set(data["normalizer"]) == {"mean", "std", "max_dev"}


BAD = [
    (["validate", "gpt5"], "valid presets: bert-base"),
    (["validate", "--n", "64", "--d", "32", "--h", "2", "--dk", "8", "--do", "8"], "d must be"),
    (["validate", "--n", "64", "--h", "2", "--dk", "0", "--do", "8"], "dK must be"),
    (["validate", "--n", "64", "--h", "2", "--dk", "8", "--do", "-3"], "dO must be"),
    (["validate", "--n", "64", "--h", "2", "--h-kv", "3", "--sharing", "gqa", "--dk", "8",
      "--do", "8"], "h_kv must be in"),
    (["validate", "--n", "64", "--h", "2", "--dk", "8", "--dv", "4", "--do", "8",
      "--sharing", "tied"], "dV == dK"),
    (["validate", "bert-base", "--draws", "1"], "draws must be an integer in [2, "),
    (["validate", "bert-base", "--n", "64"], "not both"),
    (["validate"], "give a preset"),
    (["ladder", "--n", "2"], "n must be"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_input_is_one_line_exit_2(capsys, argv, message, tmp_path):
    plot = tmp_path / "never.png"
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--plot", str(plot)])
    out = capsys.readouterr()
    assert exc.value.code == 2 and out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("freege: error:") and message in lines[0]
    assert not plot.exists()


def test_unusable_cupy_is_one_line_exit_2(capsys):
    if cupy_problem() is None:
        pytest.skip("CuPy is usable here")
    with pytest.raises(SystemExit) as exc:
        main(["validate", *SMALL[:-2], "--backend", "cupy"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "cupy is unusable" in err[0]


def test_plot_into_missing_folder_writes_nothing(capsys, tmp_path):
    pytest.importorskip("matplotlib")  # without it --plot is refused before the folder check
    target = tmp_path / "missing" / "x.png"
    with pytest.raises(SystemExit):
        main(["validate", *SMALL, "--plot", str(target)])
    assert "does not exist" in capsys.readouterr().err and not target.parent.exists()


def test_subprocess_bad_preset_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "freege", "validate", "nope"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
