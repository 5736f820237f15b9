"""An update ranks where the version it closed ranked (``blend.updates_take_their_place``)."""

from __future__ import annotations

from agent.memory.blend import updates_take_their_place
from agent.search.results import SearchHit


def _fact(
    i: str, score: float, when: str, *, current: bool = True, closed: tuple[str, ...] = ()
) -> SearchHit:
    meta = {"current": current, "superseded": list(closed)}
    return SearchHit(id=i, text=i, score=score, created_at=when, kind="fact", metadata=meta)


def test_an_update_takes_the_place_of_the_version_it_closed() -> None:
    old = _fact("set 120 of 300", 0.033, "2026-03-01", current=False)
    intro = _fact("intro", 0.032, "2026-03-01")
    update = _fact("did 30 more (now 150)", 0.031, "2026-03-08", closed=("set 120 of 300",))
    ranked = updates_take_their_place([old, intro, update])
    assert [h.id for h in ranked][:2] == ["set 120 of 300", "did 30 more (now 150)"]
    assert ranked[1].score == old.score  # then current_first puts it before the intro


def test_a_chain_of_updates_hands_the_place_on() -> None:
    first = _fact("a", 0.05, "2026-01-01", current=False)
    second = _fact("b", 0.01, "2026-01-02", current=False, closed=("a",))
    third = _fact("c", 0.02, "2026-01-03", closed=("b",))
    other = _fact("x", 0.03, "2026-01-01")
    ranked = updates_take_their_place([first, other, third, second])
    assert [h.id for h in ranked] == ["a", "c", "b", "x"]  # equal scores keep the search's order


def test_nothing_closed_keeps_the_order_and_scores() -> None:
    hits = [_fact("p", 0.3, "2026-01-01"), _fact("q", 0.2, "2026-01-02", closed=("gone",))]
    assert updates_take_their_place(hits) == hits


def test_a_place_taken_never_passes_a_newer_fact_above_the_update() -> None:
    first = _fact("on unit 2", 0.04, "2026-01-01", current=False)
    update = _fact("finished unit 4", 0.01, "2026-01-08", closed=("on unit 2",))
    newest = _fact("unit 6 is where I am", 0.03, "2026-01-15")  # a later value not linked as a version
    intro = _fact("intro", 0.02, "2026-01-01")
    ranked = [h.id for h in updates_take_their_place([first, newest, intro, update])]
    assert ranked == ["on unit 2", "unit 6 is where I am", "finished unit 4", "intro"]
