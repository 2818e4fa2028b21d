"""Progress of every long command, one mechanism (``validate``, ``ladder``, ``sweep``,
``reproduce``).

* On a terminal: a ``tqdm`` bar on stderr (redrawn in place; plain lines when tqdm is not
  installed, as below).
* Otherwise (a log file under ``nohup``, a batch scheduler's output, a pipe): timestamped
  lines without control characters, ``2026-01-31T12:00:00Z freege validate: 3/10 draws,
  0.52 s each, about 4 s left``, the first when the first step is done, then at most one
  per :data:`LOG_INTERVAL_S` seconds, and always the last (unless an error ends the
  command: its one-line message is then the last line).
* ``--quiet`` (:data:`QUIET`) prints nothing; ``--verbose`` (:data:`VERBOSE`) adds one
  timestamped line per step (:meth:`Progress.note`: each draw's metrics, each sweep
  task, each experiment step).
* ``delay``: nothing at all until that many seconds have passed (a command that is
  usually quick, ``derive``, stays silent when it is); :meth:`Progress.waiting`: one long
  step that reports nothing itself (a sympy derivation) shows its status with the time so
  far, on the bar every second or as a line every interval.

The clock and the stream can be given (tests).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TextIO

#: verbosity levels: ``--quiet``, the default, ``--verbose``
QUIET, NORMAL, VERBOSE = 0, 1, 2
#: seconds between two progress lines when stderr is not a terminal
LOG_INTERVAL_S = 30.0


def stamp() -> str:
    """The current UTC time, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    return f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"


class Progress:
    """Progress of ``total`` steps (``None``: unknown) called ``unit``, labelled ``label``,
    on ``stream`` (default stderr) at ``verbosity``, silent for the first ``delay`` seconds.
    :meth:`update` advances it, ``self(done)`` sets the count, :meth:`note` is a
    verbose-only line, :meth:`waiting` wraps one long silent step, :meth:`close` (or
    leaving the ``with`` block) ends it."""

    def __init__(self, label: str, total: int | None, *, unit: str = "step",
                 verbosity: int = NORMAL, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 interval: float = LOG_INTERVAL_S, delay: float = 0.0):
        if verbosity not in (QUIET, NORMAL, VERBOSE):
            raise ValueError(f"verbosity must be one of {QUIET}, {NORMAL}, {VERBOSE} "
                             f"(got {verbosity!r})")
        self.label, self.total, self.unit, self.verbosity = label, total, unit, verbosity
        self.stream = sys.stderr if stream is None else stream
        self.clock, self.interval, self.delay = clock, interval, delay
        self.done = self.printed = 0
        self.reported = 0.0
        self.status: str | None = None
        self.start = self.last_line = clock()
        self.bar: Any = None
        if verbosity > QUIET and getattr(self.stream, "isatty", lambda: False)():
            self.bar = _tqdm(label, total, unit, self.stream, delay)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_exc: object) -> None:
        self.close(final=kind is None)  # an error is then the last line

    def __call__(self, done: int) -> None:
        """Set the number of finished steps to ``done``."""
        self.update(done - self.done)

    def update(self, steps: int = 1, status: str | None = None,
               seconds: float | None = None) -> None:
        """``steps`` more steps finished; ``status``: what is being done now (shown
        beside the count); ``seconds``: the steps' own time as they report it (then the
        lines' "s each" is its mean, the figure a result prints, not wall time)."""
        self.done += steps
        if seconds is not None:
            self.reported += seconds
        self.status = status if status is not None else self.status
        if self.verbosity == QUIET:
            return
        if self.bar is not None:
            if status is not None:
                self.bar.set_postfix_str(status, refresh=False)
            self.bar.update(steps)
            return
        now = self.clock()
        if now - self.start < self.delay:
            return
        if self.done and (self.printed == 0 or self.done == self.total
                or now - self.last_line >= self.interval):
            self._line(now)

    def note(self, message: str) -> None:
        """A line of detail (``--verbose`` only), timestamped; above the bar on a
        terminal."""
        if self.verbosity < VERBOSE:
            return
        line = f"{stamp()} freege {self.label}: {message}"
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            self._write(line)

    def close(self, final: bool = True) -> None:
        """End the display: close the bar, or (``final``) write the final count when the
        last line is older than it."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif (final and self.verbosity > QUIET and self.printed != self.done and self.done
              and (self.printed or self.clock() - self.start >= self.delay)):
            self._line(self.clock())

    @contextmanager
    def waiting(self, status: str) -> Iterator[None]:
        """One long step that reports nothing itself (counted as one step when it ends):
        once the ``delay`` has passed, ``status`` and the time so far are shown -- the bar's
        status, redrawn every second, or a timestamped line every ``interval`` -- by a
        helper thread that stops with the step."""
        stop = threading.Event()

        def beat() -> None:
            if stop.wait(max(0.0, self.delay - (self.clock() - self.start))):
                return
            while True:
                so_far = f"{status}, {_seconds(self.clock() - self.start)} so far"
                bar = self.bar
                if bar is not None:
                    bar.set_postfix_str(so_far, refresh=True)
                else:
                    self._write(f"{stamp()} freege {self.label}: {so_far}")
                    self.last_line = self.clock()
                if stop.wait(1.0 if bar is not None else self.interval):
                    return

        thread = None
        if self.verbosity > QUIET:
            thread = threading.Thread(target=beat, name="freege-progress", daemon=True)
            thread.start()
        try:
            yield
        finally:
            stop.set()
            if thread is not None:
                thread.join()
        self.update(1, status=status)

    def _line(self, now: float) -> None:
        self.last_line, self.printed = now, self.done
        elapsed = now - self.start
        count = f"{self.done}" if self.total is None else f"{self.done}/{self.total}"
        each = self.reported / self.done if self.reported else elapsed / self.done
        parts = [f"{count} {self.unit}s", f"{each:.2f} s each"]
        if self.total is not None and self.done < self.total:
            parts.append(f"about {_seconds(elapsed / self.done * (self.total - self.done))} left")
        if self.status:
            parts.append(self.status)
        self._write(f"{stamp()} freege {self.label}: {', '.join(parts)}")

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def _tqdm(label: str, total: int | None, unit: str, stream: TextIO, delay: float = 0.0
          ) -> Any:
    """A tqdm bar (shown after ``delay`` seconds), or None when tqdm is not installed (then
    lines are written)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=f"freege {label}", unit=unit, file=stream, leave=True,
                dynamic_ncols=True, delay=delay)
