"""The ablation learner script and the variant registry."""

from __future__ import annotations

import pytest

from agent.context import Context
from agent.errors import ConfigError
from agent.models.offline_policy import plan_actions, search_query
from bench.ablations.learner_script import FILLER, FORMER_HOME, MOVED, build_script
from bench.ablations.variants import ABLATIONS, ALL_VARIANTS, BASELINES, VARIANTS, get_variant

TOOLS = {
    "core_memory_append",
    "core_memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
}
COGNITIVE = TOOLS | {"remember_fact", "search_facts"}
"""The full system's tools: the fact store is what answers the superseded fact's probe."""


@pytest.mark.parametrize("filler", [1, 2, 6])
def test_probes_come_at_growing_distances_and_end_with_a_recent_fact(filler):
    script = build_script(filler)
    probes = script.probe_turns()
    distances = [t.index - script.fact_turn(t.probes) for t in probes if t.probes != MOVED.key]
    early = distances[:-1]
    assert len(probes) == len(script.facts) == 8
    assert early == sorted(early) and len(set(early)) == len(early)
    assert distances[-1] < early[0]  # the recent fact is probed close by
    assert [t.index for t in script.turns] == list(range(len(script.turns)))
    assert script.sessions == ["session-1", "session-2", "session-3"]
    assert [t.session for t in script.turns if t.end_session] == script.sessions


def test_script_is_deterministic_and_grows_with_filler():
    assert build_script(2) == build_script(2)
    assert len(build_script(6).turns) > len(build_script(2).turns)
    with pytest.raises(ValueError):
        build_script(0)


def test_the_offline_policy_searches_on_probes_and_is_silent_on_filler():
    script = build_script(2)
    for turn in script.turns:
        plan = plan_actions(turn.text, TOOLS)
        if turn.probes == MOVED.key:
            assert [name for name, _ in plan_actions(turn.text, COGNITIVE)] == ["search_facts"], turn.text
        elif turn.probes:
            assert [name for name, _ in plan] == ["conversation_search"], turn.text
        elif not turn.states and turn.text != FORMER_HOME:
            assert plan == [], turn.text


def test_a_superseded_fact_only_the_fact_store_can_answer():
    """The old home shares the probe's words and the move shares none: retrieval finds the old value."""
    script = build_script(2)
    stated, probe = (
        script.fact_turn(MOVED.key),
        next(t for t in script.probe_turns() if t.probes == MOVED.key),
    )
    former = next(t for t in script.turns if t.text == FORMER_HOME)
    assert former.session == "session-1" and script.turns[stated].session == "session-2"
    assert probe.session == "session-3" and former.index < stated < probe.index
    words = set(search_query(probe.text).split())  # the probe's content words: "live", "now"
    assert words & set(FORMER_HOME.lower().split()) and not words & set(MOVED.statement.lower().split())
    assert [name for name, _ in plan_actions(FORMER_HOME, COGNITIVE)] == ["remember_fact"]
    assert [name for name, _ in plan_actions(MOVED.statement, COGNITIVE)] == ["remember_fact"]


def test_expected_answers_are_distinctive():
    script = build_script(6)
    for fact in script.facts.values():
        assert fact.expected.lower() in fact.statement.lower()
        assert fact.expected.lower() not in fact.probe.lower()
        assert not any(fact.expected.lower() in f.lower() for f in FILLER)


def test_variant_registry():
    assert ALL_VARIANTS[0] == "full" and len(ALL_VARIANTS) == 7
    assert set(ABLATIONS) == {"no_auto_archive", "no_heartbeat", "no_zettelkasten"}
    assert set(BASELINES) == {"fixed_window", "sliding_window", "rag_only"}
    base = Context(max_tokens=1600)
    assert get_variant("no_auto_archive").auto_archive is False
    assert get_variant("no_auto_archive").context(base) == base  # an ablation of the graph, not of Context
    assert all(get_variant(n).auto_archive for n in ALL_VARIANTS if n != "no_auto_archive")
    assert get_variant("no_heartbeat").context(base).max_steps == 1
    assert get_variant("no_zettelkasten").context(base).zettelkasten is False
    full = get_variant("full").context(base)
    assert full == base and full.max_tokens == 1600
    assert all(v.context(base).max_tokens == 1600 for v in VARIANTS.values())
    with pytest.raises(ConfigError, match="known"):
        get_variant("nope")
