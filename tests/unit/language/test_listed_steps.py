"""Steps told as a numbered, lettered, ordinal or bulleted list inside one message (issue 39, L4).

The phrasings are this test's own: a list may be marked "Step 1" without punctuation, "Step two,",
"(3)", "c)", "First, … Second, …" or "- " lines, and run over several sentences; the numbers inside a
step ("add 2 drops", "a second coat") are no marks.
"""

from __future__ import annotations

import pytest

from agent.language.procedures import find_listed, split_listed
from agent.language.sentences import split_sentences
from agent.language.told_procedures import told_procedure

LISTS = [
    ("Step 1 grease the tin. Step 2 cream the butter and sugar. Step 3 bake for 40 minutes", 3),
    (
        "Step one, define the invariant. Step two, show it holds at the start. "
        "Step three, show each loop keeps it",
        3,
    ),
    ("(1) open the bank app (2) export the CSV (3) import it into the budget sheet", 3),
    ("a) read the passage b) underline every verb c) translate the verbs", 3),
    (
        "First, sand the board. Second, wipe the dust. Third, paint a thin coat. "
        "Fourth, let it dry overnight",
        4,
    ),
    ("my deploy: 1) merge to main 2) wait for the build 3) promote the image", 3),
    ("- stage the hunks\n- write the message\n- push to the fork", 3),
    ("Step 1) warm up the voice. Step 2) sing the scale on 'ma'. Step 3) record the song", 3),
]
NOT_LISTS = [
    "I add 2 drops of indicator and 3 ml of water",
    "the first time I did a second pass it was fine",
    "chapter 1. was hard, chapter 3. was easy",
    "I live at 12 Baker Street. It has 3 floors",
]


@pytest.mark.parametrize(("text", "count"), LISTS)
def test_a_list_is_read_whatever_its_marks(text: str, count: int) -> None:
    found = split_listed(text)
    assert found is not None and len(found) == count
    assert not any(item.lower().startswith(("step", "(", "first", "second")) for item in found)


@pytest.mark.parametrize("text", NOT_LISTS)
def test_numbers_and_ordinals_that_do_not_count_up_are_no_list(text: str) -> None:
    assert find_listed(text) is None


def test_a_list_over_sentences_is_one_procedure_named_by_the_message_before() -> None:
    message = "Step 1 label the tubes. Step 2 add the buffer to each one. Step 3 spin them for a minute"
    told = told_procedure(split_sentences(message), "centrifuge prep for my biochem practical")
    assert told is not None
    assert told.steps == ["label the tubes", "add the buffer to each one", "spin them for a minute"]
    assert "centrifuge" in told.name


def test_a_list_ends_at_a_question() -> None:
    message = "1. copy the template 2. rename the sheet 3. fill in the totals. Is there a faster way?"
    told = told_procedure(split_sentences(message))
    assert told is not None and told.steps[-1] == "fill in the totals"


def test_the_text_before_a_colon_names_steps_unlike_it() -> None:
    message = (
        "Scales warm-up for violin: first I play G major slowly. Then I add vibrato. Finally I speed it up"
    )
    told = told_procedure(split_sentences(message))
    assert told is not None and told.name == "Scales warm-up for violin"


def test_a_cue_that_goes_on_takes_the_step_before_it() -> None:
    message = (
        "Cleaning the espresso machine goes like this. Run a backflush with the tablet. Next, soak the "
        "basket. After that, wipe the wand. Lastly, run plain water through"
    )
    told = told_procedure(split_sentences(message))
    assert told is not None
    assert told.steps[0].startswith("Run a backflush") and told.steps[2] == "wipe the wand"
