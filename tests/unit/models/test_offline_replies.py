"""The offline policy in a learner's words (issue 42): replies, core memory lines, the notes tutor.

Each reply still declares itself once (``OFFLINE_BANNER`` in front, ``is_llm`` false), and
names no tool, section or id.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from agent.heartbeat.working_memory import compile_prompt
from agent.models.offline_core import core_entries, without_opener
from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel, plan_actions
from agent.models.offline_replies import NOTED, NOTHING_TO_DO, compose_reply, day_words, second_person
from agent.models.offline_tutor import explain_query, is_on, note_answer

pytestmark = pytest.mark.unit

MEMGPT = {"core_memory_append", "core_memory_replace", "archival_memory_search", "conversation_search"}
ALL = MEMGPT | {"remember_fact", "search_facts", "note_search"}
ENGINEER_WORDS = (
    "remember_fact",
    "core_memory",
    "user_profile",
    "current_goals",
    "archival",
    "From your memory",
)


def _declared(reply: BaseMessage) -> str:
    """The reply's text after its one marker; the marker and ``is_llm`` are checked on the way."""
    text = str(reply.content)
    assert text.startswith(OFFLINE_BANNER + " ") and text.count(OFFLINE_BANNER) == 1
    assert reply.response_metadata["is_llm"] is False
    assert not any(word in text for word in ENGINEER_WORDS), text
    return text.removeprefix(OFFLINE_BANNER + " ")


def _converse(request: str, tools: dict[str, Callable[[dict], dict]], core: dict[str, str] | None = None):
    """Drive the policy as the heartbeat does: the prompt is compiled from core memory each step."""
    core = dict(core or {})
    model = OfflinePolicyModel().bind_tools([_schema(name) for name in tools])
    turn: list[BaseMessage] = [HumanMessage(request)]
    calls = []
    for _ in range(10):
        reply = model.invoke([compile_prompt(core, [])[0], *turn])
        turn.append(reply)
        if not reply.tool_calls:
            return reply, calls, core
        call = reply.tool_calls[0]
        calls.append((call["name"], call["args"]))
        result = tools[call["name"]]({**call["args"], "_core": core})
        turn.append(ToolMessage(json.dumps(result), tool_call_id=call["id"], name=call["name"]))
    raise AssertionError(f"the policy did not converge: {calls}")


def _schema(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": name, "parameters": {}}}


def _append(args: dict) -> dict:
    core = args["_core"]
    core[args["section"]] = "\n".join(filter(None, [core.get(args["section"], ""), args["content"]]))
    return {"ok": True, "section": args["section"]}


def _replace(args: dict) -> dict:
    core = args["_core"]
    core[args["section"]] = core.get(args["section"], "").replace(args["old_content"], args["new_content"])
    return {"ok": True, "section": args["section"]}


def _fact(args: dict) -> dict:
    return {"ok": True, "content": args["content"], "superseded": False}


CORE_TOOLS = {"core_memory_append": _append, "core_memory_replace": _replace, "remember_fact": _fact}


# --- core memory keeps facts about the learner, not greetings ---


def test_a_greeting_is_not_pinned_word_for_word():
    sentence = "Hi, my name is Ana and I work as a data analyst."
    assert plan_actions(sentence, ALL, {}) == [
        ("remember_fact", {"content": sentence}),
        ("core_memory_append", {"section": "user_profile", "content": "My name is Ana."}),
        ("core_memory_append", {"section": "user_profile", "content": "I work as a data analyst."}),
    ]
    assert without_opener("Hello there! Well, actually my name is Ana") == "my name is Ana"


@pytest.mark.parametrize("available", [ALL, MEMGPT], ids=["cognitive", "memgpt-only"])
def test_a_name_and_a_goal_feed_both_sections(available):
    actions = plan_actions("My name is Bob and my goal is to learn window functions.", available, {})
    pinned = [args for name, args in actions if name == "core_memory_append"]
    assert pinned == [
        {"section": "user_profile", "content": "My name is Bob."},
        {"section": "current_goals", "content": "My goal is to learn window functions."},
    ]


def test_pinned_lines_converge_and_the_reply_says_what_was_kept():
    reply, calls, core = _converse("Hi, my name is Ana and I work as a data analyst.", CORE_TOOLS)
    assert [name for name, _ in calls] == ["remember_fact", "core_memory_append", "core_memory_append"]
    assert core == {"user_profile": "My name is Ana.\nI work as a data analyst."}
    assert _declared(reply) == "Got it: your name is Ana and you work as a data analyst."


def test_a_new_name_replaces_the_line_and_the_reply_says_it():
    tools = {**CORE_TOOLS, "remember_fact": lambda a: {**_fact(a), "superseded": True}}
    reply, calls, core = _converse(
        "Actually, my name is Anna.", tools, {"user_profile": "My name is Ana.\nI work as a nurse."}
    )
    assert core["user_profile"] == "My name is Anna.\nI work as a nurse."
    assert [name for name, _ in calls] == ["remember_fact", "core_memory_replace"]
    assert _declared(reply) == "Got it: your name is Anna (this replaces what you told me before)."


def test_core_entries_keep_a_whole_sentence_no_clause_claims():
    assert core_entries("I want to master SQL joins by Friday.", "current_goals", lambda c: None) == [
        ("current_goals", "I want to master SQL joins by Friday.")
    ]


# --- answers say where they came from ---


def test_an_answer_from_core_memory_names_the_profile_and_quotes_the_learner():
    core = {"user_profile": "I work as a nurse on ward 4711.", "current_goals": "I want to pass the exam."}
    model = OfflinePolicyModel().bind_tools([_schema(n) for n in MEMGPT])
    job = _declared(model.invoke([compile_prompt(core, [])[0], HumanMessage("What is my job?")]))
    assert job == 'From your profile: "I work as a nurse on ward 4711."'
    goal = _declared(model.invoke([compile_prompt(core, [])[0], HumanMessage("What is my goal?")]))
    assert goal == 'From your goals: "I want to pass the exam."'


def test_a_search_answer_says_when_it_was_said():
    hits = [
        {"text": "What about my exam?", "role": "user", "created_at": "2026-05-11T09:00:00+00:00"},
        {"text": "My exam is on 3 June.", "role": "user", "created_at": "2026-05-12T09:00:00+00:00"},
    ]
    tools = {"conversation_search": lambda a: {"results": hits}}
    reply, calls, _ = _converse("What did I say about my exam?", tools)
    assert calls == [("conversation_search", {"query": "exam"})]
    assert _declared(reply) == 'You said on 12 May: "My exam is on 3 June."'
    nothing, _, _ = _converse(
        "What did I say about recursion?", {"conversation_search": lambda a: {"results": []}}
    )
    assert _declared(nothing) == "I found nothing you said about recursion."


def test_words_of_the_reply():
    assert (
        second_person("Hi! I'm a beginner and my goal is mine.") == "you're a beginner and your goal is yours"
    )
    # "So" opens a sentence as a discourse word, but "So far" is part of what was said.
    assert second_person("So far I have solved 12 exercises.") == "So far you have solved 12 exercises"
    assert second_person("So, I live in Hanoi.") == "you live in Hanoi"
    assert day_words("2026-05-12T09:00:00Z") == "12 May" and day_words("soon") == ""
    facts = [("search_facts", {"results": [{"text": "I live in Hanoi.", "valid_from": "2026-02-01"}]}, {})]
    assert compose_reply([], [], facts) == 'From what you told me (since 1 February): "I live in Hanoi."'
    reminder = [("set_reminder", {"ok": True, "description": "review GROUP BY", "keywords": ["HAVING"]}, {})]
    assert compose_reply([], [], reminder) == "I'll remind you to review GROUP BY when HAVING comes up."
    assert compose_reply([], [], []) == NOTHING_TO_DO


def test_a_statement_nothing_stores_is_acknowledged_not_refused():
    model = OfflinePolicyModel().bind_tools([_schema(n) for n in ALL])
    said = model.invoke([HumanMessage("A CTE gives a subquery a name, so a long query reads top to bottom.")])
    assert _declared(said) == NOTED, "the session's notes keep what the learner explained"
    asked = model.invoke([HumanMessage("Why is the sky blue?")])
    assert _declared(asked) == NOTHING_TO_DO
    retrieved = [("retrieve", {"results": [{"text": "My cat is Miso.", "role": "user"}]}, {"query": "cat"})]
    assert compose_reply([], [], retrieved) == 'You said earlier: "My cat is Miso."', (
        "any retrieval is quoted"
    )


def test_an_example_of_the_sentence_before_is_not_a_fact_about_the_learner():
    model = OfflinePolicyModel().bind_tools([_schema(n) for n in ALL])
    example = "For example, [x * x for x in range(5)] gives the squares from 0 to 16."
    said = model.invoke([HumanMessage(example)])
    assert not said.tool_calls, "its digits do not make it a fact to store"
    assert _declared(said) == NOTED, "the session's notes keep it as the example of the definition before"


# --- the offline tutor hands back the learner's own notes ---

WINDOW = {
    "note_id": "note_w",
    "concept": "Window functions",
    "text": "Window functions: compute over a frame of rows without grouping them.",
    "definition": "A window function computes a value over a frame of rows without collapsing them.",
    "example": "RANK() OVER (PARTITION BY ward ORDER BY admitted) ranks patients per ward.",
}
GROUP_BY = {"note_id": "note_g", "concept": "GROUP BY", "text": "GROUP BY collapses rows into groups."}
NOTES = {"results": [WINDOW, GROUP_BY], "linked": [{"note_id": "note_p", "concept": "PARTITION BY"}]}


@pytest.mark.parametrize(
    ("request_text", "concept"),
    [
        ("Can you explain what a window function is?", "window function"),
        ("What are inner joins?", "inner joins"),
        ("Explain recursion to me.", "recursion"),
        ("What does GROUP BY mean?", "GROUP BY"),
        ("What is my goal?", None),  # about the learner: core memory answers it
        ("What did I say about joins?", None),  # about the past: a search answers it
    ],
)
def test_requests_to_explain_name_their_concept(request_text, concept):
    assert explain_query(request_text) == concept


def test_explaining_a_concept_hands_back_the_learners_own_note():
    reply, calls, _ = _converse(
        "Can you explain what a window function is?", {"note_search": lambda a: NOTES}
    )
    assert calls == [("note_search", {"query": "window function"})]
    text = _declared(reply)
    assert text.startswith('From your own note on "Window functions": A window function computes')
    assert "For example: RANK() OVER (PARTITION BY ward ORDER BY admitted)" in text
    assert text.endswith("Related notes of yours: PARTITION BY, GROUP BY.")
    assert "cannot reason" not in text and "note_w" not in text


def test_without_a_note_the_tutor_says_so_and_offers_the_closest():
    text = note_answer("inner joins", NOTES)
    assert text.startswith(
        'You have no note on inner joins yet. The closest is your note on "Window functions"'
    )
    assert note_answer("recursion", {"results": []}).startswith("You have no notes on recursion yet.")
    assert is_on("window function", "Window functions") and not is_on("inner joins", "GROUP BY")
