import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel, plan_actions, search_query

ALL = {
    "core_memory_append",
    "core_memory_replace",
    "archival_memory_insert",
    "archival_memory_search",
    "conversation_search",
}


def test_fact_goes_to_user_profile():
    assert plan_actions("My name is Ana and I work as a nurse.", ALL) == [
        (
            "core_memory_append",
            {"section": "user_profile", "content": "My name is Ana and I work as a nurse."},
        )
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
