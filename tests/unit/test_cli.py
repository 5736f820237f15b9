"""The ``kag`` CLI without services: fast help, argument parsing, chat/ask wiring, note export, eval."""

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from graphs import cli
from graphs.cli import common, memory, serve, session

KAG = Path(sys.executable).with_name("kag")

PROBE = """
import sys
import graphs.cli
heavy = ("bench", "neo4j", "redis", "langchain_core", "langgraph", "rich", "dotenv", "agent.resources")
heavy = sorted(m for m in heavy if m in sys.modules)
print(",".join(heavy))
"""


def test_importing_the_cli_imports_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


READ_COMMANDS_PROBE = """
import asyncio, sys
from agent import tracing
from agent.memory.archival import ArchivalStore
from agent.memory.core import CoreMemoryStore
from agent.resources import Resources
from agent.search.results import SearchPage
from agent.settings import Settings
from graphs.cli import main, memory

async def no_hits(self, learner_id, query, *, page, page_size, recipe=None):
    return SearchPage([], page, page_size, recipe or "")

async def no_sections(self, learner_id, **_):
    return {"user_profile": ""}

ArchivalStore.search = no_hits
CoreMemoryStore.read = no_sections
memory.run = lambda work, **_: asyncio.run(work(Settings.from_env({})))  # no services in a unit test
assert main(["search", "SQL joins", "--learner", "probe"]) == 0
assert main(["memory", "show", "--learner", "probe"]) == 0
loaded = ("sklearn", "dateparser", "agent.memory.facts", "agent.memory.reminders", "langsmith.run_trees")
print("loaded:" + ",".join(sorted(m for m in loaded if m in sys.modules)))
settings = Settings.from_env({})
bundle = Resources(settings, tracing=False)
before = settings in tracing._INSTALLED
bundle.chat_model
print(f"tracing configured: before the model {before}, after {settings in tracing._INSTALLED}")
"""


def test_search_and_memory_show_load_only_what_they_read():
    # kag search reads archival and recall memory, kag memory show core memory: neither builds the
    # fact or reminder stores (scikit-learn, dateparser) nor configures LangSmith (its run trees);
    # a bundle that skipped tracing still configures it before its chat model exists.
    done = subprocess.run(
        [sys.executable, "-c", READ_COMMANDS_PROBE], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-2] == "loaded:", lines
    assert lines[-1] == "tracing configured: before the model False, after True"


def test_kag_help_lists_every_command():
    # Fast help is the import probe's job above (no clock here: speed lives in bench/).
    assert KAG.exists(), "the kag console script is not installed in this venv"
    done = subprocess.run([str(KAG), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for command in ("chat", "ask", "memory", "notes", "search", "smoke", "demo", "eval", "serve", "erase"):
        assert command in done.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["ask"],  # QUESTION is required
        ["search", "q", "--kind", "everything"],
        ["search", "q", "--limit", "0"],
        ["memory", "edit", "user_profile"],  # TEXT is required
        ["notes", "show"],
        ["nope"],
    ],
)
def test_bad_arguments_are_usage_errors(argv, capsys):
    assert cli.main(argv) == 2
    assert "Usage:" in capsys.readouterr().err


class FakeGraph:
    """Records each request and answers like the heartbeat's output schema."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict, dict]] = []

        self.updates: list[tuple[dict, str]] = []

    async def aget_state(self, config):
        return SimpleNamespace(values={"fifo_queue": ["a message"] if self.calls else [], "context": {}})

    async def aupdate_state(self, config, values, as_node):
        self.updates.append((values, as_node))
        return config

    async def astream(self, payload, config, context, stream_mode):
        artifacts = [{"note_id": "note_1", "content": "joins: combine rows", "tags": ["sql"], "links": []}]
        if payload is None:  # resumed after /end: only the notes step runs, no request
            yield {"artifacts": artifacts, "memory_state": {}}
            return
        self.calls.append((payload, config))
        yield "custom", {"phase": "think", "step": 1}
        if not payload["context"]["end_session"]:
            artifacts = []
        yield "values", {"response": f"echo {payload['request']}", "artifacts": artifacts, "memory_state": {}}


@pytest.fixture
def fake_heartbeat(monkeypatch):
    graph = FakeGraph()

    @asynccontextmanager
    async def heartbeat(settings):
        yield graph

    def run(work, **_):
        import asyncio

        return asyncio.run(work(None))

    monkeypatch.setattr(session, "heartbeat", heartbeat)
    monkeypatch.setattr(session, "run", run)
    return graph


def test_ask_passes_concept_thread_learner_and_end_session(fake_heartbeat):
    argv = [
        "ask",
        "What is a join?",
        "--concept",
        "sql.joins",
        "--end-session",
        "--learner",
        "ada",
        "--thread",
        "t1",
    ]
    result = CliRunner().invoke(cli.cli, argv)
    assert result.exit_code == 0, result.output
    payload, config = fake_heartbeat.calls[0]
    assert payload == {
        "learner_id": "ada",
        "request": "What is a join?",
        "context": {"session_id": "t1", "end_session": True, "current_concept": "sql.joins"},
    }
    # the learner owns the thread's checkpoints, so ``kag erase`` finds them (agent.checkpoint.erase)
    assert config == {"configurable": {"thread_id": "t1", "langgraph_auth_user_id": "ada"}}
    assert json.loads(result.output[result.output.index("{\n") :])["response"] == "echo What is a join?"


def test_ask_defaults_no_concept_and_the_learner_thread(fake_heartbeat):
    assert CliRunner().invoke(cli.cli, ["ask", "hi"]).exit_code == 0
    payload, config = fake_heartbeat.calls[0]
    assert payload["learner_id"] == common.DEFAULT_LEARNER
    assert "current_concept" not in payload["context"] and payload["context"]["end_session"] is False
    assert config["configurable"]["thread_id"] == common.DEFAULT_LEARNER


def test_chat_reads_stdin_and_end_closes_the_session(fake_heartbeat):
    text = "hello there\n\n/bogus\nsecond\n/end\nnever sent\n"
    result = CliRunner().invoke(cli.cli, ["chat", "--learner", "ada", "--thread", "t9"], input=text)
    assert result.exit_code == 0, result.output
    requests = [(p["request"], p["context"]["end_session"]) for p, _ in fake_heartbeat.calls]
    # /end adds no learner line: the session closes by marking the last answer's context
    assert requests == [("hello there", False), ("second", False)]
    assert fake_heartbeat.updates == [({"context": {"session_id": "t9", "end_session": True}}, "think")]
    assert {c["configurable"]["thread_id"] for _, c in fake_heartbeat.calls} == {"t9"}
    assert "kag> echo hello there" in result.output
    assert "unknown command /bogus" in result.output
    assert "1 note(s) written" in result.output and "- joins  [sql]" in result.output


def test_end_of_an_empty_session_says_so(fake_heartbeat):
    result = CliRunner().invoke(cli.cli, ["chat"], input="/end\n")
    assert result.exit_code == 0, result.output
    assert fake_heartbeat.calls == [] and fake_heartbeat.updates == []
    assert "nothing to close" in result.output


def test_chat_quit_leaves_without_ending(fake_heartbeat):
    result = CliRunner().invoke(cli.cli, ["chat"], input="one\n/quit\ntwo\n")
    assert result.exit_code == 0, result.output
    assert [p["request"] for p, _ in fake_heartbeat.calls] == ["one"]
    thread = fake_heartbeat.calls[0][1]["configurable"]["thread_id"]
    assert thread.startswith(f"{common.DEFAULT_LEARNER}-")


def test_end_with_text_sends_that_text(fake_heartbeat):
    result = CliRunner().invoke(cli.cli, ["chat", "--concept", "sql.joins"], input="/end thanks, bye\n")
    assert result.exit_code == 0, result.output
    payload, _ = fake_heartbeat.calls[0]
    assert payload["request"] == "thanks, bye"
    assert payload["context"]["end_session"] is True and payload["context"]["current_concept"] == "sql.joins"


def test_format_sections_and_hits():
    assert memory.format_sections({"user_profile": "", "goals": "a\nb"}) == [
        "[user_profile]",
        "  (empty)",
        "[goals]",
        "  a",
        "  b",
    ]
    page = {"results": [{"score": 0.5, "kind": "memory", "text": "locker\n4711", "metadata": {}}]}
    assert memory.format_hits(page)[1] == "    locker 4711"
    assert memory.format_hits({"results": []}) == ["nothing found"]


SAID = {
    "text": "7:56 pm on 28 November, 2026. My locker code is 4711. (replying to Hello there.)",
    "score": 0.0163,
    "kind": "turn_context",
    "created_at": "2026-11-28T19:56:53+00:00",
    "metadata": {"session_id": "ada-1f2e3d4c"},
}


def test_search_shows_what_was_said_when_and_in_which_session():
    page = {
        "results": [
            SAID,
            {**SAID, "kind": "fact", "text": "My locker code is 4711.", "metadata": {}},  # the same words
            {**SAID, "text": '{"status": "ok", "results": [{"id": 3}]}', "kind": "message"},
            {**SAID, "text": "[calls remember_fact({'content': 'x'})]", "metadata": {"role": "assistant"}},
            {
                **SAID,
                "text": "A left join keeps every row.",
                "created_at": "2026-11-29T08:00:00+00:00",
                "metadata": {"session_id": "ada-99", "role": "user"},
            },
        ]
    }
    lines = memory.format_hits(page)
    assert lines == [
        " 1. you said at 19:56 · session of 28 Nov 2026",
        "    My locker code is 4711.",
        " 2. you said at 08:00 · session of 29 Nov 2026",
        "    A left join keeps every row.",
    ]
    verbose = memory.format_hits(page, verbose=True)
    assert "turn_context 0.016 ada-1f2e3d4c" in verbose[0]
    assert not any("0.016" in line or "turn_context" in line for line in lines)


def test_bad_setting_is_one_line_naming_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("KAG_PRESSURE_THRESHOLD", "70")
    assert cli.main(["memory", "show"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: KAG_PRESSURE_THRESHOLD: must be between 0 and 1 (got '70')"


def test_serve_loads_env_file_without_overriding_then_execs_langgraph(monkeypatch, tmp_path):
    (tmp_path / ".env").write_text("KAG_CHECKPOINT_PREFIX=from-file\nKAG_REDIS_URL=redis://file:1/0\n")
    monkeypatch.chdir(tmp_path)
    for var, value in (("KAG_CHECKPOINT_PREFIX", "x"), ("KAG_REDIS_URL", "redis://shell:2/0")):
        monkeypatch.setenv(var, value)  # recorded, so the test restores the original state
    monkeypatch.delenv("KAG_CHECKPOINT_PREFIX")
    seen = {}

    def fake_execv(path, argv):
        seen.update(path=path, argv=argv, env=dict(os.environ))
        raise SystemExit(0)

    monkeypatch.setattr(serve.os, "execv", fake_execv)
    monkeypatch.setattr(serve.os, "chdir", lambda path: seen.update(cwd=path))
    monkeypatch.delenv("KAG_PROJECT_DIR", raising=False)
    with pytest.raises(SystemExit):
        cli.main(["serve", "--no-browser", "--port", "2999"])
    repo = Path(__file__).resolve().parents[2]
    assert seen["argv"][1:] == [
        "dev",
        "--config",
        str(repo / "langgraph.json"),
        "--port",
        "2999",
        "--no-browser",
    ]
    assert Path(seen["path"]).name == "langgraph" and seen["cwd"] == repo
    assert seen["env"]["LOG_COLOR"] == "false"  # stdout is not a terminal under pytest
    assert seen["env"]["KAG_CHECKPOINT_PREFIX"] == "from-file"
    assert seen["env"]["KAG_REDIS_URL"] == "redis://shell:2/0"


def test_serve_help_describes_kag_serve():
    result = CliRunner().invoke(cli.cli, ["serve", "--help"])
    assert result.exit_code == 0
    assert "serve [OPTIONS] [EXTRA]" in result.output and "Serve the tutor's graphs" in result.output
    assert "KAG_PROJECT_DIR" in result.output and "langgraph dev [OPTIONS]" not in result.output


def test_serve_finds_the_project_from_anywhere(tmp_path):
    project = tmp_path / "kag"
    (project / "deep" / "er").mkdir(parents=True)
    (project / "langgraph.json").write_text('{"graphs": {"kag": {"path": "x.py:graph"}}}')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert serve.find_project(project / "deep" / "er", {}, elsewhere) == project
    assert serve.find_project(elsewhere, {"KAG_PROJECT_DIR": str(project)}, elsewhere) == project.resolve()
    assert serve.find_project(elsewhere, {}, project) == project  # the installed source
    (elsewhere / "langgraph.json").write_text('{"graphs": {"other": {}}}')  # not KAG's
    with pytest.raises(common.ExpectedFailure) as missing:
        serve.find_project(elsewhere, {}, elsewhere)
    assert "KAG_PROJECT_DIR" in str(missing.value.message) and "\n" not in missing.value.message
    with pytest.raises(common.ExpectedFailure, match="KAG_PROJECT_DIR="):
        serve.find_project(elsewhere, {"KAG_PROJECT_DIR": str(elsewhere)}, project)


def test_serve_logs_are_colourless_off_a_terminal():
    assert serve.colour_environment({}, tty=True) == {}
    assert serve.colour_environment({}, tty=False) == {"LOG_COLOR": "false", "NO_COLOR": "1"}
    assert serve.colour_environment({"NO_COLOR": "yes"}, tty=True)["LOG_COLOR"] == "false"


def test_langgraph_json_names_no_env_file():
    config = json.loads((Path(__file__).resolve().parents[2] / "langgraph.json").read_text())
    assert "env" not in config  # langgraph_api would let the file override the shell


@pytest.mark.parametrize(("name", "module"), [("locomo", "bench.locomo"), ("ablations", "bench.ablations")])
def test_eval_hands_the_arguments_to_the_bench_module(monkeypatch, name, module):
    seen = {}

    def fake_run_module(mod: str, run_name: str, alter_sys: bool) -> None:
        seen.update(module=mod, run_name=run_name, argv=sys.argv[:])
        raise SystemExit(3)

    monkeypatch.setattr(cli.runpy, "run_module", fake_run_module)
    argv = sys.argv[:]
    assert cli.main(["eval", name, "--small", "x", "--help"]) == 3
    assert seen == {
        "module": module,
        "run_name": "__main__",
        "argv": [f"python -m {module}", "--small", "x", "--help"],
    }
    assert sys.argv == argv


def test_eval_without_the_bench_package_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_bench_available", lambda module: False)
    assert cli.main(["eval", "locomo"]) == 2
    assert "source checkout" in capsys.readouterr().err
