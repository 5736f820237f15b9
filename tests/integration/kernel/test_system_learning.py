"""System learning on the real Neo4j: counts across learners, and no content or learner id crosses."""

from __future__ import annotations

import json
import uuid

import pytest

from agent.errors import InvalidInputError
from agent.kernel.reflection.run import reflect_learners
from agent.kernel.system_learning import system_learning
from agent.resources import Resources
from tests.integration.kernel.test_reflection import erase, rows


async def say(resources: Resources, learner: str, session: str, text: str, at: str) -> None:
    await rows(
        resources,
        """MERGE (l:Learner {id: $learner})
           CREATE (m:Message {id: $id, learner_id: $learner, session_id: $session, role: 'user',
                              content: $text, created_at: $at, seq: 0})
           MERGE (l)-[:SAID]->(m)""",
        learner=learner,
        id=f"msg-{uuid.uuid4()}",
        session=session,
        text=text,
        at=at,
    )


@pytest.fixture
def tag() -> str:
    """Letters only, unique per test: planted concepts and error kinds no other data shares."""
    return "".join("abcdefghijklmnop"[int(c, 16)] for c in uuid.uuid4().hex[:10])


async def test_bottlenecks_and_errors_aggregate_counts_and_no_content_or_learner_crosses(
    resources: Resources, tag: str
) -> None:
    learners = [f"test-{uuid.uuid4()}" for _ in range(5)]
    shared, error = f"zq{tag} rotations", f"Zq{tag.capitalize()}Error"
    secret = f"zsecret{tag}"
    try:
        # The fourth learner says it once: no bottleneck of their own, but they count as struggling.
        await say(
            resources, learners[3], "s1", f"Honestly, {shared} is so hard.", "2026-03-01T09:00:00+00:00"
        )
        # The fifth says it once, in other words and a wider spelling: the same concept, one more learner.
        await say(
            resources,
            learners[4],
            "s1",
            f"Why are left zq{tag} rotations so hard?",
            "2026-03-01T09:00:00+00:00",
        )
        for i, learner in enumerate(learners[:3]):
            await say(
                resources, learner, "s1", f"I'm confused by {shared} again.", "2026-03-01T09:00:00+00:00"
            )
            await say(
                resources, learner, "s2", f"I keep getting {shared} wrong.", "2026-03-02T09:00:00+00:00"
            )
            if i < 2:  # two learners share a recurring error kind
                await say(
                    resources,
                    learner,
                    "s1",
                    f"I keep getting a {error} in my loops.",
                    "2026-03-01T09:10:00+00:00",
                )
                await say(
                    resources, learner, "s2", f"Again a {error} in my loops!", "2026-03-02T09:10:00+00:00"
                )
        # Learner 0 alone struggles with a private concept, and writes the secret down in plain text.
        private = learners[0]
        for day in (1, 2, 3):
            await say(
                resources,
                private,
                f"p{day}",
                f"I'm confused by {secret} vault.",
                f"2026-03-0{day}T21:00:00+00:00",
            )
        await say(resources, private, "p1", f"My password is {secret}-{tag}.", "2026-03-01T21:05:00+00:00")
        await say(
            resources,
            private,
            "p1",
            f"I keep getting a {secret.capitalize()}Error in the vault.",
            "2026-03-01T21:06:00+00:00",
        )
        await say(
            resources,
            private,
            "p2",
            f"I keep getting a {secret.capitalize()}Error in the vault.",
            "2026-03-02T21:06:00+00:00",
        )
        reports = await reflect_learners(resources, learners, limit=50)
        assert all(r.changed for r in reports)  # (the fourth learner: scanned, no insight)
        # The private learner does have the secret concept as a bottleneck and an error pattern of its own.
        mine = await rows(
            resources,
            "MATCH (p:Pattern {learner_id: $l}) "
            "RETURN p.kind AS kind, p.concept AS concept, p.error_kind AS e",
            l=private,
        )
        assert {"kind": "bottleneck", "concept": f"{secret} vault", "e": None} in mine
        assert any(r["e"] == f"{secret.capitalize()}Error" for r in mine)

        result = await system_learning(resources, min_learners=2, top=100)
        bottlenecks = {b["concept"]: b for b in result.bottlenecks}
        # Five learners struggled (the wider spelling folded in, each counted once); three persistently.
        assert bottlenecks[f"zq{tag} rotation"] == {
            "concept": f"zq{tag} rotation",
            "learners": 5,
            "persistent": 3,
        }
        assert f"left zq{tag} rotation" not in bottlenecks  # one learner's spelling is not reported
        errors = {e["error_kind"]: e for e in result.recurring_errors}
        assert errors[error] == {"error_kind": error, "learners": 2, "patterns": 2, "occurrences": 4}
        struggles = {s["concept"]: s for s in result.struggles}
        assert struggles[f"zq{tag} rotation"] == {"concept": f"zq{tag} rotation", "learners": 4, "signals": 7}
        assert result.totals["with_patterns"] >= 3

        dumped = json.dumps(result.to_dict())
        assert secret not in dumped.lower()
        for learner in learners:
            assert learner not in dumped
        for field in ("text", "description", "content", "learner_id", "evidence"):
            assert f'"{field}"' not in dumped
        # Each row has only its key and counts.
        assert all(set(b) == {"concept", "learners", "persistent"} for b in result.bottlenecks)
        assert all(
            set(e) == {"error_kind", "learners", "patterns", "occurrences"} for e in result.recurring_errors
        )
    finally:
        await erase(resources, *learners)


async def test_system_learning_refuses_a_threshold_below_two(resources: Resources) -> None:
    for bad in (0, 1, True, "2"):
        with pytest.raises(InvalidInputError):
            await system_learning(resources, min_learners=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        await system_learning(resources, top=0)
