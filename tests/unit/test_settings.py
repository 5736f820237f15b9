import pytest

from agent.context import Context
from agent.errors import ConfigError
from agent.settings import DEFAULT_GEMINI_MODEL, MINILM, OFFLINE_MODEL, Settings


def test_defaults_are_offline():
    s = Settings.from_env({})
    assert s.offline
    assert s.chat_model_id == OFFLINE_MODEL
    assert s.embeddings_id == MINILM
    assert s.neo4j_uri == "bolt://127.0.0.1:7687"


def test_key_switches_to_gemini():
    s = Settings.from_env({"GOOGLE_API_KEY": "k"})
    assert not s.offline
    assert s.chat_model_id == DEFAULT_GEMINI_MODEL
    assert s.embeddings_id.startswith("google_genai:")


def test_explicit_arguments_win_over_environment():
    env = {"KAG_REDIS_URL": "redis://envhost:1/0", "KAG_MODEL": "google_genai:gemini-x"}
    s = Settings.from_env(env, redis_url="redis://explicit:2/0")
    assert s.redis_url == "redis://explicit:2/0"
    assert s.model == "google_genai:gemini-x"


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"KAG_NEO4J_URI": "http://localhost:7474"}, "KAG_NEO4J_URI"),
        ({"KAG_NEO4J_URI": "bolt://"}, "KAG_NEO4J_URI"),
        ({"KAG_NEO4J_PASSWORD": "short"}, "KAG_NEO4J_PASSWORD"),
        ({"KAG_REDIS_URL": "localhost:6379"}, "KAG_REDIS_URL"),
        ({"KAG_MODEL": "gemini"}, "KAG_MODEL"),
        ({"KAG_EMBEDDINGS": "bert"}, "KAG_EMBEDDINGS"),
        ({"LANGSMITH_TRACING": "maybe"}, "LANGSMITH_TRACING"),
        ({"LANGSMITH_TRACING": "true"}, "LANGSMITH_API_KEY"),
    ],
)
def test_bad_values_name_the_variable(env, variable):
    with pytest.raises(ConfigError) as info:
        Settings.from_env(env)
    assert info.value.variable == variable
    assert variable in str(info.value)


def test_unknown_override_is_rejected():
    with pytest.raises(TypeError, match="unknown settings"):
        Settings.from_env({}, neo4j_url="bolt://x:1")


def test_password_is_not_in_repr():
    s = Settings.from_env({"KAG_NEO4J_PASSWORD": "super-secret-pw"})
    assert "super-secret-pw" not in repr(s)


def test_context_reads_environment_for_defaults_only(monkeypatch):
    monkeypatch.setenv("KAG_MAX_TOKENS", "4096")
    monkeypatch.setenv("KAG_AUTO_ARCHIVE", "false")
    assert Context().max_tokens == 4096
    assert Context().auto_archive is False
    assert Context(max_tokens=2048).max_tokens == 2048


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_tokens": 10}, "max_tokens"),
        ({"max_steps": 0}, "max_steps"),
        ({"pressure_threshold": 1.5}, "pressure_threshold"),
        ({"tool_protocol": "xml"}, "tool_protocol"),
    ],
)
def test_context_validation(kwargs, name):
    with pytest.raises(ConfigError, match=name):
        Context(**kwargs)


def test_context_env_type_errors_name_the_variable(monkeypatch):
    monkeypatch.setenv("KAG_MAX_STEPS", "five")
    with pytest.raises(ConfigError, match="KAG_MAX_STEPS"):
        Context()
