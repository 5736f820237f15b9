import logging

import pytest

from agent import settings as settings_module
from agent.context import Context
from agent.env import parse_bool
from agent.errors import ConfigError
from agent.settings import (
    DEFAULT_GEMINI_MODEL,
    MINILM,
    OFFLINE_MODEL,
    Settings,
    warn_unknown_variables,
)


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
    monkeypatch.setenv("KAG_ZETTELKASTEN", "false")
    assert Context().max_tokens == 4096
    assert Context().zettelkasten is False
    assert Context(max_tokens=2048).max_tokens == 2048


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_tokens": 10}, "max_tokens"),
        ({"max_steps": 0}, "max_steps"),
        ({"pressure_threshold": 1.5}, "pressure_threshold"),
        ({"tool_protocol": "xml"}, "tool_protocol"),
        ({"display_window": 1}, "display_window"),
    ],
)
def test_context_validation(kwargs, name):
    with pytest.raises(ConfigError, match=name):
        Context(**kwargs)


def test_context_env_type_errors_name_the_variable(monkeypatch):
    monkeypatch.setenv("KAG_MAX_STEPS", "five")
    with pytest.raises(ConfigError, match="KAG_MAX_STEPS"):
        Context()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("TRUE", True), (" yes ", True), ("on", True), ("0", False), ("Off", False)],
)
def test_one_boolean_parser(raw, expected):
    assert parse_bool("KAG_X", raw) is expected
    assert Settings.from_env({"KAG_TRACE_CONTENT": raw}).trace_content is expected


def test_context_booleans_use_the_settings_parser(monkeypatch):
    monkeypatch.setenv("KAG_ZETTELKASTEN", "off")
    assert Context().zettelkasten is False
    monkeypatch.setenv("KAG_ZETTELKASTEN", "maybe")
    with pytest.raises(ConfigError, match="KAG_ZETTELKASTEN"):
        Context()


def test_checkpoint_and_token_variables_are_settings():
    s = Settings.from_env(
        {"KAG_CHECKPOINT_TTL": "3600", "KAG_CHECKPOINT_PREFIX": "kag:test", "KAG_AUTH_TOKENS_FILE": "t.json"}
    )
    assert (s.checkpoint_ttl, s.checkpoint_prefix, s.auth_tokens_file) == (3600, "kag:test", "t.json")
    assert Settings.from_env({}).checkpoint_ttl is None


def test_checkpoint_history_is_bounded_by_default_and_zero_keeps_all():
    assert Settings.from_env({}).checkpoint_keep == 500
    assert Settings.from_env({"KAG_CHECKPOINT_KEEP": "40"}).checkpoint_keep == 40
    assert Settings.from_env({"KAG_CHECKPOINT_KEEP": "0"}).checkpoint_keep == 0  # the saver gets None


@pytest.mark.parametrize("raw", ["-1", "many", "2.5"])
def test_bad_checkpoint_keep_names_the_variable(raw):
    with pytest.raises(ConfigError) as info:
        Settings.from_env({"KAG_CHECKPOINT_KEEP": raw})
    assert info.value.variable == "KAG_CHECKPOINT_KEEP"


@pytest.mark.parametrize("raw", ["0", "-5", "soon", "1.5"])
def test_bad_checkpoint_ttl_names_the_variable(raw):
    with pytest.raises(ConfigError) as info:
        Settings.from_env({"KAG_CHECKPOINT_TTL": raw})
    assert info.value.variable == "KAG_CHECKPOINT_TTL"


def test_unknown_kag_variables_warn_once(caplog, monkeypatch):
    monkeypatch.setattr(settings_module, "_WARNED", set())
    env = {"KAG_MAX_STEP": "3", "KAG_MAX_STEPS": "3", "KAG_REDIS_URL": "redis://h:1/0", "KAG_NEO4J_PORT": "7"}
    with caplog.at_level(logging.WARNING, logger="kag.settings"):
        Settings.from_env(env)
        Settings.from_env(env)
    warnings = [r.getMessage() for r in caplog.records if r.name == "kag.settings"]
    assert len(warnings) == 1
    assert "KAG_MAX_STEP " in warnings[0] + " "
    assert warn_unknown_variables(env) == ["KAG_MAX_STEP"]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"search_recipe": "hybrid_rfr"}, "search_recipe"),
        ({"search_page_size": 0}, "search_page_size"),
        ({"search_page_size": 51}, "search_page_size"),
        ({"core_section_limit": 0}, "core_section_limit"),
        ({"core_section_limit": 100_001}, "core_section_limit"),
        ({"core_ttl_seconds": 59}, "core_ttl_seconds"),
        ({"core_ttl_seconds": -1}, "core_ttl_seconds"),
        ({"link_top_k": 0}, "link_top_k"),
        ({"link_top_k": 51}, "link_top_k"),
        ({"degree_cap": 0}, "degree_cap"),
        ({"degree_cap": 101}, "degree_cap"),
        ({"link_min_confidence": -0.1}, "link_min_confidence"),
        ({"link_min_confidence": 1.1}, "link_min_confidence"),
        ({"max_tokens": "8192"}, "max_tokens"),
        ({"max_tokens": 8192.0}, "max_tokens"),
        ({"max_tokens": None}, "max_tokens"),
        ({"max_steps": True}, "max_steps"),
        ({"zettelkasten": "yes"}, "zettelkasten"),
        ({"pressure_threshold": "high"}, "pressure_threshold"),
        ({"search_recipe": 3}, "search_recipe"),
        ({"note_tag_vocabulary": "sql"}, "note_tag_vocabulary"),
        ({"note_tag_vocabulary": [1]}, "note_tag_vocabulary"),
        ({"max_step": 3}, "max_step"),
    ],
)
def test_context_rejects_bad_values_naming_the_field(kwargs, name):
    with pytest.raises(ConfigError) as info:
        Context(**kwargs)
    assert info.value.variable == name


def test_context_accepts_edges_and_json_shapes():
    ctx = Context(
        search_recipe="vector_only",
        search_page_size=50,
        core_section_limit=100_000,
        core_ttl_seconds=60,
        link_top_k=1,
        degree_cap=100,
        link_min_confidence=1,
        note_tag_vocabulary=["sql", "joins"],
    )
    assert ctx.link_min_confidence == 1.0 and ctx.note_tag_vocabulary == ("sql", "joins")
    assert Context(core_ttl_seconds=0).core_ttl_seconds == 0
    assert Context(core_ttl_seconds=None).core_ttl_seconds == 0  # no expiry


@pytest.mark.parametrize(
    ("value", "name"), [([1, 2], "context"), ("max_tokens=1", "context"), ({"max_tokens": "x"}, "max_tokens")]
)
def test_context_coerce_names_the_field(value, name):
    with pytest.raises(ConfigError) as info:
        Context.coerce(value)
    assert info.value.variable == name


def test_context_coerce_accepts_none_mappings_and_contexts():
    assert Context.coerce(None) == Context()
    assert Context.coerce({"max_steps": 3}).max_steps == 3
    ctx = Context(max_steps=2)
    assert Context.coerce(ctx) is ctx


def test_context_env_range_errors_name_the_field(monkeypatch):
    monkeypatch.setenv("KAG_SEARCH_PAGE_SIZE", "500")
    with pytest.raises(ConfigError, match="search_page_size"):
        Context()


def test_unknown_variable_warning_suggests_the_close_name(caplog, monkeypatch):
    monkeypatch.setattr(settings_module, "_WARNED", set())
    with caplog.at_level(logging.WARNING, logger="kag.settings"):
        Settings.from_env({"KAG_MAX_STEP": "3"})
    (message,) = [r.getMessage() for r in caplog.records if r.name == "kag.settings"]
    assert "KAG_MAX_STEP " in message and "did you mean KAG_MAX_STEPS?" in message


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"KAG_PRESSURE_THRESHOLD": "70"}, "KAG_PRESSURE_THRESHOLD"),
        ({"KAG_MAX_STEPS": "0"}, "KAG_MAX_STEPS"),
        ({"KAG_MAX_STEPS": "five"}, "KAG_MAX_STEPS"),
        ({"KAG_SEARCH_RECIPE": "hybrid_rfr"}, "KAG_SEARCH_RECIPE"),
        ({"KAG_TOOL_PROTOCOL": "json"}, "KAG_TOOL_PROTOCOL"),
        ({"KAG_ZETTELKASTEN": "maybe"}, "KAG_ZETTELKASTEN"),
    ],
)
def test_bad_context_variables_name_the_variable_not_the_field(env, variable):
    with pytest.raises(ConfigError) as info:
        Settings.from_env(env)
    assert info.value.variable == variable
    assert str(info.value).startswith(f"{variable}: ")


def test_pressure_threshold_error_says_what_it_got():
    with pytest.raises(ConfigError) as info:
        settings_module.check_context_variables({"KAG_PRESSURE_THRESHOLD": "70"})
    assert str(info.value) == "KAG_PRESSURE_THRESHOLD: must be between 0 and 1 (got '70')"


def test_good_context_variables_pass():
    settings_module.check_context_variables({"KAG_PRESSURE_THRESHOLD": "0.8", "KAG_MAX_STEPS": "3"})


def test_env_file_never_overrides_the_environment(tmp_path):
    path = tmp_path / ".env"
    path.write_text(
        "# comment\nKAG_REDIS_URL=redis://file:1/0\nKAG_NEO4J_USER=from-file\n"
        "KAG_MODEL='offline-policy'\nexport LANGSMITH_PROJECT=file-project\nKAG_EMPTY_IN_SHELL=file\n"
    )
    environ = {"KAG_REDIS_URL": "redis://shell:2/0", "KAG_EMPTY_IN_SHELL": ""}
    applied = settings_module.load_env_file(path, environ)
    assert applied == {
        "KAG_NEO4J_USER": "from-file",
        "KAG_MODEL": "offline-policy",
        "LANGSMITH_PROJECT": "file-project",
    }
    assert environ["KAG_REDIS_URL"] == "redis://shell:2/0"  # the shell wins
    assert environ["KAG_EMPTY_IN_SHELL"] == ""  # set (even empty) means set
    settings = Settings.from_env(environ)
    assert settings.redis_url == "redis://shell:2/0" and settings.neo4j_user == "from-file"


def test_missing_env_file_is_fine(tmp_path):
    environ: dict[str, str] = {}
    assert settings_module.load_env_file(tmp_path / "absent.env", environ) == {}
    assert environ == {}


def test_env_file_fills_os_environ_only_where_unset(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("KAG_CHECKPOINT_PREFIX=file-prefix\nKAG_NEO4J_DATABASE=filedb\n")
    monkeypatch.chdir(tmp_path)
    for var in ("KAG_CHECKPOINT_PREFIX", "KAG_NEO4J_DATABASE"):
        monkeypatch.setenv(var, "placeholder")  # record the original state for the undo
    monkeypatch.delenv("KAG_CHECKPOINT_PREFIX")
    monkeypatch.setenv("KAG_NEO4J_DATABASE", "shelldb")
    settings_module.load_env_file()
    settings = Settings.from_env()
    assert settings.checkpoint_prefix == "file-prefix"
    assert settings.neo4j_database == "shelldb"
