"""The CuPy path (theory §7: one code path, compared with NumPy statistically), on a real
GPU (skipped without one) and on the CuPy test double (tests/cupy_double.py), which
runs on any machine: every GPU entry point, replay on CuPy's random layout, loud solver
failures, and the fallback when CuPy is installed without a driver."""

import json

import numpy as np
import pytest

from freege.params import Dims
from freege.validation.sampling import backend as backend_module
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import PEAK_MEMORY_MEANS, cupy_problem, get_backend

#: h dV = 96 > 2n: the draw applies W^O in blocks of two heads, outlier.sample and the
#: chain draw it whole
BLOCKED = Dims(n=32, h=6, dK=8, dV=16, dO=24)
SMALL = Dims(n=48, h=3, dK=8, dV=8, dO=48)


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "double"])
def cupy(request):
    """The CuPy of the test: the real one with a usable GPU, or the test double."""
    if request.param == "double":
        return request.getfixturevalue("cupy_double")
    pytest.importorskip("cupy")
    problem = cupy_problem()
    if problem is not None:
        pytest.skip(problem)
    import cupy

    return cupy


@pytest.fixture
def states(cupy_double, monkeypatch):
    """Set the double's (and freege's) random state count."""
    def set_states(count):
        cupy_double.reset(default_states=count)
        monkeypatch.setattr(backend_module, "GPU_RANDOM_STATES", count)
    return set_states


def _welch_ok(a, b, level=0.9999):
    """Equal means by Welch's t test (6 draws per backend: a t quantile, not a normal one)."""
    return metrics.welch(a, b, level).agree


# -- the double behaves as CuPy does where freege could go wrong ------------------------

def test_the_double_refuses_implicit_host_conversion(cupy_double):
    a = cupy_double.arange(6, dtype=cupy_double.float64).reshape(2, 3)
    with pytest.raises(TypeError):
        np.asarray(a)
    with pytest.raises(TypeError):
        a + np.ones(3)
    with pytest.raises(TypeError):
        np.ones(3) * a
    total = a.sum()
    assert isinstance(total, cupy_double.ndarray) and total.shape == () and float(total) == 15
    assert isinstance(cupy_double.asnumpy(a), np.ndarray) and a.get().tolist() == [[0, 1, 2],
                                                                                 [3, 4, 5]]


@pytest.mark.parametrize("count", [1, 3])
def test_the_double_fills_arrays_from_states_in_turn(cupy_double, count):
    """Element j from state j % S: a whole draw differs from two halves unless S = 1."""
    rng = cupy_double.random
    seq = np.random.SeedSequence(3)
    whole = rng.Generator(rng.XORWOW(seq, size=count)).standard_normal(10).get()
    halves = rng.Generator(rng.XORWOW(seq, size=count))
    parts = np.concatenate([halves.standard_normal(5).get() for _ in range(2)])
    assert (np.array_equal(whole, parts)) == (count == 1)


# -- every GPU entry point --------------------------------------------------------------

@pytest.mark.parametrize("case", ["attention", "mha", "mha-tied"])
def test_case_moments_agree_across_backends(cupy, case):
    from freege.validation.sampling.sample import case_eigenvalues

    dims = Dims(n=64, h=4, dK=16, dV=16, dO=64)
    for model in ("softmax", "ge"):
        gpu = [case_eigenvalues(case, dims, seed=s, model=model, backend="cupy")
               for s in range(6)]
        cpu = [case_eigenvalues(case, dims, seed=s, model=model, backend="numpy")
               for s in range(6)]
        assert all(e.dtype == np.float64 and isinstance(e, np.ndarray) for e in gpu)
        for q in (1, 2):
            assert _welch_ok([np.mean(e**q) for e in gpu], [np.mean(e**q) for e in cpu])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_validate_runs_on_cupy(cupy, dtype):
    from freege.validation.runner import validate

    res = validate(Dims(n=48, h=3, dK=8, dV=16, dO=48), draws=2, backend="cupy", dtype=dtype)
    assert res.backend == "cupy" and res.summary()["peak_memory_bytes"] > 0
    assert all(np.all(np.isfinite(d.softmax)) for d in res.draws)


def test_ladder_runs_on_cupy(cupy):
    from freege.validation import ladder

    summary, last = ladder.run(48, trials=1, backend="cupy")
    assert summary["backend"] == "cupy" and last.spectra["Y_f_lin"].shape == (48,)


def test_chain_runs_on_cupy(cupy):
    from freege.validation import chain

    d = chain.draw(SMALL, seed=(0, 1), backend="cupy")
    assert all(s.shape == (SMALL.n,) for s in d.spectra.values()) and d.outlier > 0


def test_sweep_runs_in_process_on_cupy(cupy, tmp_path):
    from freege.progress import QUIET
    from freege.validation.sweep import engine, store
    from freege.validation.sweep.grid import expand

    points = expand({"n": [32], "h": [2], "dk": [8], "do": [24]})
    path = tmp_path / "gpu.jsonl"
    engine.run(points, draws=2, store=path, workers=1, backend="cupy", verbosity=QUIET)
    records = store.read(path).records
    assert len(records) == 2 and store.read(path).header["identity"]["backend"] == "cupy"


def test_sweep_runs_on_two_workers_on_the_double(cupy_double, capsys, tmp_path):
    """Two Dask workers on CuPy through the engine's Dask route, threads of this process:
    the double is a ``sys.modules`` entry, which the spawned worker processes of
    ``--workers 2`` never see. Same records as in-process (replay)."""
    pytest.importorskip("distributed", reason="needs the 'sweep' extra: pip install '.[sweep]'")
    from freege.cli import main
    from freege.validation.sweep import store
    from tests.validation.stores import threads_cluster

    grid = ["sweep", "--n", "32", "--h", "2", "--dk", "8", "--do", "24", "--draws", "4",
            "--backend", "cupy", "--quiet", "--format", "json"]
    with threads_cluster(workers=2) as cluster:
        assert main([*grid, "--store", str(tmp_path / "two.jsonl"),
                     "--scheduler", cluster.scheduler_address]) == 0
    two = json.loads(capsys.readouterr().out)
    assert (two["workers"], two["ok"], two["failed"]) == (2, 4, 0)
    assert main([*grid, "--store", str(tmp_path / "one.jsonl"), "--workers", "1"]) == 0

    def spectra(name):
        records = store.read(tmp_path / name).records
        # time and memory vary; memory also as the two threads share one memory pool
        return {r["draw"]: {k: v for k, v in r.items() if "second" not in k
                            and k != "peak_bytes"} for r in records}
    assert spectra("two.jsonl") == spectra("one.jsonl")


def test_reproduce_paper_runs_on_cupy(cupy, tmp_path):
    from freege.cli import main

    out = tmp_path / "paper"
    assert main(["reproduce", "paper", "--measure", "--scale", "64", "--draws", "2",
                 "--panels", "3b", "--quiet", "--yes", "--backend", "cupy",
                 "--out", str(out)]) == 0
    assert (out / "report.json").exists()


def test_gpu_check_runs(cupy, capsys):
    from freege.validation import gpu_check

    code = gpu_check.main(["--presets", "dinov3-l16", "--draws", "2", "--numpy-draws", "2",
                           ])
    out = capsys.readouterr().out
    assert code == 0 and "all presets agree" in out and "dinov3-l16" in out
    assert f"MiB on cupy: {PEAK_MEMORY_MEANS['cupy']}" in out


def test_the_cupy_peak_memory_says_what_it_measures(cupy, capsys):
    """validate's peak memory on CuPy is the pool's holdings, and the output says so."""
    from freege.cli import main

    args = ["validate", "--n", "32", "--h", "2", "--dk", "8", "--do", "32", "--draws", "2",
            "--backend", "cupy", "--quiet"]
    assert main(args) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "peak memory" in x)
    assert "held by CuPy's memory pool during the draw, incl. generator states and pool " \
           "rounding" in line
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["peak_memory_means"] == PEAK_MEMORY_MEANS["cupy"]


# -- estimates made on the device ---------------------------------------------------------

@pytest.fixture
def probed(cupy_double, monkeypatch):
    """The double with fresh speed caches and :func:`cost.speeds` so slow at eigenvalues
    (1e6 s at the calibration size) that a run estimated by n^3 scaling would need
    ``--yes``; yields the sizes the device probe was called at."""
    from freege.validation.sampling import cost

    cost.speeds.cache_clear()
    cost.device_speeds.cache_clear()
    monkeypatch.setattr(cost, "speeds", lambda _bk: cost.Speeds(1e9, 1e9, 1e6))
    sizes = []
    probe = cost.device_speeds
    monkeypatch.setattr(cost, "device_speeds", lambda bk, n: sizes.append(n) or probe(bk, n))
    yield sizes
    probe.cache_clear()


@pytest.mark.parametrize("command", [
    ["validate", "--n", "40", "--h", "2", "--dk", "8", "--do", "40", "--draws", "2"],
    ["ladder", "--n", "40", "--trials", "1"],
    ["sweep", "--n", "40", "--h", "2", "--dk", "8", "--do", "40", "--draws", "1"],
], ids=["validate", "ladder", "sweep"])
def test_the_cupy_estimate_is_probed_on_the_device_at_the_runs_size(probed, capsys, tmp_path,
                                                                     command):
    from freege.cli import main

    store = ["--store", str(tmp_path / "s.jsonl")] if command[0] == "sweep" else []
    # not --quiet: that silences the estimate line too (issue 40)
    assert main([*command, *store, "--backend", "cupy", "--format", "json"]) == 0
    estimate = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("freege: estimate:")]
    assert probed == [40] and len(estimate) == 1
    assert "on cupy at its speed measured at the run's size" in estimate[0]


@pytest.mark.parametrize("why", ["fails", "too large"])
def test_the_cupy_estimate_without_a_probe_is_unknown(probed, cupy_double, monkeypatch,
                                                      capsys, why):
    """No probe, no guess: the time is "unknown" and nothing needs --yes."""
    from freege.cli import budget
    from freege.validation.sampling import cost

    if why == "fails":
        cupy_double.STATE.failing.add("eigvalsh")
    else:  # room for the sample, not for the probe's four n x n arrays
        monkeypatch.setattr(cost, "available_memory", lambda _bk: 4 * 40 * 40 * 8 - 1)
    sample = cost.Cost(peak_bytes=2**10, matmul_flops=1e12, elementwise=1.0,
                       eig_sizes=(40, 40))
    each = budget.preflight(sample, 10**6, "draw", get_backend("cupy"), confirmed=False)
    err = capsys.readouterr().err.splitlines()
    reason = "failed (LinAlgError" if why == "fails" else "needs 51200 bytes"
    assert np.isnan(each) and probed == [40] and len(err) == 1
    assert "1000000 draws on cupy, time unknown (" in err[0] and reason in err[0]


# -- replay on CuPy's random layout, one generator per stream -----------------------------

@pytest.mark.parametrize("count", [1, 7, 64])
def test_replay_does_not_depend_on_the_state_layout(states, count):
    """The draw's outlier is outlier.sample's and chain step 1 is validate's softmax
    spectrum (W^O whole there, in blocks in the draw), whatever the state count."""
    from freege.validation import chain
    from freege.validation.sampling import outlier, sample

    states(count)
    d = sample.draw(BLOCKED, seed=(2, 5), backend="cupy")
    assert abs(d.outlier - outlier.sample(BLOCKED, seed=(2, 5), backend="cupy")) \
        <= 1e-12 * d.outlier
    step1 = chain.draw(BLOCKED, seed=(2, 5), backend="cupy").spectra[chain.STEPS[0]]
    assert np.max(np.abs(step1 - d.softmax)) <= 1e-12 * d.softmax[-1]


@pytest.mark.parametrize("dims", [BLOCKED, SMALL], ids=["blocks", "whole"])
def test_one_generator_per_stream_per_draw(cupy_double, dims):
    from freege.validation.sampling import sample

    sample.draw(dims, seed=1, backend="cupy")
    assert cupy_double.STATE.generators == 3  # weights, W^O, GE noise


# -- loud solver failures -----------------------------------------------------------------

@pytest.mark.parametrize("routine,error", [("eigvalsh", ArithmeticError),
                                           ("cholesky", np.linalg.LinAlgError)])
def test_a_failed_factorisation_raises_as_on_the_cpu(cupy_double, routine, error):
    """Outside ``cupyx.errstate`` the double fails silently, as cuSOLVER does; the draw
    raises the CPU's error all the same."""
    from freege.validation.sampling import sample
    from freege.validation.sampling.solvers import solvers

    a = cupy_double.asarray(np.eye(3))
    cupy_double.STATE.failing.add(routine)
    assert np.all(np.isfinite(getattr(cupy_double.linalg, routine)(a).get()))  # silent
    with pytest.raises(error):
        sample.draw(SMALL, seed=0, backend="cupy")
    with pytest.raises(np.linalg.LinAlgError):  # the CPU's error, for comparison
        solvers(np).cholesky(-np.eye(3))


# -- CuPy installed without a driver --------------------------------------------------------

def test_cupy_without_a_driver_falls_back(cupy_double, capsys):
    from freege.cli import main

    cupy_double.STATE.driver_error = True
    assert get_backend("auto").name == "numpy"
    with pytest.raises(SystemExit) as stop:
        main(["validate", "--n", "32", "--h", "2", "--dk", "8", "--do", "32", "--draws", "2",
              "--backend", "cupy", "--quiet"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cudaErrorInsufficientDriver" in err[0]


def test_the_device_script_skips_cleanly_without_a_gpu(tmp_path, capsys):
    """benchmarks/gpu.py on a machine without a usable GPU: status 0 and the reason in
    both of its files (skipped where a GPU answers)."""
    from benchmarks import gpu

    problem = cupy_problem()
    if problem is None:
        pytest.skip("a GPU is present")
    assert gpu.main([str(tmp_path / "out")]) == 0
    assert problem in (tmp_path / "out" / "summary.txt").read_text()
    assert "no usable GPU" in json.loads((tmp_path / "out" / "gpu.json").read_text())["skipped"]
