"""Another person's or group's value is never the learner's (``bench/cognitive/sets/owners_others.json``).

The set is engineer O's own phrasing (session 45, issue 39): a peer's deed on a definite thing, what
another says of him- or herself beside a clause of the learner's, his/her/their thing beside "mine",
another group told in the passive; and, in the same shapes, the learner's own values that must stay.
Read side: ``not_current`` (or ``other_group`` beside what the learner said of their group); write
side: what the offline policy stores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.language.current_versions import not_current, other_group
from agent.language.grammar import parse
from agent.language.people import peer
from agent.models.offline_policy import plan_actions

SET = Path(__file__).resolve().parents[3] / "bench" / "cognitive" / "sets" / "owners_others.json"
FROZEN = SET.with_name("owners_others_frozen.json")
"""Written after the method was frozen, scored once (read side only)."""
AVAILABLE = {"remember_fact", "search_facts", "set_reminder", "core_memory_append", "core_memory_replace"}
OPEN_READS = {
    # a class of people the group classifier does not read as a group, a shift as a thing of its own
    "The evening class got moved to Thursdays.",
    "The night shift was extended to 10 hours.",
}
OPEN_FROZEN = {
    # the parser hangs "to 5K plan" on the verb as a goal with a value (a name read as a phrase)
    "My fiancée completed the full Couch to 5K plan yesterday.",
    # the learner's "still at zero" beside another's saving: the reported clause decides
    "my brother keeps bragging he's saved 4,000 already while I'm still at zero",
}
OPEN_WRITES = {
    # read as another's, but the write keeps the learner's clause with no value and the other's beside it
    "My brother keeps telling everyone he'll be a chef until he retires, and I just nod.",
    # the learner's "mine is 650" is no statement of its own once cut from the other's clause
    "Kemal says his rent is 700, mine is 650.",
}


def _items(path: Path = SET) -> list[tuple[str, dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(kind, item) for kind, items in data.items() if isinstance(items, list) for item in items]


def _case(kind: str, item: dict[str, Any], open_: set[str]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason="open: see the set")] if item["text"] in open_ else []
    return pytest.param(item, marks=marks, id=f"{kind}:{item['text'][:40]}")


@pytest.mark.parametrize(
    "item",
    [_case(k, i, OPEN_READS) for k, i in _items()] + [_case(k, i, OPEN_FROZEN) for k, i in _items(FROZEN)],
)
def test_the_read_side_puts_anothers_value_aside(item: dict[str, Any]) -> None:
    text = item["text"]
    aside = not_current(text) or bool(item.get("ours") and other_group(text, item["ours"]))
    assert aside == (item["owner"] == "other")


@pytest.mark.parametrize("item", [_case(k, i, OPEN_WRITES) for k, i in _items() if "value" in i])
def test_the_write_side_stores_only_the_learners_value(item: dict[str, Any]) -> None:
    actions = plan_actions(item["text"], AVAILABLE, {})
    stored = [args["content"] for name, args in actions if name == "remember_fact"]
    held = any(item["value"].lower() in fact.lower() for fact in stored)
    assert held == (item["owner"] == "learner"), stored


@pytest.mark.parametrize(
    ("text", "is_peer"),
    [
        # nouns outside people.ROLES and people.PEERS
        ("My stepbrother finished it.", True),
        ("My godmother finished it.", True),
        ("My bandmate finished it.", True),
        ("My physio finished it.", False),
        ("My optician finished it.", False),
        ("My orthodontist finished it.", False),
        # a name or a pronoun with no role beside it may be either
        ("Tomasz finished it.", False),
        ("She finished it.", False),
    ],
)
def test_a_peer_is_told_by_the_noun_of_the_person(text: str, is_peer: bool) -> None:
    subject = next(t for t in parse(text) if t.dep_ == "nsubj")
    assert peer(subject) == is_peer
