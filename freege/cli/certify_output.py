"""``--certify`` for ``freege law`` and ``freege readout dof|ridge``: rigorous enclosures
(theory §4, §5, §7) from :mod:`freege.numeric.certify`, printed as balls. Support edges
get at least 30 significant digits (radius at most ``1e-30 |mid|``,
:data:`freege.numeric.certify.EDGE_RTOL`); with ``--dps D`` the working precision of
every ball is raised until it has D significant digits (radius at most ``10^-D |mid|``).
Precision stops at :data:`freege.numeric.certify.MAX_PREC` bits; the radius printed is
always the honest one (it says which digits are certified). ``prec_bits`` in the JSON is
the largest working precision used.

The law and its title are built by the caller (:mod:`freege.cli.law`,
:mod:`freege.cli.readout`), which this module does not import.

JSON: every certified number is ``{"mid": "<decimal>", "rad": "<decimal>"}`` (the value
lies in ``[mid - rad, mid + rad]``); a point of ``freege law --pdf`` whose certificate
fails is ``{"certified": false, "reason": "..."}``, never a guess. Text: ``mid +/- rad``.
A readout whose certificate fails is one line on stderr and exit status 2
(:class:`freege.errors.CertificationError`); without python-flint the line is
``needs python-flint: pip install 'freege[certify]'``. python-flint is imported only on
this path.
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction
from typing import Any

from freege.cli.common import emit

#: bits of working precision added to the ``--dps`` digits asked for
GUARD_BITS = 32


def start_prec(dps: int | None) -> int:
    """Starting working precision in bits: 128, or enough for ``dps`` digits."""
    from freege.numeric import certify

    if dps is None:
        return certify.DEFAULT_PREC
    return max(certify.DEFAULT_PREC, math.ceil(dps * math.log2(10)) + GUARD_BITS)


def _exact_points(option: str, texts: list[str] | None) -> list[Fraction]:
    from freege.params import POINT, parse_number

    return [Fraction(parse_number(option, text, POINT)) for text in texts or []]


def _ball(result: Any) -> dict[str, Any]:
    return result.as_dict()


def tolerances(dps: int | None) -> tuple[Fraction | None, Fraction]:
    """Relative radius asked of every ball (``10^-dps``, none without ``--dps``) and of the
    support edges (``10^-dps``, else the default of :mod:`freege.numeric.certify`)."""
    from freege.numeric import certify

    if dps is None:
        return None, certify.EDGE_RTOL
    return Fraction(1, 10**dps), Fraction(1, 10**dps)


def _prec_bits(balls: list[Any], prec: int) -> int:
    return max([prec] + [b.prec for b in balls if getattr(b, "certified", False)])


def _text(result: Any) -> str:
    if isinstance(result, dict):  # a JSON-shaped ball or failure
        if "mid" in result:
            return f"{result['mid']} +/- {result['rad']}"
        return f"not certified: {result['reason']}"
    return str(result)


def law_data(the_law: Any, xs: list[Fraction], texts: list[str], dps: int | None) -> dict:
    """Certified support, atoms and density at ``xs`` (``dps`` digits asked), JSON-shaped."""
    from freege.numeric import certify

    prec = start_prec(dps)
    rtol, edge_rtol = tolerances(dps)
    support = certify.certified_support(the_law, prec, rtol=edge_rtol)
    atoms = certify.certified_atoms(the_law)
    pdf = certify.certified_pdf(the_law, xs, prec, rtol=rtol)
    balls = list(pdf)
    data: dict[str, Any] = {"certified": True, "prec_bits": prec}
    if isinstance(support, certify.Uncertified):
        data["support"] = support.as_dict()
    else:
        data["support"] = [[_ball(a), _ball(b)] for a, b in support]
        balls += [edge for pair in support for edge in pair]
    if isinstance(atoms, certify.Uncertified):
        data["atoms"] = atoms.as_dict()
    else:
        data["atoms"] = [{"at": str(at), "mass": _ball(m)} for at, m in atoms.items()]
    data["x"] = list(texts)
    data["pdf"] = [_ball(r) for r in pdf]
    data["prec_bits"] = _prec_bits(balls, prec)
    return data


def _render_law(data: dict, title: str) -> str:
    lines = [f"{title} (certified balls, mid +/- rad)"]
    support = data["support"]
    if isinstance(support, dict):
        lines.append(f"{'support':<8}{_text(support)}")
    else:
        text = ", ".join(f"[{_text(a)}, {_text(b)}]" for a, b in support) or "none"
        lines.append(f"{'support':<8}{text}")
    atoms = data["atoms"]
    if isinstance(atoms, dict):
        lines.append(f"{'atoms':<8}{_text(atoms)}")
    else:
        text = ", ".join(f"mass {_text(a['mass'])} at {a['at']}" for a in atoms) or "none"
        lines.append(f"{'atoms':<8}{text}")
    if data["x"]:
        lines.append("x  pdf")
        lines += [f"{x}  {_text(p)}" for x, p in zip(data["x"], data["pdf"], strict=True)]
    return "\n".join(lines)


def run_law(args: argparse.Namespace, the_law: Any, title: str) -> None:
    """``freege law --certify``: print the certified data of ``the_law`` (the caller draws
    ``--plot``, whose target is checked here first)."""
    from freege import plotting
    from freege.numeric import certify

    certify.require_flint()
    if args.plot is not None:
        plotting.check_target(args.plot)
    xs = _exact_points("--pdf", args.pdf)
    data = law_data(the_law, xs, list(args.pdf or []), args.dps)
    emit(data, args, lambda d: _render_law(d, title))


def readout_data(kind: str, the_law: Any, lam: Any, sigma2: Any, texts: dict[str, str],
                 dps: int | None, params: dict[str, Any]) -> dict:
    """Certified ``w(lam)`` (and the ridge error) with ``dps`` digits asked, JSON-shaped,
    or a CertificationError."""
    from freege.numeric import certify

    prec = start_prec(dps)
    rtol, _ = tolerances(dps)
    data: dict[str, Any] = {"certified": True, "prec_bits": prec, **texts}
    w = certify.require(certify.certified_dof(the_law, lam, prec, rtol=rtol), "w(lam)",
                        params)
    balls = [w]
    data["w"] = _ball(w)
    if kind == "ridge":
        err = certify.require(certify.certified_ridge_error(the_law, lam, sigma2, prec,
                                                            rtol=rtol),
                              "ridge error", params)
        balls.append(err)
        data["error"] = _ball(err)
    data["prec_bits"] = _prec_bits(balls, prec)
    return data


def run_readout(args: argparse.Namespace, the_law: Any, law_title: str, lam: Any,
                sigma2: Any) -> int:
    """``freege readout dof|ridge --certify`` on ``the_law`` (normalized; inputs already
    validated)."""
    from freege.numeric import certify

    certify.require_flint()
    texts = {"lam": args.lam}
    if args.readout == "ridge":
        texts["sigma2"] = args.sigma2
    params = {**the_law.describe, "lam": args.lam}
    data = readout_data(args.readout, the_law, lam, sigma2, texts, args.dps, params)
    title = (f"readout {args.readout}: features of the {law_title}, normalized "
             "(theory §5; certified balls, mid +/- rad)")
    emit(data, args, lambda d: "\n".join(
        [title] + [f"{k:<7}{_text(v)}" for k, v in d.items()
                   if k not in ("certified", "prec_bits")]))
    return 0
