"""Array backend for the sampling side: NumPy or CuPy from one code path (theory §7).

The array API has no random numbers, so :class:`Backend` carries a small seeded RNG
shim: :meth:`Backend.generator` turns a :class:`numpy.random.SeedSequence` into the
backend's own generator (PCG64 on NumPy, CuPy's XORWOW generator on the GPU). The two
backends give different streams for the same seed, so they are compared statistically,
never bitwise (theory §7).

CuPy fills a random array from many generator states at once (element j from state
``j % S``), so its numbers depend on how an array is cut into draws and on S. The sampler
makes the same calls on every route (``sample.output_weights``), and S is fixed
(:data:`GPU_RANDOM_STATES`, not CuPy's default of 8·256 per multiprocessor), so a seed
gives the same normals on any GPU with the same CuPy; products and eigensolvers still
round differently from one GPU to another. CuPy seeds its states from 32 bits of the
:class:`numpy.random.SeedSequence` (``generate_state(1, uint32)``; no public argument
passes more): 2^32 streams, what a repeat means in docs/guide.md.

Solvers (:func:`freege.validation.sampling.solvers.solvers`): a failed CuPy
factorisation raises as on the CPU; :meth:`Backend.eigvalsh` and
:meth:`Backend.eigenvalues_and_weights` raise the CPU eigensolver's ArithmeticError.

Precision: float64 by default; ``float32`` is an opt-in (:data:`DTYPES`) that halves
the memory and speeds the products and the eigensolver. Its normals are drawn in
float64 and rounded, so a float32 and a float64 run of the same seed see the same
weights to rounding, and the dtype alone moves the result: relative W1 by about 1e-6 of
itself (tests/validation/test_draws_dtype.py; llada-8b: 9.048984e-3 vs 9.048996e-3).
KS is a rank statistic: unchanged at small n, but where the spectrum reaches down to
float32's resolution (eigenvalues below ~1e-7 of the largest: square full-rank shapes at
n >= ~2000, whose smallest are ~1/n^2 of it) it moved by 3/n at llada-8b (2.2e-3 vs
2.9e-3). Eigenvalues are returned as float64 arrays either way; on the CPU they come
from :func:`freege.validation.sampling.eigensolver.eigvalsh`.

``auto`` takes CuPy only when it imports *and* a GPU answers a tiny computation; asking
for ``cupy`` explicitly when it is unusable raises a ValueError that says why.
"""

from __future__ import annotations

import time
import tracemalloc
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from freege.extras import install_hint
from freege.validation.sampling.solvers import solvers

#: generator states of every CuPy generator (CuPy's default, 8·256 per multiprocessor,
#: would tie the numbers to the GPU model); 2^18 states hold 12 MiB
GPU_RANDOM_STATES = 2**18
DTYPES: tuple[str, ...] = ("float64", "float32")


def check_dtype(dtype: str) -> str:
    """``dtype`` when it is one of :data:`DTYPES`, else a ValueError naming them."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)} (got {dtype!r})")
    return dtype


def cupy_problem() -> str | None:
    """``None`` when CuPy imports and a GPU computes; otherwise the reason, one line."""
    try:
        import cupy
    except ModuleNotFoundError as exc:
        if exc.name != "cupy":  # a dependency of an installed CuPy
            return f"CuPy is not importable (ModuleNotFoundError: {exc})"
        return (f"CuPy is not installed ({install_hint('gpu')} for CUDA 13, "
                f"{install_hint('gpu-cuda12')} for CUDA 12)")
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        return f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "CuPy found no CUDA device"
        probe = cupy.arange(4, dtype=cupy.float64)
        if float((probe @ probe).get()) != 14.0:
            return "CuPy computed a wrong test product on the GPU"
    except Exception as exc:
        return f"CuPy cannot use the GPU ({type(exc).__name__}: {exc})"
    return None


def _eigen_failure(exc: np.linalg.LinAlgError) -> ArithmeticError:
    """The CPU eigensolver's error for a failed cuSOLVER ``syevd``."""
    return ArithmeticError(f"cuSOLVER syevd failed to converge ({exc})")


@dataclass
class MemoryMeter:
    """Peak memory of the block it measured, in bytes (``None`` until it exits)."""

    peak_bytes: int | None = field(default=None)


@dataclass(frozen=True)
class Backend(ABC):
    """An array namespace (``xp``) and working precision (``dtype``, a name of
    :data:`DTYPES`) with the few extras the sampler needs; one subclass per backend
    (:data:`KINDS`), whose class attributes say what it can do, so that callers ask
    those, never its name."""

    xp: ModuleType
    dtype: str = "float64"

    #: the backend's name, as ``--backend`` spells it
    name: ClassVar[str]
    #: it computes on this process's CPU cores: its work is timed in the process's CPU
    #: time, its speed is one core's, measured once
    #: (:func:`freege.validation.sampling.cost.speeds`), which also prices the CPU work
    #: around the samples (a figure, a private cluster's start), and BLAS thread limits
    #: apply to it; otherwise a device's speed is probed at the run's size
    on_cpu: ClassVar[bool]
    #: its arrays are NumPy arrays (CPU-only routines take them as they are)
    numpy_arrays: ClassVar[bool]
    #: it holds no device context that a forked process would inherit broken, so worker
    #: processes may be forked (else spawned)
    fork_safe: ClassVar[bool]
    #: what :meth:`memory` measures (:data:`PEAK_MEMORY_MEANS`)
    peak_memory_means: ClassVar[str]

    @classmethod
    def problem(cls) -> str | None:
        """``None`` when the backend can run here; otherwise the reason, one line."""
        return None

    @classmethod
    @abstractmethod
    def load(cls, dtype: str) -> Backend:
        """The backend working in ``dtype`` (usable: :meth:`problem` found none)."""

    @abstractmethod
    def generator(self, seq: np.random.SeedSequence) -> Any:
        """The backend's seeded normal generator for ``seq``."""

    def normal(self, gen: Any, shape: tuple[int, ...]) -> Any:
        """i.i.d. N(0, 1) array of ``shape`` in the backend's dtype from ``gen`` (drawn
        in float64, so the stream does not depend on the dtype)."""
        z = gen.standard_normal(shape, dtype=np.float64)
        return z if self.dtype == "float64" else z.astype(self.dtype)

    def empty(self, shape: tuple[int, ...]) -> Any:
        """An uninitialised array of ``shape`` in the backend's dtype."""
        return self.xp.empty(shape, dtype=self.dtype)

    @abstractmethod
    def to_numpy(self, a: Any) -> np.ndarray:
        """The backend array ``a`` as a NumPy array."""

    def gram(self, m: Any, *, lower_only: bool = False) -> Any:
        """``m m^T``; ``lower_only``: the lower triangle, the one :meth:`eigvalsh` reads,
        is enough (a backend may still return the whole product)."""
        return m @ m.T

    @abstractmethod
    def eigvalsh(self, gram: Any, *, overwrite: bool = False) -> np.ndarray:
        """Ascending eigenvalues of a symmetric matrix (its lower triangle is read) as a
        float64 NumPy array; ``gram`` may be destroyed when ``overwrite``."""

    @abstractmethod
    def eigenvalues_and_weights(self, gram: Any, y: np.ndarray, *, overwrite: bool = False
                                ) -> tuple[np.ndarray, np.ndarray]:
        """Ascending eigenvalues ``l_j`` of a symmetric matrix and the weights ``(u_j^T
        y)^2`` of the NumPy vector ``y`` (theory §5 learning curves), float64 NumPy
        arrays."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait for the work queued on the backend."""

    def clock(self) -> float:
        """Seconds on the clock that times the backend's work: on the CPU
        (:attr:`on_cpu`) this process's CPU time, what its cores did whatever other
        processes take (wall-clock calibrations on a shared machine swung by 10x); on a
        device wall time, read after :meth:`synchronize`."""
        return time.process_time() if self.on_cpu else time.perf_counter()

    def free_device_memory(self) -> int | None:
        """Free bytes of the device's memory; None when the arrays live in host memory."""
        return None

    @abstractmethod
    def memory(self) -> AbstractContextManager[MemoryMeter]:
        """Measure peak memory of the block (:attr:`peak_memory_means`)."""


@dataclass(frozen=True)
class NumpyBackend(Backend):
    """NumPy on the CPU: PCG64 normals, the LAPACK eigensolvers of
    :mod:`freege.validation.sampling.eigensolver`."""

    name: ClassVar[str] = "numpy"
    on_cpu: ClassVar[bool] = True
    numpy_arrays: ClassVar[bool] = True
    fork_safe: ClassVar[bool] = True
    peak_memory_means: ClassVar[str] = (
        "peak bytes of the NumPy buffers allocated during the draw (tracemalloc)")

    @classmethod
    def load(cls, dtype: str) -> Backend:
        return cls(np, dtype)

    def generator(self, seq: np.random.SeedSequence) -> Any:
        return np.random.Generator(np.random.PCG64(seq))

    def to_numpy(self, a: Any) -> np.ndarray:
        return a

    def gram(self, m: Any, *, lower_only: bool = False) -> Any:
        """``m m^T``; ``lower_only``: only its lower triangle (BLAS ``?syrk``,
        :func:`freege.validation.sampling.eigensolver.gram`)."""
        from freege.validation.sampling.eigensolver import gram

        return gram(m, lower_only=lower_only)

    def eigvalsh(self, gram: Any, *, overwrite: bool = False) -> np.ndarray:
        """:func:`freege.validation.sampling.eigensolver.eigvalsh` (LAPACK driver by size);
        cheaper than an SVD and accurate for the bulk (theory §7.1)."""
        from freege.validation.sampling.eigensolver import eigvalsh

        return np.asarray(eigvalsh(gram, overwrite=overwrite), dtype=np.float64)

    def eigenvalues_and_weights(self, gram: Any, y: np.ndarray, *, overwrite: bool = False
                                ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`freege.validation.sampling.eigensolver.eigenvalues_and_weights` (no
        eigenvector matrix)."""
        from freege.validation.sampling.eigensolver import eigenvalues_and_weights

        return eigenvalues_and_weights(gram, y, overwrite=overwrite)

    def synchronize(self) -> None:
        """Nothing to wait for: NumPy returns when its work is done."""

    @contextmanager
    def memory(self) -> Iterator[MemoryMeter]:
        """NumPy buffers through :mod:`tracemalloc` (NumPy reports its data allocations
        to it)."""
        meter = MemoryMeter()
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            yield meter
        finally:
            meter.peak_bytes = tracemalloc.get_traced_memory()[1] - base
            if started:
                tracemalloc.stop()


@dataclass(frozen=True)
class CupyBackend(Backend):
    """CuPy on a GPU: XORWOW normals from :data:`GPU_RANDOM_STATES` states, cuSOLVER
    ``syevd`` (:func:`freege.validation.sampling.solvers.solvers`)."""

    name: ClassVar[str] = "cupy"
    on_cpu: ClassVar[bool] = False
    numpy_arrays: ClassVar[bool] = False
    fork_safe: ClassVar[bool] = False
    peak_memory_means: ClassVar[str] = (
        "peak device memory held by CuPy's memory pool during the draw, incl. "
        "generator states and pool rounding")

    @classmethod
    def problem(cls) -> str | None:
        return cupy_problem()

    @classmethod
    def load(cls, dtype: str) -> Backend:
        import cupy

        return cls(cupy, dtype)

    def generator(self, seq: np.random.SeedSequence) -> Any:
        random = self.xp.random
        return random.Generator(random.XORWOW(seq, size=GPU_RANDOM_STATES))

    def to_numpy(self, a: Any) -> np.ndarray:
        return self.xp.asnumpy(a)

    def eigvalsh(self, gram: Any, *, overwrite: bool = False) -> np.ndarray:
        """cuSOLVER ``syevd``."""
        try:
            vals = solvers(self.xp).eigvalsh(gram)
        except np.linalg.LinAlgError as exc:
            raise _eigen_failure(exc) from exc
        return np.asarray(self.to_numpy(vals), dtype=np.float64)

    def eigenvalues_and_weights(self, gram: Any, y: np.ndarray, *, overwrite: bool = False
                                ) -> tuple[np.ndarray, np.ndarray]:
        """cuSOLVER ``syevd`` with eigenvectors."""
        try:
            vals, vecs = solvers(self.xp).eigh(gram)
        except np.linalg.LinAlgError as exc:
            raise _eigen_failure(exc) from exc
        weights = (vecs.T @ self.xp.asarray(y, dtype=vecs.dtype)) ** 2
        return (np.asarray(self.to_numpy(vals), dtype=np.float64),
                np.asarray(self.to_numpy(weights), dtype=np.float64))

    def synchronize(self) -> None:
        self.xp.cuda.Stream.null.synchronize()

    def free_device_memory(self) -> int | None:
        return int(self.xp.cuda.runtime.memGetInfo()[0])

    @contextmanager
    def memory(self) -> Iterator[MemoryMeter]:
        """The default memory pool's high-water mark: the pool is emptied first, so the
        bytes it holds at the end bound the peak of live device arrays from above,
        rounded up to the pool's block sizes and counting the generators' states."""
        meter = MemoryMeter()
        pool = self.xp.get_default_memory_pool()
        self.synchronize()
        pool.free_all_blocks()
        try:
            yield meter
        finally:
            self.synchronize()
            meter.peak_bytes = int(pool.total_bytes())


#: the backends, in the order ``--backend`` lists them
KINDS: tuple[type[Backend], ...] = (NumpyBackend, CupyBackend)
#: ``auto``'s order of preference: the first usable one
AUTO: tuple[type[Backend], ...] = (CupyBackend, NumpyBackend)
_BY_NAME: dict[str, type[Backend]] = {kind.name: kind for kind in KINDS}
#: the backends' names (``--backend`` where ``auto`` is not offered)
NAMES: tuple[str, ...] = tuple(_BY_NAME)
BACKENDS: tuple[str, ...] = ("auto", *NAMES)
#: what :meth:`Backend.memory` measures on each backend, printed with every peak memory
#: (the backends' are not comparable)
PEAK_MEMORY_MEANS: dict[str, str] = {kind.name: kind.peak_memory_means for kind in KINDS}


def backend_kind(name: str) -> type[Backend]:
    """The class of the backend called ``name`` (one of :data:`NAMES`), not loaded: what it
    can do is asked of it (its class attributes), never of its name."""
    if name not in _BY_NAME:
        raise ValueError(f"backend must be one of {', '.join(NAMES)} (got {name!r})")
    return _BY_NAME[name]


def get_backend(name: str | Backend = "auto", dtype: str | None = None) -> Backend:
    """The backend called ``name`` (``auto`` or one of :data:`KINDS`' names) working in
    ``dtype`` (default float64; given with a :class:`Backend`, it replaces its dtype).

    ``auto`` is the first of :data:`AUTO` that is usable (CuPy when :func:`cupy_problem`
    finds none, else NumPy). A named backend that is unusable raises ValueError with the
    reason.
    """
    if dtype is not None:
        check_dtype(dtype)
    if isinstance(name, Backend):
        return name if dtype is None else replace(name, dtype=dtype)
    dtype = dtype or "float64"
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)} (got {name!r})")
    if name != "auto":
        problem = _BY_NAME[name].problem()
        if problem is not None:
            raise ValueError(f"backend {name} is unusable: {problem}; use --backend numpy")
        return _BY_NAME[name].load(dtype)
    return next(kind for kind in AUTO if kind.problem() is None).load(dtype)
