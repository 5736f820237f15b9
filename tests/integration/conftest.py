"""Integration fixtures over the real Neo4j and Redis started by scripts/services.sh.

If a service is down the tests fail (never skip) with the service's name and
the command that starts it.
"""

from __future__ import annotations

import shutil
import socket
import warnings
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlparse

import pytest
from neo4j.exceptions import DriverError, Neo4jError
from redis.exceptions import RedisError

from agent.errors import KAGError
from agent.resources import Resources
from agent.settings import Settings
from graphs.heartbeat import make_builder
from tests.conftest import LEARNERS
from tests.integration.private_neo4j import PrivateNeo4j
from tests.sweep import sweep

pytestmark = pytest.mark.integration


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2.0):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session", autouse=True)
def services_up(settings: Settings) -> None:
    """Fail fast, naming the service, when Neo4j or Redis is not reachable."""
    down = []
    neo = urlparse(settings.neo4j_uri)
    if not _reachable(neo.hostname or "127.0.0.1", neo.port or 7687):
        down.append(f"Neo4j at {settings.neo4j_uri}")
    red = urlparse(settings.redis_url)
    if not _reachable(red.hostname or "127.0.0.1", red.port or 6379):
        down.append(f"Redis at {settings.redis_url}")
    if down:
        pytest.fail(
            f"{' and '.join(down)} unreachable. Start the services with "
            "`scripts/services.sh up` (or `make services-up`), then rerun.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
async def resources(settings: Settings) -> AsyncIterator[Resources]:
    """One shared bundle (offline model, MiniLM) for the session's event loop."""
    bundle = Resources(settings)
    yield bundle
    await bundle.aclose()


@pytest.fixture(scope="session", autouse=True)
async def sweep_learners(resources: Resources) -> AsyncIterator[None]:
    """After the session: erase what its learners left in Neo4j and Redis (``tests.sweep``)."""
    yield
    try:
        erased, keys = await sweep(resources, LEARNERS)
    # A failed cleanup must not hide the session's results: it warns.
    except (KAGError, Neo4jError, DriverError, RedisError, OSError) as exc:
        warnings.warn(f"could not erase the test learners: {exc}", stacklevel=1)
    else:
        print(f"\n[sweep] erased {erased} test learners and {keys} other keys")


@pytest.fixture(scope="session")
def private_neo4j() -> Iterator[PrivateNeo4j]:
    """A Neo4j that outage tests may stop and restart: started once per session, deleted after."""
    server = PrivateNeo4j()
    server.up()
    yield server
    server.down()
    shutil.rmtree(server.dir, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark everything under tests/integration as integration."""
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
async def redis_saver(settings: Settings):
    """The project's Redis checkpoint saver, under a test-only key prefix (removed afterwards)."""
    from agent.checkpoint import AsyncRedisSaver

    prefix = "kag-test-ckpt"
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver
        keys = [key async for key in saver.client.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await saver.client.delete(*keys)


@pytest.fixture
def make_graph(resources: Resources, redis_saver):
    """Build a heartbeat over the shared clients with ``model``, checkpointed in Redis."""

    def build(model, **compile_kwargs):
        bundle = Resources(
            resources.settings,
            chat_model=model,
            embeddings=resources.embeddings,
            neo4j_driver=resources.neo4j,
            redis_client=resources.redis,
        )
        return make_builder(bundle).compile(checkpointer=redis_saver, **compile_kwargs)

    return build
