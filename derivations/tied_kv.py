"""``derivations/tied_kv.md``: the tied-K/V jump law mu_KV (theory §4) -- moments, the
resultant elimination of its Cauchy transform, its S-relation and closed-form S-transform,
the tied laws built from it and the tied ridge relation (theory §5)."""

from __future__ import annotations

import sympy as sp

from freege.derivations.moments import tex
from freege.symbolic import pushforward as pf
from freege.symbolic.closed_forms import s_relation
from freege.symbolic.equations import ridge_polynomial, tied_ridge_relation
from freege.symbolic.laws import explicit_branch
from freege.symbolic.symbols import G, S, gK, gO, h, lam, theta1, theta2, w, z
from freege.symbolic.transforms import cauchy_series_residual

a, b, t = pf.a, pf.b, pf.t
MOMENT_ORDER = 4

_v = 1 + t + 2 * w
#: the derived branch, rewritten by hand with v = 1 + t + 2w (checked by same_branch)
SIMPLIFIED = (
    2
    * (1 + t + w)
    / (
        (t + w)
        * (a * (1 + t) + b * _v**2 + _v * sp.sqrt(a**2 + 2 * a * b * (1 + t) + b**2 * _v**2))
    )
)


def same_branch(x: sp.Expr, y: sp.Expr) -> bool:
    """Exact equality of two expressions with one square root each: the radicands expand
    to the same polynomial, and with the root replaced by a symbol the rest cancels."""
    roots_x = [e for e in sp.preorder_traversal(x) if e.is_Pow and e.exp == sp.S.Half]
    roots_y = [e for e in sp.preorder_traversal(y) if e.is_Pow and e.exp == sp.S.Half]
    if len(roots_x) != 1 or len(roots_y) != 1:
        return False
    if sp.expand(roots_x[0].base - roots_y[0].base) != 0:
        return False
    r = sp.Dummy("r")
    return sp.cancel(x.subs(roots_x[0], r) - y.subs(roots_y[0], r)) == 0


def verdict(ok: bool) -> str:
    return "verified (exact)" if ok else "**FAILED**"


def collected(expr: sp.Expr, var: sp.Symbol) -> str:
    """LaTeX of ``expr`` as a polynomial in ``var`` with factored coefficients."""
    poly = sp.Poly(sp.expand(expr), var)
    terms = [sp.factor(c) * var**k for (k,), c in poly.terms()]
    return " + ".join(
        f"\\left({tex(term / var**k)}\\right) {tex(var**k)}" if k else f"\\left({tex(term)}\\right)"
        for term, ((k,), _) in zip(terms, poly.terms(), strict=True)
    )


def proportional(x: sp.Expr, y: sp.Expr) -> bool:
    ratio = sp.cancel(sp.sympify(x) / sp.sympify(y))
    return ratio != 0 and not ratio.has(S, w, G, z, lam)


def display(lhs: str, expr: str) -> list[str]:
    return ["$$", f"{lhs} {expr}", "$$", ""]


def moments_section() -> list[str]:
    generic = pf.generic_moments(2)
    tied = pf.tied_jump_moments(MOMENT_ORDER)
    mean_ok = sp.simplify(h * tied[0] - (gK * theta1 + h * theta2)) == 0
    lines = [
        "## Moments (theory §4, tied jump law)",
        "",
        "Binomial expansion of $\\varphi^q$ against the free Poisson (Narayana) moments",
        "$m_k(\\pi_t) = \\sum_j N(k, j) t^j$:",
        "$m_q(\\mu_{KV}) = \\sum_i \\binom{q}{i} a^i b^{q-i} m_{2q-i}(\\pi_t)$. Generic:",
        "",
    ]
    for q, m in enumerate(generic, 1):
        lines += display(f"m_{{{q}}} =", tex(sp.factor(m)))
    lines += [
        "In freege's symbols ($a = \\theta_1 - \\theta_2$, $b = h\\theta_2/g_K$, $t = g_K/h$):",
        "",
    ]
    for q, m in enumerate(tied, 1):
        lines += display(f"m_{{{q}}}(\\mu_{{KV}}) =", tex(m))
    lines += [
        f"**theory §4 table check.** $h\\, m_1(\\mu_{{KV}}) = g_K \\theta_1 + h \\theta_2$, the "
        f"mean of $\\pi(\\mu_{{KV}}, h)$: {verdict(mean_ok)}.",
        "",
    ]
    return lines


def elimination_section() -> list[str]:
    quartic = pf.generic_cauchy_polynomial()
    residual = cauchy_series_residual(quartic, pf.generic_moments(pf.SELECTION_ORDER))
    lines = [
        "## Cauchy transform by elimination (theory §3, §4)",
        "",
        "With $x_1, x_2$ the roots of $\\varphi(x) = z$ ($x_1 + x_2 = -a/b$, "
        "$x_1 x_2 = -z/b$), $z - \\varphi(x) = -b (x - x_1)(x - x_2)$ and partial fractions "
        "give",
        "",
        "$$",
        "G_{\\mu}(z) = \\int \\frac{d\\pi_t(x)}{z - \\varphi(x)}"
        " = \\frac{g(x_1) - g(x_2)}{b (x_1 - x_2)},"
        "\\qquad x\\, g^2 - (x + 1 - t)\\, g + 1 = 0 \\quad (g = G_{\\pi_t}).",
        "$$",
        "",
        "Eliminate $g(x_2)$ between the free Poisson equations at $x_1$ and "
        "$x_2 = -a/b - x_1$ (with $g(x_1) = g(x_2) + G (2 b x_1 + a)$), then $x_1$ against "
        "$b x_1^2 + a x_1 - z$: two resultants, no quadrature. The eliminant factors as "
        "(factor, multiplicity):",
        "",
    ]
    for factor, mult in pf.generic_elimination():
        lines.append(f"* ${tex(factor)}$ (multiplicity {mult})")
    lines += [
        "",
        "$b^8$ and the discriminant $a^2 + 4bz$ of $\\varphi(x) = z$ are spurious; the "
        "square comes from the symmetry $x_1 \\leftrightarrow x_2$. The remaining quartic "
        "carries the physical branch: substituting $G = \\sum_k m_k z^{-k-1}$ with the "
        f"moments above, the coefficients of orders $0..{pf.SELECTION_ORDER}$ vanish "
        f"identically in $a, b, t$: {verdict(all(c == 0 for c in residual))}. So",
        "",
    ]
    lines += display("P_{\\mu}(G, z) =", collected(quartic.as_expr(), G) + " = 0")
    tied = pf.tied_jump_cauchy_polynomial()
    lines += [
        f"In freege's symbols (`freege.symbolic.pushforward.tied_jump_cauchy_polynomial`, "
        f"degree {tied.degree(G)} in $G$, {tied.degree(z)} in $z$):",
        "",
    ]
    lines += display("P_{\\mu}(G, z) =", collected(tied.as_expr(), G) + " = 0")
    return lines


def relation_section() -> list[str]:
    generic = pf.generic_relation()
    mean = a * t + b * (t + t**2)
    branch = explicit_branch(generic, mean)
    at_zero = sp.solve(generic.subs(w, 0), S)
    tied = pf.tied_jump_relation()
    substituted = sp.numer(sp.together(generic.subs(pf.tied_jump_map())))
    lines = [
        "## The S-relation and the S-transform of $\\mu_{KV}$ (theory §3, §4)",
        "",
        "The birational map $G = S w$, $z = (1 + w)/(S w)$ (theory §3: "
        "$\\psi(1/z) = z G - 1$, $S = \\chi(w)(1+w)/w$) sends the quartic to a relation "
        "quadratic in $S$:",
        "",
    ]
    lines += display("E_{\\mu}(S, w) =", collected(generic, S) + " = 0")
    lines += [
        f"At $w = 0$ it is linear, with the root $S = {tex(sp.factor(at_zero[0]))} = 1/m_1$: "
        f"{verdict(len(at_zero) == 1 and sp.simplify(at_zero[0] * mean - 1) == 0)}; the "
        "other root has a pole at $w = 0$. The physical branch in closed form "
        "(sign fixed by $S(0) = 1/m_1$):",
        "",
    ]
    lines += display("S_{\\mu_{KV}}(w) =", tex(branch))
    lines += [
        "Simplified: with $v = 1 + t + 2w$ (so that "
        "$B^2 - 4AC = (t+w)^2 v^2 (a^2 + 2ab(1+t) + b^2 v^2)$),",
        "",
    ]
    lines += display("S_{\\mu_{KV}}(w) =", tex(SIMPLIFIED) + ",")
    lines += [f"equal to the derived branch: {verdict(same_branch(branch, SIMPLIFIED))}.", ""]
    lines += [
        "In freege's symbols (`freege.symbolic.pushforward.tied_jump_relation`; equal to the",
        "generic relation under $a, b, t \\mapsto \\theta_1 - \\theta_2, h\\theta_2/g_K, g_K/h$: "
        f"{verdict(proportional(tied, substituted))}):",
        "",
    ]
    lines += display("E_{\\mu}(S, w) =", collected(tied, S) + " = 0")
    return lines


def tied_laws_section() -> list[str]:
    mean = gO * (theta1 + h * theta2 / gK)
    spec_normalized = sp.numer(
        sp.together(
            pf.tied_jump_relation().subs(
                {S: (h + w) * (gO + w) * S / (gK * mean), w: w / h}, simultaneous=True
            )
        )
    )
    normalized_ok = proportional(s_relation("mha-tied", True), spec_normalized)
    lines = [
        "## The tied laws (theory §4)",
        "",
        "`value-tied` $= \\pi(\\mu_{KV}, h)$, $S(w) = S_{\\mu}(w/h)/(h + w)$; "
        "`mha-tied` $= D_{1/g_K}(\\pi(\\mu_{KV}, h) \\boxtimes \\pi_{g_O})$, "
        "$S(w) = g_K S_{\\mu}(w/h)/((h + w)(g_O + w))$: substitutions in $E_{\\mu}$, "
        "no further elimination.",
        "",
    ]
    for case in ("value-tied", "mha-tied"):
        lines += [f"`{case}`:", ""]
        lines += display("0 =", collected(s_relation(case), S))
    lines += [
        "**theory §4 normalized tied MHA.** $S_{\\bar\\nu}(w) = g_K m\\, S_{\\mu_{KV}}(w/h) / "
        "((h + w)(g_O + w))$ with $m = g_O(\\theta_1 + h\\theta_2/g_K)$ is the relation of "
        f"the normalized `mha-tied` law: {verdict(normalized_ok)}.",
        "",
    ]
    return lines


def ridge_section() -> list[str]:
    ridge = tied_ridge_relation()
    lines = [
        "## The tied ridge relation (theory §5)",
        "",
        "$\\lambda w = (1-w)(h-w)(g_O-w) / (g_K m\\, S_{\\mu_{KV}}(-w/h))$: put "
        "$S_{\\mu_{KV}}(-w/h) = (1-w)(h-w)(g_O-w)/(g_K m \\lambda w)$ into $E_{\\mu}$ and "
        "clear denominators (`freege.symbolic.equations.tied_ridge_relation`):",
        "",
    ]
    lines += display("F(w, \\lambda) =", collected(ridge.as_expr(), lam) + " = 0")
    lines += [
        "It equals the ridge polynomial of the normalized `mha-tied` law derived by the "
        "generic route of `derivations/ridge.md` up to a constant: "
        f"{verdict(proportional(ridge.as_expr(), ridge_polynomial('mha-tied').as_expr()))}.",
        "",
    ]
    return lines


def render() -> str:
    """The Markdown of ``derivations/tied_kv.md`` (deterministic)."""
    lines = [
        "# The tied-K/V jump law $\\mu_{KV}$ (theory §4, §5)",
        "",
        "Generated by `python -m freege.derivations` from `derivations/tied_kv.py`; do not edit.",
        "Everything below is exact (sympy resultants and polynomial algebra; no quadrature).",
        "",
        "**Definition (theory §4).** $\\mu_{KV} = \\varphi_* \\pi_t$, $t = g_K/h$, "
        "$\\varphi(x) = a x + b x^2$, $a = \\theta_1 - \\theta_2$, $b = (h/g_K)\\theta_2$. "
        "$\\pi_t$ is the free Poisson law (the n-dimensional law of $K_r K_r^T/n$): mean $t$, "
        "atom $1 - t$ at 0 when $t < 1$, kept at 0 by $\\varphi(0) = 0$. Generic symbols "
        "$a, b, t$ keep the algebra small; freege's symbols follow by substitution.",
        "",
    ]
    for section in (
        moments_section,
        elimination_section,
        relation_section,
        tied_laws_section,
        ridge_section,
    ):
        lines += section()
    return "\n".join(lines)
