"""``agent.hints``: protocol probes against fake listeners, and one-line hints for expected failures."""

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import neo4j.exceptions
import pytest
import redis.exceptions

from agent import hints
from agent.errors import ConfigError, StoreError, StoreUnavailableError, WrongServiceError
from agent.settings import Settings


@contextmanager
def listener(reply: Callable[[bytes], bytes | None]) -> Iterator[int]:
    """A loopback TCP server answering each connection's first bytes with ``reply(data)``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    answer = reply(conn.recv(64))
                    if answer:
                        conn.sendall(answer)
                        conn.recv(64)  # wait for the client to close
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        server.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


HTTP = b"HTTP/1.0 400 Bad Request\r\n\r\n"


def test_probe_redis_states():
    with listener(lambda data: b"+PONG\r\n") as port:
        assert hints.probe_redis("127.0.0.1", port) == "ok"
    with listener(lambda data: b"-LOADING Redis is loading the dataset in memory\r\n") as port:
        assert hints.probe_redis("127.0.0.1", port) == "loading"
    with listener(lambda data: b"-NOAUTH Authentication required.\r\n") as port:
        assert hints.probe_redis("127.0.0.1", port) == "ok"
    with listener(lambda data: HTTP) as port:
        assert hints.probe_redis("127.0.0.1", port) == "foreign"
    assert hints.probe_redis("127.0.0.1", closed_port()) == "down"


def test_probe_bolt_states():
    seen = []

    def bolt(data: bytes) -> bytes:
        seen.append(data)
        return bytes.fromhex("00000805")

    with listener(bolt) as port:
        assert hints.probe_bolt("127.0.0.1", port) == "ok"
    assert seen[0][:4] == bytes.fromhex("6060b017") and len(seen[0]) == 20
    with listener(lambda data: b"\0\0\0\0") as port:  # no common version
        assert hints.probe_bolt("127.0.0.1", port) == "foreign"
    with listener(lambda data: HTTP) as port:
        assert hints.probe_bolt("127.0.0.1", port) == "foreign"
    with listener(lambda data: None) as port:  # silent (Redis waits for a newline)
        assert hints.probe_bolt("127.0.0.1", port, timeout=0.5) == "foreign"
    assert hints.probe_bolt("127.0.0.1", closed_port()) == "down"


def test_check_services_names_the_service_and_the_fix():
    down = Settings.from_env({"KAG_NEO4J_URI": f"bolt://127.0.0.1:{closed_port()}"})
    with pytest.raises(StoreUnavailableError) as info:
        hints.check_services(down, ["neo4j"])
    assert "Neo4j" in str(info.value) and "scripts/services.sh up" in str(info.value)
    with listener(lambda data: HTTP) as port:
        foreign = Settings.from_env({"KAG_REDIS_URL": f"redis://127.0.0.1:{port}/0"})
        with pytest.raises(WrongServiceError) as info:
            hints.check_services(foreign, ["redis"])
        assert f"127.0.0.1:{port} is taken by something that is not Redis" in str(info.value)
        assert "KAG_REDIS_URL" in str(info.value)
        assert hints.explain(info.value) == str(info.value)


def test_wrong_neo4j_password_names_the_variable():
    auth = neo4j.exceptions.AuthError("The client is unauthorized due to authentication failure.")
    line = hints.explain(auth, Settings.from_env({}))
    assert line is not None and line.startswith("KAG_NEO4J_PASSWORD:") and "\n" not in line
    try:  # a store wraps the driver error: the chain is searched
        try:
            raise auth
        except neo4j.exceptions.AuthError as exc:
            raise StoreError(f"Neo4j rejected the query: {exc}") from exc
    except StoreError as wrapped:
        assert hints.explain(wrapped).startswith("KAG_NEO4J_PASSWORD:")


def test_redis_errors_become_hints():
    settings = Settings.from_env({"KAG_REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0"})
    protocol = redis.exceptions.InvalidResponse('Protocol error, got "<" as reply type byte')
    assert "is taken by something that is not Redis" in hints.explain(protocol, settings)
    refused = redis.exceptions.ConnectionError("Error 111 connecting")
    line = hints.explain(refused, settings)
    assert "Redis is unreachable" in line and "scripts/services.sh up" in line
    assert "KAG_REDIS_URL" in hints.explain(redis.exceptions.AuthenticationError("invalid password"))


def test_config_errors_pass_through_and_bugs_return_none():
    assert hints.explain(ConfigError("KAG_MODEL", "bad")) == "KAG_MODEL: bad"
    assert hints.explain(ValueError("a bug")) is None
    assert hints.explain(KeyError("x")) is None
