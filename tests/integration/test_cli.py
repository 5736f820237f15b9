"""``kag`` against the real services, as a user runs it: a subprocess, piped stdin, one-line errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agent.memory.erasure import erase_learner
from agent.resources import Resources
from bench.note_checks import prose_of, repeated_sentences

KAG = Path(sys.executable).with_name("kag")
REPO = Path(__file__).resolve().parents[2]


def kag(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run the installed ``kag`` from the repository root; never raises on a non-zero exit."""
    return subprocess.run(
        [str(KAG), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
async def learner(resources: Resources):
    learner_id = f"cli-{uuid.uuid4().hex[:10]}"
    yield learner_id
    await erase_learner(resources, learner_id)


async def test_chat_with_piped_input_writes_memory_that_later_commands_read(learner, tmp_path):
    script = (
        "My name is Ada and my goal is to learn SQL joins.\nRemember that my locker code is 4711.\n"
        "A left join keeps every row of the left table, even rows without a match.\n/end\n"
    )
    done = kag("chat", "--learner", learner, "--concept", "sql.joins", stdin=script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("kag> ") == 3  # /end closes the session without a turn of its own
    assert "note(s) written" in done.stdout
    assert "Traceback" not in done.stderr
    # replies in a learner's words: what was kept, said back; one quiet marker, no tool or section names
    assert "kag> [offline policy, not an LLM] Got it: your name is Ada" in done.stdout, done.stdout
    assert not re.search(r"remember_fact|core_memory|user_profile|archival|From your memory", done.stdout)

    shown = kag("memory", "show", "--learner", learner)
    assert shown.returncode == 0, shown.stderr
    assert "[current_goals]" in shown.stdout and "SQL joins" in shown.stdout
    profile = shown.stdout.split("[user_profile]", 1)[1].split("[", 1)[0]
    assert "My name is Ada." in profile and "goal" not in profile, "a name-and-goal sentence feeds both"

    found = kag("search", "locker code", "--learner", learner)
    assert found.returncode == 0, found.stderr
    assert "4711" in found.stdout

    said = kag("search", "Ada", "--kind", "conversation", "--learner", learner)
    assert said.returncode == 0 and "My name is Ada" in said.stdout
    assert " · session of " in said.stdout and "you said at " in said.stdout
    # what was said, not how it was stored: no kinds, no scores, no tool renderings
    assert not re.search(r"\b0\.\d{3}\b|turn_context|\bmessage\b|\[calls |\{\"", said.stdout)
    verbose = kag("search", "Ada", "--kind", "conversation", "--learner", learner, "--verbose")
    assert re.search(r"message \d\.\d{3}", verbose.stdout)
    ended = kag("search", "thank you", "--kind", "conversation", "--learner", learner)
    assert "That is all for this session" not in ended.stdout  # /end added no learner line

    listed = kag("notes", "list", "--learner", learner)
    assert listed.returncode == 0 and listed.stdout.startswith("note_")
    note_ids = [line.split()[0] for line in listed.stdout.splitlines()]
    note_id = note_ids[0]

    vault = tmp_path / "vault"
    exported = kag("notes", "export", str(vault), "--learner", learner)
    assert exported.returncode == 0, exported.stderr
    files = sorted(vault.glob("*.md"))
    assert len(files) == len(note_ids) and (vault / "left-join.md").is_file()  # named by concept
    text = (vault / "left-join.md").read_text()
    assert re.match(r'---\nid: "note_[0-9a-f]+"\n', text)  # the id is in the front matter
    assert "\ntags:" in text and "```mermaid\nflowchart LR\n" in text
    note_id = re.match(r'---\nid: "(note_[0-9a-f]+)"', text).group(1)

    shown_note = kag("notes", "show", note_id, "--learner", learner)
    assert shown_note.returncode == 0 and shown_note.stdout.strip() == text.strip()


FIRST_SESSION = (
    "Hi, I'm Lena and I'm a second-year biology student learning Python.",
    "A list comprehension builds a new list from an iterable in a single expression.",
    "For example, [x * x for x in range(5)] gives the squares from 0 to 16.",
    "A dictionary maps keys to values, and looking up a key stays fast even in a big dictionary.",
    "I'm not sure when a generator is better than a list comprehension.",
)


async def test_a_new_learners_first_session_gives_notes_worth_keeping(learner, tmp_path):
    done = kag("chat", "--learner", learner, stdin="\n".join(FIRST_SESSION) + "\n/end\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Got it: For example" not in done.stdout, "an example is not a fact about the learner"
    assert "2 note(s) written" in done.stdout, done.stdout

    vault = tmp_path / "vault"
    exported = kag("notes", "export", str(vault), "--learner", learner)
    assert exported.returncode == 0, exported.stderr
    assert {p.name for p in vault.glob("*.md")} == {"list-comprehension.md", "dictionary.md"}
    comprehension = (vault / "list-comprehension.md").read_text()
    assert (
        "\nA list comprehension builds a new list from an iterable in a single expression.\n" in comprehension
    )
    assert "**Example:** [x * x for x in range(5)] gives the squares from 0 to 16." in comprehension
    assert (
        "**To revisit:** I'm not sure when a generator is better than a list comprehension." in comprehension
    )
    dictionary = (vault / "dictionary.md").read_text()  # a single common word, defined once
    assert "\nA dictionary maps keys to values, and looking up a key stays fast" in dictionary
    for text in (comprehension, dictionary):
        assert repeated_sentences([prose_of(text)]) == [], "no text twice"
        assert not re.search(r"Lena|biology|Noted|Got it|offline policy", text), text


async def test_memory_edit_then_show(learner):
    added = kag("memory", "edit", "user_profile", "Prefers worked examples", "--learner", learner)
    assert added.returncode == 0, added.stderr
    replaced = kag(
        "memory",
        "edit",
        "user_profile",
        "Prefers short worked examples",
        "--replace",
        "Prefers worked examples",
        "--learner",
        learner,
    )
    assert replaced.returncode == 0, replaced.stderr
    shown = kag("memory", "show", "--learner", learner)
    assert "  Prefers short worked examples" in shown.stdout.splitlines()


async def test_memory_edit_errors_are_the_tools_errors(learner):
    bad = kag("memory", "edit", "Bad Section", "x", "--learner", learner)
    assert bad.returncode == 2 and bad.stderr.startswith("error: section 'Bad Section'")
    missing = kag("memory", "edit", "user_profile", "new", "--replace", "not there", "--learner", learner)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ")
    too_long = kag(
        "memory", "edit", "user_profile", "x" * 50, "--learner", learner, env={"KAG_CORE_SECTION_LIMIT": "10"}
    )
    assert too_long.returncode == 2 and "10" in too_long.stderr
    for done in (bad, missing, too_long):
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_smoke_with_a_wrong_password_is_one_line_naming_the_variable():
    done = kag("smoke", env={"KAG_NEO4J_PASSWORD": "not-the-password"})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: KAG_NEO4J_PASSWORD:")


def test_smoke_with_a_service_down_names_it_and_the_fix():
    with __import__("socket").socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = kag("smoke", env={"KAG_NEO4J_URI": f"bolt://127.0.0.1:{port}"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "Neo4j is unreachable" in line and "scripts/services.sh up" in line


def test_redis_url_on_the_bolt_port_says_it_is_not_redis():
    done = kag("memory", "show", env={"KAG_REDIS_URL": "redis://127.0.0.1:7687/0"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "127.0.0.1:7687 is taken by something that is not Redis" in done.stderr


def test_smoke_passes():
    done = kag("smoke")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "neo4j   write/read ok" in done.stdout and "redis   write/read ok" in done.stdout


def test_serve_help_describes_kag_serve():
    done = kag("serve", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: kag serve [OPTIONS]") and "KAG_PROJECT_DIR" in done.stdout


def test_serve_outside_the_project_finds_it_or_says_how_in_one_line(tmp_path):
    bad = tmp_path / "tokens.json"
    bad.write_text('{"not json"')
    # run from an unrelated directory: the project is found (the installed source), so the
    # malformed token table is what stops it, in one line instead of a server traceback
    done = subprocess.run(
        [str(KAG), "serve", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "KAG_AUTH_TOKENS_FILE": str(bad)},
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: KAG_AUTH_TOKENS_FILE:") and done.stderr.count("\n") == 1
    wrong = subprocess.run(
        [str(KAG), "serve"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "KAG_PROJECT_DIR": str(tmp_path)},
    )
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "KAG_PROJECT_DIR=" in wrong.stderr and "Traceback" not in wrong.stderr
