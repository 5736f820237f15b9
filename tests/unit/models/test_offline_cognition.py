"""The offline policy's cognitive rules (``agent.models.offline_cognition``), without services."""

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from agent.heartbeat.slots import make_slot, render_slots
from agent.models.offline_cognition import pending_action, reminder_slots
from agent.models.offline_fact_questions import asks_now, best_fact, is_fact_question
from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel, plan_actions
from agent.models.offline_replies import result_words

MEMGPT = {
    "core_memory_append",
    "core_memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
}
COGNITIVE = {
    "remember_fact",
    "search_facts",
    "save_procedure",
    "recall_procedure",
    "set_reminder",
    "resolve_reminder",
}
ALL = MEMGPT | COGNITIVE


def names(text, core=None, available=ALL):
    return [name for name, _ in plan_actions(text, available, core)]


# ----- C6: facts -----
@pytest.mark.parametrize(
    "sentence",
    [
        "Actually, I moved to Hanoi last week for my internship.",
        "I live in Da Nang and study online in the evenings.",
        "I switched from Jupyter to VS Code this week because of the debugger.",
        "I write all my Python in Jupyter notebooks.",
        "I now use DBeaver for SQL.",
        "I practised SELECT with WHERE on the patients table yesterday.",
    ],
)
def test_rule_statements_about_the_learner_become_facts_only(sentence):
    assert plan_actions(sentence, ALL, {}) == [("remember_fact", {"content": sentence})]


@pytest.mark.parametrize(
    ("sentence", "section", "line"),
    [
        ("My name is Ana.", "user_profile", None),
        (
            "I work as a nurse, so my practice database is about patients.",
            "user_profile",
            "I work as a nurse.",
        ),
        ("I'm a second-year nursing student.", "user_profile", None),
        ("I am a complete beginner in SQL.", "user_profile", None),
        ("My goal is to pass the exam on March 20.", "current_goals", None),
        ("I want to master SQL joins by Friday.", "current_goals", None),
    ],
)
def test_rule_identity_and_goals_are_also_pinned_in_core_memory(sentence, section, line):
    # the fact store gets the sentence; core memory its fact about the learner (agent.models.offline_core)
    assert plan_actions(sentence, ALL, {}) == [
        ("remember_fact", {"content": sentence}),
        ("core_memory_append", {"section": section, "content": line or sentence}),
    ]


def test_rule_a_statement_already_pinned_is_not_written_again():
    core = {"user_profile": "My name is Ana."}
    assert plan_actions("My name is Ana.", ALL, core) == [("remember_fact", {"content": "My name is Ana."})]


def test_rule_a_new_goal_replaces_the_goal_line_it_supersedes():
    core = {"current_goals": "My goal is to master SQL joins by Friday.\nI plan to revise CTEs."}
    text = "I reached my joins goal! My new goal is to learn window functions before the exam."
    assert plan_actions(text, ALL, core) == [
        ("remember_fact", {"content": text}),  # one slot, one fact: both sentences
        (
            "core_memory_replace",
            {
                "section": "current_goals",
                "old_content": "My goal is to master SQL joins by Friday.",
                "new_content": "My new goal is to learn window functions before the exam.",
            },
        ),
    ]


def test_rule_a_completed_goal_alone_is_removed_from_core_memory():
    core = {"current_goals": "I want to master SQL joins by Friday."}
    assert plan_actions("I reached my joins goal!", ALL, core)[1] == (
        "core_memory_replace",
        {
            "section": "current_goals",
            "old_content": "I want to master SQL joins by Friday.",
            "new_content": "",
        },
    )


def test_rule_a_job_change_replaces_the_job_line_but_never_the_name_line():
    core = {"user_profile": "My name is Ana and I work as a nurse.\nI work as a nurse at St Mary's."}
    [_, (name, args)] = plan_actions("I work as a data analyst now.", ALL, core)
    assert name == "core_memory_replace"
    assert args["old_content"] == "I work as a nurse at St Mary's."


def test_rule_unrelated_goals_are_appended_not_replaced():
    core = {"current_goals": "I want to master SQL joins by Friday."}
    actions = plan_actions("I am planning to revise anti-joins next.", ALL, core)
    assert actions[-1] == (
        "core_memory_append",
        {"section": "current_goals", "content": actions[0][1]["content"]},
    )


def test_rule_statements_in_different_slots_stay_separate_facts():
    text = "I live in Hue. I work as a nurse. I like tea."
    assert [args["content"] for name, args in plan_actions(text, ALL, {}) if name == "remember_fact"] == [
        "I live in Hue.",
        "I work as a nurse.",
        "I like tea.",
    ]


def test_rule_remember_that_stays_an_archival_insert():
    assert names("Remember that I prefer examples with hospital data.") == ["archival_memory_insert"]


# ----- C5: questions about the learner's current state -----
@pytest.mark.parametrize(
    "question",
    [
        "Where do I live now?",
        "Which editor do I use for Python?",
        "What am I working towards right now?",
        "What is my exam date?",
        "Where am I based these days?",
    ],
)
def test_rule_current_state_questions_search_facts(question):
    assert names(question, {}) == ["search_facts"]


@pytest.mark.parametrize(
    "question",
    [
        "What did I find confusing about the FULL OUTER JOIN before?",
        "What did I say about my job earlier?",
        "What do you know about the CROSS JOIN of patients and wards?",
        "What's the difference between WHERE and HAVING?",
        "How do I join three tables?",
        "Can we start with SELECT statements?",
        "Do I need a GROUP BY here?",
    ],
)
def test_rule_other_questions_never_search_facts(question):
    assert not is_fact_question(question)
    assert "search_facts" not in names(question, {})
    assert "remember_fact" not in names(question, {})


def test_rule_core_memory_answers_first_unless_the_question_asks_about_now():
    core = {"current_goals": "My goal is to pass the exam."}
    assert names("What is my goal?", core) == []
    assert names("What is my goal now?", core) == ["search_facts"]
    assert asks_now("Where do I live now?") and asks_now("Do I still use Jupyter?")
    assert not asks_now("What is my goal?")


def test_answer_prefers_the_fact_in_the_slot_the_question_names():
    hits = [
        {"text": "I study online in the evenings.", "predicate": "statement"},
        {
            "text": "Actually, I moved to Hanoi last week.",
            "predicate": "residence",
            "valid_from": "2026-02-01",
        },
    ]
    assert best_fact("live now", hits)["text"].startswith("Actually")
    assert best_fact("exam date", hits)["text"].startswith("I study")
    quote = result_words("search_facts", {"results": hits}, {"query": "live now"})
    assert quote == 'From what you told me (since 1 February): "Actually, I moved to Hanoi last week."'
    assert (
        result_words("search_facts", {"results": []}, {"query": "live"}) == "You haven't told me about live."
    )


# ----- C2/C3: procedures -----
LEFT_JOIN = (
    "Here is how I write a LEFT JOIN now: first pick the table whose rows I must keep, then write LEFT "
    "JOIN with the other table, then put the key match in ON, and only then filter with WHERE."
)


@pytest.mark.parametrize(
    "text",
    [
        LEFT_JOIN,
        "My steps for debugging a query are: 1. read the error 2. check the FROM clause 3. run it again",
        "How I clean a CSV: first drop empty rows. Then trim the names. Finally save a copy.",
    ],
)
def test_rule_a_stated_procedure_is_saved_whole(text):
    [(name, args)] = plan_actions(text, ALL, {})
    assert name == "save_procedure"
    assert len(args["steps"]) >= 3


def test_rule_a_procedure_is_saved_with_its_steps_in_order():
    [(_, args)] = plan_actions("Sure. " + LEFT_JOIN, ALL, {})
    assert args["name"] == "write a LEFT JOIN"
    assert args["steps"][0] == "pick the table whose rows I must keep"
    assert args["steps"][-1] == "filter with WHERE"


@pytest.mark.parametrize(
    "text",
    [
        "How do I write a LEFT JOIN again?",
        "I forgot how I write a LEFT JOIN. What were my steps again?",
        "Can you remind me how I write a LEFT JOIN?",
        "What are my steps for writing a LEFT JOIN?",
    ],
)
def test_rule_a_request_for_my_steps_recalls_one_procedure(text):
    actions = plan_actions(text, ALL, {})
    assert [name for name, _ in actions] == ["recall_procedure"]
    assert "LEFT JOIN" in actions[0][1]["query"]


def test_recalled_steps_are_listed_in_order():
    hit = {"name": "write a LEFT JOIN", "steps": ["pick the table", "write LEFT JOIN", "filter"], "text": "x"}
    quote = result_words("recall_procedure", {"results": [hit]}, {"query": "LEFT JOIN"})
    assert quote == "Your own steps to write a LEFT JOIN: 1. pick the table. 2. write LEFT JOIN. 3. filter."


# ----- C4/C1: reminders -----
@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        ("Please remind me to review GROUP BY when we get to HAVING.", ["HAVING"]),
        ("remind me to review GROUP BY when we reach HAVING", ["HAVING"]),
        ("Can you remind me to check NULLs when we talk about outer joins?", ["outer joins"]),
    ],
)
def test_rule_reminder_requests_set_a_reminder(text, keywords):
    [(name, args)] = plan_actions(text, ALL, {})
    assert name == "set_reminder"
    assert args["keywords"] == keywords


def test_rule_a_timed_reminder_gets_a_due_time():
    [(name, args)] = plan_actions("Remind me to revise subqueries tomorrow.", ALL, {})
    assert name == "set_reminder" and args["description"] == "revise subqueries" and args["due_at"]


def _prompt_with_reminder(request="Now I'm ready for HAVING clauses."):
    slot = make_slot(
        "plan", "REMINDER rem-1: review GROUP BY. Act on it, then resolve_reminder.", id="reminder-rem-1"
    )
    system = SystemMessage(
        content=f"persona\n\nCORE MEMORY\n<user_profile>\n(empty)\n</user_profile>\n\n{render_slots([slot])}"
    )
    return [system, HumanMessage(request)]


def test_rule_a_fired_reminder_is_resolved_first_then_mentioned():
    model = OfflinePolicyModel(tool_names=tuple(sorted(ALL)))
    messages = _prompt_with_reminder()
    assert reminder_slots(messages) == [("rem-1", "review GROUP BY")]
    first = model.decide(messages)
    assert first.tool_calls[0]["name"] == "resolve_reminder"
    assert first.tool_calls[0]["args"] == {"reminder_id": "rem-1"}
    done = json.dumps({"ok": True, "id": "rem-1", "description": "review GROUP BY", "status": "resolved"})
    messages += [first, ToolMessage(done, tool_call_id=first.tool_calls[0]["id"], name="resolve_reminder")]
    second = model.decide(messages)  # then the learner's own statement
    assert second.tool_calls[0]["name"] == "remember_fact"
    messages += [
        second,
        ToolMessage('{"ok": true}', tool_call_id=second.tool_calls[0]["id"], name="remember_fact"),
    ]
    reply = model.decide(messages)
    assert not reply.tool_calls
    assert reply.text.startswith(f"{OFFLINE_BANNER} Reminder: review GROUP BY")
    assert reply.text.count("review GROUP BY") == 1


def test_a_resolved_reminder_whose_slot_vanished_is_not_resolved_again():
    model = OfflinePolicyModel(tool_names=tuple(sorted(ALL)))
    messages = _prompt_with_reminder("Hello!")
    first = model.decide(messages)
    done = json.dumps({"ok": True, "id": "rem-1", "description": "review GROUP BY"})
    later = [
        SystemMessage("persona"),
        messages[1],
        first,
        ToolMessage(done, tool_call_id=first.tool_calls[0]["id"]),
    ]
    later[-1].name = "resolve_reminder"
    reply = model.decide(later)
    assert not reply.tool_calls and "Reminder: review GROUP BY" in reply.text


def test_the_persona_docs_do_not_look_like_a_fired_reminder():
    from agent.heartbeat.prompts import system_instructions

    assert reminder_slots([SystemMessage(system_instructions({}, text_protocol=True))]) == []


# ----- the plan converges -----
def test_calls_already_made_are_never_repeated():
    plan = [("remember_fact", {"content": "a"}), ("core_memory_append", {"section": "s", "content": "a"})]
    assert pending_action(plan, []) == plan[0]
    assert pending_action(plan, [plan[0]]) == plan[1]
    assert pending_action(plan, plan) is None
    assert pending_action([plan[0], plan[0]], [plan[0]]) == plan[0]  # said twice, stored twice


def test_without_cognitive_tools_the_policy_is_unchanged():
    assert names("I live in Da Nang.", available=MEMGPT) == ["core_memory_append"]
    assert names("Please remind me to review GROUP BY when we get to HAVING.", available=MEMGPT) == []
    assert names(LEFT_JOIN, available=MEMGPT) == []


def test_a_fact_search_without_a_hit_falls_back_to_archival_search():
    model = OfflinePolicyModel(tool_names=tuple(sorted(ALL)))
    messages = [SystemMessage("persona"), HumanMessage("Where do I live now?")]
    first = model.decide(messages)
    assert first.tool_calls[0]["name"] == "search_facts"
    messages += [
        first,
        ToolMessage('{"results": []}', tool_call_id=first.tool_calls[0]["id"], name="search_facts"),
    ]
    second = model.decide(messages)
    assert second.tool_calls[0]["name"] == "archival_memory_search"
    assert second.tool_calls[0]["args"] == first.tool_calls[0]["args"]


def test_a_now_question_is_answered_from_facts_not_a_stale_core_line():
    model = OfflinePolicyModel(tool_names=tuple(sorted(ALL)))
    core = "CORE MEMORY\n<user_profile>\nI live in Da Nang.\n</user_profile>"
    messages = [SystemMessage(core), HumanMessage("Where do I live now?")]
    first = model.decide(messages)
    assert first.tool_calls[0]["name"] == "search_facts"
    hits = {"results": [{"text": "Actually, I moved to Hanoi.", "predicate": "residence"}]}
    messages += [
        first,
        ToolMessage(json.dumps(hits), tool_call_id=first.tool_calls[0]["id"], name="search_facts"),
    ]
    reply = model.decide(messages)
    assert "Hanoi" in reply.text and "Da Nang" not in reply.text
    # Asked without "now", the pinned line answers, with no search.
    assert not model.decide([SystemMessage(core), HumanMessage("Where do I live?")]).tool_calls


def test_an_older_value_the_read_time_net_put_after_a_newer_one_is_never_the_answer():
    # The net gives the older open fact ``was_until``; the slot rule must not pick it back.
    hits = [
        {"text": "These days I rent a flat in Hanoi.", "predicate": "fact:1", "valid_from": "2026-03-01"},
        {
            "text": "I live in Da Nang.",
            "predicate": "residence",
            "valid_from": "2026-01-01",
            "was_until": "2026-03-01",
        },
    ]
    assert best_fact("Where do I live now", hits)["text"].startswith("These days")
    assert best_fact("Where do I live now", hits[1:])["text"] == "I live in Da Nang."


def test_a_question_for_an_amount_of_the_learners_is_a_fact_question():
    assert is_fact_question("How many join exercises have I solved?")
    assert is_fact_question("How much GPU credit do I get per term?")
    assert not is_fact_question("How do I write a LEFT JOIN?")
    assert not is_fact_question("How many rows does a CROSS JOIN give?")
    assert not is_fact_question("How many exercises did I solve last week?")  # the past: archival
