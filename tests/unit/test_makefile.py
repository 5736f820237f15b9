"""``make clean`` keeps learner data; ``make clean-data`` asks first (run on a copy, never the real data)."""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the Makefile with fake data folders and a services.sh that only records its call."""
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "services.sh").write_text('echo "services.sh $*" >> calls.log\n')
    for folder in (".services/redis-6379", ".langgraph_api", ".venv/bin", "kag.egg-info"):
        (tmp_path / folder).mkdir(parents=True)
    return tmp_path


def make(checkout: Path, *args: str, answer: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", *args], cwd=checkout, input=answer, capture_output=True, text=True, timeout=60
    )


def test_clean_keeps_learner_data(checkout):
    done = make(checkout, "clean")
    assert done.returncode == 0, done.stderr
    assert not (checkout / ".venv").exists() and not (checkout / "kag.egg-info").exists()
    assert (checkout / ".services").exists() and (checkout / ".langgraph_api").exists()


@pytest.mark.parametrize("answer", ["", "n\n", "no\n", "whatever\n"])
def test_clean_data_deletes_nothing_unless_told_yes(checkout, answer):
    done = make(checkout, "clean-data", answer=answer)
    assert done.returncode == 0, done.stderr
    assert "nothing deleted" in done.stdout
    assert (checkout / ".services").exists() and (checkout / ".langgraph_api").exists()
    assert not (checkout / "calls.log").exists()  # the services were not even stopped


@pytest.mark.parametrize(("answer", "args"), [("y\n", ()), ("yes\n", ()), ("", ("CONFIRM=yes",))])
def test_clean_data_stops_the_services_and_deletes_their_data(checkout, answer, args):
    done = make(checkout, "clean-data", *args, answer=answer)
    assert done.returncode == 0, done.stderr
    assert not (checkout / ".services").exists() and not (checkout / ".langgraph_api").exists()
    assert (checkout / "calls.log").read_text() == "services.sh down\n"
    assert (checkout / ".venv").exists()
