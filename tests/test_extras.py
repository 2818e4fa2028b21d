"""The optional packages (issue 30, item 1): :mod:`freege.extras` refuses a missing extra
in one line naming what to install, and what only limits threads or adds workers falls
back cleanly. A missing package is simulated by ``sys.modules[name] = None`` (then its
import raises ImportError)."""

import subprocess
import sys

import pytest

from freege.errors import FreegeError
from freege.extras import MissingExtraError, blas_threads, installed, require
from freege.progress import QUIET
from freege.validation.sweep import engine as sweep
from freege.validation.sweep.grid import expand

POINTS = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})


def test_require_returns_the_module_or_names_the_extra(monkeypatch):
    assert require("json", "plot", "a test") is sys.modules["json"]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingExtraError) as info:
        require("pandas", "data", "load_store")
    error = info.value
    assert isinstance(error, FreegeError) and isinstance(error, ValueError)
    assert str(error) == ("load_store needs pandas, the optional extra 'data': "
                          "pip install 'freege[data]'")
    assert (error.module, error.extra) == ("pandas", "data")


def test_require_names_the_package_of_a_submodule(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingExtraError, match=r"^--plot needs matplotlib, .*freege\[plot\]"):
        require("matplotlib.figure", "plot", "--plot")


def test_installed_does_not_import(monkeypatch):
    assert installed("json")
    assert not installed("freege_no_such_package")
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert not installed("distributed")
    code = ("import sys\nfrom freege.extras import installed\ninstalled('numpy')\n"
            "assert 'numpy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_blas_threads_without_threadpoolctl_changes_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    with blas_threads(1) as limits:
        assert limits is None  # the null context


def test_sweep_without_dask_runs_on_one_worker(tmp_path, monkeypatch):
    """No Dask, no threadpoolctl: the default workers are 1 and the draws run here."""
    for name in ("distributed", "dask", "threadpoolctl"):
        monkeypatch.setitem(sys.modules, name, None)
    assert sweep.default_workers("numpy") == 1
    out = sweep.run(POINTS, draws=2, store=tmp_path / "s.jsonl", verbosity=QUIET)
    assert (out.ok, out.failed, out.workers) == (2, 0, 1)


@pytest.mark.parametrize(("workers", "scheduler", "what"),
                         [(2, None, "--workers 2 [(]1 runs without it[)] needs distributed"),
                          (None, "tcp://127.0.0.1:1", "--scheduler needs distributed")])
def test_sweep_needing_dask_is_refused_before_the_store(tmp_path, monkeypatch, workers,
                                                        scheduler, what):
    monkeypatch.setitem(sys.modules, "distributed", None)
    store = tmp_path / "s.jsonl"
    with pytest.raises(MissingExtraError, match=rf"^{what}.*pip install 'freege\[sweep\]'"):
        sweep.run(POINTS, draws=2, store=store, workers=workers, scheduler=scheduler,
                  verbosity=QUIET)
    assert not store.exists()
