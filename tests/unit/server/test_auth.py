"""Token table parsing and the auth handlers, called directly (no server)."""

import json

import pytest
from langgraph_sdk import Auth

from agent.errors import ConfigError, LearnerMismatchError
from agent.server import auth as server_auth
from agent.server.auth import MISCONFIGURED, NOT_CONFIGURED, LazyTokenTable, build_auth
from agent.server.tokens import TokenTable
from agent.settings import Settings
from agent.validation import resolve_learner_id

TABLE = TokenTable.from_env({"KAG_AUTH_TOKENS": "token-ada-123:learner-ada, token-bob-456:learner-bob"})


class User:
    def __init__(self, identity: str) -> None:
        self.identity = identity
        self.is_authenticated = True
        self.display_name = identity
        self.permissions: list[str] = []


def ctx(identity: str, resource: str, action: str) -> Auth.types.AuthContext:
    return Auth.types.AuthContext(user=User(identity), permissions=[], resource=resource, action=action)


async def call(auth: Auth, resource: str, action: str, identity: str, value: dict):
    handler = auth._handlers.get((resource, "*"), auth._global_handlers)[-1]
    return await handler(ctx=ctx(identity, resource, action), value=value)


def test_inline_and_file_tokens_merge(tmp_path):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"token-cy-7890": "learner-cy"}))
    env = {"KAG_AUTH_TOKENS": "token-ada-123:learner-ada", "KAG_AUTH_TOKENS_FILE": str(path)}
    table = TokenTable.from_env(env)
    assert table.learner_for("token-ada-123") == "learner-ada"
    assert table.learner_for("token-cy-7890") == "learner-cy"
    assert table.learner_for("token-ada-12") is None
    assert "token-ada-123" not in repr(table)


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"KAG_AUTH_TOKENS": "short:learner-a"}, "KAG_AUTH_TOKENS"),
        ({"KAG_AUTH_TOKENS": "token-ok-123:bad id!"}, "KAG_AUTH_TOKENS"),
        ({"KAG_AUTH_TOKENS": "token-ok-123"}, "KAG_AUTH_TOKENS"),
        ({"KAG_AUTH_TOKENS": "token-ok-123:a,token-ok-123:b"}, "KAG_AUTH_TOKENS"),
        ({"KAG_AUTH_TOKENS_FILE": "/nonexistent/tokens.json"}, "KAG_AUTH_TOKENS_FILE"),
    ],
)
def test_bad_token_tables_name_the_variable(env, variable):
    with pytest.raises(ConfigError, match=variable):
        TokenTable.from_env(env)


def test_token_table_from_settings():
    settings = Settings.from_env({"KAG_AUTH_TOKENS": "token-ada-123:learner-ada"})
    assert "token-ada-123" not in repr(settings)
    assert TokenTable.from_settings(settings).learner_for("token-ada-123") == "learner-ada"
    assert TokenTable.from_values("token-bob-456:learner-bob").learner_for("token-bob-456") == "learner-bob"


async def test_the_table_is_read_at_the_first_request_not_at_build():
    loads: list[int] = []

    def load() -> TokenTable:
        loads.append(1)
        return TABLE

    lazy = LazyTokenTable(load)
    auth = build_auth(lazy)
    assert not loads and not lazy.loaded
    for _ in range(2):
        user = await auth._authenticate_handler(authorization="Bearer token-ada-123")
        assert user["identity"] == "learner-ada"
    assert loads == [1]


async def test_the_server_auth_reads_the_environment_lazily(monkeypatch):
    assert isinstance(server_auth.auth, Auth)
    monkeypatch.setattr(server_auth, "auth", build_auth(LazyTokenTable(server_auth.server_token_table)))
    monkeypatch.setenv("KAG_AUTH_TOKENS", "token-late-123:learner-late")  # set after the module loaded
    user = await server_auth.auth._authenticate_handler(authorization="Bearer token-late-123")
    assert user["identity"] == "learner-late"


async def test_a_bad_table_is_a_503_without_details(caplog):
    def load() -> TokenTable:
        return TokenTable.from_env({"KAG_AUTH_TOKENS": "short:learner-secret"})

    auth = build_auth(LazyTokenTable(load))
    with pytest.raises(Auth.exceptions.HTTPException) as err:
        await auth._authenticate_handler(authorization="Bearer token-ada-123")
    assert err.value.status_code == 503
    assert err.value.detail == MISCONFIGURED
    assert "learner-secret" not in err.value.detail
    assert "KAG_AUTH_TOKENS" in caplog.text


async def test_authenticate_maps_token_to_learner():
    auth = build_auth(TABLE)
    user = await auth._authenticate_handler(authorization="Bearer token-bob-456")
    assert user["identity"] == "learner-bob"
    for header in (None, "", "Bearer ", "Basic token-bob-456", "Bearer token-bob-45"):
        with pytest.raises(Auth.exceptions.HTTPException) as err:
            await auth._authenticate_handler(authorization=header)
        assert err.value.status_code == 401


async def test_without_a_token_table_every_request_is_refused_naming_the_variable():
    auth = build_auth(TokenTable())
    with pytest.raises(Auth.exceptions.HTTPException) as err:
        await auth._authenticate_handler(authorization="Bearer token-ada-123")
    assert err.value.status_code == 401
    assert err.value.detail == NOT_CONFIGURED
    assert "KAG_AUTH_TOKENS" in NOT_CONFIGURED


async def test_threads_are_stamped_and_filtered_by_owner():
    auth = build_auth(TABLE)
    value = {"thread_id": "t", "metadata": {"owner": "learner-bob", "topic": "rust"}}
    assert await call(auth, "threads", "create", "learner-ada", value) == {"owner": "learner-ada"}
    assert value["metadata"] == {"owner": "learner-ada", "topic": "rust"}
    run = {"thread_id": "t", "metadata": {}}
    assert await call(auth, "threads", "create_run", "learner-ada", run) == {"owner": "learner-ada"}
    assert run["metadata"]["owner"] == "learner-ada"
    assert await call(auth, "threads", "read", "learner-bob", {"thread_id": "t"}) == {"owner": "learner-bob"}


async def test_assistants_system_ones_shared_user_ones_owned():
    auth = build_auth(TABLE)
    read = await call(auth, "assistants", "search", "learner-ada", {"metadata": {}})
    assert read == {"$or": [{"created_by": "system"}, {"owner": "learner-ada"}]}
    created = {"graph_id": "kag", "metadata": {"created_by": "system"}}
    assert await call(auth, "assistants", "create", "learner-ada", created) == {"owner": "learner-ada"}
    assert created["metadata"] == {"owner": "learner-ada"}
    assert await call(auth, "assistants", "delete", "learner-ada", {}) == {"owner": "learner-ada"}


async def test_store_namespaces_are_forced_under_the_learner():
    auth = build_auth(TABLE)
    value = {"namespace": ("learner-bob", "notes")}
    await call(auth, "store", "get", "learner-ada", value)
    assert value["namespace"] == ("learner-ada", "learner-bob", "notes")
    own = {"namespace": ("learner-ada", "notes")}
    await call(auth, "store", "put", "learner-ada", own)
    assert own["namespace"] == ("learner-ada", "notes")


async def test_crons_are_refused():
    auth = build_auth(TABLE)
    assert await call(auth, "crons", "create", "learner-ada", {"metadata": {}}) is False


def test_the_authenticated_learner_is_checked_against_any_claim():
    assert resolve_learner_id("learner-ada", None) == "learner-ada"
    assert resolve_learner_id("learner-ada", "learner-ada") == "learner-ada"
    assert resolve_learner_id(None, "learner-bob") == "learner-bob"
    with pytest.raises(LearnerMismatchError, match="another learner"):
        resolve_learner_id("learner-ada", "learner-bob")
    with pytest.raises(LearnerMismatchError):
        resolve_learner_id("learner-ada", "bad id!")
    with pytest.raises(ValueError, match="neither a UUID nor a slug"):
        resolve_learner_id(None, "bad id!")
    upper = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
    assert resolve_learner_id(upper.lower(), upper) == upper.lower()


def run(**kwargs) -> dict:
    return {"thread_id": "t", "metadata": {}, "kwargs": kwargs}


async def test_runs_claiming_a_malformed_learner_are_refused_before_they_start():
    auth = build_auth(TABLE)
    bad = run(input={"learner_id": "bad id!", "request": "hi"})
    with pytest.raises(Auth.exceptions.HTTPException) as err:
        await call(auth, "threads", "create_run", "learner-ada", bad)
    assert err.value.status_code == 422 and "neither a UUID nor a slug" in err.value.detail
    own = run(input={"learner_id": "learner-ada", "request": "hi"})
    assert await call(auth, "threads", "create_run", "learner-ada", own) == {"owner": "learner-ada"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input": {"learner_id": "learner-bob", "request": "hi"}},
        {"command": {"update": {"learner_id": "learner-bob"}, "goto": "monitor"}},
        {"command": {"update": [["learner_id", "learner-bob"]], "goto": "think"}},
        {"command": {"update": [{"learner_id": "learner-bob"}]}},
        {"context": {"learner_id": "learner-bob"}},
        {"config": {"configurable": {"learner_id": "learner-bob"}}},
    ],
    ids=["input", "command-dict", "command-pairs", "command-list-of-dicts", "context", "configurable"],
)
async def test_runs_that_choose_whose_memory_they_use_are_forbidden(kwargs):
    auth = build_auth(TABLE)
    with pytest.raises(Auth.exceptions.HTTPException) as err:
        await call(auth, "threads", "create_run", "learner-ada", run(**kwargs))
    assert err.value.status_code == 403


async def test_commands_that_leave_identity_alone_are_allowed():
    auth = build_auth(TABLE)
    benign = run(command={"update": {"request": "hi"}, "goto": "monitor"})
    assert await call(auth, "threads", "create_run", "learner-ada", benign) == {"owner": "learner-ada"}
    assert await call(auth, "threads", "create_run", "learner-ada", run(command={"resume": "x"}))
