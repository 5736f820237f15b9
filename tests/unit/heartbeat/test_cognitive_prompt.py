"""The system prompt and the text protocol know the six cognitive memory tools."""

import pytest
from langchain_core.messages import AIMessage

from agent.heartbeat.prompts import system_instructions
from agent.heartbeat.slots import HEADER
from agent.heartbeat.text_protocol import parse_reply, parse_text_reply
from agent.heartbeat.tokens import count_messages

TOOLS = [
    "remember_fact",
    "search_facts",
    "save_procedure",
    "recall_procedure",
    "set_reminder",
    "resolve_reminder",
]


@pytest.mark.parametrize("text_protocol", [True, False])
def test_the_prompt_lists_the_cognitive_tools_and_when_to_use_them(text_protocol):
    prompt = system_instructions({"user_profile": "My name is Ana."}, text_protocol=text_protocol)
    persona = prompt.split("Tools:")[0]
    for tool in TOOLS:
        assert tool in persona, tool  # when to use each one, in both protocols
        if text_protocol:
            assert f"{tool}(" in prompt.split("Tools:")[1], tool
    # Native function calling sends the schemas itself: the list is not repeated.
    assert ("Tools:" in prompt) is text_protocol
    assert ("search_facts(query, as_of, k)" in prompt) is text_protocol
    assert "REMINDER <id>" in prompt and "resolve_reminder" in prompt
    assert HEADER not in prompt, "the persona must not look like the slot block the policy parses"
    assert prompt.startswith("You are Ana's Personal Knowledge OS")


def test_the_system_prompt_stays_small():
    from langchain_core.messages import SystemMessage

    prompt = system_instructions({}, text_protocol=True)
    assert count_messages([SystemMessage(prompt)]) < 600


def test_text_protocol_shows_and_parses_list_arguments():
    assert 'items=["first", "second"]' in system_instructions({}, text_protocol=True)
    parsed = parse_reply(
        '[FUNCTION] save_procedure(name="write a LEFT JOIN",\n'
        ' steps=["pick the kept table", "join", "filter"])'
    )
    assert parsed.tool_name == "save_procedure"
    assert parsed.args == {"name": "write a LEFT JOIN", "steps": ["pick the kept table", "join", "filter"]}
    parsed = parse_reply(
        '[FUNCTION] set_reminder({"description": "review GROUP BY", "keywords": ["HAVING"]})'
    )
    assert parsed.args["keywords"] == ["HAVING"]


def test_text_protocol_turns_cognitive_calls_into_tool_calls():
    reply = parse_text_reply(AIMessage('[FUNCTION] search_facts(query="where I live", as_of="2026-01-20")'))
    assert reply.tool_calls[0]["name"] == "search_facts"
    assert reply.tool_calls[0]["args"] == {"query": "where I live", "as_of": "2026-01-20"}
    reply = parse_text_reply(AIMessage('[FUNCTION] resolve_reminder(reminder_id="rem-1")'))
    assert reply.tool_calls[0]["args"] == {"reminder_id": "rem-1"}
