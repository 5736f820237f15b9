"""Shared fixtures: settings, unique learner ids, and (``tests.service_fixtures``) the real services.

The service fixtures are imported here, once for the whole tree, so each session fixture
is set up once per run; a conftest below must not import them again (that would give its
folder a second copy). They start nothing unless a test asks for them.
"""

from __future__ import annotations

import uuid

import pytest

from agent.settings import Settings
from tests.service_fixtures import (  # noqa: F401 (fixtures)
    kag_server,
    make_graph,
    private_neo4j,
    prod_kag_server,
    redis_saver,
    resources,
    services_up,
    sweep_learners,
)
from tests.sweep import LEARNERS


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Settings from the environment (the scripts' defaults), offline mode forced."""
    return Settings.from_env(google_api_key=None).with_overrides(google_api_key=None)


@pytest.fixture
def learner_id() -> str:
    """A fresh learner per test, so tests never see each other's data."""
    learner = f"test-{uuid.uuid4()}"
    LEARNERS.add(learner)
    return learner
