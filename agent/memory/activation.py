"""Activation of cognitive memories, and THE ranking formula that blends it with relevance.

Activation (ACT-R style, simplified) measures how recently and how often a memory was
used. Each memory node stores ``activation`` (its value at ``last_access``),
``last_access`` (ISO-8601) and ``access_count``:

- **decay**: between reads activation decays exponentially with the hours elapsed,
  ``a(t) = a0 * exp(-DECAY_PER_HOUR * hours(t - last_access))``; at 0.05 per hour it
  halves in about 14 hours and keeps ~30% after a day;
- **read boost**: a read sets ``activation = a(now) + READ_BOOST`` and
  ``last_access = now`` (a new memory starts at ``READ_BOOST``).

The clock is injected (``agent.clock``): callers pass ``now``, so tests never sleep.

Ranking formula (the only place it is defined; recipes carry the weights)::

    score = relevance * (1 + activation_weight * A + usage_weight * U)
    A = a / (1 + a)                       # decayed activation squashed into [0, 1)
    U = log1p(usage) / (1 + log1p(usage)) # usage count squashed into [0, 1)

``relevance`` is the fused retrieval score (RRF). The lift is multiplicative and
bounded by ``1 + activation_weight + usage_weight``, so activation and usage re-order
memories of similar relevance but never promote a memory the retrievers did not find
(relevance 0 stays 0). With both weights 0 (every recipe but ``cognitive``) the score
is the relevance unchanged.

The ``cognitive`` recipe fuses with ``rrf_k = 10`` and uses weights 0.15/0.15: adjacent
top ranks then differ by ~9% (1/11 vs 1/12), a freshly written memory (a = 1, A = 0.5)
gains 7.5% and cannot overtake a better-ranked one on recency alone, while a memory
read many times (A -> 1) plus frequent use (U ~ 0.7) can climb one or two places.
"""

from __future__ import annotations

import math
from datetime import datetime

from agent.clock import as_aware
from agent.search.recipes import SearchRecipe

DECAY_PER_HOUR = 0.05
"""Exponential decay rate of activation, per hour."""
READ_BOOST = 1.0
"""Activation added by each read (and the activation of a new memory)."""


def hours_since(last_access: str | None, now: datetime) -> float:
    """Hours from ``last_access`` (ISO-8601; None or unparsable: 0) to ``now``, never negative."""
    if not last_access:
        return 0.0
    try:
        then = as_aware(datetime.fromisoformat(last_access))
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, (as_aware(now) - then).total_seconds() / 3600.0)


def decayed(activation: float, last_access: str | None, now: datetime, rate: float = DECAY_PER_HOUR) -> float:
    """``activation`` stored at ``last_access``, decayed to ``now``: ``a0 * exp(-rate * hours)``."""
    if rate < 0:
        raise ValueError("decay rate must be >= 0")
    return max(0.0, float(activation or 0.0)) * math.exp(-rate * hours_since(last_access, now))


def boosted(activation: float, last_access: str | None, now: datetime) -> float:
    """Activation after a read at ``now``: the decayed value plus ``READ_BOOST``."""
    return decayed(activation, last_access, now) + READ_BOOST


def squash(value: float) -> float:
    """Map ``[0, inf)`` onto ``[0, 1)``: ``v / (1 + v)`` (negative input counts as 0)."""
    value = max(0.0, float(value))
    return value / (1.0 + value)


def blend_score(relevance: float, activation: float, usage: int, recipe: SearchRecipe) -> float:
    """Relevance lifted by activation and usage (the module docstring's formula)."""
    lift = recipe.activation_weight * squash(activation)
    lift += recipe.usage_weight * squash(math.log1p(max(0, int(usage or 0))))
    return float(relevance) * (1.0 + lift)
