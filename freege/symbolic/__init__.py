"""The exact layer (sympy): the single source of truth for every formula of SPEC §3-§5."""
