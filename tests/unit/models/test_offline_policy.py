import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agent.models.offline_policy import (
    OFFLINE_BANNER,
    OfflinePolicyModel,
    answer_from_core,
    best_statement,
    is_policy_reply,
    plan_actions,
    read_core_memory,
    search_query,
)
from agent.models.offline_reading import learner_statements

ALL = {
    "core_memory_append",
    "core_memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
}


def test_fact_goes_to_user_profile():
    assert plan_actions("My name is Ana and I work as a nurse.", ALL) == [
        ("core_memory_append", {"section": "user_profile", "content": "My name is Ana."}),
        ("core_memory_append", {"section": "user_profile", "content": "I work as a nurse."}),
    ]


def test_goal_goes_to_current_goals():
    [(name, args)] = plan_actions("I want to master SQL joins by Friday.", ALL)
    assert name == "core_memory_append"
    assert args["section"] == "current_goals"


def test_question_about_the_past_searches_archival():
    [(name, args)] = plan_actions("What did I learn about inner joins last time?", ALL)
    assert name == "archival_memory_search"
    assert args["query"] == "learn inner joins"


def test_question_about_what_was_said_searches_conversation():
    [(name, _)] = plan_actions("What did I say about my exam earlier?", ALL)
    assert name == "conversation_search"


def test_keep_request_inserts_into_archival():
    [(name, args)] = plan_actions("Remember that a LEFT JOIN keeps unmatched left rows.", ALL)
    assert name == "archival_memory_insert"
    assert args["content"] == "a LEFT JOIN keeps unmatched left rows."


def test_small_talk_plans_nothing_and_only_bound_tools_are_called():
    assert plan_actions("Hello there!", ALL) == []
    assert plan_actions("What did I learn last time?", {"core_memory_append"}) == []


def test_search_query_drops_stop_words():
    assert search_query("Do you remember what I said about SQL joins?") == "sql joins"


def test_search_query_uses_the_shared_query_stop_words():
    """Function and recall words go (agent.text.QUERY_STOP_WORDS); topic words such as "show" stay."""
    assert search_query("What did I mention about the exam I am preparing for?") == "exam preparing"
    assert search_query("What did Ada's cat win at the cat show?") == "ada s cat win cat show"
    assert search_query("How did it go?") == "go"


@tool
def archival_memory_search(query: str, page: int = 0) -> str:
    """Search."""
    return json.dumps({"results": [{"text": "INNER JOIN keeps matching rows"}]})


@tool
def conversation_search(query: str, page: int = 0) -> str:
    """Search what was said."""
    return json.dumps({"results": []})


@tool
def core_memory_append(section: str, content: str) -> str:
    """Append."""
    return json.dumps({"ok": True})


def test_chain_then_answer_quotes_tools_and_declares_itself():
    model = OfflinePolicyModel().bind_tools([core_memory_append, archival_memory_search])
    messages = [HumanMessage("I am a beginner. What did we cover about joins last time?")]
    names = []
    for _ in range(4):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        call = reply.tool_calls[0]
        names.append(call["name"])
        result = {
            "core_memory_append": core_memory_append,
            "archival_memory_search": archival_memory_search,
        }[call["name"]].invoke(call["args"])
        messages.append(ToolMessage(result, tool_call_id=call["id"], name=call["name"]))
    assert names == ["core_memory_append", "archival_memory_search"]
    final = messages[-1]
    assert isinstance(final, AIMessage) and not final.tool_calls
    assert final.content.startswith(OFFLINE_BANNER)
    assert "INNER JOIN keeps matching rows" in final.content
    assert final.response_metadata["is_llm"] is False


def test_deterministic_tool_call_ids():
    model = OfflinePolicyModel().bind_tools([core_memory_append])
    a = model.invoke([HumanMessage("I am Ana.")])
    b = model.invoke([HumanMessage("I am Ana.")])
    assert a.tool_calls[0]["id"] == b.tool_calls[0]["id"]


def test_honest_reply_without_tools():
    reply = OfflinePolicyModel().invoke([HumanMessage("Explain recursion to me")])
    assert reply.content.startswith(OFFLINE_BANNER)
    assert "GOOGLE_API_KEY" in reply.content
    assert not reply.tool_calls


# --- The documented rules (module docstring of agent.models.offline_policy) ---

CORE = {
    "user_profile": "My name is Ana and I am a beginner in SQL.\nI work as a nurse on ward 4711.",
    "current_goals": "I want to master SQL joins by Friday.\nI am planning to revise anti-joins next.",
}


def _system(core: dict[str, str]) -> SystemMessage:
    from agent.heartbeat.working_memory import compile_prompt

    return compile_prompt(core, [])[0]


def _run(model, messages, tools):
    """Drive the policy like the heartbeat does; return the final reply and the calls made."""
    calls = []
    for _ in range(6):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return reply, calls
        call = reply.tool_calls[0]
        calls.append((call["name"], call["args"]))
        messages.append(
            ToolMessage(tools[call["name"]](call["args"]), tool_call_id=call["id"], name=call["name"])
        )
    raise AssertionError("the policy did not answer")


def test_rule_core_memory_is_read_from_the_compiled_system_prompt():
    assert read_core_memory([_system(CORE), HumanMessage("hi")]) == CORE
    assert read_core_memory([HumanMessage("hi")]) == {}


def test_rule_goal_question_is_answered_from_current_goals_without_a_search():
    model = OfflinePolicyModel().bind_tools([archival_memory_search, conversation_search])
    reply = model.invoke([_system(CORE), HumanMessage("What is my goal?")])
    assert not reply.tool_calls
    assert reply.content.startswith(OFFLINE_BANNER)
    assert "master SQL joins by Friday" in reply.content and "revise anti-joins" in reply.content
    assert "cannot reason" not in reply.content


def test_rule_profile_question_is_answered_from_user_profile_on_its_topic():
    model = OfflinePolicyModel().bind_tools([archival_memory_search, conversation_search])
    reply = model.invoke([_system(CORE), HumanMessage("What did I say about my job earlier?")])
    assert not reply.tool_calls
    assert "I work as a nurse" in reply.content and "beginner" not in reply.content
    assert answer_from_core("What is my name?", CORE) == (
        "user_profile",
        [CORE["user_profile"].splitlines()[0]],
    )
    assert answer_from_core("Who am I?", CORE)[1] == CORE["user_profile"].splitlines()


def test_rule_profile_question_without_a_core_answer_is_searched():
    assert (
        answer_from_core("What did I say about my job earlier?", {"user_profile": "I live in Porto."}) is None
    )
    [(name, args)] = plan_actions(
        "What did I say about my job earlier?", ALL, {"user_profile": "I live in Porto."}
    )
    assert name == "conversation_search"
    assert args["query"] == "job"  # recall verbs ("say", "earlier") name no topic


HITS = [
    {"text": "What did I say about my job earlier?", "role": "user"},
    {"text": f"{OFFLINE_BANNER} I can store facts and goals you tell me.", "role": "assistant"},
    {"text": "[calls core_memory_append({'section': 'user_profile'})]", "role": "assistant"},
    {"text": '{"ok": true, "section": "user_profile"}', "role": "tool"},
    {"text": "- user: What is a job queue?\n- user: My job is nursing on ward 4711.", "role": None},
    {"text": "I work as a nurse on the night shift.", "role": "user"},
]


def test_rule_search_answers_with_the_best_learner_statement_only():
    assert best_statement("job", HITS) == "My job is nursing on ward 4711."
    assert best_statement("nurse night shift", HITS) == "I work as a nurse on the night shift."
    assert best_statement("recursion", HITS) is None
    assert learner_statements(HITS[0]) == []  # a question
    assert learner_statements(HITS[1]) == learner_statements(HITS[2]) == learner_statements(HITS[3]) == []


def test_rule_search_reply_quotes_the_statement_not_the_question():
    @tool
    def conversation_search(query: str, page: int = 0) -> str:
        """Search."""
        return json.dumps({"results": HITS})

    model = OfflinePolicyModel().bind_tools([conversation_search])
    reply, calls = _run(
        model,
        [HumanMessage("What did we discuss about my job?")],
        {"conversation_search": conversation_search.invoke},
    )
    assert calls == [("conversation_search", {"query": "job"})]
    assert 'You said earlier: "My job is nursing on ward 4711."' in reply.content
    assert "What did I say" not in reply.content and "[calls" not in reply.content
    assert reply.content.count(OFFLINE_BANNER) == 1


def test_rule_archival_search_without_a_statement_falls_back_to_conversation_search():
    def archival(args):
        return json.dumps({"results": [{"text": "- assistant: called core_memory_append"}]})

    def conversation(args):
        return json.dumps(
            {"results": [{"text": "I keep confusing a FULL OUTER JOIN with a CROSS JOIN.", "role": "user"}]}
        )

    model = OfflinePolicyModel().bind_tools([archival_memory_search, conversation_search])
    reply, calls = _run(
        model,
        [HumanMessage("What did I find confusing about the FULL OUTER JOIN before?")],
        {"archival_memory_search": archival, "conversation_search": conversation},
    )
    assert [c[0] for c in calls] == ["archival_memory_search", "conversation_search"]
    assert "I keep confusing a FULL OUTER JOIN with a CROSS JOIN." in reply.content


@pytest.mark.parametrize(
    "sentence",
    [
        "I am planning to revise anti-joins next.",
        "I'm planning to practise window functions.",
        "I want to learn CTEs.",
        "My goal is to pass the exam.",
        "Next I will revise GROUP BY.",
        "I will practise subqueries next.",
    ],
)
def test_rule_plans_and_goals_go_to_current_goals(sentence):
    assert plan_actions(sentence, ALL) == [
        ("core_memory_append", {"section": "current_goals", "content": sentence})
    ]


@pytest.mark.parametrize(
    "sentence", ["I am a nurse.", "I work nights.", "My name is Ana.", "I prefer examples."]
)
def test_rule_facts_go_to_user_profile(sentence):
    assert plan_actions(sentence, ALL) == [
        ("core_memory_append", {"section": "user_profile", "content": sentence})
    ]


def test_rule_policy_replies_are_marked_as_boilerplate():
    model = OfflinePolicyModel().bind_tools([core_memory_append])
    canned = OfflinePolicyModel().invoke([HumanMessage("Explain recursion to me")])
    call = model.invoke([HumanMessage("I am Ana.")])
    assert is_policy_reply(canned) and canned.response_metadata["is_llm"] is False
    assert not is_policy_reply(call)  # a tool call is rendered as a call, not as tutor text
    assert not is_policy_reply(HumanMessage("I am Ana."))
    assert not is_policy_reply(AIMessage("A real model's answer."))


def test_rule_summaries_skip_the_policy_replies():
    from agent.heartbeat.summarizer import extractive_summary

    canned = OfflinePolicyModel().invoke([HumanMessage("Explain recursion to me")])
    summary = extractive_summary("", [HumanMessage("I work as a nurse."), canned])
    assert summary == "- user: I work as a nurse."


def test_demo_probes_check_content_not_phrasing():
    from graphs.demo_script import PROBES, SESSIONS, probe_passes

    assert [p.request for p in PROBES] == SESSIONS[-1][1]
    for probe in PROBES:
        assert probe.expect.lower() not in probe.request.lower()  # the question cannot pass itself
        assert not probe_passes(probe, f"{OFFLINE_BANNER} From your memory — nothing matched")
        assert probe_passes(probe, f'{OFFLINE_BANNER} You said: "{probe.expect}."')
