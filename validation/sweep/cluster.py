"""The private local Dask cluster of a sweep (theory §6.1; issue 17): authenticated,
encrypted, and with no HTTP server.

* Authentication: mutual TLS with temporary credentials made for this cluster and held in
  memory (``distributed.security.Security.temporary``, which needs ``cryptography``): the
  scheduler, the nannies and the workers accept only peers whose certificate that
  cluster's own authority signed, so another local user who finds a port cannot connect,
  let alone submit code.
* No HTTP: Dask starts an HTTP server (dashboard, worker pages, logs, call stacks) on the
  scheduler and on every worker even with ``dashboard_address=None``; here
  :class:`PrivateScheduler` and :class:`PrivateWorker` never bind one.
* Scratch folder: every Dask server puts its ``local_directory`` first on ``sys.path``, and
  Dask's default is ``$TMPDIR/dask-scratch-space`` (or ``...-<uid>``), a fixed name in a
  folder every local user can write, taken whoever owns it: a module planted there (Dask
  tries to import ``gilknocker``) would run in the driver and the workers. Here the
  scheduler, the nannies and the workers use a folder made for this cluster
  (``tempfile.mkdtemp``, mode 0700), taken off ``sys.path`` and removed at close.
* Stops: the worker processes ignore SIGINT, so a Ctrl-C on the terminal is the driver's
  alone; it closes the cluster.
* Start-up: on Linux with the NumPy backend the worker processes are forked from the
  driver (``distributed.worker.multiprocessing-method = fork``), after the draw modules
  are imported, so a worker starts warm in a fraction of a second instead of importing
  NumPy, SciPy and Dask afresh; CuPy (a CUDA context does not survive ``fork``) and other
  systems use ``spawn``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import warnings
from typing import Any

import dask
from distributed import Nanny, Scheduler, SpecCluster, Worker
from distributed.security import Security
from distributed.system import MEMORY_LIMIT

from freege.extras import require
from freege.validation.sampling.backend import backend_kind


class _NoHTTP:
    """Mixin: the node's HTTP server is never created (``Node.start_http_server`` binds
    one whatever the dashboard options say)."""

    def start_http_server(self, routes: Any, dashboard_address: Any, default_port: int = 0,
                          ssl_options: Any = None) -> None:
        return None


class PrivateScheduler(_NoHTTP, Scheduler):
    """A scheduler that serves no HTTP."""


class PrivateWorker(_NoHTTP, Worker):
    """A worker that serves no HTTP and, in its own process, leaves stopping to the driver:
    it ignores SIGINT (a Ctrl-C on the terminal reaches the whole process group; the
    driver closes the cluster) and takes SIGTERM's default (a forked worker would
    otherwise inherit the driver's handler)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if multiprocessing.parent_process() is not None:  # a worker process of a nanny
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        super().__init__(*args, **kwargs)


class PrivateCluster(SpecCluster):
    """A cluster that owns a private scratch folder (``scratch``): at close, its paths
    leave ``sys.path`` (a later process of another user could make a folder of the same
    name) and the folder is removed."""

    def __init__(self, *args: Any, scratch: str, **kwargs: Any) -> None:
        self.scratch = scratch
        super().__init__(*args, **kwargs)

    async def _close(self) -> None:
        try:
            await super()._close()
        finally:
            forget_scratch(self.scratch)


def scratch_folder() -> str:
    """A new private scratch folder (mode 0700, a random name in the temporary folder)."""
    return tempfile.mkdtemp(prefix="freege-dask-")


def forget_scratch(folder: str) -> None:
    """Take ``folder`` and everything in it off ``sys.path`` and remove it."""
    inside = folder + os.sep
    sys.path[:] = [p for p in sys.path if p != folder and not p.startswith(inside)]
    shutil.rmtree(folder, ignore_errors=True)


#: Dask settings of the local cluster. allowed-failures: a task on a worker that dies is
#: retried once. glibc's trim threshold, which Dask's nanny sets, disables its adaptive
#: mmap threshold: every n x n buffer is then mapped and zeroed afresh, 1.3-1.5x slower
#: draws (measured). The statistical profiler (which takes the GIL every 10 ms to walk
#: the task's stack), the 20 ms event-loop health tick and the 0.5 s system monitor
#: compete with a draw for the GIL: off, or slowed to once a few seconds
QUIET_WORKERS: dict[str, object] = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "2s",
    "distributed.admin.tick.limit": "60s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def _start_method(backend: str) -> str:
    """``fork`` (fast) for a backend whose state survives a fork, on Linux; else ``spawn``."""
    fork = backend_kind(backend).fork_safe and sys.platform.startswith("linux")
    return "fork" if fork else "spawn"


def credentials() -> Security:
    """Fresh temporary mutual-TLS credentials (in memory);
    :class:`~freege.extras.MissingExtraError` when ``cryptography`` is missing."""
    require("cryptography", "sweep", "a local sweep cluster's TLS credentials")
    return Security.temporary()


def _warm_imports() -> None:
    """Import what a draw task uses, so that forked workers inherit it."""
    import freege.extras
    import freege.validation.sampling.metrics
    import freege.validation.sampling.sample  # noqa: F401


def start(workers: int, backend: str = "numpy", shared_memory: bool = False
          ) -> SpecCluster:
    """A running private cluster of ``workers`` single-threaded worker processes on
    127.0.0.1 (``tls://`` addresses); connect with ``Client(cluster)``, which takes the
    cluster's credentials. Its servers work in a private scratch folder, removed at
    close. ``shared_memory``: each worker may hold all of the machine's memory (Dask's
    ``system.MEMORY_LIMIT``) before its nanny restarts it, for a driver that schedules
    the draws by memory (:func:`freege.validation.sweep.engine.run_batches`); otherwise
    Dask's default, the machine's memory over its cores, which restarts a worker whose
    draw is larger than that share."""
    security = credentials()
    method = _start_method(backend)
    if method == "fork":
        _warm_imports()
    scratch = scratch_folder()
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security,
              "local_directory": scratch}
    scheduler = {"cls": PrivateScheduler,
                 "options": {**common, "port": 0, "dashboard": False,
                             "dashboard_address": None}}
    worker = {"cls": Nanny,
              "options": {**common, "nthreads": 1, "worker_class": PrivateWorker,
                          **({"memory_limit": MEMORY_LIMIT} if shared_memory else {}),
                          "dashboard": False, "dashboard_address": None,
                          "silence_logs": logging.CRITICAL}}
    # logs: CRITICAL only -- a failed task is recorded in the store, and a worker's
    # heartbeat racing the scheduler's shutdown is no error of the sweep's
    settings = QUIET_WORKERS | {"distributed.worker.multiprocessing-method": method,
                                "temporary-directory": scratch}
    try:
        with dask.config.set(settings), warnings.catch_warnings():
            # Python >= 3.12 warns on any fork of a process with threads (Dask's loop)
            warnings.filterwarnings("ignore", category=DeprecationWarning,
                                    message=r".*fork\(\)")
            return PrivateCluster(scheduler=scheduler,
                                  workers=dict.fromkeys(range(workers), worker), worker=worker,
                                  security=security, silence_logs=logging.CRITICAL,
                                  scratch=scratch)
    except BaseException:
        forget_scratch(scratch)
        raise


__all__ = ["PrivateCluster", "PrivateScheduler", "PrivateWorker", "credentials",
           "forget_scratch", "scratch_folder", "start"]
