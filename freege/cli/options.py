"""The options several ``freege`` sub-commands share, each defined once here: output
format, ``--dps``, ``--plot``, ``--quiet``/``--verbose``, ``--seed``, ``--backend``,
``--dtype``, ``--yes``, ``--certify``, the theory §4 law options and the theory §5
readout settings (``--lam``, ``--sigma2``, ``--level``); :func:`add_run_options` adds the
format, plot, ``--yes`` and verbosity options that close every sampling command.

Values are kept as text (numbers are checked by the commands, so every message names the
option); only ``--dps`` is parsed here. Every numeric option, here or in a command, is
read by :func:`freege.params.parse_number` with its :class:`freege.params.Domain` --
``parse_number("--draws", args.draws, DRAWS)`` in a handler, before any arithmetic, or
``type=number_type("--x", DOMAIN)`` to have argparse do it. Light to import (argparse
and :mod:`freege.params`), so ``freege --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from fractions import Fraction

from freege.params import (
    DPS,
    LAM_MAX,
    LAM_MIN,
    MAX_DPS,
    SHARINGS,
    SIGMA2_MAX,
    Domain,
    parse_number,
)

FORMATS = ("text", "json")

#: theory §6.3 defaults of the readout settings
DEFAULT_LAM = "1e-4"
DEFAULT_SIGMA2 = "0.1"
DEFAULT_LEVEL = "0.1"


def add_format_option(parser: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    parser.add_argument(
        "--format", choices=formats, default="text", help="output format (default: text)"
    )


def number_type(name: str, domain: Domain) -> Callable[[str], int | Fraction]:
    """An argparse ``type=`` reading a number of ``domain`` with
    :func:`freege.params.parse_number` (bad input: one line naming ``name``, exit 2)."""
    def parse(text: str) -> int | Fraction:
        try:
            return parse_number(name, text, domain)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def dps_value(text: str) -> int:
    """Parse ``--dps``: an integer in [15, MAX_DPS] (argparse type; bad input is one line,
    exit 2). The cap keeps a typo like ``--dps 100000`` from running for hours."""
    return int(number_type("dps", DPS)(text))


def add_dps_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dps", type=dps_value, default=None,
        help=f"decimal digits of working precision (15 to {MAX_DPS}); without it numbers "
        "are float64",
    )


def add_plot_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--plot FILE``: the command's figure (checked before any work,
    :func:`freege.cli.common.check_plot_target`)."""
    parser.add_argument("--plot", metavar="FILE", default=None, help=help)


def add_verbosity_options(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` / ``--verbose`` of a long command (:mod:`freege.progress`): no
    progress, or one line per step besides it; ``args.verbosity`` is the level."""
    from freege.progress import NORMAL, QUIET, VERBOSE

    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quiet", dest="verbosity", action="store_const", const=QUIET,
                       default=NORMAL, help="no progress on stderr")
    group.add_argument("--verbose", dest="verbosity", action="store_const", const=VERBOSE,
                       help="one progress line per step (draw, task) on stderr")


def add_seed_option(parser: argparse.ArgumentParser, default: str | None = "0",
                    help: str = "seed, integer >= 0 (default 0)") -> None:
    parser.add_argument("--seed", default=default, help=help)


def add_backend_option(parser: argparse.ArgumentParser, choices: tuple[str, ...], default: str,
                       help: str) -> None:
    parser.add_argument("--backend", choices=choices, default=default, help=help)


def add_dtype_option(parser: argparse.ArgumentParser, choices: tuple[str, ...],
                     help: str) -> None:
    parser.add_argument("--dtype", choices=choices, default="float64", help=help)


def add_yes_option(parser: argparse.ArgumentParser) -> None:
    """``--yes``: run past the confirmation limit of :mod:`freege.cli.budget`."""
    from freege.cli.budget import CONFIRM_SECONDS

    parser.add_argument("--yes", action="store_true",
                        help=f"run even when the estimated time exceeds "
                        f"{CONFIRM_SECONDS // 3600} h (the estimate is printed first)")


def add_run_options(parser: argparse.ArgumentParser, plot_help: str, confirm: bool = True
                    ) -> None:
    """The closing options of a sampling command (``validate``, ``ladder``, ``chain``,
    ``sweep``; theory §6): ``--format``, ``--plot FILE`` (``plot_help``), ``--yes`` when
    the command asks before a long run (``confirm``), and ``--quiet``/``--verbose``."""
    add_format_option(parser)
    add_plot_option(parser, plot_help)
    if confirm:
        add_yes_option(parser)
    add_verbosity_options(parser)


def add_certify_option(parser: argparse.ArgumentParser, of: str = "") -> None:
    """``--certify``: rigorous ball enclosures (python-flint), ``of`` saying of what."""
    text = " ".join(filter(None, ("rigorous ball enclosures", of,
                                  "(pip install 'freege[certify]')")))
    parser.add_argument("--certify", action="store_true", help=text)


def add_law_options(
    parser: argparse.ArgumentParser,
    cases: tuple[str, ...],
    default_case: str | None = None,
    normalized_option: bool = True,
    required: bool = True,
) -> None:
    """Add the law options (theory §1.1, §1.2, §4) to ``parser``. Values are kept as text
    here and validated by :func:`freege.cli.law.law_spec`, so every message names the
    option. ``required=False`` leaves ``--case --beta --h`` optional for argparse (a
    command that takes a law another way, ``--expr``, checks them itself); ``--case``
    then stays None when not typed, so the command can tell a typed ``--case`` from none,
    and ``default_case`` is only named in the help (the command fills it in)."""
    group = parser.add_argument_group("law", "the theory §4 law: give ratios or dimensions")
    group.add_argument(
        "--case", choices=cases, default=default_case if required else None,
        required=required and default_case is None,
        help="theory §4 case" + (f" (default: {default_case})" if default_case else ""),
    )
    group.add_argument("--beta", required=required, help="inverse temperature beta > 0")
    group.add_argument("--h", required=required, help="number of heads h >= 1 (integer)")
    group.add_argument("--gK", help="gK = h dK / n > 0")
    group.add_argument("--gV", help="gV = h dV / n > 0 (default gK when tied)")
    group.add_argument("--gO", help="gO = dO / n > 0")
    group.add_argument("--n", help="tokens n (integer)")
    group.add_argument("--dk", dest="dK", help="per-head query/key width dK (integer)")
    group.add_argument("--dv", dest="dV", help="per-head value width dV (default dK when tied)")
    group.add_argument("--do", dest="dO", help="output width dO (integer)")
    group.add_argument(
        "--sharing", choices=SHARINGS, default=None,
        help="K/V sharing scheme, theory §1.1 (default: tied for the *-tied cases, else none)",
    )
    group.add_argument("--h-kv", dest="h_kv", help="K/V groups, 1 <= h_kv <= h (gqa/mqa)")
    if normalized_option:
        group.add_argument(
            "--normalized", action="store_true", help="divide the law by its mean (theory §3)"
        )


def add_finite_width_option(parser: argparse.ArgumentParser) -> None:
    """``--finite-width``, ``--row`` and ``--columns``: the finite-width law at the
    dimensions given (theory §2.3, ``freege.numeric.law(case, dims, finite_width=True,
    row=..., profile=...)``)."""
    parser.add_argument("--finite-width", action="store_true",
                        help="the finite-width law at the dimensions --n --dk --dv --do "
                        "(theory §2.3): each row with its own row coefficient; float64")
    parser.add_argument("--row", choices=("finite-n", "infinite-n"), default="finite-n",
                        help="with --finite-width: the row coefficient theta_n of n keys "
                        "(default) or e^x - 1")
    add_columns_option(parser)


def add_columns_option(parser: argparse.ArgumentParser) -> None:
    """``--columns``: with ``--finite-width``, the law with the key norms' column profile
    too (``profile="row+column"``, theory §2.3, rows and columns); untied sharing only.
    Read by :func:`finite_width_profile`."""
    parser.add_argument("--columns", action="store_true",
                        help="with --finite-width: also the key norms' column profile "
                        "(profile row+column, theory §2.3); untied sharing only")


def finite_width_profile(args: argparse.Namespace) -> str:
    """The finite-width law's profile (theory §2.3): ``row+column`` with ``--columns``
    (the key norms' column profile too), else ``row``; ``--columns`` without
    ``--finite-width`` is refused (a ValueError naming both). Tied sharing with
    ``--columns`` is refused by the law itself
    (:class:`freege.numeric.finite_width_law.FiniteWidthLaw`), before any work."""
    if not getattr(args, "columns", False):
        return "row"
    if not getattr(args, "finite_width", False):
        raise ValueError("--columns needs --finite-width (it adds the key norms' column "
                         "profile to the finite-width law, theory §2.3)")
    return "row+column"


def add_ridge_options(parser: argparse.ArgumentParser, sigma2: bool = True) -> None:
    """``--lam`` (and ``--sigma2``): the ridge settings of theory §5."""
    parser.add_argument("--lam", default=DEFAULT_LAM,
                        help=f"ridge penalty lam in [{float(LAM_MIN):g}, {float(LAM_MAX):g}] "
                        f"(default {DEFAULT_LAM})")
    if sigma2:
        parser.add_argument("--sigma2", default=DEFAULT_SIGMA2,
                            help=f"label-noise variance in [0, {float(SIGMA2_MAX):g}] "
                            f"(default {DEFAULT_SIGMA2})")


def add_level_option(parser: argparse.ArgumentParser) -> None:
    """``--level``: the relative loss level of an arrival time (theory §5)."""
    parser.add_argument("--level", default=DEFAULT_LEVEL,
                        help=f"relative loss level in (0, 1) (default {DEFAULT_LEVEL})")
