"""A private Neo4j that tests stop and restart (degraded mode), shared by one test session.

The shared Neo4j other tests use is never touched: this one runs on port 7697 in a
fresh directory under /tmp and is started once per session (``private_neo4j`` in
``tests/integration/conftest.py``); each outage test stops and restarts it.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

from neo4j.auth_management import AsyncAuthManager

ROOT = Path(__file__).resolve().parents[2]
PORT = 7697


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
        self.uri = f"bolt://127.0.0.1:{PORT}"

    def _script(self, action: str) -> None:
        env = {
            **os.environ,
            "KAG_NEO4J_PORT": str(PORT),
            "KAG_SERVICES_DIR": str(self.dir),
            "KAG_NEO4J_PASSWORD": self.password,
        }
        subprocess.run(
            ["bash", str(ROOT / "scripts/services.sh"), action, "neo4j"],
            env=env,
            check=True,
            capture_output=True,
            timeout=180,
        )

    def up(self) -> None:
        """Start (or restart over the same data)."""
        self.starts += 1
        self.password = f"kag-private-{self.starts}-password"
        self._script("up")

    def down(self) -> None:
        """Stop by PID."""
        self._script("down")


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
