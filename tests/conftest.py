"""Shared fixtures: settings and unique learner ids."""

from __future__ import annotations

import uuid

import pytest

from agent.settings import Settings


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Settings from the environment (the scripts' defaults), offline mode forced."""
    return Settings.from_env(google_api_key=None).with_overrides(google_api_key=None)


@pytest.fixture
def learner_id() -> str:
    """A fresh learner per test, so tests never see each other's data."""
    return f"test-{uuid.uuid4()}"
