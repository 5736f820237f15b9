"""A 3-master Redis Cluster of this test session's own, started by ``scripts/services.sh cluster-up``.

It listens on three consecutive free loopback ports and keeps its data in a temporary
directory; ``cluster-down`` stops it afterwards. The shared Redis is never touched.
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _free_base_port() -> int:
    """The first of three consecutive free ports (cluster bus ports are these + 10000)."""
    for base in range(17100, 18000, 7):
        ports = [base, base + 1, base + 2, base + 10000, base + 10001, base + 10002]
        try:
            socks = []
            for port in ports:
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
        return base
    raise RuntimeError("no three consecutive free ports for the Redis Cluster")


def _script(action: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "scripts/services.sh"), action],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``redis://127.0.0.1:<port>`` of a fresh 3-master cluster."""
    base = _free_base_port()
    env = {"KAG_SERVICES_DIR": str(tmp_path_factory.mktemp("cluster")), "KAG_REDIS_CLUSTER_PORT": str(base)}
    done = _script("cluster-up", env)
    if done.returncode != 0:
        pytest.fail(f"cluster-up failed:\n{done.stdout}\n{done.stderr}")
    yield f"redis://127.0.0.1:{base}"
    _script("cluster-down", env)


@pytest.fixture(scope="session")
async def redis_saver(redis_cluster_url: str) -> AsyncIterator[Any]:
    """Overrides ``tests/integration/conftest.py``: the heartbeat's saver on the cluster.

    Tests under this folder that build graphs with ``make_graph`` checkpoint on the
    cluster; their memory stores stay on the plain Redis and Neo4j.
    """
    from agent.checkpoint import AsyncRedisSaver
    from tests.integration.checkpoint.test_checkpoint_conformance import drop_prefix

    prefix = f"kag-test-cluster-ckpt-{uuid.uuid4().hex[:8]}"
    url = redis_cluster_url.replace("redis://", "redis+cluster://", 1)
    async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver
    drop_prefix(redis_cluster_url, prefix, cluster=True)
