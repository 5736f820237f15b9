"""A real ``langgraph dev`` server for end-to-end tests: start, restart, stop, clean up.

The server runs from a temporary working directory (its ``.langgraph_api/`` ops
file lands there, never in the repository) with a copy of the repository's
``langgraph.json`` whose paths are made absolute and whose ``env`` is inlined,
so a developer's ``.env`` cannot change what the tests see. Its checkpoints go
to the real Redis under a unique ``KAG_CHECKPOINT_PREFIX``; two learners get
bearer tokens through ``KAG_AUTH_TOKENS``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from agent.memory.erasure import erase_learner
from agent.resources import Resources

REPO = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")
STARTUP_TIMEOUT_S = 180.0
LOG_TAIL_CHARS = 6000


def free_port() -> int:
    """A TCP port on loopback that nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_config(workdir: Path) -> Path:
    """The repository's ``langgraph.json`` with absolute paths and no env file."""
    config = json.loads((REPO / "langgraph.json").read_text())

    def absolute(spec: str) -> str:
        path, _, attr = spec.rpartition(":")
        return f"{(REPO / path).resolve()}:{attr}"

    config["graphs"] = {
        name: {**spec, "path": absolute(spec["path"])} if isinstance(spec, dict) else absolute(spec)
        for name, spec in config["graphs"].items()
    }
    config["checkpointer"]["path"] = absolute(config["checkpointer"]["path"])
    config["auth"]["path"] = absolute(config["auth"]["path"])
    if "app" in config.get("http", {}):
        config["http"]["app"] = absolute(config["http"]["app"])
    config["dependencies"] = [str(REPO)]
    config["env"] = {}
    target = workdir / "langgraph.json"
    target.write_text(json.dumps(config, indent=2))
    return target


@dataclass
class Learner:
    """A learner the server knows, with its bearer token."""

    learner_id: str
    token: str

    def client(self, url: str) -> LangGraphClient:
        """The official SDK client, authenticated as this learner."""
        return get_client(url=url, headers={"Authorization": f"Bearer {self.token}"})


@dataclass
class DevServer:
    """One ``langgraph dev`` process (restartable) and what the tests need to reach it."""

    workdir: Path
    port: int = field(default_factory=free_port)
    prefix: str = field(default_factory=lambda: f"kag-e2e-{uuid.uuid4().hex[:10]}")
    learners: dict[str, Learner] = field(default_factory=dict)
    extra_env: dict[str, str] = field(default_factory=dict)
    """Variables a test module adds to (or overrides in) the server's environment."""
    proc: subprocess.Popen | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        """Base URL of the API."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        """Where stdout and stderr of every start go."""
        return self.workdir / "server.log"

    def environment(self) -> dict[str, str]:
        """The process environment: offline model, our tokens, our checkpoint prefix."""
        env = {k: v for k, v in os.environ.items() if k not in {"GOOGLE_API_KEY", "KAG_MODEL"}}
        env.update(
            KAG_AUTH_TOKENS=",".join(f"{lr.token}:{lr.learner_id}" for lr in self.learners.values()),
            KAG_CHECKPOINT_PREFIX=self.prefix,
            LANGSMITH_TRACING="false",
            LANGGRAPH_CLI_NO_ANALYTICS="1",
            LANGGRAPH_NO_VERSION_CHECK="true",
            PYTHONUNBUFFERED="1",
            # Reflection crons fire at 00:00 UTC only: a test's footprint check must not race one.
            KAG_REFLECTION_INTERVAL_SECONDS="86400",
            # No kernel worker by default: a long-lived test server must not drain the streams of
            # tests running meanwhile (they drain on demand). The kernel's own tests turn it on.
            KAG_KERNEL_IN_SERVER="false",
        )
        env.pop("KAG_AUTH_TOKENS_FILE", None)
        return {**env, **self.extra_env}

    def start(self) -> None:
        """Start the server and wait until ``/ok`` answers (fails with the log tail)."""
        config = server_config(self.workdir)
        args = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--config", str(config)]
        self.starts += 1
        with self.log_path.open("a") as log:
            log.write(f"\n===== start {self.starts}: {' '.join(args)}\n")
            log.flush()
            self.proc = subprocess.Popen(
                args,
                cwd=self.workdir,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited with {self.proc.returncode}\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"langgraph dev did not answer /ok in {STARTUP_TIMEOUT_S:.0f}s\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the server we started (SIGTERM to its own process group, then SIGKILL)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        """Stop, then start on the same port and working directory."""
        self.stop()
        self.start()

    def log_tail(self) -> str:
        """The last part of the server log."""
        if not self.log_path.exists():
            return "(no server log)"
        return self.log_path.read_text(errors="replace")[-LOG_TAIL_CHARS:]


@asynccontextmanager
async def serving(
    dev: DevServer, resources: Resources, *, also_erase: Iterable[str] = ()
) -> AsyncIterator[DevServer]:
    """Run ``dev`` for a test module; afterwards remove its checkpoint keys and erase its learners."""
    await asyncio.to_thread(dev.start)
    try:
        yield dev
    finally:
        await asyncio.to_thread(dev.stop)
        keys = [k async for k in resources.redis.scan_iter(match=f"{dev.prefix}:*", count=1000)]
        if keys:
            await resources.redis.delete(*keys)
        for learner_id in [*(lr.learner_id for lr in dev.learners.values()), *also_erase]:
            await erase_learner(resources, learner_id)
