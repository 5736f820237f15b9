"""The evaluation code (bench/) on small data; the tests that need services get the real ones."""

from __future__ import annotations

import pytest

from tests.integration.conftest import (  # noqa: F401 (fixtures)
    make_graph,
    redis_saver,
    resources,
    services_up,
    sweep_learners,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark everything under tests/bench as bench."""
    for item in items:
        if "/bench/" in str(item.fspath):
            item.add_marker(pytest.mark.bench)
