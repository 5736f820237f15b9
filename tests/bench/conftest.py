"""The evaluation code (bench/) on small data; the tests that need services get the real ones."""

from __future__ import annotations

import pytest

from tests.integration.conftest import make_graph, redis_saver, resources, services_up  # noqa: F401 (fixtures)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark everything under tests/bench as bench."""
    for item in items:
        if "/bench/" in str(item.fspath):
            item.add_marker(pytest.mark.bench)
