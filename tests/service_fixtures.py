"""Fixtures over the real Neo4j, Redis and ``langgraph dev``, defined once for the whole test tree.

``tests/conftest.py`` imports them, so a session fixture is set up once per run. pytest
registers a fixture in every conftest whose namespace holds it, and each registration
has its own cache: when ``tests/security`` and ``tests/bench`` imported these from
``tests/integration/conftest.py``, every folder built its own ``Resources`` (another
embedder load), swept on its own and could start its own servers.

Nothing here runs unless a test asks for it: ``tests/unit`` and the pure scoring tests of
``tests/bench`` never touch a service. The folders whose every test needs the services
(``tests/integration``, ``tests/security``) ask for ``services_up`` and ``sweep_learners``
with an autouse fixture of their own; ``tests/bench`` asks per test (its conftest).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlparse

import pytest
from neo4j.exceptions import DriverError, Neo4jError
from redis.exceptions import RedisError

from agent.errors import KAGError
from agent.memory.erasure import erase_learner
from agent.resources import Resources
from agent.settings import Settings
from tests.integration.langgraph_server import DevServer, Learner
from tests.integration.private_neo4j import PrivateNeo4j
from tests.security.attack import STUDIO_USER
from tests.sweep import LEARNERS, sweep

SERVER_LEARNERS = {
    # suite: (name, id stem) of the learners a suite's view of the shared server carries
    "security": (("alice", "sec-alice"), ("bob", "sec-bob")),
    "dashboard": (("ana", "dash-ana"), ("ben", "dash-ben"), ("cai", "dash-cai"), ("dan", "dash-dan")),
    "e2e": (("a", "e2e-a"), ("b", "e2e-b")),
    # names are the server's keys, so they differ from every other suite's ("ana" is the dashboard's)
    "erasure": (("era-ana", "era-ana"), ("era-bob", "era-bob")),
}


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2.0):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
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
async def resources(settings: Settings, services_up: None) -> AsyncIterator[Resources]:
    """One shared bundle (offline model, MiniLM) for the session's event loop."""
    bundle = Resources(settings)
    yield bundle
    await bundle.aclose()


@pytest.fixture(scope="session")
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


@pytest.fixture(scope="session")
async def redis_saver(settings: Settings, services_up: None):
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
    from graphs.heartbeat import make_builder

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


# ----- one ``langgraph dev`` for every suite that runs the default configuration -----


async def _studio_nodes(resources: Resources) -> set[str]:
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (n) WHERE n.learner_id = $l OR (n:Learner AND n.id = $l) RETURN elementId(n) AS id",
        l=STUDIO_USER,
        database_=resources.database,
    )
    return {r["id"] for r in records}


async def _clean_up(dev: DevServer, resources: Resources, studio_nodes: set[str], studio_keys: set) -> None:
    """Remove the server's checkpoints, its learners' data and whatever Studio's runs added."""
    keys = [k async for k in resources.redis.scan_iter(match=f"{dev.prefix}:*", count=1000)]
    if keys:
        await resources.redis.delete(*keys)
    for learner in dev.learners.values():
        await erase_learner(resources, learner.learner_id)
        await resources.neo4j.execute_query(  # anything else labelled with the learner
            "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n",
            l=learner.learner_id,
            database_=resources.database,
        )
    new_keys = {k async for k in resources.redis.scan_iter(match=f"*{STUDIO_USER}*", count=1000)}
    if new_keys - studio_keys:  # what Studio's runs created (its recent-items cache, ...)
        await resources.redis.delete(*(new_keys - studio_keys))
    created = sorted(await _studio_nodes(resources) - studio_nodes)
    if created:
        await resources.neo4j.execute_query(
            "MATCH (n) WHERE elementId(n) IN $ids DETACH DELETE n",
            ids=created,
            database_=resources.database,
        )


@pytest.fixture(scope="session")
async def kag_server(
    tmp_path_factory: pytest.TempPathFactory, resources: Resources
) -> AsyncIterator[DevServer]:
    """The session's ``langgraph dev`` in the default configuration, shared by every suite that runs it.

    The attack suite, the dashboard's browser tests and the server's end-to-end tests each
    had a server of their own, identical but for the token table, at 20-40 s a start. One
    server knows every suite's learners (``SERVER_LEARNERS``); each suite sees its own
    through :class:`ServerView`. Its checkpoints, the learners' data and what Studio's
    runs added are removed afterwards.
    """
    run = uuid.uuid4().hex[:10]
    dev = DevServer(tmp_path_factory.mktemp("langgraph-kag"), prefix=f"kag-srv-{run}")
    dev.learners = {
        name: Learner(f"{stem}-{run}", f"token-{name}-{run}")
        for learners in SERVER_LEARNERS.values()
        for name, stem in learners
    }
    studio_nodes = await _studio_nodes(resources)
    studio_keys = {k async for k in resources.redis.scan_iter(match=f"*{STUDIO_USER}*", count=1000)}
    await asyncio.to_thread(dev.start)
    try:
        yield dev
    finally:
        await asyncio.to_thread(dev.stop)
        await _clean_up(dev, resources, studio_nodes, studio_keys)


@pytest.fixture(scope="session")
async def prod_kag_server(
    tmp_path_factory: pytest.TempPathFactory, resources: Resources
) -> AsyncIterator[DevServer]:
    """The session's production server (``agent.server.production``, one worker), started once.

    The same learners (other ids) and configuration as ``kag_server``, for the suites
    parametrised over both servers (the attack suite). It fails, never skips, when the
    serving venv or PostgreSQL is missing: the production mode is part of the product.
    """
    from tests.integration.prod_server import ProdServer, prod_available

    unavailable = prod_available()
    if unavailable:
        pytest.fail(f"the production server cannot start: {unavailable}", pytrace=False)
    run = uuid.uuid4().hex[:10]
    prod = ProdServer(tmp_path_factory.mktemp("langgraph-kag-prod"), prefix=f"kag-prod-{run}", workers=1)
    prod.learners = {
        name: Learner(f"{stem}-{run}", f"token-{name}-{run}")
        for learners in SERVER_LEARNERS.values()
        for name, stem in learners
    }
    studio_nodes = await _studio_nodes(resources)
    studio_keys = {k async for k in resources.redis.scan_iter(match=f"*{STUDIO_USER}*", count=1000)}
    await asyncio.to_thread(prod.start)
    try:
        yield prod
    finally:
        await asyncio.to_thread(prod.discard)
        await _clean_up(prod, resources, studio_nodes, studio_keys)


class ServerView:
    """One suite's face of the shared server: the suite's learners, everything else the server's.

    ``url``, ``prefix``, ``restart()``, ``log_tail()``... are the shared server's own, so a
    suite that restarts it restarts it for everyone (as it would its own: same port, same
    working directory, same checkpoints).
    """

    def __init__(self, server: DevServer, suite: str) -> None:
        """The learners of ``suite`` in ``SERVER_LEARNERS``."""
        self.server = server
        self.learners = {name: server.learners[name] for name, _ in SERVER_LEARNERS[suite]}

    def __getattr__(self, name: str):  # noqa: ANN204 - whatever the server has
        """Everything but ``learners`` is the shared server's."""
        return getattr(self.server, name)
