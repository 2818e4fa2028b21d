"""Sphinx configuration of the freege documentation site: ``sphinx-build -W -b html docs OUT``
(``pip install '.[docs]'`` first).

Pages: ``guide.md`` and ``theory.md`` as they stand (MyST Markdown, ``$...$`` maths);
``readme.md`` and ``architecture.md`` include the repository's README.md and
ARCHITECTURE.md; ``api/`` documents the public modules from their docstrings (autodoc +
napoleon); ``examples.md`` is a MyST-NB text notebook executed at every build. Only
``guide.md`` and ``theory.md`` ship with the package (``freege docs``). This module has
no side effects when imported: the path set-up runs in :func:`setup`, which only Sphinx
calls.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

project = "freege"
author = "the freege developers"
copyright = "the freege developers (MIT licence)"

extensions = [
    "myst_nb",  # MyST Markdown pages and MyST-NB text notebooks (loads myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]

# MyST: $...$ and $$...$$ as in docs/theory.md, AMS environments, heading anchors
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 4

# MyST-NB: execute the notebook pages at every build; a failing cell fails the build
nb_execution_mode = "force"
nb_execution_timeout = 120
nb_execution_raise_on_error = True
nb_execution_show_tb = True

# a public package lists its API in __all__ (autodoc follows it); api/numeric.md and
# api/algebra.md add the methods a class inherits from freege classes (ExpressionLaw:
# every method of Law), not those of builtins
autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False

html_theme = "alabaster"
html_title = "freege"

# --- README.md and ARCHITECTURE.md as pages ----------------------------------------------
# Their links are written relative to the repository root (as GitHub shows them); in an
# included page they resolve relative to docs/. So ``docs/x.md`` becomes ``x.md``, a
# wrapped root file becomes its page, and any other root file (LICENSE, CITATION.cff) a
# download.

#: repository-root Markdown files -> the page of this folder that includes each
WRAPPED = {"README.md": "readme.md", "ARCHITECTURE.md": "architecture.md"}
_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)#\s]+)(#[^)\s]*)?\)")


def site_target(target: str) -> str:
    """The docs/-relative form of a link ``target`` written relative to the root."""
    if target.startswith("docs/"):
        return target.removeprefix("docs/")
    if target in WRAPPED:
        return WRAPPED[target]
    return f"../{target}" if (ROOT / target).exists() else target


def _rebase_root_links(app, relative_path, parent_docname, content) -> None:
    """``include-read`` handler: rebase the links of an included root document."""
    path = Path(relative_path)
    if path.name in WRAPPED and path.parent == Path(".."):
        content[0] = _LINK.sub(lambda m: f"]({site_target(m[1])}{m[2] or ''})", content[0])


def setup(app) -> dict:
    """Document the checkout being built, not whatever freege is installed: its root on
    ``sys.path`` for autodoc, and on ``PYTHONPATH`` for the notebook kernel (a child
    process)."""
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    app.connect("include-read", _rebase_root_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
