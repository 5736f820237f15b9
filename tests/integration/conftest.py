"""Integration tests run over the real Neo4j and Redis started by scripts/services.sh.

The fixtures themselves (``resources``, ``redis_saver``, ``make_graph``, ``private_neo4j``,
``services_up``, ``sweep_learners``) live in ``tests.service_fixtures``, imported once by
``tests/conftest.py``. Every test here asks for the services: if one is down the tests fail
(never skip) with the service's name and the command that starts it, and the session's
learners are swept at its end.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session", autouse=True)
def integration_services(services_up: None, sweep_learners: None) -> None:
    """Every integration test needs the services, and its learners are erased after the session."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark everything under tests/integration as integration."""
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


def __getattr__(name: str) -> Any:
    """``from tests.integration.conftest import resources`` still works (the fixtures moved).

    A module ``__getattr__`` is not in the module's ``dir()``, so pytest does not register
    the fixtures a second time here; a conftest that imports them this way does, though
    (its folder then gets its own copy): conftests should rely on ``tests/conftest.py``.
    """
    import tests.service_fixtures

    try:
        return getattr(tests.service_fixtures, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
