"""Markdown of the shipped documents (``docs/guide.md``, ``docs/theory.md``) as plain text
for a terminal, with no dependency: what ``freege docs`` prints when standard output is a
terminal (or with ``--render``).

* Headings: level 1 and 2 uppercased, every level underlined (``=``, ``-``, ``~``).
* Tables: the cells aligned in columns, the header ruled off; ``\\|`` is a literal bar.
* LaTeX (``$...$`` inline, ``$$...$$`` displayed on lines of their own, indented) as
  readable text by :func:`latex_to_text`: Greek letters and operators as their Unicode
  characters, ``\\frac{a}{b}`` as ``a/b``, ``\\sqrt{x}`` as ``√x``, digit sub- and
  superscripts as ``θ₁``, ``β²``, other ones as ``d_K``, ``e^(β²)``.
* Fenced code blocks indented by four spaces, the fences dropped; nothing inside them is
  changed.
* Inline code loses its backticks, ``**bold**`` its stars, and a link ``[text](target)``
  reads ``text``, followed by `` <target>`` for a web address.

Everything else (lists, paragraphs and their line breaks) is kept as written.
"""

from __future__ import annotations

import re

#: LaTeX commands that stand for one character (Greek letters, operators, arrows)
SYMBOLS: dict[str, str] = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ",
    "cdot": "·", "times": "×", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~", "simeq": "≃",
    "equiv": "≡", "propto": "∝", "in": "∈", "notin": "∉", "subset": "⊂", "cup": "∪",
    "cap": "∩", "to": "→", "rightarrow": "→", "leftarrow": "←", "leftrightarrow": "↔",
    "Rightarrow": "⇒", "implies": "⇒", "iff": "⇔", "mapsto": "↦", "infty": "∞",
    "partial": "∂", "nabla": "∇", "sum": "Σ", "prod": "∏", "int": "∫", "oint": "∮",
    "boxtimes": "⊠", "boxplus": "⊞", "oplus": "⊕", "otimes": "⊗", "perp": "⊥",
    "top": "ᵀ", "dagger": "†", "circ": "∘", "ldots": "…", "dots": "…", "cdots": "⋯",
    "vdots": "⋮", "ddots": "⋱", "mid": "|", "lvert": "|", "rvert": "|", "vert": "|",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "langle": "⟨", "rangle": "⟩",
    "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "forall": "∀",
    "exists": "∃", "emptyset": "∅", "setminus": "∖", "prime": "′", "star": "⋆",
    "quad": "  ", "qquad": "    ", ",": " ", ";": " ", ":": " ", " ": " ", "!": "",
    "{": "{", "}": "}", "|": "‖", "%": "%", "&": "&", "_": "_", "#": "#", "\\": "; ",
}
#: the binary operators and relations of SYMBOLS, written with a space on each side
OPERATORS = frozenset({"cdot", "times", "pm", "mp", "le", "leq", "ge", "geq", "ne", "neq",
                       "approx", "sim", "simeq", "equiv", "propto", "in", "notin", "subset",
                       "cup", "cap", "to", "rightarrow", "leftarrow", "leftrightarrow",
                       "Rightarrow", "implies", "iff", "mapsto", "boxtimes", "boxplus",
                       "oplus", "otimes", "circ", "mid", "setminus"})
#: commands after a fraction that separate it from what follows (else it is a factor)
_SEPARATING = OPERATORS | {"quad", "qquad", "right", "bigr", "Bigr", "biggr", "Biggr", "end",
                           "ldots", "dots", "cdots"}
#: commands dropped with no trace (sizing of delimiters, spacing hints)
DROPPED = frozenset({"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl",
                     "Bigr", "biggl", "biggr", "displaystyle", "textstyle", "limits",
                     "nolimits", "nonumber", "notag"})
#: commands whose one argument is text as it stands (fonts, operator names)
VERBATIM = frozenset({"mathrm", "text", "textrm", "textit", "textbf", "texttt", "mathit",
                      "mathbf", "mathsf", "mathtt", "boldsymbol", "bm", "operatorname",
                      "mathcal", "mathscr", "mathfrak", "mbox", "hbox"})
#: accents, as combining characters after their (one-character) argument
ACCENTS: dict[str, str] = {"bar": "\u0304", "overline": "\u0304", "hat": "\u0302",
                           "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
                           "dot": "\u0307", "ddot": "\u0308", "vec": "\u20d7",
                           "mathring": "\u030a", "check": "\u030c"}
#: \mathbb letters
DOUBLE_STRUCK: dict[str, str] = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼",
                                 "P": "ℙ", "1": "𝟙"}
_SUPERSCRIPT = str.maketrans("0123456789+-=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ")
_SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SUPERSCRIPT_CHARS = frozenset("0123456789+-=()niTᵀ")
_SUBSCRIPT_CHARS = frozenset("0123456789+-=()")
#: a sub- or superscript as rendered: script characters, ``_x``, ``_(...)``, ``^x``, ``^(...)``
_SCRIPTS = r"(?:[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼ⁿⁱᵀ₀₁₂₃₄₅₆₇₈₉₊₋₌⊥′*†]|_\w+|_\([^()]*\)|\^\w|\^\([^()]*\))*"
#: one symbol as rendered (a letter with its accents and scripts), or a number
_SYMBOL = re.compile(rf"\d+(?:\.\d+)?|[^\W\d_][\u0300-\u036f\u20d7]*{_SCRIPTS}|[^\w\s]")


class _Latex:
    """A recursive-descent reading of one LaTeX formula into text."""

    def __init__(self, tex: str) -> None:
        self.tex, self.i = tex, 0

    def render(self, stop: str | None = None) -> str:
        """Text up to the closing ``stop`` character (``}``) or the end."""
        out: list[str] = []
        while self.i < len(self.tex):
            c = self.tex[self.i]
            if c == stop:
                self.i += 1
                break
            if c in "^_":
                self.i += 1
                out.append(_script(self.argument(), superscript=c == "^"))
            elif c == "{":
                self.i += 1
                out.append(self.render("}"))
            elif c == "\\":
                out.append(self.command())
            elif c == "~":
                self.i += 1
                out.append(" ")
            elif c == "&":
                self.i += 1
            else:
                self.i += 1
                out.append(c)
        return "".join(out)

    def argument(self) -> str:
        """One argument: a ``{group}``, a command, or one character."""
        while self.i < len(self.tex) and self.tex[self.i] == " ":
            self.i += 1
        if self.i >= len(self.tex):
            return ""
        c = self.tex[self.i]
        if c == "{":
            self.i += 1
            return self.render("}")
        if c == "\\":
            return self.command()
        self.i += 1
        return c

    def raw_argument(self) -> str:
        """The source text of one ``{group}`` argument (or one character), unrendered."""
        while self.i < len(self.tex) and self.tex[self.i] == " ":
            self.i += 1
        if self.i >= len(self.tex) or self.tex[self.i] != "{":
            self.i += 1
            return self.tex[self.i - 1:self.i]
        depth, start = 0, self.i
        for k in range(self.i, len(self.tex)):
            depth += {"{": 1, "}": -1}.get(self.tex[k], 0)
            if depth == 0:
                self.i = k + 1
                return self.tex[start + 1:k]
        self.i = len(self.tex)
        return self.tex[start + 1:]

    def juxtaposed(self, start: int) -> bool:
        """Whether the term from ``start`` to ``self.i`` multiplies a neighbour written
        without an operator (``2\\frac{a}{b}``, ``\\frac{a}{b}(1 + x)``): then ``a/b`` needs
        parentheses."""
        before = re.sub(r"(?:\\[,;: !]|\s)+$", "", self.tex[:start])[-1:]
        after = re.sub(r"^(?:\s|\\[,;: !]|\\(?:[Bb]igg?l?|left)(?![A-Za-z]))+", "",
                       self.tex[self.i:])
        word = re.match(r"\\([A-Za-z]+)", after)
        return bool(before) and (before.isalnum() or before in ")]}") \
            or bool(after) and (after[0].isalnum() or after[0] in "([") \
            or bool(word) and word[1] not in _SEPARATING

    def command(self) -> str:
        """The text of the command at ``self.i`` (a backslash), its arguments consumed."""
        m = re.compile(r"\\([A-Za-z]+|.)").match(self.tex, self.i)
        if m is None:  # a trailing backslash
            self.i += 1
            return ""
        self.i = m.end()
        name = m[1]
        if name in OPERATORS:
            return f" {SYMBOLS[name]} "
        if name in SYMBOLS:
            return SYMBOLS[name]
        if name in DROPPED:
            if name in ("left", "right") and self.tex[self.i:self.i + 1] == ".":
                self.i += 1
            return ""
        if name in ("frac", "dfrac", "tfrac"):
            num, den = self.argument(), self.argument()
            fraction = f"{_operand(num)}/{_operand(den)}"
            return f"({fraction})" if self.juxtaposed(m.start()) else fraction
        if name == "binom":
            n, k = self.argument(), self.argument()
            return f"C({n}, {k})"
        if name == "sqrt":
            index = ""
            if self.tex[self.i:self.i + 1] == "[":
                end = self.tex.find("]", self.i)
                index, self.i = self.tex[self.i + 1:end], end + 1
            radicand = self.argument()
            root = {"": "√", "3": "∛", "4": "∜"}.get(index, f"{index}√")
            return root + _operand(radicand)
        if name in VERBATIM:
            return _Latex(self.raw_argument()).render()
        if name == "mathbb":
            text = self.raw_argument().strip()
            return "".join(DOUBLE_STRUCK.get(ch, ch) for ch in text)
        if name in ACCENTS:
            base = self.argument()
            return base + ACCENTS[name] if len(base) == 1 else f"{base}{ACCENTS[name]}"
        if name in ("begin", "end"):
            self.raw_argument()
            return ""
        return name  # \exp, \log, \max, \det, ...: the operator's name


def _operand(text: str) -> str:
    """``text`` as an operand of ``/`` or ``√``: parenthesised unless it is one symbol,
    a number, a bracketed group, a function value (``s(w)``) or the root of one."""
    text = text.strip()
    return text if _atomic(text) else f"({text})"


def _atomic(text: str) -> bool:
    call = re.fullmatch(r"\w+(\(.*\))", text)
    return bool(_SYMBOL.fullmatch(text) or _bracketed(text) or call and _bracketed(call[1])
                or text[:1] in "√∛∜" and _atomic(text[1:]))


def _bracketed(text: str) -> bool:
    """Whether ``text`` is one ``(...)`` or ``[...]`` group (its first bracket closes last)."""
    depth = 0
    for k, ch in enumerate(text):
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if depth == 0:
            return k == len(text) - 1 and k > 0 and text[0] in "(["
    return False


def _script(text: str, *, superscript: bool) -> str:
    """A sub- or superscript: Unicode script characters where every character has one,
    else ``_x`` / ``^x`` (parenthesised when it is more than one symbol)."""
    text = text.strip()
    chars = _SUPERSCRIPT_CHARS if superscript else _SUBSCRIPT_CHARS
    if text and set(text) <= chars:
        return text.translate(_SUPERSCRIPT if superscript else _SUBSCRIPT)
    if superscript and text in ("⊥", "*", "′", "†"):
        return text
    mark = "^" if superscript else "_"
    if len(text) == 1 or re.fullmatch(r"\w+", text) and not superscript:
        return mark + text
    return f"{mark}({text})"


def latex_to_text(tex: str) -> str:
    """One LaTeX formula (no dollar signs) as readable text: ``\\beta`` -> ``β``,
    ``\\sqrt{n}`` -> ``√n``, ``\\theta_1^2`` -> ``θ₁²``, ``\\frac{h\\, d_K}{n}`` ->
    ``(h d_K)/n``, ``e^{\\beta^2}`` -> ``e^(β²)``."""
    text = _Latex(tex).render()
    # a space between symbols; a wider gap (\qquad between formulas) is four
    return re.sub(r"(?<=\S) {2,}(?=\S)", lambda m: " " * 4 if len(m[0]) >= 4 else " ",
                  text).strip()


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)")
_DOLLAR = re.compile(r"(?<![\\$])\$(?!\$)")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def inline(text: str) -> str:
    """One line of Markdown prose as text: code spans without backticks (their contents
    untouched), LaTeX as text, links as their text, bold without stars."""
    pieces, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        pieces.append(_prose(text[last:m.start()]))
        pieces.append(m[2])
        last = m.end()
    pieces.append(_prose(text[last:]))
    return "".join(pieces)


def _prose(text: str) -> str:
    text = _DISPLAY_MATH.sub(lambda m: latex_to_text(m[1]), text)
    text = _INLINE_MATH.sub(lambda m: latex_to_text(m[1]), text)
    text = _LINK.sub(lambda m: m[1] + (f" <{m[2]}>" if "://" in m[2] else ""), text)
    return _BOLD.sub(lambda m: m[1], text)


def _cells(row: str) -> list[str]:
    """The cells of one table row, ``\\|`` read as a literal bar."""
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [inline(cell.strip().replace("\\|", "|")) for cell in re.split(r"(?<!\\)\|", body)]


def table(rows: list[str]) -> list[str]:
    """Markdown table ``rows`` (header, ``|---|`` rule, body) as aligned columns."""
    rule = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
    parsed = [_cells(row) for row in rows if not rule.match(row)]
    columns = max(len(cells) for cells in parsed)
    parsed = [cells + [""] * (columns - len(cells)) for cells in parsed]
    widths = [max(len(cells[k]) for cells in parsed) for k in range(columns)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = [line(parsed[0])]
    if len(rows) > 1 and rule.match(rows[1]):
        out.append("  ".join("-" * w for w in widths))
    out += [line(cells) for cells in parsed[1:]]
    return out


def heading(level: int, title: str) -> list[str]:
    """A heading: uppercased at levels 1 and 2, underlined (``=``, ``-``, ``~``)."""
    text = inline(title)
    text = text.upper() if level <= 2 else text
    return [text, {1: "=", 2: "-"}.get(level, "~") * len(text)]


def render(markdown: str) -> str:
    """``markdown`` (a document or a section of one) as text for a terminal."""
    lines, out, k = markdown.splitlines(), [], 0
    while k < len(lines):
        line = lines[k]
        fence = re.match(r"^(\s*)(`{3,}|~{3,})", line)
        if fence:
            indent, marker = fence[1], fence[2]
            k += 1
            while k < len(lines) and not lines[k].strip().startswith(marker):
                out.append("    " + lines[k].removeprefix(indent) if lines[k].strip() else "")
                k += 1
            k += 1
            continue
        if h := re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line):
            if out and out[-1].strip():
                out.append("")
            out += heading(len(h[1]), h[2])
            k += 1
            continue
        if line.lstrip().startswith("|"):
            rows = []
            while k < len(lines) and lines[k].lstrip().startswith("|"):
                rows.append(lines[k])
                k += 1
            out += table(rows)
            continue
        if (start := line.find("$$")) >= 0 and "$$" not in line[start + 2:]:
            block = [line[start + 2:]]  # a displayed formula over several lines
            k += 1
            while k < len(lines) and "$$" not in lines[k]:
                block.append(lines[k])
                k += 1
            if k < len(lines):
                block.append(lines[k][:lines[k].find("$$")])
            out += _display(line[:start], " ".join(b.strip() for b in block))
            k += 1
            continue
        if (m := re.fullmatch(r"(\s*(?:[*+-] |\d+\. )?\s*)\$\$(.+)\$\$(\W?)\s*", line)):
            out += _display(m[1], m[2] + m[3])
            k += 1
            continue
        k += 1
        while _open_math(line) and k < len(lines) and lines[k].strip():
            line = f"{line.rstrip()} {lines[k].strip()}"  # $...$ continues on the next line
            k += 1
        out.append(inline(line))
    return "\n".join(out)


def _open_math(line: str) -> bool:
    """Whether ``line`` opens an inline formula (``$``) that it does not close."""
    return len(_DOLLAR.findall(_CODE_SPAN.sub("", line))) % 2 == 1


def _display(before: str, tex: str) -> list[str]:
    """A displayed formula: on a line of its own, indented four spaces past the text
    before it (a list item's indentation)."""
    lead = [inline(before).rstrip()] if before.strip() else []
    return lead + [" " * (len(before) - len(before.lstrip()) + 4) + latex_to_text(tex)]
