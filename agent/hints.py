"""One-line hints for the failures people meet first: services down, wrong service, wrong password.

This module is the one map from what went wrong to what to do about it:

- ``probe_bolt`` and ``probe_redis`` check a port by its protocol (a Bolt handshake,
  a Redis ``PING``), quickly and without a driver, so "nothing listens", "something
  else listens" and "Redis is still loading its AOF" are told apart;
- ``check_services`` runs them for the services a command needs and raises the
  matching ``agent.errors`` exception (``StoreUnavailableError``,
  ``WrongServiceError``) before any driver waits on a dead port;
- ``explain`` turns an exception (a KAG error or a driver error, looked up along
  its ``__cause__``/``__context__`` chain) into one line that names the variable or
  the command to run, or returns None for a failure nobody expected (a bug: keep
  its traceback).

``scripts/services.sh`` applies the same protocol checks in bash.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlparse

from agent.errors import (
    ConfigError,
    KAGError,
    StoreUnavailableError,
    WrongServiceError,
)

if TYPE_CHECKING:
    from agent.settings import Settings

Probe = Literal["ok", "loading", "down", "foreign"]
"""What a port answered: the expected protocol, Redis still loading, nothing, or something else."""

BOLT_MAGIC = bytes.fromhex("6060b017")
BOLT_PROPOSALS = bytes.fromhex("00080805 00000404 00000004 00000003")
"""Bolt 5.8 down to 5.0, then 4.4, 4.0 and 3: what the Neo4j 5 drivers offer."""
START_HINT = "Start it with `scripts/services.sh up` (or `make services-up`)."
PROBE_TIMEOUT_S = 2.0


def _connect(host: str, port: int, timeout: float) -> socket.socket | None:
    """A connected socket, or None when nothing accepts on ``host:port``."""
    try:
        return socket.create_connection((host, port), timeout=timeout)
    except OSError:
        return None


def _read(sock: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes (fewer if the peer closes or times out)."""
    data = b""
    try:
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def probe_bolt(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> Probe:
    """``ok`` if a Bolt handshake on ``host:port`` agrees on a version; ``down`` or ``foreign`` otherwise.

    Anything else that answers (HTTP, Redis, four zero bytes: no common version) is ``foreign``.
    """
    sock = _connect(host, port, timeout)
    if sock is None:
        return "down"
    with sock:
        try:
            sock.sendall(BOLT_MAGIC + BOLT_PROPOSALS)
        except OSError:
            return "foreign"
        reply = _read(sock, 4)
    return "ok" if agreed_version(reply) else "foreign"


def agreed_version(reply: bytes) -> bool:
    """True when ``reply`` is a Bolt server's choice among ``BOLT_PROPOSALS`` (``00 00 minor major``)."""
    return len(reply) == 4 and reply[:2] == b"\0\0" and reply[3] in (3, 4, 5)


def probe_redis(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> Probe:
    """``ok`` if ``PING`` on ``host:port`` gets ``+PONG`` (or an auth error: Redis with a password).

    ``loading`` when Redis answers ``-LOADING`` (it is replaying its AOF); ``down``
    when nothing accepts; ``foreign`` for any other answer, or none.
    """
    sock = _connect(host, port, timeout)
    if sock is None:
        return "down"
    with sock:
        try:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
        except OSError:
            return "foreign"
        reply = _read_line(sock)
    if reply.startswith(b"+PONG"):
        return "ok"
    if reply.startswith(b"-LOADING"):
        return "loading"
    if reply.startswith((b"-NOAUTH", b"-WRONGPASS", b"-ERR AUTH")):
        return "ok"
    return "foreign"


def _read_line(sock: socket.socket, limit: int = 256) -> bytes:
    """Bytes up to the first CRLF (at most ``limit``)."""
    data = b""
    while b"\r\n" not in data and len(data) < limit:
        chunk = _read(sock, 1)
        if not chunk:
            break
        data += chunk
    return data


def _neo4j_address(settings: Settings) -> tuple[str, int] | None:
    """``(host, port)`` of a plain-Bolt URI; None for TLS schemes (the probe speaks no TLS)."""
    uri = urlparse(settings.neo4j_uri)
    if uri.scheme not in {"bolt", "neo4j"} or not uri.hostname:
        return None
    return uri.hostname, uri.port or 7687


def _redis_address(settings: Settings) -> tuple[str, int] | None:
    """``(host, port)`` of a plain ``redis://`` URL; None for TLS and unix sockets."""
    url = urlparse(settings.redis_url)
    if url.scheme != "redis" or not url.hostname:
        return None
    return url.hostname, url.port or 6379


def check_services(settings: Settings, services: Iterable[str] = ("neo4j", "redis")) -> None:
    """Probe each of ``services`` (``neo4j``, ``redis``) by protocol; raise the matching error.

    Raises ``StoreUnavailableError`` (nothing listens, or Redis is still loading) or
    ``WrongServiceError`` (something else listens). TLS URLs and unix sockets are
    not probed; the drivers report on them.
    """
    for service in services:
        if service == "neo4j":
            where, probe, names = _neo4j_address(settings), probe_bolt, ("Neo4j", "Bolt")
            setting = (settings.neo4j_uri, "KAG_NEO4J_URI")
        elif service == "redis":
            where, probe, names = _redis_address(settings), probe_redis, ("Redis", "Redis")
            setting = (settings.redis_url, "KAG_REDIS_URL")
        else:
            raise ValueError(f"unknown service {service!r}")
        if where is not None:
            _raise_for(*names, *setting, probe(*where))


def _raise_for(service: str, protocol: str, address: str, variable: str, state: Probe) -> None:
    host_port = _host_port(address)
    if state == "down":
        raise StoreUnavailableError(service, f"nothing listens on {host_port}, set by {variable}")
    if state == "loading":
        raise StoreUnavailableError(
            service, f"{host_port} is still loading its data (AOF); retry in a moment"
        )
    if state == "foreign":
        raise WrongServiceError(protocol, f"port {host_port}", variable)


def _host_port(address: str) -> str:
    parsed = urlparse(address)
    return f"{parsed.hostname}:{parsed.port}" if parsed.port else (parsed.hostname or address)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception along its ``__cause__``/``__context__`` chain (no cycles)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:300]


def explain(exc: BaseException, settings: Settings | None = None) -> str | None:
    """One line saying what went wrong and what to do, or None for an unexpected failure.

    With ``settings``, a service failure is re-probed so the line says whether the
    service is down or another program holds its port.
    """
    chain = list(causes(exc))
    for error in chain:
        hint = _driver_hint(error, settings)
        if hint:
            return hint
    for error in chain:
        if isinstance(error, StoreUnavailableError):
            return _service_hint(error.service, settings) or _first_line(str(error))
        if isinstance(error, (ConfigError, WrongServiceError)):
            return _first_line(str(error))
    if isinstance(exc, KAGError):
        return _first_line(str(exc))
    return None


def _service_hint(service: str, settings: Settings | None) -> str | None:
    """A fresh probe of ``service`` (``Neo4j``/``Redis``) turned into a hint, or None."""
    if settings is None:
        return None
    try:
        check_services(settings, [service.lower()])
    except (StoreUnavailableError, WrongServiceError) as err:
        return _first_line(str(err))
    except ValueError:
        return None
    return None


def _driver_hint(error: BaseException, settings: Settings | None) -> str | None:
    """Hints for the driver exceptions themselves (neo4j, redis), by class name and module."""
    module = type(error).__module__ or ""
    name = type(error).__name__
    neo4j_uri = settings.neo4j_uri if settings else "KAG_NEO4J_URI"
    redis_url = settings.redis_url if settings else "KAG_REDIS_URL"
    if module.startswith("neo4j"):
        if name == "AuthError" or "Unauthorized" in str(error):
            user = settings.neo4j_user if settings else "neo4j"
            return (
                f"KAG_NEO4J_PASSWORD: Neo4j at {neo4j_uri} refused user {user!r} with this password; "
                "set KAG_NEO4J_PASSWORD (and KAG_NEO4J_USER) to the credentials the server was "
                "started with (scripts/services.sh starts it with KAG_NEO4J_PASSWORD, "
                "default kag-dev-password)."
            )
        if name in {"ServiceUnavailable", "SessionExpired"}:
            return _service_hint("Neo4j", settings) or (
                f"Neo4j is unreachable at {neo4j_uri} (KAG_NEO4J_URI). {START_HINT}"
            )
    if module.startswith("redis"):
        if name == "AuthenticationError" or "NOAUTH" in str(error) or "WRONGPASS" in str(error):
            return (
                f"KAG_REDIS_URL: Redis at {_host_port(redis_url)} refused the credentials; put the "
                "password in KAG_REDIS_URL (redis://:PASSWORD@host:port/0)."
            )
        if name == "BusyLoadingError":
            return f"Redis at {_host_port(redis_url)} is still loading its data (AOF); retry in a moment."
        if name in {"InvalidResponse", "ResponseError"} and "Protocol error" in str(error):
            return _first_line(
                str(WrongServiceError("Redis", f"port {_host_port(redis_url)}", "KAG_REDIS_URL"))
            )
        if name in {"ConnectionError", "TimeoutError"}:
            return _service_hint("Redis", settings) or (
                f"Redis is unreachable at {_host_port(redis_url)} (KAG_REDIS_URL). {START_HINT}"
            )
    return None
