"""Tracing sends nothing when off, and hides content and learner ids when on.

A local HTTP server stands in for LangSmith (LANGSMITH_ENDPOINT points at it) and
records every request, so "nothing was sent" is measured, not assumed. The
positive control (tracing on, same call) proves the check can fail.
"""

import http.server
import json
import os
import subprocess
import sys
import threading
import time

import langsmith
import pytest
from langchain_core.callbacks import CallbackManager
from langchain_core.messages import HumanMessage
from langchain_core.tracers.langchain import LangChainTracer, wait_for_all_tracers
from langgraph.constants import TAG_NOSTREAM

from agent import tracing
from agent.models.offline_policy import OfflinePolicyModel
from agent.resources import Resources
from agent.settings import Settings
from agent.validation import learner_hash

SECRET = "my secret is zebra-42"
LEARNER = "learner-tracing-ada"


class Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[tuple[str, str, bytes]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        Recorder.requests.append((self.command, self.path, body))
        payload = b"{}"
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = _answer  # noqa: N815 - http.server's method names

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def fake_langsmith(monkeypatch):
    """A recording LangSmith endpoint; the process environment says 'trace' (as a stray shell might)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Recorder.requests = []
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test-key")
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    yield url
    tracing._INSTALLED.clear()
    langsmith.configure(client=None, enabled=False)
    server.shutdown()


def settings(url: str, *, on: bool, content: bool = False) -> Settings:
    env = {"LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "lsv2-test-key"}
    return Settings.from_env(env, langsmith_tracing=on, trace_content=content)


def traced_call(client: langsmith.Client | None) -> None:
    config = tracing.trace_config(LEARNER, "think", 1)
    config["metadata"]["owner"] = LEARNER
    OfflinePolicyModel().invoke([HumanMessage(content=SECRET)], config)
    wait_for_all_tracers()
    if client is not None:
        client.flush()


def ingested(deadline_s: float = 3.0) -> list[tuple[str, str, bytes]]:
    """Run-ingest requests received (waits up to ``deadline_s`` for late batches)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        runs = [r for r in Recorder.requests if "/runs" in r[1]]
        if runs:
            return runs
        time.sleep(0.1)
    return []


def tracers() -> list[object]:
    return [h for h in CallbackManager.configure().handlers if isinstance(h, LangChainTracer)]


def test_nothing_is_sent_when_tracing_is_off(fake_langsmith):
    client = tracing.configure_tracing(settings(fake_langsmith, on=False))
    assert client is None
    assert tracers() == []
    traced_call(client)
    assert ingested() == []
    assert Recorder.requests == []


def test_tracing_on_sends_hashes_not_content(fake_langsmith):
    client = tracing.configure_tracing(settings(fake_langsmith, on=True))
    assert client is not None
    assert tracers(), "tracing on must install a LangChainTracer"
    traced_call(client)
    runs = ingested()
    assert runs, "the positive control sent nothing: the off-test would prove nothing"
    sent = b"".join(body for _, _, body in runs)
    assert learner_hash(LEARNER).encode() in sent
    assert b'"phase"' in sent and b'"think"' in sent
    assert SECRET.encode() not in sent
    assert LEARNER.encode() not in sent


def test_trace_content_flag_sends_messages(fake_langsmith):
    client = tracing.configure_tracing(settings(fake_langsmith, on=True, content=True))
    traced_call(client)
    sent = b"".join(body for _, _, body in ingested())
    assert SECRET.encode() in sent
    assert LEARNER.encode() not in sent, "learner ids in metadata are hashed even with content on"


def test_metadata_scrub_and_trace_config():
    scrubbed = tracing.scrub_metadata({"owner": "ada", "user_id": "ada", "thread_id": "t-1", "step": 2})
    hashed = learner_hash("ada")
    assert scrubbed == {"owner": hashed, "user_id": hashed, "thread_id": "t-1", "step": 2}
    config = tracing.trace_config("ada", "act", 3)
    assert config["metadata"] == {"learner_hash": learner_hash("ada"), "phase": "act", "step": 3}
    assert config["tags"] == ["kag", "kag:act", TAG_NOSTREAM], "internal calls never stream to a client"
    assert json.dumps(config).find('"ada"') == -1


IMPORT_PROBE = """
import langsmith
calls = []
langsmith.configure = lambda **kwargs: calls.append(kwargs)
import graphs.heartbeat, graphs.zettelkasten, agent.server.auth, agent.server.checkpointer
from agent import tracing
from agent.server.auth import auth
assert auth is not None
assert not calls and not tracing._INSTALLED, calls
print("clean")
"""


def test_importing_graphs_and_server_configures_no_tracing():
    env = {**os.environ, "LANGSMITH_TRACING": "false", "KAG_AUTH_TOKENS": "bad"}  # a bad table is not read
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "clean"


def test_building_resources_configures_tracing(fake_langsmith):
    resources = Resources(settings(fake_langsmith, on=False))
    assert resources.settings in tracing._INSTALLED
    assert tracing._INSTALLED[resources.settings] is None
