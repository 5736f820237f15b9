"""The kag-cognitive-v1 scoring rules on hand-made hits (no services)."""

from __future__ import annotations

from datetime import datetime

import pytest

from bench.cognitive.dataset import ExpectItem, Probe, ReminderCheck
from bench.cognitive.scoring import (
    Hit,
    TurnFirings,
    contains_all,
    level_scores,
    meets,
    on_date,
    score_probe,
    score_reminders,
    summarise_reminders,
)

pytestmark = pytest.mark.unit

DATES = {
    "s1": datetime.fromisoformat("2026-01-05T20:00:00-07:00"),
    "s2": datetime.fromisoformat("2026-01-19T20:00:00+07:00"),
}


def probe(*items: ExpectItem | tuple[str, ...], **kw) -> Probe:
    expect = tuple(i if isinstance(i, ExpectItem) else ExpectItem(tuple(i)) for i in items)
    return Probe(after="s2", query="q", expect=expect, **kw)


def fact(text: str, valid_from: str | None = None) -> Hit:
    return Hit(text=text, kind="fact", valid_from=valid_from, created_at=valid_from)


def test_contains_all_is_case_insensitive_and_in_order_is_strict():
    assert contains_all("I moved to HANOI last week", ["hanoi", "moved"])
    assert not contains_all("I moved to Hanoi", ["hanoi", "da nang"])
    steps = "first pick the table, then LEFT JOIN, then ON, and only then WHERE"
    assert contains_all(steps, ["pick the table", "left join", "on", "where"], in_order=True)
    assert not contains_all(steps, ["where", "left join"], in_order=True)
    assert contains_all(steps, ["where", "left join"])
    # in order, a string must start after the previous one ends, not inside it
    assert not contains_all("left join", ["left join", "join"], in_order=True)


def test_every_item_must_be_found_in_one_hit_within_k():
    hits = [Hit("LEFT JOIN gave NULL nurse names"), Hit("INNER JOIN keeps matches"), Hit("FULL OUTER JOIN")]
    ok = score_probe(probe(("inner join",), ("left join", "null"), ("full outer join",)), hits, DATES)
    assert ok.passed and [i.rank for i in ok.items] == [2, 1, 3]
    # the two strings of one item in two different hits do not count
    split = score_probe(probe(("inner join", "null")), hits, DATES)
    assert not split.passed and "not found: inner join + null" in split.reason
    # only the first k hits are looked at
    short = score_probe(probe(("full outer join",), k=2), hits, DATES)
    assert not short.passed and short.items[0].rank is None


def test_first_means_the_top_hit_among_facts():
    hits = [
        Hit("episode mentioning Hanoi and Da Nang", kind="episode"),
        fact("I live in Hanoi"),
        fact("Da Nang"),
    ]
    assert score_probe(probe(("hanoi",), first=True), hits, DATES).passed
    wrong = score_probe(probe(("da nang",), first=True), hits, DATES)
    assert not wrong.passed and wrong.first_ok is False and "first:" in wrong.reason
    assert wrong.items[0].found  # found lower down, but not first
    no_facts = score_probe(probe(("hanoi",), first=True), [Hit("I live in Hanoi")], DATES)
    assert not no_facts.passed and "no fact among the hits" in no_facts.reason
    # the first rule applies to the first expected item only
    two = score_probe(probe(("hanoi",), ("da nang",), first=True), hits, DATES)
    assert two.passed


def test_session_uses_valid_from_in_the_session_time_zone():
    # s1 is 2026-01-05 at -07:00: 2026-01-06T02:00Z is still the 5th there
    late = fact("quiz 54", "2026-01-06T02:00:00+00:00")
    assert on_date(late.time, DATES["s1"])
    assert score_probe(probe(ExpectItem(("54",), "s1")), [late], DATES).passed
    wrong_day = fact("quiz 54", "2026-01-07T02:00:00+00:00")
    verdict = score_probe(probe(ExpectItem(("54",), "s1")), [wrong_day], DATES)
    assert not verdict.passed and "is not on s1's date" in verdict.items[0].reason
    # valid_from wins over created_at; without valid_from created_at is used
    stamped = Hit("quiz 54", valid_from="2026-01-05T21:00:00-07:00", created_at="2026-03-01T00:00:00+00:00")
    assert score_probe(probe(ExpectItem(("54",), "s1")), [stamped], DATES).passed
    message = Hit("quiz 54", created_at="2026-01-05T22:00:00-07:00")
    assert score_probe(probe(ExpectItem(("54",), "s1")), [message], DATES).passed
    assert not score_probe(probe(ExpectItem(("54",), "s1")), [Hit("quiz 54")], DATES).passed
    # a naive stamp is UTC: 2026-01-19T00:30 UTC is the 19th at +07:00
    assert on_date("2026-01-19T00:30:00", DATES["s2"]) and not on_date("garbage", DATES["s2"])


def test_probe_level_session_applies_to_items_without_their_own():
    hits = [fact("quiz 54", "2026-01-05T20:00:00-07:00"), fact("quiz 71", "2026-01-19T20:00:00+07:00")]
    both = probe(("54",), ExpectItem(("71",), "s2"), session="s1")
    assert score_probe(both, hits, DATES).passed
    assert not score_probe(probe(("71",), session="s1"), hits, DATES).passed


def test_one_matching_hit_is_enough_even_if_an_earlier_one_has_the_wrong_date():
    hits = [fact("quiz 54", "2026-02-01T00:00:00+00:00"), fact("quiz 54 again", "2026-01-05T20:00:00-07:00")]
    verdict = score_probe(probe(ExpectItem(("54",), "s1")), hits, DATES)
    assert verdict.passed and verdict.items[0].rank == 2


def test_reminder_checks_fire_once_and_silence():
    checks = [ReminderCheck("s1", 1, False), ReminderCheck("s2", 1, True), ReminderCheck("s3", 0, False)]
    turns = [TurnFirings("s1", 1), TurnFirings("s2", 0), TurnFirings("s2", 1, ["r1"]), TurnFirings("s3", 0)]
    assert [v.passed for v in score_reminders(checks, turns)] == [True, True, True]
    never = score_reminders(checks, [TurnFirings(t.session, t.turn) for t in turns])
    assert [v.passed for v in never] == [True, False, True] and never[1].reason == "no reminder fired"
    early = [TurnFirings("s1", 1, ["r1"]), TurnFirings("s2", 1, ["r1"])]
    verdicts = score_reminders(checks, early)
    assert not verdicts[0].passed and "fired more than once: r1" in verdicts[1].reason
    doubled = score_reminders([ReminderCheck("s2", 1, True)], [TurnFirings("s2", 1, ["r1", "r1"])])
    assert not doubled[0].passed
    two_reminders = score_reminders([ReminderCheck("s2", 1, True)], [TurnFirings("s2", 1, ["r1", "r2"])])
    assert two_reminders[0].passed and two_reminders[0].fired == 2


def test_false_fire_rate_counts_every_turn_not_declared_to_fire():
    checks = [ReminderCheck("s2", 1, True)]
    turns = [
        TurnFirings("s1", 0, scenario="a"),
        TurnFirings("s2", 1, ["r1"], scenario="a"),
        TurnFirings("s1", 0, ["r9"], scenario="b"),  # a scenario with no checks at all
        TurnFirings("s1", 1, scenario="b"),
    ]
    verdicts = score_reminders(checks, turns[:2])
    summary = summarise_reminders(verdicts, turns, [("a", "s2", 1)])
    assert summary.fire_once_rate == 1.0
    assert (summary.false_fires, summary.unrelated_turns) == (1, 3)
    assert summary.false_fire_rate == pytest.approx(1 / 3)
    empty = summarise_reminders([], [], [])
    assert empty.fire_once_rate is None and empty.false_fire_rate is None


def test_level_scores_and_targets():
    scores = level_scores([("L2", True), ("L1", True), ("L2", False), ("R", True)])
    assert list(scores) == ["L1", "L2", "R"] and scores["L2"] == (1, 2)
    assert meets("L1", 1.0) is True and meets("L1", 0.99) is False
    assert meets("L3", 0.70) is True and meets("L2", 0.84) is False
    assert meets("R", 1.0) is None and meets("L5", None) is None
