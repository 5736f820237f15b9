import uuid

import pytest

from agent.errors import InvalidInputError
from agent.validation import MAX_REQUEST_BYTES, learner_hash, validate_learner_id, validate_request


def test_uuid_and_slug_accepted():
    u = str(uuid.uuid4())
    assert validate_learner_id(u) == u
    assert validate_learner_id("ana_01-b") == "ana_01-b"


@pytest.mark.parametrize(
    "bad",
    ["", None, 5, "a b", "x" * 65, "ana'}) MATCH (n) DETACH DELETE n //", "../etc", "kag:core:*"],
)
def test_bad_learner_ids(bad):
    with pytest.raises(InvalidInputError, match="learner_id"):
        validate_learner_id(bad)


def test_request_limits():
    assert validate_request("hi") == "hi"
    with pytest.raises(InvalidInputError, match="non-empty"):
        validate_request("   ")
    with pytest.raises(InvalidInputError, match="32 KB"):
        validate_request("é" * (MAX_REQUEST_BYTES // 2 + 1))


def test_learner_hash_is_stable_and_opaque():
    assert learner_hash("ana") == learner_hash("ana")
    assert "ana" not in learner_hash("ana")
