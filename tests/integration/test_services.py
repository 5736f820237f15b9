"""The real services answer: write, read and clean up in Neo4j and Redis."""

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from agent.resources import Resources


async def test_neo4j_roundtrip(resources: Resources):
    marker = f"probe-{uuid.uuid4()}"
    driver = resources.neo4j
    await driver.execute_query("CREATE (:KagProbe {id: $id, n: 41})", id=marker, database_=resources.database)
    records, _, _ = await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) SET p.n = p.n + 1 RETURN p.n AS n",
        id=marker,
        database_=resources.database,
    )
    assert records[0]["n"] == 42
    await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) DELETE p", id=marker, database_=resources.database
    )
    records, _, _ = await driver.execute_query(
        "MATCH (p:KagProbe {id: $id}) RETURN count(p) AS c", id=marker, database_=resources.database
    )
    assert records[0]["c"] == 0


async def test_neo4j_is_526_community(resources: Resources):
    records, _, _ = await resources.neo4j.execute_query(
        "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition AS e"
    )
    assert records[0]["v"].startswith("5.26")
    assert records[0]["e"] == "community"


async def test_redis_roundtrip_and_aof(resources: Resources):
    key = f"kag:test:{uuid.uuid4()}"
    await resources.redis.hset(key, mapping={"a": "1"})
    assert await resources.redis.hgetall(key) == {"a": "1"}
    await resources.redis.delete(key)
    assert await resources.redis.exists(key) == 0
    config = await resources.redis.config_get("appendonly")
    assert config["appendonly"] == "yes"


async def test_embeddings_encode_offline(resources: Resources):
    vectors = resources.embeddings.embed_documents(
        ["an inner join keeps matching rows", "bananas are yellow"]
    )
    query = resources.embeddings.embed_query("which join keeps only matching rows?")
    assert len(vectors) == 2 and len(query) == 384
    sims = [sum(a * b for a, b in zip(v, query, strict=True)) for v in vectors]
    assert sims[0] > sims[1] + 0.2


# ----- scripts/services.sh: a port is "up" only when the right protocol answers -----
# These never stop the shared services: they point the script at other ports and a
# temporary KAG_SERVICES_DIR.

SERVICES_SH = Path(__file__).resolve().parents[2] / "scripts" / "services.sh"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _services(tmp_path: Path, *args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SERVICES_SH), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "KAG_SERVICES_DIR": str(tmp_path / "services"), **env},
    )


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def http_port(tmp_path: Path):
    """A plain ``python3 -m http.server`` on a free port: something that is neither Redis nor Bolt."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_status_reports_a_foreign_listener(tmp_path, http_port):
    done = _services(tmp_path, "status", KAG_REDIS_PORT=str(http_port), KAG_NEO4J_PORT=str(http_port))
    assert done.returncode == 0, done.stderr
    assert f"redis: port {http_port} is taken by something that is not Redis" in done.stdout
    assert f"neo4j: port {http_port} is taken by something that is not Bolt" in done.stdout


@pytest.mark.parametrize(
    ("service", "variable", "protocol"),
    [("redis", "KAG_REDIS_PORT", "Redis"), ("neo4j", "KAG_NEO4J_PORT", "Bolt")],
)
def test_up_refuses_a_foreign_listener(tmp_path, http_port, service, variable, protocol):
    done = _services(tmp_path, "up", service, **{variable: str(http_port)})
    assert done.returncode == 1
    assert f"port {http_port} is taken by something that is not {protocol}" in done.stderr
    assert not (tmp_path / "services").exists()  # nothing was started


def test_status_sees_the_real_services_by_protocol(tmp_path):
    done = _services(tmp_path, "status")
    assert "neo4j: up  bolt://127.0.0.1:7687" in done.stdout
    assert "redis: up  redis://127.0.0.1:6379" in done.stdout


class FakeLoadingRedis:
    """Answers PING with ``-LOADING`` until ``loading_for`` seconds have passed, then ``+PONG``."""

    def __init__(self, loading_for: float) -> None:
        self.until = time.monotonic() + loading_for
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    while conn.recv(256):
                        loading = time.monotonic() < self.until
                        conn.sendall(
                            b"-LOADING Redis is loading the dataset in memory\r\n"
                            if loading
                            else b"+PONG\r\n"
                        )
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.server.close()


def test_loading_redis_is_not_up_and_up_waits_for_it(tmp_path):
    fake = FakeLoadingRedis(loading_for=2.5)
    try:
        status = _services(tmp_path, "status", "redis", KAG_REDIS_PORT=str(fake.port))
        assert f"redis: loading its data (AOF) on port {fake.port}" in status.stdout
        started = time.monotonic()
        up = _services(tmp_path, "up", "redis", KAG_REDIS_PORT=str(fake.port))
        assert up.returncode == 0, up.stderr
        assert "is loading its AOF; waiting" in up.stdout
        assert f"port {fake.port} already serves Redis started elsewhere" in up.stdout
        assert time.monotonic() - started > 0.5
        status = _services(tmp_path, "status", "redis", KAG_REDIS_PORT=str(fake.port))
        assert f"redis: up  redis://127.0.0.1:{fake.port} (started elsewhere)" in status.stdout
    finally:
        fake.close()


def test_nothing_listening_is_down(tmp_path):
    port = str(_free_port())
    done = _services(tmp_path, "status", KAG_REDIS_PORT=port, KAG_NEO4J_PORT=port)
    assert "neo4j: down (start: scripts/services.sh up)" in done.stdout
    assert "redis: down (start: scripts/services.sh up)" in done.stdout


def test_maven_build_asks_for_no_colour():
    script = SERVICES_SH.read_text()
    assert "mvn -B -q -Dstyle.color=never" in script


def test_up_starts_and_down_stops_a_private_redis(tmp_path):
    port = str(_free_port())
    try:
        up = _services(tmp_path, "up", "redis", KAG_REDIS_PORT=port)
        assert up.returncode == 0, up.stdout + up.stderr
        assert f"redis up on 127.0.0.1:{port}" in up.stdout
        again = _services(tmp_path, "up", "redis", KAG_REDIS_PORT=port)
        assert f"redis already up on 127.0.0.1:{port}" in again.stdout
        status = _services(tmp_path, "status", "redis", KAG_REDIS_PORT=port)
        assert f"redis: up  redis://127.0.0.1:{port}\n" in status.stdout  # ours: no "(started elsewhere)"
    finally:
        down = _services(tmp_path, "down", "redis", KAG_REDIS_PORT=port)
    assert "redis stopped" in down.stdout
    assert "redis: down" in _services(tmp_path, "status", "redis", KAG_REDIS_PORT=port).stdout
