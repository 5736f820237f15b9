import pytest

from agent.heartbeat.text_protocol import ToolCallSyntaxError, parse_reply


def test_keyword_call():
    parsed = parse_reply('[FUNCTION] core_memory_append(section="user_profile", content="Likes SQL")')
    assert parsed.tool_name == "core_memory_append"
    assert parsed.args == {"section": "user_profile", "content": "Likes SQL"}
    assert parsed.final_text is None
    assert parsed.call_id.startswith("text-")


def test_json_call_and_ints():
    parsed = parse_reply('[FUNCTION] archival_memory_search({"query": "joins", "page": 1})')
    assert parsed.args == {"query": "joins", "page": 1}


def test_final_answer_and_plain_text():
    assert parse_reply("[FINAL_ANSWER] Joins combine tables.").final_text == "Joins combine tables."
    assert parse_reply("Just text").final_text == "Just text"


@pytest.mark.parametrize(
    "text",
    [
        '[FUNCTION] archival_memory_search(query="unterminated)',
        "[FUNCTION] archival_memory_search(__import__('os').system('x'))",
        '[FUNCTION] archival_memory_search(query=open("f"))',
        "[FUNCTION] archival_memory_search",
        '[FUNCTION] archival_memory_search({"query": )',
        "[FUNCTION] archival_memory_search(**{'a': 1})",
    ],
)
def test_malformed_arguments_raise_a_clear_error(text):
    with pytest.raises(ToolCallSyntaxError) as info:
        parse_reply(text)
    assert info.value.tool_name == "archival_memory_search"
    assert "Malformed [FUNCTION] call" in str(info.value)
