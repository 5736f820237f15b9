"""KAG's production server for end-to-end tests and ``bench.serving``: start, kill a worker, stop.

``agent.server.production`` (stock langgraph-api on ``langgraph-runtime-pg``) runs from the
serving venv (``.venv-prod``, ``make serve-prod-install``) on the PostgreSQL of
``scripts/serve-prod.sh pg-up``, with the same tokens, checkpoint prefix and environment as
the development server of ``tests.integration.langgraph_server``. Each server gets a database
of its own (kept by ``stop``, so ``restart`` finds its records; dropped by ``discard``), so run
records of one test never meet another's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.integration.langgraph_server import REPO, STARTUP_TIMEOUT_S, DevServer, server_config

PROD_VENV = Path(os.environ.get("KAG_PROD_VENV", REPO / ".venv-prod"))
SERVE_PROD = REPO / "scripts" / "serve-prod.sh"
PG_PORT = os.environ.get("KAG_PG_PORT", "5433")
PG_PASSWORD = os.environ.get("KAG_PG_PASSWORD", "kag-dev-password")
# A worker that dies is noticed when its runs' heartbeats expire; the default (120 s) makes
# a test wait minutes, the runtime sweeps every two heartbeats. A live run's heartbeat is a
# task on its worker's event loop: a loop held longer than two heartbeats (a turn's encodes
# on a starved machine) lets the sweep queue a *running* run again, so a load keeps the
# production default (``ProdServer(heartbeat=None)``).
HEARTBEAT_S = 5


def prod_available() -> str | None:
    """Why the production server cannot start here, or None when it can."""
    python = PROD_VENV / "bin" / "python"
    if not python.exists():
        return f"no serving venv at {PROD_VENV} (make serve-prod-install)"
    probe = subprocess.run([str(python), "-c", "import langgraph_runtime_pg"], capture_output=True)
    return None if probe.returncode == 0 else "langgraph-runtime-pg is not installed in the serving venv"


def psql(sql: str, database: str = "postgres") -> str:
    """Run SQL as the serving cluster's owner (``scripts/serve-prod.sh`` made it); rows as ``a|b`` lines."""
    bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    where = ["-h", "127.0.0.1", "-p", PG_PORT, "-U", "kag", "-d", database]
    done = subprocess.run(
        [str(bindir / "psql"), "-q", "-tA", "-v", "ON_ERROR_STOP=1", *where, "-c", sql],
        env={**os.environ, "PGPASSWORD": PG_PASSWORD},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def postgres_hits(database: str, needles: list[str]) -> dict[str, list[str]]:
    """For each needle, the tables of ``database`` with a row whose text holds it (every column)."""
    tables = psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", database).split()
    hits: dict[str, list[str]] = {needle: [] for needle in needles}
    for table in tables:
        for needle in needles:
            literal = needle.replace("'", "''")
            found = psql(f"SELECT count(*) FROM {table} t WHERE strpos(t::text, '{literal}') > 0", database)
            if int(found.strip()):
                hits[needle].append(table)
    return hits


@dataclass
class ProdServer(DevServer):
    """``agent.server.production`` with ``workers`` processes, each running ``jobs`` runs at once."""

    workers: int = 2
    jobs: int = 4
    heartbeat: int | None = HEARTBEAT_S
    """``LG_BG_JOB_HEARTBEAT`` seconds; None keeps the runtime's default (120 s)."""
    database: str = field(default_factory=lambda: f"kag_e2e_{uuid.uuid4().hex[:10]}")

    def environment(self) -> dict[str, str]:
        """The development server's environment plus the runtime's Postgres and Redis."""
        env = super().environment()
        if "LG_BG_JOB_HEARTBEAT" not in self.extra_env:  # the shell's never counts
            env.pop("LG_BG_JOB_HEARTBEAT", None)
            if self.heartbeat is not None:
                env["LG_BG_JOB_HEARTBEAT"] = str(self.heartbeat)
        return {
            **env,
            "DATABASE_URI": f"postgresql://kag:{PG_PASSWORD}@127.0.0.1:{PG_PORT}/{self.database}",
            # the runtime's queue and streams; KAG's checkpoints stay on KAG_REDIS_URL's database
            "REDIS_URI": os.environ.get("KAG_PROD_REDIS_URI", "redis://127.0.0.1:6379/1"),
        }

    def start(self) -> None:
        """PostgreSQL up, a fresh database, then the server; wait until ``/ok`` answers."""
        subprocess.run(["bash", str(SERVE_PROD), "pg-up"], check=True, capture_output=True)
        if self.starts == 0:
            psql(f"CREATE DATABASE {self.database}")
        config = server_config(self.workdir)
        args = [str(PROD_VENV / "bin" / "python"), "-m", "agent.server.production", "--config", str(config)]
        args += ["--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--workers", str(self.workers), "--jobs-per-worker", str(self.jobs)]
        self.starts += 1
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("a") as log:
            log.write(f"\n===== start {self.starts}: {' '.join(args)}\n")
            log.flush()
            self.proc = subprocess.Popen(
                args, cwd=self.workdir, env=self.environment(), stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + STARTUP_TIMEOUT_S * 4  # the parent, then each worker, loads KAG
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the production server exited with {self.proc.returncode}\n{self.log_tail()}"
                )
            if self.answers() and self.started_workers(offset) >= self.workers:
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the production server did not answer /ok in time\n{self.log_tail()}")

    def answers(self) -> bool:
        """Whether ``/ok`` answers 200."""
        try:
            with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def started_workers(self, offset: int = 0) -> int:
        """How many worker processes finished their start-up since ``offset`` of the log."""
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().count(b"Application started up in")  # langgraph-api, once per worker

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (children of the supervisor that run the app)."""
        if self.proc is None or self.workers == 1:
            return [self.proc.pid] if self.proc is not None else []
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        pids = [int(p) for p in children.read_text().split()] if children.exists() else []
        return [pid for pid in pids if b"resource_tracker" not in _cmdline(pid)]

    def kill_worker(self) -> int:
        """``kill -9`` one worker process (the supervisor starts a new one); its pid."""
        pid = self.worker_pids()[0]
        os.kill(pid, signal.SIGKILL)
        return pid

    def discard(self) -> None:
        """Stop the server, then drop its database."""
        self.stop()
        psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
