"""freege's exceptions: one family, so callers (and the CLI) can tell a refused or
unverifiable computation from a bug.

* :class:`ConvergenceError` -- an iterative solve (root, quadrature, inversion) did not
  meet its residual and step tests at working precision. It subclasses
  :class:`ArithmeticError` (mpmath's ``NoConvergence`` discipline): freege never returns
  an unverified value.
* :class:`CertificationError` -- a rigorous enclosure (ball arithmetic) could not be
  certified; also an :class:`ArithmeticError`.
* :class:`DomainError` -- parameters where a method is not defined or not supported (a
  :class:`ValueError`, like every bad input).
* :class:`freege.extras.MissingExtraError` -- an optional package is not installed (a
  :class:`ValueError` naming the extra to install).

Every message names the quantity and the parameters, in one line (the CLI prints it as
``freege: error: ...`` and exits 2).
"""

from __future__ import annotations

from typing import Any


class FreegeError(Exception):
    """Base class of freege's own exceptions."""


def _describe(quantity: str, reason: str, params: dict[str, Any] | None) -> str:
    text = f"{quantity}: {reason}"
    if params:
        text += " (" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
    return text


class ConvergenceError(FreegeError, ArithmeticError):
    """An iterative computation of ``quantity`` did not converge or failed its
    verification; ``params`` names the inputs it was computed for."""

    def __init__(self, quantity: str, reason: str, params: dict[str, Any] | None = None):
        self.quantity = quantity
        self.reason = reason
        self.params = dict(params or {})
        super().__init__(_describe(quantity, reason, params))


class CertificationError(ConvergenceError):
    """A ball-arithmetic certificate for ``quantity`` failed (the value is not returned)."""


class DomainError(FreegeError, ValueError):
    """Parameters outside the domain where a method is defined or supported."""


__all__ = ["FreegeError", "ConvergenceError", "CertificationError", "DomainError"]
