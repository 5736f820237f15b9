"""Shared fixtures: settings and unique learner ids (remembered, so the services' suites erase them)."""

from __future__ import annotations

import uuid

import pytest

from agent.settings import Settings


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Settings from the environment (the scripts' defaults), offline mode forced."""
    return Settings.from_env(google_api_key=None).with_overrides(google_api_key=None)


LEARNERS: set[str] = set()
"""Every learner id ``learner_id`` handed out in this session (``tests.sweep`` erases them at its end)."""


@pytest.fixture
def learner_id() -> str:
    """A fresh learner per test, so tests never see each other's data."""
    learner = f"test-{uuid.uuid4()}"
    LEARNERS.add(learner)
    return learner
