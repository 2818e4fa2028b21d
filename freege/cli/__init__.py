"""The ``freege`` command line: one sub-command module per job.

Every sub-command module exposes ``register(subparsers)``, which adds its parser(s)
and sets ``func`` (``args -> int``) as the handler. Only the module of the command being
run is imported (``freege --help`` imports none: it lists :data:`COMMANDS`' summaries), so
the heavy libraries (sympy, mpmath, numpy) load only for the commands that use them.

Failures, one shared mechanism for every command:

* bad input -- an argparse error or a :class:`ValueError` from the library -- and a
  computation that cannot be verified (an :class:`ArithmeticError`, e.g.
  :class:`freege.errors.ConvergenceError`) print one line ``freege: error: ...`` on
  stderr and exit 2;
* output that cannot be written (a full disk, a closed standard output, any
  :class:`OSError`), a wait that timed out (:class:`TimeoutError`, said as such) and
  memory exhaustion: one line, exit 2;
* a closed pipe (``freege ... | head -c 1``): no message, exit 1 (the Python recipe for
  SIGPIPE: standard output is pointed at ``/dev/null`` so the final flush is silent);
* a stop: Ctrl-C (SIGINT) prints ``freege: interrupted`` and exits 130, SIGTERM prints
  ``freege: terminated`` and exits 143; both unwind like an exception, so a sweep's
  cluster is closed and its store keeps every record written (it resumes).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from importlib import import_module

#: command -> (module under ``freege.cli`` that registers it, summary for ``--help``),
#: in the order ``--help`` lists them; tests/cli/test_bad_input.py checks that the
#: summaries are the modules' own help strings
COMMANDS: dict[str, tuple[str, str]] = {
    "derive": ("derive", "exact closed forms (sympy): moments, cumulants, S, dof, Cauchy"),
    "validate": ("validate", "sample softmax MHA vs its Gaussian equivalent at model "
                 "dimensions (theory §6.1)"),
    "ladder": ("validate", "the single-head ladder from softmax to its Gaussian equivalent "
               "(theory §6.2)"),
    "chain": ("chain", "the multi-head equivalence chain, step by step, and the leading "
              "singular value (theory §2.2, §4.1)"),
    "law": ("law", "moments, support, atoms and density of a theory §4 law or an expression"),
    "readout": ("readout", "theory §5 readout predictions: dof, ridge error, loss, arrival "
                "time"),
    "reproduce": ("reproduce", "the theory §6.3 readout experiments, theory side"),
    "sweep": ("sweep", "run a validation campaign (theory §6.1) over a grid on Dask, resumable"),
    "sweep-report": ("sweep", "per-point means with 95%% CIs, n-scaling fits and plots of a "
                     "sweep store"),
    "docs": ("docs", "print the shipped documentation (theory, guide) or one of its sections"),
}
#: every sub-command module under ``freege.cli``
COMMAND_MODULES: tuple[str, ...] = ("derive", "validate", "law", "readout", "reproduce", "sweep",
                                    "docs", "chain")


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2, and which
    takes negative numbers in scientific notation (``--pdf -1e-3``) as values, not as
    unknown options (argparse's own pattern knows only ``-1`` and ``-1.5``)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

    def error(self, message: str) -> None:  # type: ignore[override]
        # "freege: error: law: argument --dps: ..." (the program name is said once)
        command = self.prog.removeprefix("freege").strip()
        fail(f"{command}: {message}" if command else message)


def fail(message: str) -> None:
    """Print ``freege: error: message`` (one line) on stderr and exit 2."""
    line = " ".join(str(message).split())
    print(f"freege: error: {line}", file=sys.stderr)
    raise SystemExit(2)


def _modules_for(argv: list[str]) -> tuple[str, ...]:
    """The modules to import for ``argv``: the requested command's only; none for
    ``freege``, ``freege --help`` and a misspelt command (the summaries answer); all for a
    command missing from :data:`COMMANDS` (registered by a module but not summarised)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None:
        return ()
    if first in COMMANDS:
        return (COMMANDS[first][0],)
    return COMMAND_MODULES


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: real sub-parsers of the modules ``argv`` needs, and
    placeholders (name and summary only) for the other commands. Without ``argv``, every
    module is registered (the full parser)."""
    parser = OneLineErrorParser(
        prog="freege",
        description="Random-matrix theory of softmax multi-head attention: derive, evaluate, "
        "validate.",
    )
    from freege import __version__
    parser.add_argument("--version", action="version", version=f"freege {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    modules = COMMAND_MODULES if argv is None else _modules_for(argv)
    for name in modules:
        import_module(f"freege.cli.{name}").register(sub)
    for command, (_, summary) in COMMANDS.items():
        if command not in sub.choices:
            sub.add_parser(command, help=summary)
    return parser


def _drop_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that the interpreter's final flush of
    what could not be written cannot fail again (the Python SIGPIPE recipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):  # not a real file (captured in tests)
        pass


def _flush_quietly() -> None:
    """Flush standard output; a reader that went away is not an error."""
    try:
        sys.stdout.flush()
    except OSError:
        _drop_stdout()


def _os_error_line(exc: OSError) -> str:
    """One line for an OSError: the reason, and the file when it names one."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    reason = reason[:1].lower() + reason[1:]
    if exc.filename is not None:
        return f"{exc.filename}: {reason}"
    return f"{reason} (while writing the output)"


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the command unwinds (a BaseException,
    like KeyboardInterrupt: no ``except Exception`` of the library swallows it)."""


def _raise_terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one would cut the unwinding
    raise Terminated


def _on_sigterm(handler: object) -> object:
    """Install ``handler`` for SIGTERM and return the previous one (None off the main
    thread, where Python cannot set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)  # type: ignore[arg-type]


def _is_no_convergence(exc: BaseException) -> bool:
    """mpmath's NoConvergence (a plain Exception) from a solve the numeric layer left
    unchecked: reported as non-convergence, not as a traceback."""
    mpmath = sys.modules.get("mpmath")
    return mpmath is not None and isinstance(exc, mpmath.libmp.NoConvergence)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        fail("standard output is closed; redirect it to a file or to /dev/null")
    previous = _on_sigterm(_raise_terminated)
    try:
        return _run(argv)
    finally:
        if previous is not None:
            _on_sigterm(previous)


def _run(argv: list[str]) -> int:
    """Run ``freege ARGV``: the one-line answer to every failure and stop."""
    try:
        args = build_parser(argv).parse_args(argv)
        code = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        _drop_stdout()
        return 1
    except TimeoutError as exc:  # an OSError, but no output failed: a wait ran out
        _flush_quietly()
        fail(f"timed out: {exc}" if str(exc) else "timed out")
    except OSError as exc:  # a full disk, an unwritable file
        _flush_quietly()
        fail(_os_error_line(exc))
    except MemoryError:
        fail("out of memory (the computation needs more memory than this machine has)")
    except (ValueError, ArithmeticError) as exc:  # bad input, non-convergence, certificate
        fail(str(exc))
    except KeyboardInterrupt:
        print("freege: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("freege: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except SystemExit:  # --help, or an argparse error: flush what --help printed
        _flush_quietly()
        raise
    except Exception as exc:
        if _is_no_convergence(exc):
            fail(f"a numeric solve did not converge ({exc})")
        raise
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
