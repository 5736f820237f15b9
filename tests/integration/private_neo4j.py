"""A private Neo4j that tests stop and restart (degraded mode), shared by one test session.

The shared Neo4j other tests use is never touched: this one runs on a free loopback port
in a fresh directory under /tmp and is started once per session (``private_neo4j`` in
``tests/service_fixtures.py``); each outage test stops and restarts it. The port is free,
not fixed, so two test sessions on one machine (two checkouts, two developers) never meet.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from pathlib import Path

from neo4j.auth_management import AsyncAuthManager

ROOT = Path(__file__).resolve().parents[2]
START_GRACE_S = 240.0
"""How much longer than the script's 120 s a start that is still under way may take."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateNeo4j:
    """A Neo4j of our own in a fresh directory, started and stopped by the services script.

    The launcher re-applies the password at every start and Neo4j refuses to "change"
    it to the same value, so a restart over existing data needs a new password: each
    start rotates it and the driver's auth manager follows (password rotation support).
    """

    def __init__(self) -> None:
        """Use a fresh services dir under /tmp/kag-n4j-private."""
        self.dir = Path("/tmp/kag-n4j-private") / f"run-{uuid.uuid4().hex[:8]}"
        self.starts = 0
        self.password = ""
        self.port = _free_port()
        self.uri = f"bolt://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        """The Neo4j log ``scripts/services.sh`` writes for this server."""
        return self.dir / f"neo4j-{self.port}" / "neo4j.log"

    def _script(self, action: str) -> subprocess.CompletedProcess:
        env = {
            **os.environ,
            "KAG_NEO4J_PORT": str(self.port),
            "KAG_SERVICES_DIR": str(self.dir),
            "KAG_NEO4J_PASSWORD": self.password,
        }
        return subprocess.run(
            ["bash", str(ROOT / "scripts/services.sh"), action, "neo4j"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )

    def _ready(self) -> bool:
        """The launcher said it is ready and Bolt accepts a connection."""
        if not self.log_path.exists() or "KAG_NEO4J_READY" not in self.log_path.read_text(errors="replace"):
            return False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2.0):
                return True
        except OSError:
            return False

    def up(self) -> None:
        """Start (or restart over the same data); fails with the script's output and the log's tail.

        The script waits 120 s for Bolt; a JVM on a loaded machine (two cores, several test
        sessions) can need longer, so a start that is still under way gets ``START_GRACE_S``
        more before it counts as failed. A failed start is stopped, never left running.
        """
        self.starts += 1
        self.password = f"kag-private-{self.starts}-password"
        done = self._script("up")
        if done.returncode == 0:
            return
        deadline = time.monotonic() + START_GRACE_S
        still_starting = "did not answer Bolt" in done.stderr
        while still_starting and time.monotonic() < deadline:
            if self._ready():
                return
            time.sleep(1.0)
        self._script("down")
        tail = self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""
        raise RuntimeError(
            f"private Neo4j on port {self.port} did not start:\n{done.stdout}{done.stderr}\n{tail}"
        )

    def down(self) -> None:
        """Stop by PID."""
        done = self._script("down")
        if done.returncode != 0:
            raise RuntimeError(f"private Neo4j on port {self.port} did not stop:\n{done.stdout}{done.stderr}")


class CurrentPassword(AsyncAuthManager):
    """Hands the driver the server's current password on every connection."""

    def __init__(self, server: PrivateNeo4j) -> None:
        """Follow ``server.password``."""
        self.server = server

    async def get_auth(self) -> tuple[str, str]:
        """The password of the running server."""
        return ("neo4j", self.server.password)

    async def handle_security_exception(self, auth: object, error: object) -> bool:
        """Nothing cached, so nothing to refresh."""
        return False
