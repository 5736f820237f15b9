"""Property tests of the input rules: every value is either accepted unchanged or refused by name.

``hypothesis`` draws Unicode edge cases (lone surrogates, control characters, NUL,
combining marks, astral planes), Cypher- and Lucene-looking strings, huge and empty
values and nested JSON. Example counts stay small so the unit suite stays fast.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.tools import tool

from agent.errors import InvalidInputError, KAGError
from agent.graphdb.store import MAX_TEXT_BYTES, check_page, check_text
from agent.heartbeat.text_protocol import ToolCallSyntaxError, parse_reply
from agent.heartbeat.tool_runner import MAX_ARG_DEPTH, run_tool_calls
from agent.validation import (
    MAX_REQUEST_BYTES,
    validate_request,
    validate_request_context,
    validate_text,
)

FUZZ = settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
CONTROL = st.characters(max_codepoint=0x1F) | st.sampled_from(["\x7f", "\u200b", "\ufeff", "\u202e"])
INJECTIONS = st.sampled_from(
    [
        "') MATCH (n) DETACH DELETE n //",
        '" OR 1=1 }) RETURN n //',
        "learner_id: 'victim'",
        "*:* OR learner_id:*",
        'AND OR NOT "unclosed',
        "text:(a OR b)^10 ~2 [a TO z] {x TO y} \\ / ? * :",
        "${jndi:ldap://x}",
        "{{7*7}} <script>alert(1)</script>",
        "$param MERGE (x:Learner {id: 'victim'})",
    ]
)
TEXT = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=SURROGATES | CONTROL | st.characters(), max_size=50),
    INJECTIONS,
    st.just(""),
    st.just(" \t\n"),
    st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "😀", "\x00"]), st.integers(0, 20_000)),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def _valid_unicode(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@FUZZ
@given(value=JSON | TEXT, max_bytes=st.integers(1, 40_000), allow_blank=st.booleans())
def test_validate_text_accepts_unchanged_or_refuses_by_name(value, max_bytes, allow_blank):
    try:
        out = validate_text(value, "the_field", max_bytes, allow_blank=allow_blank)
    except InvalidInputError as exc:
        assert isinstance(exc, KAGError) and isinstance(exc, ValueError)
        assert str(exc).startswith("the_field "), str(exc)
        str(exc).encode("utf-8")  # the message itself is always valid text
        return
    assert out is value
    assert isinstance(out, str) and _valid_unicode(out)
    assert len(out.encode("utf-8")) <= max_bytes
    assert allow_blank or out.strip()


@FUZZ
@given(value=JSON | TEXT)
def test_requests_and_store_text_follow_the_same_rule(value):
    outcomes = []
    for check, limit in (
        (validate_request, MAX_REQUEST_BYTES),
        (lambda v: check_text(v, "x"), MAX_TEXT_BYTES),
    ):
        try:
            outcomes.append(check(value) is value)
        except InvalidInputError:
            outcomes.append(False)
        assert limit == 32 * 1024
    expected = isinstance(value, str) and bool(value.strip()) and _valid_unicode(value)
    expected = expected and len(value.encode("utf-8")) <= 32 * 1024
    assert outcomes == [expected, expected]


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "ok \udbff", "\ud83d"])
def test_a_lone_surrogate_is_a_clear_error_naming_the_field(text):
    with pytest.raises(InvalidInputError, match="request is not valid Unicode"):
        validate_request(text)
    with pytest.raises(InvalidInputError, match="content is not valid Unicode"):
        check_text(text, "content")


def test_a_surrogate_pair_spelled_properly_is_fine():
    assert validate_request("emoji 😀 \U0001f600") == "emoji 😀 \U0001f600"


@FUZZ
@given(page=JSON, page_size=JSON)
def test_check_page_never_raises_anything_but_invalid_input(page, page_size):
    try:
        check_page(page, page_size)
    except InvalidInputError as exc:
        assert "page" in str(exc)
    else:
        assert isinstance(page, int) and isinstance(page_size, int)
        assert 0 <= page <= 1000 and 1 <= page_size <= 50


TURNS = st.lists(st.fixed_dictionaries({}, optional={"role": JSON, "content": JSON}), max_size=3)


@FUZZ
@given(context=JSON | st.fixed_dictionaries({}, optional={
    "session_id": JSON, "current_concept": JSON, "end_session": JSON, "session_history": TURNS | JSON,
}))  # fmt: skip
def test_request_context_is_checked_by_field(context):
    try:
        out = validate_request_context(context)
    except InvalidInputError as exc:
        assert str(exc).startswith("context"), str(exc)
        return
    assert out == (context or {})
    for name in ("session_id", "current_concept"):
        assert out.get(name) is None or (isinstance(out[name], str) and _valid_unicode(out[name]))
    assert out.get("end_session") in (None, True, False)


# ----- the text protocol and the tool runner -----


@FUZZ
@given(name=st.from_regex(r"\A[A-Za-z_]\w{0,20}\Z"), body=TEXT | st.builds(json.dumps, JSON))
def test_parse_reply_returns_a_call_or_a_syntax_error(name, body):
    try:
        parsed = parse_reply(f"[FUNCTION] {name}({body})")
    except ToolCallSyntaxError as exc:
        assert isinstance(exc, ValueError) and name in str(exc)
        return
    assert parsed.tool_name == name and isinstance(parsed.args, dict)
    assert parsed.call_id.startswith("text-")


@pytest.mark.parametrize(
    "text",
    [
        "[FUNCTION] f(q=" + "[" * 5000 + "]" * 5000 + ")",
        "[FUNCTION] f(" + '{"a":' * 5000 + "1" + "}" * 5000 + ")",
        "[FUNCTION] f(q=1" + "0" * 5000 + ")",
        '[FUNCTION] f(q="\x00")',
        "[FUNCTION] f(q={[1]: 2})",
        "[FUNCTION] f(q={1, [2]})",
        '[FUNCTION] f(q=-"a")',
        "[FUNCTION] f(q=__import__('os'))",
    ],
    ids=[
        "deep-list",
        "deep-json",
        "huge-int",
        "nul",
        "unhashable-key",
        "unhashable-set",
        "bad-unary",
        "call",
    ],
)
def test_hostile_text_protocol_arguments_are_syntax_errors(text):
    with pytest.raises(ToolCallSyntaxError, match="Malformed"):
        parse_reply(text)


def test_wrong_typed_text_protocol_arguments_parse_and_reach_the_runner():
    assert parse_reply("[FUNCTION] archival_memory_search(query=None)").args == {"query": None}
    assert parse_reply('[FUNCTION] archival_memory_search({"query": {"$ne": 1}})').args == {
        "query": {"$ne": 1}
    }
    assert parse_reply('[FUNCTION] archival_memory_search({"query": "\\ud800"})').args == {"query": "\ud800"}


@tool
async def search(query: str, page: int = 0) -> str:
    """Echo a query (stands in for a store search)."""
    query.encode("utf-8")  # what a driver does first
    return json.dumps({"query": query, "page": page})


def _call(args, name="search"):
    return {"name": name, "args": args, "id": "c1", "type": "tool_call"}


@pytest.mark.parametrize(
    "args",
    [
        {"query": None},
        {"query": {"$ne": 1}},
        {"query": ["a", "b"]},
        {"query": 5},
        {"query": "\ud800"},
        {"query": "ok", "page": "\ud800"},
        {"query": "ok", "nested": {"k\udfff": 1}},
        {"query": "ok", "page": "x"},
        ["query", "x"],
        "query=x",
        5,
        {},
    ],
    ids=["none", "dict", "list", "int", "surrogate", "surrogate-other", "surrogate-key", "bad-page",
         "args-list", "args-str", "args-int", "missing"],
)  # fmt: skip
async def test_bad_tool_arguments_become_a_tool_error_message(args):
    result = await run_tool_calls([_call(args)], {"search": search}, {})
    [message] = result.messages
    assert message.status == "error" and result.errors == 1, message.content
    assert message.content.startswith("ERROR: malformed arguments for search"), message.content
    assert "internal error" not in message.content
    message.content.encode("utf-8")


async def test_arguments_nested_too_deep_are_refused():
    deep: object = "x"
    for _ in range(MAX_ARG_DEPTH + 2):
        deep = [deep]
    result = await run_tool_calls([_call({"query": "ok", "extra": deep})], {"search": search}, {})
    assert "nests deeper" in result.messages[0].content


@FUZZ
@given(
    args=st.dictionaries(st.sampled_from(["query", "page", "learner_id", "other"]), JSON, max_size=4) | JSON
)
async def test_the_runner_never_raises_and_answers_every_call(args):
    result = await run_tool_calls([_call(args), _call({"query": "fine"})], {"search": search}, {})
    assert len(result.messages) == 2
    assert result.messages[1].status != "error"
    first = result.messages[0]
    if first.status == "error":
        assert first.content.startswith("ERROR: ") and "internal error" not in first.content
    else:
        assert isinstance(args, dict) and isinstance(args.get("query"), str)
    for message in result.messages:
        message.content.encode("utf-8")
