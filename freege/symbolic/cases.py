"""The limiting laws of theory §4, written as compositions of the law algebra.

Each case is the theory §4 table entry spelled with :mod:`freege.symbolic.laws`:

====================================  =====================================================
``attention``                         ``nu_att = rho_{gK} ⊠ MP_{1/h}``
``head-average``                      ``rho_{gK} ⊠ pi_1``
``head-average-shared-key``           ``rho_{gK/h} ⊠ pi_1``
``value``                             ``nu_att ⊠ pi_{gV}``
``mha`` (independent, GQA, MQA)       ``nu_att ⊠ MP_{1/gV} ⊠ pi_{gO}``
``value-tied``                        ``pi(mu_KV, h)``
``mha-tied``                          ``D_{1/gK}( pi(mu_KV, h) ⊠ pi_{gO} )``
====================================  =====================================================

``mu_KV`` is the image of ``pi_{gK/h}`` under ``phi(x) = (theta1 - theta2) x +
(h/gK) theta2 x^2``; its moments and S-relation (resultant elimination) come from
:mod:`freege.symbolic.pushforward`.
The normalized law ``nubar`` (theory §3) is ``D_{1/m_1} nu``.
"""

from __future__ import annotations

import functools

from freege.params import CASES as CASES
from freege.params import TIED_CASES as TIED_CASES
from freege.params import check_case
from freege.symbolic import laws
from freege.symbolic.laws import FreeLaw
from freege.symbolic.pushforward import tied_jump_moments, tied_jump_relation
from freege.symbolic.symbols import gK, gO, gV, h


@functools.cache
def tied_jump_law() -> FreeLaw:
    """``mu_KV = phi_* pi_{gK/h}`` (theory §4), from :mod:`freege.symbolic.pushforward`:
    moments ``int phi(x)^q d pi_{gK/h}(x)`` (exact, Narayana moments) and the S-relation
    eliminated by resultants."""
    return laws.from_moments("mu_KV", tied_jump_moments, tied_jump_relation)


@functools.cache
def attention_law() -> FreeLaw:
    """``nu_att = rho_{gK} ⊠ MP_{1/h}`` (theory §4)."""
    return laws.free_mult_conv(laws.rho(gK), laws.marchenko_pastur(1 / h))


def _build(name: str) -> FreeLaw:
    if name == "attention":
        return attention_law()
    if name == "head-average":
        return laws.free_mult_conv(laws.rho(gK), laws.free_poisson(1))
    if name == "head-average-shared-key":
        return laws.free_mult_conv(laws.rho(gK / h), laws.free_poisson(1))
    if name == "value":
        return laws.free_mult_conv(attention_law(), laws.free_poisson(gV))
    if name == "mha":
        return laws.free_mult_conv(
            attention_law(), laws.marchenko_pastur(1 / gV), laws.free_poisson(gO)
        )
    tied_value = laws.compound_free_poisson(tied_jump_law(), h)
    if name == "value-tied":
        return tied_value
    return laws.dilation(laws.free_mult_conv(tied_value, laws.free_poisson(gO)), 1 / gK)


@functools.cache
def case_law(name: str, normalized: bool = False) -> FreeLaw:
    """The theory §4 law of case ``name``; with ``normalized``, ``nubar = D_{1/m_1} nu``
    (mean 1, theory §3). A ValueError lists the valid names for an unknown case."""
    law = _build(check_case(name))
    if normalized:
        return laws.dilation(law, 1 / law.mean)
    return law
