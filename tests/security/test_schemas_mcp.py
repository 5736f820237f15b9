"""Studio's input form and MCP's tool list: every served graph has its schemas and a usable tool.

``GET /assistants/{id}/schemas`` must return input, output, state and context schemas
for every graph of ``langgraph.json`` (a ``typing.TypedDict`` on Python < 3.12 made them
``null``, which hid the tutor from Studio's form and from ``/mcp``). ``/mcp``'s
``tools/list`` lists every graph with the description from ``langgraph.json`` and no
identity field (the server refuses ``learner_id`` anyway); ``tools/call`` of ``kag``
answers, and a call the server refuses is a 4xx, never the runtime's 500.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.security.attack import has_secret

pytestmark = [pytest.mark.integration, pytest.mark.server]

CONFIG = json.loads((Path(__file__).resolve().parents[2] / "langgraph.json").read_text())
GRAPHS = {name: spec["description"] for name, spec in CONFIG["graphs"].items()}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
async def http(server):
    """A plain HTTP client on the server (every status as it is)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as client:
        yield client


def auth(learner) -> dict[str, str]:
    """The learner's bearer header, plus what an MCP client accepts."""
    return {"Authorization": f"Bearer {learner.token}", **MCP_HEADERS}


async def mcp(http: httpx.AsyncClient, learner, method: str, params: dict[str, Any]) -> httpx.Response:
    """One JSON-RPC request to ``/mcp``."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return await http.post("/mcp", headers=auth(learner), json=message)


def test_every_served_graph_has_a_description_a_client_can_act_on() -> None:
    assert set(GRAPHS) == {"kag", "zettelkasten", "reflection", "consult"}
    for name, description in GRAPHS.items():
        assert len(description) > 80 and "`" in description, (name, "say what to send, by field name")
        assert "learner_id" not in description, name


@pytest.mark.parametrize("graph", sorted(GRAPHS))
async def test_every_graph_has_input_output_state_and_context_schemas(as_alice, graph) -> None:
    found = await as_alice.assistants.search(graph_id=graph, limit=10)
    assert found, f"no system assistant for {graph}"
    schemas = await as_alice.assistants.get_schemas(found[0]["assistant_id"])
    for kind in ("input_schema", "output_schema", "state_schema", "context_schema"):
        assert isinstance(schemas.get(kind), dict) and schemas[kind], (graph, kind, schemas.get(kind))
    assert "learner_id" not in schemas["input_schema"].get("properties", {}), (graph, "an identity field")
    if graph == "kag":
        assert "request" in schemas["input_schema"]["properties"]


async def test_mcp_lists_every_graph_with_its_description_and_no_identity_field(http, alice) -> None:
    response = await mcp(http, alice, "tools/list", {})
    assert response.status_code == 200, response.text[:500]
    tools = {tool["name"]: tool for tool in response.json()["result"]["tools"]}
    assert set(tools) == set(GRAPHS), f"tools/list holds {sorted(tools)}"
    for name, tool in tools.items():
        assert tool["description"] == GRAPHS[name]
        schema = json.dumps(tool["inputSchema"])
        assert "learner_id" not in schema, (name, schema[:500])
    assert "request" in tools["kag"]["inputSchema"]["properties"]
    assert "transcript" in tools["zettelkasten"]["inputSchema"]["properties"]


async def test_an_mcp_call_of_the_tutor_answers(http, bob) -> None:
    response = await mcp(
        http, bob, "tools/call", {"name": "kag", "arguments": {"request": "What do you know about my goals?"}}
    )
    assert response.status_code == 200, response.text[:500]
    result = response.json()["result"]
    assert not result.get("isError"), result
    assert "response" in result["content"][0]["text"]
    assert not has_secret(response.text)


async def test_an_mcp_call_the_server_refuses_is_a_4xx_not_a_500(http, alice, bob) -> None:
    refused = [
        ({"name": "kag", "arguments": {"request": "hi", "learner_id": alice.learner_id}}, 403),
        ({"name": "kag", "arguments": {"request": "hi", "learner_id": bob.learner_id}}, 403),
        ({"name": "kag", "arguments": {"request": "hi"}, "context": {"learner_id": alice.learner_id}}, 403),
        ({"name": "consult", "arguments": {"request": {"query": "x"}, "learner_id": alice.learner_id}}, 403),
        ({"name": "kag", "arguments": "What is a join?"}, 422),
        ({"name": "kag", "arguments": {"request": "hi"}, "context": "nope"}, 422),
        ({"name": "kag", "arguments": {"request": "hi", "context": {"session_id": {"$ne": None}}}}, 422),
    ]
    for params, status in refused:
        response = await mcp(http, bob, "tools/call", params)
        assert response.status_code == status, (params, response.status_code, response.text[:500])
        assert not has_secret(response.text)
    anonymous = await http.post(
        "/mcp",
        headers=MCP_HEADERS,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "kag", "arguments": {}}},
    )
    assert anonymous.status_code == 401
