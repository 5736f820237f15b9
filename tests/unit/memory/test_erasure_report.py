"""Erasure's pure parts: whose an unowned thread is, the per-store report, the error naming what is left."""

from __future__ import annotations

import uuid

from agent.memory.erasure import LEFT, ErasureIncompleteError, ErasureReport
from agent.memory.erasure_redis import _glob, names_learner


def test_an_unowned_thread_is_the_learners_when_its_learner_id_or_input_names_them() -> None:
    learner = str(uuid.uuid4())
    adopt = names_learner(learner)
    assert adopt("learner_id", learner)
    assert adopt("learner_id", learner.upper()), "any accepted spelling of the same id"
    assert adopt("__start__", {"learner_id": "{" + learner + "}", "request": "hi"})
    assert not adopt("learner_id", str(uuid.uuid4()))
    assert not adopt("__start__", {"request": learner})  # the id in some text is not a claim
    assert not adopt("learner_id", None) and not adopt("learner_id", 7) and not adopt("learner_id", "a b!")


def test_the_report_says_per_store_what_went_and_what_is_left() -> None:
    report = ErasureReport("ana", removed={"redis": {"threads": 3, "keys": 0}, "neo4j": {"notes": 0}})
    assert report.complete and report.lines() == ["redis: removed 3 threads", "neo4j: removed nothing"]
    report.left["neo4j"] = f"{LEFT['neo4j']} (Neo4j is unreachable)"
    assert not report.complete and report.lines()[-1].startswith("neo4j: LEFT notes, memories")
    assert report.as_dict()["erased"] is False and report.as_dict()["left"] == report.left


def test_the_error_names_every_store_with_data_left_in_one_line() -> None:
    report = ErasureReport("ana", left={"redis": "checkpoints (down)", "server": "threads (down)"})
    message = str(ErasureIncompleteError(report))
    assert message.startswith(
        "erasure of ana is incomplete, still stored: redis: checkpoints (down); server:"
    )
    assert "again" in message and "\n" not in message


def test_scan_patterns_match_the_learners_keys_literally() -> None:
    assert _glob("kag:kernel:{ana}:") == "kag:kernel:\\{ana\\}:"
    assert _glob("a*b?[c]") == "a\\*b\\?\\[c\\]"
