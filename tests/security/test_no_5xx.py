"""No input reaches a 5xx: deep or wide JSON, bad encodings, huge numbers, with and without a token.

A body nested ~1,200 deep (2.4 KB) made the guard's ``json.loads`` raise
``RecursionError``: an anonymous caller got a 500 before authentication and the next
request on the same connection was reset. Property: through the real server, every
such body gets a status below 500, the guard's own refusals are a 4xx with a
one-line reason, and the same keep-alive connection then still serves ``/ok``.
"""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.server.guard import MAX_BODY_BYTES
from agent.server.json_body import MAX_JSON_DEPTH, BodyRefusedError, parse_body

pytestmark = [pytest.mark.integration, pytest.mark.server]

PROPERTY = settings(
    max_examples=30,
    database=None,  # no .hypothesis/ example store in the work tree
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
ROUTES = [
    "/threads",
    "/threads/{thread}/state",
    "/threads/{thread}/runs",
    "/threads/search",
    "/runs/wait",
    "/store/items/search",
    "/threads/{thread}/commands",
    "/mcp",
    "/dashboard/api/memory/current_goals",
    "/kernel/consult",
]
"""POST routes of every kind: the runtime's, the guard-inspected ones, the custom app's."""
CALLERS = st.sampled_from(["anonymous", "bob"])


@pytest.fixture(scope="module")
async def target(server, as_bob) -> dict[str, str]:
    """A thread of bob's that no test runs (the state route needs one)."""
    return {"thread": (await as_bob.threads.create())["thread_id"]}


@pytest.fixture(scope="module")
async def conn(server):
    """One keep-alive connection for the whole module: a refusal must not reset it."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:
        yield client


def headers_of(caller: str, server) -> dict[str, str]:
    """JSON content type, and bob's token when the caller is bob."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if caller == "bob":
        headers["Authorization"] = f"Bearer {server.learners['bob'].token}"
    return headers


async def post_and_check(conn, server, target, route: str, caller: str, body: bytes) -> httpx.Response:
    """POST ``body``; assert no 5xx, the guard's one-line refusal where it refuses, a live connection."""
    path = route.format(**target)
    response = await conn.post(path, content=body, headers=headers_of(caller, server))
    assert response.status_code < 500, (path, caller, len(body), response.status_code, response.text[:500])
    try:
        parse_body(body) if len(body) <= MAX_BODY_BYTES else None
    except BodyRefusedError as exc:  # the guard refuses it before auth, whoever the caller
        assert (response.status_code, response.json()) == (exc.status, {"detail": exc.detail})
        assert "\n" not in exc.detail
    ok = await conn.get("/ok")
    assert ok.status_code == 200, "the connection must survive a refused body"
    return response


def nested(depth: int, kind: str) -> bytes:
    """``depth`` levels of arrays or objects around a number, as compact JSON."""
    if kind == "array":
        return b"[" * depth + b"1" + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


@PROPERTY
@given(
    depth=st.integers(1, 100_000),
    kind=st.sampled_from(["array", "object"]),
    route=st.sampled_from(ROUTES),
    caller=CALLERS,
)
@example(depth=1_200, kind="array", route="/threads", caller="anonymous")
@example(depth=1_200, kind="object", route="/threads/{thread}/state", caller="anonymous")
@example(depth=100_000, kind="array", route="/threads/{thread}/state", caller="bob")
@example(depth=100_000, kind="object", route="/dashboard/api/memory/current_goals", caller="bob")
@example(depth=MAX_JSON_DEPTH + 1, kind="object", route="/kernel/consult", caller="bob")
@example(depth=MAX_JSON_DEPTH, kind="object", route="/threads", caller="bob")
async def test_deep_json_never_reaches_a_5xx(conn, server, target, depth, kind, route, caller) -> None:
    response = await post_and_check(conn, server, target, route, caller, nested(depth, kind))
    if depth > MAX_JSON_DEPTH:
        assert response.status_code == 422 and "levels deep" in response.json()["detail"]


@PROPERTY
@given(
    width=st.integers(0, 150_000),
    item=st.sampled_from([b"1", b'"x"', b"{}", b"[]", b'{"learner_id":"x"}', b"null"]),
    kind=st.sampled_from(["array", "object"]),
    route=st.sampled_from(ROUTES),
    caller=CALLERS,
)
@example(width=150_000, item=b"1", kind="array", route="/threads/search", caller="bob")
@example(width=60_000, item=b"{}", kind="object", route="/threads/{thread}/state", caller="bob")
@example(width=0, item=b"1", kind="object", route="/store/items/search", caller="bob")  # {}: was a 500
async def test_wide_json_never_reaches_a_5xx(conn, server, target, width, item, kind, route, caller) -> None:
    if kind == "array":
        body = b"[" + b",".join([item] * width) + b"]"
    else:
        body = b"{" + b",".join(b'"k%d":%s' % (i, item) for i in range(width)) + b"}"
    response = await post_and_check(conn, server, target, route, caller, body)
    if len(body) > MAX_BODY_BYTES:
        assert response.status_code == 413


ENCODINGS = ["utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252", "utf-8-sig"]


@PROPERTY
@given(
    text=st.text(min_size=1, max_size=40),
    encoding=st.sampled_from(ENCODINGS),
    junk=st.binary(max_size=8),
    route=st.sampled_from(ROUTES),
    caller=CALLERS,
)
@example(text="é", encoding="latin-1", junk=b"", route="/threads", caller="anonymous")
@example(text="ok", encoding="utf-8-sig", junk=b"\xff\xfe", route="/threads/{thread}/state", caller="bob")
@example(text="x", encoding="utf-16", junk=b"", route="/mcp", caller="bob")
async def test_bad_encodings_never_reach_a_5xx(
    conn, server, target, text, encoding, junk, route, caller
) -> None:
    document = json.dumps({"values": {"note": text}, "metadata": {"m": text}}, ensure_ascii=False)
    body = document.encode(encoding, errors="replace") + junk
    await post_and_check(conn, server, target, route, caller, body)


NUMBERS = st.one_of(
    st.integers(21, 5_000).map(lambda n: "9" * n),
    st.integers(21, 5_000).map(lambda n: "-" + "1" * n),
    st.integers(309, 100_000).map(lambda e: f"1e{e}"),
    st.integers(1, 5_000).map(lambda n: "0." + "3" * n),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e-400", "18446744073709551616", "-0"]),
)


@PROPERTY
@given(number=NUMBERS, route=st.sampled_from(ROUTES), caller=CALLERS)
@example(number="9" * 5_000, route="/threads/{thread}/state", caller="bob")
@example(number="1e999999", route="/dashboard/api/memory/current_goals", caller="bob")
@example(number="NaN", route="/kernel/consult", caller="bob")
async def test_huge_numbers_never_reach_a_5xx(conn, server, target, number, route, caller) -> None:
    body = f'{{"values": {{"n": {number}}}, "limit": {number}, "input": {{"request": "hi", "n": {number}}}}}'
    await post_and_check(conn, server, target, route, caller, body.encode())


@pytest.mark.parametrize("caller", ["anonymous", "bob"])
async def test_the_reported_1200_deep_body_is_a_clear_422(conn, server, target, caller) -> None:
    for route in ("/threads", "/threads/{thread}/state"):
        response = await post_and_check(conn, server, target, route, caller, nested(1_200, "array"))
        assert response.status_code == 422, response.text[:300]
        expected = f"the JSON body nests 1200 levels deep; at most {MAX_JSON_DEPTH} are accepted"
        assert response.json() == {"detail": expected}
