"""A CuPy test double: the part of CuPy's public API that freege calls, on the CPU.

Installed per test by the ``cupy_double`` fixture (tests/conftest.py) as
``sys.modules["cupy"]`` (and ``cupyx``), so the rest of the suite still sees no CuPy. It
behaves like CuPy where freege could get it wrong without a GPU:

* arrays (:class:`ndarray`) wrap NumPy arrays but refuse implicit conversion
  (``numpy.asarray``, ``__array__``) and NumPy array operands, as CuPy does; ``.get()``
  and :func:`asnumpy` bring them back;
* reductions return 0-d arrays, not scalars;
* ``random.Generator`` over ``random.XORWOW(seed, size=S)`` fills an array from S
  generator states at once, element j from state ``j % S`` (CuPy's layout; the default S
  is :data:`STATE.default_states`, standing for ``8 * 256 * multiprocessors``), and keeps
  32 bits of the seed, as CuPy does;
* linear algebra fails silently unless inside ``cupyx.errstate(linalg="raise")``; the
  routines named in :data:`STATE.failing` fail (theory §7: the GPU path's solvers);
* ``cuda.runtime`` raises ``CUDARuntimeError`` when :data:`STATE.driver_error` is set
  (a CuPy installed on a machine without a driver).
"""

from __future__ import annotations

import builtins
import math
import threading
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__version__ = "14.2.0-double"


@dataclass
class _State:
    """What a test may configure (reset by the fixture for every test)."""

    default_states: int = 7
    failing: set[str] = field(default_factory=set)
    driver_error: bool = False
    generators: int = 0
    live_bytes: int = 0
    peak_bytes: int = 0


STATE = _State()
_ERRSTATE = threading.local()


def reset(default_states: int = 7) -> None:
    """Fresh configuration: ``default_states`` random states, nothing failing."""
    global STATE
    STATE = _State(default_states=default_states)


class ndarray:  # noqa: N801 -- CuPy's name
    """A device array: a NumPy array that refuses implicit host conversion."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(self, a: np.ndarray):
        self._a = a
        if a.base is None:  # an allocation, not a view
            STATE.live_bytes += a.nbytes
            STATE.peak_bytes = builtins.max(STATE.peak_bytes, STATE.live_bytes)
            _finalize(self, a.nbytes)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if builtins.any(isinstance(x, np.ndarray) for x in inputs):
            return NotImplemented
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs)))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return NotImplemented

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    T = property(lambda self: ndarray(self._a.T))

    def get(self) -> np.ndarray:
        return self._a.copy()

    def __len__(self) -> int:
        return len(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __repr__(self) -> str:
        return f"cupy_double.ndarray({self._a!r})"

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = _unwrap(value)

    def __getattr__(self, name: str) -> Any:
        if name not in _METHODS:
            raise AttributeError(name)
        method = getattr(self._a, name)
        return lambda *args, **kwargs: _wrap(method(*_unwrap(args), **_unwrap(kwargs)))


#: the ndarray methods freege may call (all of them CuPy's)
_METHODS = frozenset({"astype", "copy", "reshape", "ravel", "sum", "mean", "max", "min",
                      "any", "all", "item", "tolist", "fill", "std", "var", "argmax",
                      "dot", "transpose", "trace", "diagonal", "conj", "round"})


def _operator(name: str) -> None:
    def op(self: ndarray, *others: Any) -> Any:
        result = getattr(self._a, name)(*_unwrap(others))
        if result is NotImplemented:
            return result
        return self if name.startswith("__i") else _wrap(result)
    setattr(ndarray, name, op)


for _base in ("add", "sub", "mul", "truediv", "floordiv", "pow", "matmul", "mod"):
    for _name in (f"__{_base}__", f"__r{_base}__", f"__i{_base}__"):
        _operator(_name)
for _name in ("__neg__", "__pos__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__",
              "__eq__", "__ne__"):
    _operator(_name)
ndarray.__hash__ = None  # type: ignore[assignment]


def _finalize(array: ndarray, nbytes: int) -> None:
    import weakref

    def release() -> None:
        STATE.live_bytes -= nbytes
    weakref.finalize(array, release)


def _unwrap(x: Any) -> Any:
    """NumPy values for a NumPy call; NumPy arrays refused, as CuPy refuses them."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, np.ndarray):
        raise TypeError(f"Unsupported type {type(x)}")
    if isinstance(x, (tuple, list)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x: Any) -> Any:
    """Device values of a NumPy result: arrays and scalars (0-d arrays) wrapped."""
    if isinstance(x, np.ndarray):
        return ndarray(x)
    if isinstance(x, np.generic):
        return ndarray(np.asarray(x))
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def _device(func: Any) -> Any:
    """``func`` of NumPy on device arrays; ``out=`` is the device array returned."""
    def call(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        result = func(*_unwrap(args), **_unwrap(kwargs))
        return out if isinstance(out, ndarray) else _wrap(result)
    call.__name__ = func.__name__
    return call


for _name in ("empty", "zeros", "ones", "full", "zeros_like", "ones_like", "empty_like",
              "arange", "concatenate", "stack", "sqrt", "exp", "expm1", "log", "log1p",
              "matmul", "multiply", "divide", "add", "subtract", "copyto", "clip", "abs",
              "sum", "max", "min", "mean", "diagonal", "dot", "maximum", "minimum", "where",
              "sort", "eye", "isfinite", "all", "any"):
    globals()[_name] = _device(getattr(np, _name))
finfo, float32, float64, int64, newaxis = np.finfo, np.float32, np.float64, np.int64, None


def asarray(a: Any, dtype: Any = None) -> ndarray:
    """Host (or device) data copied to the device."""
    if isinstance(a, ndarray):
        return a if dtype is None else ndarray(a._a.astype(dtype))
    return ndarray(np.array(a, dtype=dtype))


def asnumpy(a: Any) -> np.ndarray:
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


# -- cupyx.errstate and linalg ----------------------------------------------------------

@contextmanager
def errstate(*, linalg: str | None = None) -> Any:
    """``cupyx.errstate``: ``linalg="raise"`` makes failed factorisations raise."""
    old = getattr(_ERRSTATE, "linalg", "ignore")
    _ERRSTATE.linalg = old if linalg is None else linalg
    try:
        yield
    finally:
        _ERRSTATE.linalg = old


def _solver(name: str, routine: str) -> Any:
    func = getattr(np.linalg, name)

    def call(a: ndarray, *args: Any, **kwargs: Any) -> Any:
        if name in STATE.failing:
            if getattr(_ERRSTATE, "linalg", "ignore") == "raise":
                raise np.linalg.LinAlgError(
                    f"Error reported by {routine} in cuSOLVER. devInfo = 1. Please refer "
                    "to the cuSOLVER documentation.")
            result = func(np.eye(a.shape[-1]) if name != "qr" else a._a, *args, **kwargs)
            return _wrap(result)  # finite garbage: the identity's factorisation
        return _wrap(func(_unwrap(a), *args, **kwargs))
    call.__name__ = name
    return call


linalg = types.ModuleType("cupy.linalg")
linalg.eigvalsh = _solver("eigvalsh", "syevd")
linalg.eigh = _solver("eigh", "syevd")
linalg.cholesky = _solver("cholesky", "potrf")
linalg.qr = _solver("qr", "geqrf")
linalg.norm = _device(np.linalg.norm)
cupyx = types.ModuleType("cupyx")
cupyx.errstate = errstate


# -- random -----------------------------------------------------------------------------

class XORWOW:
    """cuRAND XORWOW states: ``size`` of them (default :data:`STATE.default_states`),
    each an independent stream from 32 bits of ``seed`` and the state's index."""

    def __init__(self, seed: Any = None, *, size: int = -1):
        seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        word = int(seq.generate_state(1, np.uint32)[0])  # CuPy keeps 32 bits
        self.size = STATE.default_states if size < 0 else size
        self._states = [np.random.Generator(np.random.PCG64([word, j]))
                        for j in range(self.size)]
        STATE.generators += 1


class Generator:
    """``cupy.random.Generator``: array element j drawn from state ``j % size``."""

    def __init__(self, bit_generator: XORWOW):
        self.bit_generator = bit_generator

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None
                        ) -> ndarray:
        shape = () if size is None else (size,) if isinstance(size, int) else tuple(size)
        count = math.prod(shape)
        flat = np.empty(count)
        states = self.bit_generator._states
        for j in range(builtins.min(count, len(states))):
            flat[j::len(states)] = states[j].standard_normal(len(range(j, count, len(states))))
        return ndarray(flat.reshape(shape).astype(dtype))


def default_rng(seed: Any = None) -> Generator:
    return Generator(XORWOW(seed))


random = types.ModuleType("cupy.random")
random.XORWOW, random.Generator, random.default_rng = XORWOW, Generator, default_rng


# -- cuda and the memory pool -----------------------------------------------------------

class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError``."""


def _runtime_call(value: Any) -> Any:
    def call(*args: Any) -> Any:
        if STATE.driver_error:
            raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is "
                                   "insufficient for CUDA runtime version")
        return value() if callable(value) else value
    return call


cuda = types.ModuleType("cupy.cuda")
cuda.runtime = types.ModuleType("cupy.cuda.runtime")
cuda.runtime.CUDARuntimeError = CUDARuntimeError
cuda.runtime.getDeviceCount = _runtime_call(1)
cuda.runtime.getDeviceProperties = _runtime_call(lambda: {
    "name": b"CuPy test double", "multiProcessorCount": 1, "totalGlobalMem": 2**34})
cuda.runtime.memGetInfo = _runtime_call(lambda: (2**33, 2**34))


class Device:
    def __init__(self, device: int = 0):
        self.id = device

    def synchronize(self) -> None:
        pass


class _Stream:
    def synchronize(self) -> None:
        pass


class Stream:
    null = _Stream()


cuda.Device, cuda.Stream = Device, Stream


class MemoryPool:
    """The default pool: bytes held since :meth:`free_all_blocks` (the peak of live
    device arrays, as the pool's holdings bound it) and the bytes in use."""

    def free_all_blocks(self) -> None:
        STATE.peak_bytes = STATE.live_bytes

    def total_bytes(self) -> int:
        return STATE.peak_bytes

    def used_bytes(self) -> int:
        return STATE.live_bytes


_POOL = MemoryPool()


def get_default_memory_pool() -> MemoryPool:
    return _POOL
