"""Errors that end a run reach API clients with their message, not "An internal error occurred"."""

import pytest
from langgraph_api.serde import json_dumpb

from agent.errors import (
    InvalidInputError,
    LearnerMismatchError,
    StoreError,
    StoreUnavailableError,
    ThreadOwnedError,
)


@pytest.mark.parametrize(
    ("error", "needle"),
    [
        (StoreUnavailableError("Neo4j", "connection refused"), "scripts/services.sh up"),
        (StoreError("core memory script failed"), "core memory script failed"),
        (LearnerMismatchError("authenticated as another learner"), "another learner"),
        (ThreadOwnedError("thread 't' already holds another learner's checkpoints"), "another learner"),
        (InvalidInputError("request must be a non-empty string"), "non-empty"),
    ],
)
def test_the_server_shows_what_went_wrong(error, needle):
    shown = json_dumpb(error).decode()
    assert needle in shown and "An internal error occurred" not in shown
