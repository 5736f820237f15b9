"""The pure part of the kernel's turn-context derivation: dates, filters, texts and ids."""

from __future__ import annotations

from agent.kernel.derive import is_conversation_turn, is_disclosure, turn_context_drafts
from agent.models.offline_reading import OFFLINE_BANNER
from agent.turns import CALL_MARK, MAX_PART_CHARS, TURN_KIND, date_text, turn_context_id, turn_context_text


def test_dates_read_like_locomo_session_dates_in_utc() -> None:
    assert date_text("2023-05-08T13:56:00+00:00") == "1:56 pm on 8 May, 2023"
    assert date_text("2023-07-20T20:56:59") == "8:56 pm on 20 July, 2023"  # naive: UTC
    assert date_text("2023-01-01T00:05:00+02:00") == "10:05 pm on 31 December, 2022"
    assert date_text("2023-01-01T12:00:00+00:00") == "12:00 pm on 1 January, 2023"
    assert date_text("2023-01-01 soon") == "2023-01-01"  # unparsable: a plain date
    assert date_text(None) is None


def test_only_what_someone_said_is_a_turn() -> None:
    assert is_conversation_turn("user", "I love painting")
    assert is_conversation_turn("assistant", "Nice! What do you paint?")
    assert not is_conversation_turn("tool", "3 results")
    assert not is_conversation_turn("assistant", f"{CALL_MARK}conversation_search({{'query': 'x'}})]")
    assert not is_conversation_turn("assistant", f"{OFFLINE_BANNER} Here is what I found")
    assert not is_conversation_turn("user", "  ")
    assert not is_conversation_turn("assistant", "(empty)")


def test_text_has_the_date_the_turn_and_the_turn_it_replies_to() -> None:
    assert turn_context_text("1:56 pm on 8 May, 2023", "Ana: Hi", None) == "1:56 pm on 8 May, 2023. Ana: Hi"
    assert turn_context_text("1:56 pm on 8 May, 2023", "Ben: Hey", "Ana: Hi") == (
        "1:56 pm on 8 May, 2023. Ben: Hey (replying to Ana: Hi)"
    )
    assert turn_context_text(None, "Ben: Hey", "Ana: Hi") == "Ben: Hey (replying to Ana: Hi)"
    long = turn_context_text("d", "x" * 50_000, "y" * 50_000)
    assert len(long) < 2 * MAX_PART_CHARS + 40 and len(long.encode()) < 32 * 1024


def test_ids_come_from_message_ids_and_stay_short() -> None:
    assert turn_context_id("m-1") == "m-1-ctx"
    assert turn_context_id("m" * 256) == turn_context_id("m" * 256)
    assert len(turn_context_id("m" * 256)) <= 256 and turn_context_id("m" * 256) != turn_context_id("n" * 256)


def test_drafts_skip_tool_traffic_and_chain_replies_in_seq_order() -> None:
    def msg(id_: str, role: str, content: str, seq: int, at: str | None = None) -> dict:
        return {"id": id_, "role": role, "content": content, "created_at": at, "seq": seq}

    messages = [
        msg("a2", "assistant", "Paris.", 4, "2023-05-08T13:56:03+00:00"),
        msg("u1", "user", "Capital of France?", 1, "2023-05-08T13:56:00+00:00"),
        msg("c1", "assistant", f"{CALL_MARK}search({{}})]", 2),
        msg("t1", "tool", "France: Paris", 3),
        msg("u1", "user", "Capital of France?", 1),
    ]
    drafts = turn_context_drafts("s1", messages, previous="Earlier turn")
    assert [d["memory_id"] for d in drafts] == ["u1-ctx", "a2-ctx"]
    assert [d["source_ids"] for d in drafts] == [["u1"], ["a2"]]
    assert {d["kind"] for d in drafts} == {TURN_KIND} and {d["session_id"] for d in drafts} == {"s1"}
    assert drafts[0]["content"] == "1:56 pm on 8 May, 2023. Capital of France? (replying to Earlier turn)"
    assert drafts[1]["content"] == "1:56 pm on 8 May, 2023. Paris. (replying to Capital of France?)"
    assert drafts[1]["occurred_at"] == "2023-05-08T13:56:03+00:00"
    assert [d["disclosure"] for d in drafts] == [False, False]  # a question, and no first person
    assert turn_context_drafts("s1", messages[2:4]) == []


def test_turn_of_takes_the_turn_back_out_of_its_context() -> None:
    from agent.turns import turn_of

    text = turn_context_text("4:19 pm on 25 November, 2026", "Why (again) is it NULL?", "What is my goal?")
    assert turn_of(text) == "Why (again) is it NULL?"
    assert turn_of(turn_context_text(None, "Plain turn.")) == "Plain turn."
    assert turn_of("2026-01-01. kept as is") == "2026-01-01. kept as is"


def test_a_disclosure_is_a_first_person_statement() -> None:
    assert is_disclosure("I signed up for a pottery class yesterday.")
    assert is_disclosure("Melanie: My kids loved the dinosaur exhibit!")  # a speaker prefix is fine
    assert is_disclosure("we went camping in the mountains")  # any case
    assert is_disclosure("Thanks! I'm off to swim. [shares a photo: a beach]")  # the annotation is not said
    assert not is_disclosure("Where did you go camping?")  # a question, even with "you"
    assert not is_disclosure("Did I tell you about my trip?")  # a question about oneself
    assert not is_disclosure("Wow, that's great, Caroline!")  # a reaction: no first person
    assert not is_disclosure("Nice pic? [shares a photo: me at the lake]")  # the question is what was said
    assert not is_disclosure("")
    assert not is_disclosure("   ")
    # Words that merely contain a first-person word do not count.
    assert not is_disclosure("Use the myriad options; it is a musical wedding.")
