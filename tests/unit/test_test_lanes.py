"""``make test``'s runner (scripts/test-lanes.sh): three pytest lanes at once, a line each, one status.

The runner is driven with a fake ``python`` that records how each lane called it (arguments,
the service addresses it was given, its niceness) and ends with the status the test chose.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "test-lanes.sh"

FAKE_PY = """#!/usr/bin/env bash
lane=services
case " $* " in *" tests/unit "*) lane=no-services ;; *" tests/security "*) lane=servers ;; esac
{
  echo "args=$*"
  echo "neo4j=${KAG_NEO4J_URI:-}"
  echo "redis=${KAG_REDIS_URL:-}"
  echo "nice=$(nice)"
} > "$CALLS/$lane"
echo "=========== 3 passed in 0.01s ($lane) ==========="
rc_var="RC_${lane//-/_}"
exit "${!rc_var:-0}"
"""


def run_lanes(tmp_path: Path, *args: str, **rcs: int) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """Run the runner with the fake python; ``rcs`` give each lane's status (``services=1``, ...)."""
    fake = tmp_path / "python"
    fake.write_text(FAKE_PY)
    fake.chmod(0o755)
    calls = tmp_path / "calls"
    calls.mkdir()
    env = {**os.environ, "PY": str(fake), "CALLS": str(calls), "TMPDIR": str(tmp_path)}
    env.pop("KAG_NEO4J_URI", None)
    env.pop("KAG_REDIS_URL", None)
    env.update({f"RC_{lane}": str(rc) for lane, rc in rcs.items()})
    done = subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    return done, {lane.name: lane.read_text() for lane in calls.iterdir()}


def test_the_three_lanes_run_and_together_cover_the_tree(tmp_path: Path) -> None:
    done, calls = run_lanes(tmp_path, "-x")
    assert done.returncode == 0, done.stdout + done.stderr
    services = calls["services"].splitlines()[0]
    servers = calls["servers"].splitlines()[0]
    free = calls["no-services"].splitlines()[0]
    # every folder of tests/ is in a lane; tests/bench is split by the integration mark, and
    # tests/integration's server and dashboard folders go with the attack suite
    assert services.startswith("args=-m pytest tests/integration tests/bench -m not bench or integration ")
    ignored = {"--ignore=tests/integration/server", "--ignore=tests/integration/dashboard"}
    assert ignored <= set(services.split())
    assert servers.startswith(
        "args=-m pytest tests/security tests/integration/server tests/integration/dashboard "
    )
    assert free.startswith("args=-m pytest tests/unit tests/bench -m not integration ")
    assert all(lane.endswith(" -x") for lane in (services, servers, free))  # extra arguments reach all
    assert sorted(p.name for p in (REPO / "tests").iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "bench",
        "integration",
        "security",
        "unit",
    ]


def test_the_no_services_lane_is_niced_and_cannot_reach_a_service(tmp_path: Path) -> None:
    _, calls = run_lanes(tmp_path)
    free = dict(line.split("=", 1) for line in calls["no-services"].splitlines())
    assert free["neo4j"] == "bolt://127.0.0.1:9" and free["redis"] == "redis://127.0.0.1:9/0"
    assert int(free["nice"]) >= 10
    for lane in ("services", "servers"):
        lines = dict(line.split("=", 1) for line in calls[lane].splitlines())
        assert lines["neo4j"] == "" and lines["redis"] == ""  # the real services, from settings
        assert int(lines["nice"]) < int(free["nice"])


@pytest.mark.parametrize(
    ("rcs", "expected"),
    [
        ({}, 0),
        ({"services": 1}, 1),
        ({"no_services": 2}, 2),
        ({"servers": 3}, 3),
        ({"services": 1, "no_services": 2}, 1),
        ({"servers": 3, "no_services": 2}, 3),
    ],
)
def test_the_overall_status_fails_when_either_lane_fails(tmp_path: Path, rcs: dict, expected: int) -> None:
    done, _ = run_lanes(tmp_path, **rcs)
    assert done.returncode == expected, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"[test] overall: rc {expected} in" in lines[-1]
    free_rc, services_rc, servers_rc = (rcs.get(lane, 0) for lane in ("no_services", "services", "servers"))
    assert lines[-4] == f"[test] lane no-services: 3 passed in 0.01s (no-services) (rc {free_rc})"
    assert lines[-3].startswith(f"[test] lane servers:     3 passed in 0.01s (servers) (rc {servers_rc}, ")
    assert lines[-2].startswith(f"[test] lane services:    3 passed in 0.01s (services) (rc {services_rc}, ")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_runs_the_lanes() -> None:
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", "test"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "PY=.venv/bin/python bash scripts/test-lanes.sh" in done.stdout.splitlines()


def test_a_lane_left_without_a_test_by_the_arguments_passes(tmp_path: Path) -> None:
    done, _ = run_lanes(tmp_path, "-k", "only_a_unit_test", services=5, servers=5)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(rc 0, " in done.stdout.splitlines()[-2] and "(rc 0, " in done.stdout.splitlines()[-3]
    (tmp_path / "bare").mkdir()
    bare, _ = run_lanes(tmp_path / "bare", services=5)  # `make test` itself: no test is an error
    assert bare.returncode == 5
