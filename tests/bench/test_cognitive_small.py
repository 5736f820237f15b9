"""A small real run of the cognitive suite: two dev-set scenarios through the heartbeat, Neo4j and Redis.

The model is the offline policy, so ingestion is the product's own path; the probes run on
KAG's adaptive-effort blend and on the archival baseline. On a clean clone without the dev
set the equivalent scenarios of ``bench/data/cognitive_kag.json`` run instead.
"""

from __future__ import annotations

import pytest

from agent.memory.erasure import owned_nodes
from agent.resources import Resources
from bench.cognitive.dataset import KAG_SET, default_dataset_path, load_cognitive
from bench.cognitive.probes import BASELINE, KAG
from bench.cognitive.report import level_table, results_dict
from bench.cognitive.runner import CognitiveConfig, run_cognitive

pytestmark = pytest.mark.integration

DEV = ("dev-L5-city", "dev-R-groupby")
KAG_EQUIVALENT = ("kag-L5-os", "kag-R-compose")


async def test_two_scenarios_run_for_real(resources: Resources):
    path = default_dataset_path()
    ids = DEV if path.exists() else KAG_EQUIVALENT
    if not path.exists():
        path = KAG_SET
    dataset = load_cognitive(path)
    lines: list[str] = []
    config = CognitiveConfig(path=str(path), scenarios=ids)
    result = await run_cognitive(config, dataset, resources=resources, echo=lines.append)

    assert [s.scenario.id for s in result.scenarios] == list(ids)
    assert all(s.error is None for s in result.scenarios), [s.error for s in result.scenarios]
    assert any(line.startswith("[1/2]") for line in lines) and any("probes kag" in line for line in lines)
    l5, reminders = result.scenarios

    # L5: the current value ranks first among facts, and the superseded one is found as_of
    current, past = l5.probes
    assert current.passed(KAG), current.verdicts[KAG].reason
    assert past.passed(KAG), past.verdicts[KAG].reason
    assert past.outcomes[KAG].intent and past.outcomes[KAG].search.endswith("as_of)")
    facts = [h for h in past.outcomes[KAG].hits if h.kind == "fact"]
    superseded = past.probe.expect[0].all[0]  # "da nang" on the dev set, "windows 10" on KAG's
    assert facts and superseded in facts[0].text.lower() and facts[0].valid_from
    assert BASELINE in current.outcomes and "no as_of" in past.outcomes[BASELINE].note

    # the reminder fires on the turn that names its trigger, exactly once, and on no other turn
    fired = {(t.session, t.turn): t.fired for t in reminders.turns}
    assert all(v.passed for v in reminders.reminders), [v.to_dict() for v in reminders.reminders]
    assert sum(len(ids) for ids in fired.values()) == 1
    assert all(not t.fired for t in l5.turns)

    data = results_dict(result)
    assert data["levels"]["L5"][KAG]["rate"] == 1.0
    assert data["reminders"][KAG]["fire_once_rate"] == 1.0 and data["reminders"][KAG]["false_fires"] == 0
    assert data["reminders"][BASELINE]["fire_once"] == 0
    assert "| L5 |" in level_table(data)
    # every request reported its effort record; the learners were erased afterwards
    assert all("effort" in t.memory_state for s in result.scenarios for t in s.turns)
    for s in result.scenarios:
        assert await owned_nodes(resources, s.learner_id) == 0
