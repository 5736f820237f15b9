"""The token a request presents, safe JSON parsing, and the per-route body refusals (no server)."""

from __future__ import annotations

import pytest

from agent.server.body_policy import command_refusal, refusal
from agent.server.credentials import (
    CONFLICT,
    MALFORMED,
    MISSING,
    CredentialError,
    presented_token,
    scope_token,
)
from agent.server.json_body import MAX_JSON_DEPTH, NOT_JSON, BodyRefusedError, nesting_depth, parse_body


def test_either_header_presents_the_token() -> None:
    assert presented_token("Bearer tok-12345", None) == "tok-12345"
    assert presented_token(None, "tok-12345") == "tok-12345"
    assert presented_token("bearer  tok-12345 ", " tok-12345") == "tok-12345"
    assert scope_token([(b"X-Api-Key", b"tok-12345")]) == "tok-12345"


@pytest.mark.parametrize(
    ("authorization", "api_key", "detail"),
    [
        (None, None, MISSING),
        ("", None, MISSING),
        ("Basic tok-12345", None, MALFORMED),
        ("tok-12345", "tok-12345", MALFORMED),
        ("Bearer tok-12345", "tok-67890", CONFLICT),
    ],
)
def test_missing_malformed_or_contradictory_credentials_are_refused(authorization, api_key, detail) -> None:
    with pytest.raises(CredentialError) as err:
        presented_token(authorization, api_key)
    assert err.value.detail == detail
    assert scope_token(
        [(b"authorization", (authorization or "").encode()), (b"x-api-key", b"tok-67890")]
    ) in (
        None,
        "tok-67890",
    )


def test_nesting_is_measured_without_recursion_and_strings_do_not_count() -> None:
    assert nesting_depth(b'{"a": [1, {"b": "[[[[{{{"}], "c": "\\\\"}') == 3
    assert nesting_depth(b'["\\"[[[", [[]]]') == 3
    assert nesting_depth(b"[" * 500_000 + b"]" * 500_000) == 500_000


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "levels deep"),
        (b"[" * 1200, "levels deep"),
        (b'{"a": "\xff"}', "not valid UTF-8"),
        ('{"a": "é"}'.encode("utf-16"), "not valid UTF-8"),
        (b"[1e400]", "overflows a double"),
        (b"[" + b"9" * 5000 + b"]", "more than 64 bits"),
        (b"[18446744073709551616]", "more than 64 bits"),
        (b'{"n": NaN}', "NaN"),
        (b'["\\ud800"]', "unpaired surrogate"),
    ],
)
def test_unsafe_bodies_are_a_422_with_a_one_line_reason(body, words) -> None:
    with pytest.raises(BodyRefusedError) as err:
        parse_body(body)
    assert err.value.status == 422 and words in err.value.detail and "\n" not in err.value.detail


def test_safe_bodies_parse_and_non_json_is_left_to_the_route() -> None:
    assert parse_body(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH) is not None
    assert parse_body(b'{"n": 18446744073709551615, "s": "\\ud83d\\ude00"}') == {"n": 2**64 - 1, "s": "😀"}
    assert parse_body(b"") is None and parse_body(b"  ") is None
    assert parse_body(b"{not json") is NOT_JSON


def _status(method: str, path: str, payload) -> int | None:
    refused = refusal(method, path, payload)
    return None if refused is None else refused.status


def test_state_updates_and_supersteps_may_not_write_identity_or_a_bad_context() -> None:
    assert _status("POST", "/threads/t1/state", {"values": {"learner_id": "x"}}) == 403
    assert _status("POST", "/threads/t1/state", {"values": {"context": {"session_id": {"$ne": None}}}}) == 422
    assert _status("POST", "/threads/t1/state", {"values": {"context": {"session_id": "s1"}}}) is None
    step = {"supersteps": [{"updates": [{"values": {"context": "nope"}}]}]}
    assert _status("POST", "/threads", step) == 422
    assert _status("POST", "/threads", {"supersteps": "junk"}) is None
    assert _status("GET", "/threads/t1/state", {"values": {"learner_id": "x"}}) is None


def test_protocol_run_start_may_not_carry_context_command_or_identity() -> None:
    start = {"id": 1, "method": "run.start", "params": {"assistant_id": "kag", "input": {"request": "hi"}}}
    assert command_refusal(start) is None
    for extra in (
        {"context": {}},
        {"command": {"resume": 1}},
        {"input": {"request": "hi", "learner_id": "a"}},
    ):
        changed = {**start, "params": {**start["params"], **extra}}
        assert command_refusal(changed).status == 403, extra
        assert _status("POST", "/threads/t1/commands", changed) == 403
    respond = {"id": 2, "method": "input.respond", "params": {"update": [["learner_id", "a"]]}}
    assert command_refusal(respond).status == 403


def test_mcp_calls_the_auth_would_refuse_are_refused_first() -> None:
    def call(params):
        return _status("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})

    assert call({"name": "kag", "arguments": {"request": "hi"}}) is None
    assert call({"name": "kag", "arguments": {"request": "hi", "learner_id": "a"}}) == 403
    assert call({"name": "kag", "arguments": {"request": "hi"}, "context": {"learner_id": "a"}}) == 403
    assert call({"name": "kag", "arguments": "hi"}) == 422
    assert call({"name": "kag", "arguments": {"request": "hi"}, "context": 3}) == 422
    assert call({"name": "kag", "arguments": {"request": "hi", "context": {"end_session": "y"}}}) == 422


@pytest.mark.parametrize(
    "payload", [{}, {"namespace_prefix": None}, {"namespace_prefix": "notes"}, {"namespace_prefix": [1]}]
)
def test_a_store_search_without_a_namespace_prefix_list_is_a_422(payload) -> None:
    refused = refusal("POST", "/store/items/search", payload)
    assert refused is not None and refused.status == 422 and "namespace_prefix" in refused.detail


def test_a_store_search_with_a_prefix_list_goes_on() -> None:
    assert refusal("POST", "/store/items/search", {"namespace_prefix": []}) is None
    assert refusal("POST", "/store/items/search", {"namespace_prefix": ["notes"], "query": "x"}) is None
