"""The kag-cognitive-v1 loader: the dev set and KAG's own set load; malformed files fail clearly."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from pathlib import Path

import pytest

from agent.errors import InvalidInputError
from bench.cognitive.dataset import (
    KAG_SET,
    CognitiveFormatError,
    default_dataset_path,
    load_cognitive,
    parse_cognitive,
)

pytestmark = pytest.mark.unit

VALID = {
    "format": "kag-cognitive-v1",
    "scenarios": [
        {
            "id": "t-L5",
            "level": "L5",
            "sessions": [
                {"id": "s1", "date": "2026-01-10T08:00:00+07:00", "learner": ["I live in Hue.", "ok"]},
                {"id": "s2", "date": "2026-02-10T08:00:00+07:00", "learner": ["Actually, I moved to Vinh."]},
            ],
            "probes": [
                {
                    "after": "s2",
                    "query": "Where does the learner live?",
                    "expect": [{"all": ["vinh"]}, {"all": ["hue"], "session": "s1"}],
                    "first": True,
                    "as_of": "2026-01-20T00:00:00+07:00",
                }
            ],
            "reminders": [{"session": "s1", "turn": 1, "fires": False}],
        }
    ],
}


def broken(edit) -> dict:
    doc = copy.deepcopy(VALID)
    edit(doc)
    return doc


def scenario(doc: dict) -> dict:
    return doc["scenarios"][0]


def test_valid_document_parses_with_defaults_and_times():
    data = parse_cognitive(VALID, "mem.json")
    (s,) = data.scenarios
    probe = s.probes[0]
    assert probe.k == 10 and probe.first and not probe.in_order and probe.session is None
    assert probe.as_of is not None and probe.as_of.utcoffset() == timedelta(hours=7)
    assert probe.session_of(probe.expect[1]) == "s1" and probe.session_of(probe.expect[0]) is None
    assert s.sessions[0].message_time(1) - s.sessions[0].date == timedelta(minutes=1)
    assert s.turns == 3 and s.probes_after("s2") == [(0, probe)] and s.probes_after("s1") == []
    assert data.warnings == ()


def test_dev_set_and_kag_set_load():
    dev = default_dataset_path()
    if not dev.exists():
        pytest.skip(f"{dev} absent (the dev set lives outside the repository)")
    for path in (dev, KAG_SET):
        data = load_cognitive(path)
        levels = {s.level for s in data.scenarios}
        assert levels == {"L1", "L2", "L3", "L4", "L5", "L6", "R"}, path
        assert data.warnings == ()


def test_kag_set_does_not_reuse_dev_wording():
    dev = default_dataset_path()
    if not dev.exists():
        pytest.skip(f"{dev} absent")
    dev_lines = {m.lower() for s in load_cognitive(dev).scenarios for ss in s.sessions for m in ss.learner}
    dev_queries = {p.query.lower() for s in load_cognitive(dev).scenarios for p in s.probes}
    kag = load_cognitive(KAG_SET).scenarios
    assert not dev_lines & {m.lower() for s in kag for ss in s.sessions for m in ss.learner}
    assert not dev_queries & {p.query.lower() for s in kag for p in s.probes}


@pytest.mark.parametrize(
    ("edit", "where", "problem"),
    [
        (lambda d: d.update(format="kag-cognitive-v2"), "format", "expected 'kag-cognitive-v1'"),
        (lambda d: d.pop("scenarios"), "top level", "missing required key 'scenarios'"),
        (lambda d: d.update(scenarios=[]), "scenarios", "non-empty list"),
        (lambda d: scenario(d).update(level="L7"), "scenarios[0].level", "expected one of"),
        (lambda d: scenario(d)["sessions"][0].update(date="2026-01-10T08:00:00"), ".date", "no time zone"),
        (lambda d: scenario(d)["sessions"][0].update(date="yesterday"), ".date", "not an ISO-8601"),
        (
            lambda d: scenario(d)["sessions"][1].update(date="2026-01-01T08:00:00+07:00"),
            "scenarios[0].sessions[1].date",
            "sessions run in order",
        ),
        (lambda d: scenario(d)["sessions"][1].update(id="s1"), "sessions[1].id", "duplicate session id"),
        (lambda d: scenario(d)["sessions"][0].update(learner=[]), "learner", "non-empty list"),
        (lambda d: scenario(d)["sessions"][0].update(learner=["ok", 3]), "learner[1]", "non-empty string"),
        (lambda d: scenario(d)["probes"][0].update(after="s9"), "probes[0].after", "names no session"),
        (lambda d: scenario(d)["probes"][0].update(k=0), "probes[0].k", "integer from 1 to 50"),
        (lambda d: scenario(d)["probes"][0].update(k="10"), "probes[0].k", "integer from 1 to 50"),
        (lambda d: scenario(d)["probes"][0].update(first="yes"), "probes[0].first", "true or false"),
        (lambda d: scenario(d)["probes"][0].update(expect=[]), "probes[0].expect", "non-empty list"),
        (lambda d: scenario(d)["probes"][0]["expect"][0].update(all=[""]), "expect[0].all[0]", "non-empty"),
        (
            lambda d: scenario(d)["probes"][0]["expect"][0].pop("all"),
            "expect[0]",
            "missing required key 'all'",
        ),
        (
            lambda d: scenario(d)["probes"][0].update(after="s1", session="s2"),
            "probes[0]",
            "expects a hit from session 's2', which runs after the probe",
        ),
        (lambda d: scenario(d)["probes"][0].update(session="s3"), "probes[0].session", "names no session"),
        (lambda d: scenario(d)["reminders"][0].update(turn=2), "reminders[0].turn", "below 2"),
        (lambda d: scenario(d)["reminders"][0].update(fires="no"), "reminders[0].fires", "true or false"),
        (lambda d: scenario(d).update(probes=[], reminders=[]), "scenarios[0]", "at least one probe"),
        (
            lambda d: d["scenarios"].append(copy.deepcopy(scenario(d))),
            "scenarios[1].id",
            "duplicate scenario",
        ),
    ],
)
def test_malformed_documents_fail_naming_the_location(edit, where, problem):
    with pytest.raises(CognitiveFormatError) as err:
        parse_cognitive(broken(edit), "bad.json")
    message = str(err.value)
    assert message.startswith("bad.json: ") and where in message and problem in message, message


def test_a_probe_session_after_the_probe_is_rejected():
    doc = broken(lambda d: scenario(d)["probes"][0]["expect"][1].update(session="s2"))
    scenario(doc)["probes"][0]["after"] = "s1"
    scenario(doc)["probes"][0]["expect"] = [{"all": ["x"], "session": "s2"}]
    with pytest.raises(CognitiveFormatError, match=r"expect\[0\]: expects a hit from session 's2'"):
        parse_cognitive(doc, "bad.json")


def test_unknown_keys_are_warnings_not_errors():
    doc = broken(lambda d: scenario(d).update(note="written by hand"))
    scenario(doc)["probes"][0]["comment"] = "as_of check"
    data = parse_cognitive(doc, "x.json")
    assert data.warnings == (
        "scenarios[0]: unknown key 'note' ignored",
        "scenarios[0].probes[0]: unknown key 'comment' ignored",
    )


def test_file_errors_name_the_file(tmp_path: Path):
    with pytest.raises(InvalidInputError, match="file not found"):
        load_cognitive(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CognitiveFormatError, match=r"bad\.json: not JSON"):
        load_cognitive(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(VALID))
    assert load_cognitive(good).scenarios[0].id == "t-L5"


def test_select_keeps_file_order_and_rejects_unknown_ids():
    doc = copy.deepcopy(VALID)
    second = copy.deepcopy(scenario(doc))
    second["id"] = "t-other"
    doc["scenarios"].insert(0, second)
    data = parse_cognitive(doc, "x.json")
    assert [s.id for s in data.select(["t-L5", "t-other"]).scenarios] == ["t-other", "t-L5"]
    assert data.select(None) is data
    with pytest.raises(InvalidInputError, match="no scenario named 'nope'"):
        data.select(["nope"])
