"""The evaluation code (bench/) on small data: services only for the tests that use them.

The scoring, report and dataset tests are pure and run with no service up. A test that
asks for a service fixture (or is marked ``integration``) gets the real services, checked
up front (``services_up`` fails naming the one that is down), and its learners are swept
after the session. The fixtures come from ``tests/conftest.py`` (``tests.service_fixtures``).
"""

from __future__ import annotations

import pytest

SERVICE_FIXTURES = frozenset(
    {"settings", "resources", "make_graph", "redis_saver", "learner_id", "kag_server"}
)
"""Fixtures that mean a test talks to Neo4j or Redis (``settings`` names them)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark everything under tests/bench as bench, and what uses a service as integration too."""
    for item in items:
        if "/bench/" not in str(item.fspath):
            continue
        item.add_marker(pytest.mark.bench)
        if SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def bench_services(request: pytest.FixtureRequest) -> None:
    """The services (checked once, swept at the end) for a test marked ``integration``; none otherwise."""
    if request.node.get_closest_marker("integration") is not None:
        request.getfixturevalue("services_up")
        request.getfixturevalue("sweep_learners")
