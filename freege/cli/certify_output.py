"""``--certify`` for ``freege law`` and ``freege readout dof|ridge``: rigorous enclosures
(theory §4, §5, §7) from :mod:`freege.numeric.certify`, printed as balls. With ``--dps D``
the working precision is raised until every ball has D significant digits (radius at
most ``10^-D |mid|``), up to :data:`freege.numeric.certify.MAX_PREC` bits; the radius
printed is always the honest one.

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


def _narrow(results: list[Any], dps: int | None) -> bool:
    """Whether every certified ball has ``dps`` correct significant digits (radius at most
    ``10^-dps |mid|``); always true without ``--dps``."""
    if dps is None:
        return True
    bound = Fraction(1, 10**dps)
    return all(r.rad_exact <= bound * abs(r.mid_exact) for r in results
               if getattr(r, "certified", False))


def refined(compute: Any, dps: int | None) -> tuple[Any, int]:
    """``compute(prec)`` -> ``(balls, data)``, with the precision doubled (up to
    :data:`freege.numeric.certify.MAX_PREC`) until the balls have ``dps`` digits."""
    from freege.numeric import certify

    prec = start_prec(dps)
    while True:
        balls, data = compute(prec)
        if _narrow(balls, dps) or 2 * prec > certify.MAX_PREC:
            return data, prec
        prec *= 2


def _text(result: Any) -> str:
    if isinstance(result, dict):  # a JSON-shaped ball or failure
        if "mid" in result:
            return f"{result['mid']} +/- {result['rad']}"
        return f"not certified: {result['reason']}"
    return str(result)


def law_data(the_law: Any, xs: list[Fraction], texts: list[str], prec: int
             ) -> tuple[list[Any], dict]:
    """Certified support, atoms and density at ``xs``: the balls, and the JSON-shaped
    data."""
    from freege.numeric import certify

    support = certify.certified_support(the_law, prec)
    atoms = certify.certified_atoms(the_law)
    pdf = certify.certified_pdf(the_law, xs, prec)
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
    return balls, data


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


def run_law(args: argparse.Namespace, spec: Any) -> int:
    """``freege law --certify``."""
    from freege import plotting
    from freege.cli.law import build_law, density_grid, describe, plot_density, plot_title
    from freege.numeric import certify

    certify.require_flint()
    if args.plot:
        plotting.check_target(args.plot)
    xs = _exact_points("--pdf", args.pdf)
    the_law = build_law(spec, None)
    data, _ = refined(lambda p: law_data(the_law, xs, list(args.pdf or []), p), args.dps)
    title = describe(spec)
    grid = density_grid(the_law, args.xscale) if args.plot else None
    emit(data, args, lambda d: _render_law(d, title))
    if grid is not None:
        plot_density(args.plot, grid, plot_title(spec))
    return 0


def readout_data(kind: str, the_law: Any, lam: Any, sigma2: Any, texts: dict[str, str],
                 prec: int, params: dict[str, Any]) -> tuple[list[Any], dict]:
    """Certified ``w(lam)`` (and the ridge error), or a CertificationError: the balls and
    the JSON-shaped data."""
    from freege.numeric import certify

    data: dict[str, Any] = {"certified": True, "prec_bits": prec, **texts}
    w = certify.require(certify.certified_dof(the_law, lam, prec), "w(lam)", params)
    balls = [w]
    data["w"] = _ball(w)
    if kind == "ridge":
        err = certify.require(certify.certified_ridge_error(the_law, lam, sigma2, prec),
                              "ridge error", params)
        balls.append(err)
        data["error"] = _ball(err)
    return balls, data


def run_readout(args: argparse.Namespace, spec: Any, lam: Any, sigma2: Any) -> int:
    """``freege readout dof|ridge --certify`` (inputs already validated)."""
    from freege.cli.law import LawSpec, build_law, describe
    from freege.numeric import certify

    certify.require_flint()
    the_law = build_law(LawSpec(spec.case, spec.config, True), None)
    texts = {"lam": args.lam}
    if args.readout == "ridge":
        texts["sigma2"] = args.sigma2
    params = {"case": the_law.case, "lam": args.lam}
    data, _ = refined(lambda p: readout_data(args.readout, the_law, lam, sigma2, texts, p,
                                             params), args.dps)
    title = (f"readout {args.readout}: features of the {describe(spec)}, normalized "
             "(theory §5; certified balls, mid +/- rad)")
    emit(data, args, lambda d: "\n".join(
        [title] + [f"{k:<7}{_text(v)}" for k, v in d.items()
                   if k not in ("certified", "prec_bits")]))
    return 0
