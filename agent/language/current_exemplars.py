"""Exemplars for ``agent.language.current_values``: which statements are no current value of the learner's.

Two small classifiers over MiniLM vectors read what the parse alone cannot:

- ``MAYBE`` / ``SO``: a learner's clause with a verb complement ("I want to move to Berlin", "I'm
  going to start at Siemens") is a wish, plan or hedge (``MAYBE``) or a value that holds or an
  announced change (``SO``: "I started learning Korean", "I'm going to start at Siemens in March").
- ``PEOPLE`` / ``THINGS``: the head noun of a subject the learner owns ("my flatmate" against "my
  stipend"): a person whose values are their own, or the learner's thing or group.

None of these is from a scenario set; ``python -m bench.fact_write_knobs`` reads them
leave-one-out to choose ``current_values.MAYBE_MIN`` and ``current_values.PERSON_MIN``.
"""

from __future__ import annotations

MAYBE: tuple[str, ...] = (
    "I want to move to Berlin next year.",
    "I'm thinking about switching to Vim.",
    "I hope to get into the master's at TU Munich.",
    "I'm planning to apply for the data team at Zalando.",
    "I'm considering doing a bootcamp in Toronto.",
    "I dream of working at CERN one day.",
    "I wish I could live in Kyoto.",
    "Thinking of trying Anki instead of Quizlet.",
    "I intend to take the C1 exam at some point.",
    "I'm hoping to get a Steam Deck for my birthday.",
    "I'm tempted to learn Go instead of Rust.",
    "I kind of want to try bouldering.",
    "I'm toying with the idea of a PhD in Delft.",
    "Hoping to hit 1500 on Lichess by summer.",
    "I'm aiming to run a half marathon in Porto someday.",
    "Planning to ask my boss for a transfer to the Madrid office.",
    "I'm weighing up an offer from Atlassian.",
    "I'm looking into moving to Graz.",
    "I want to try Pimsleur for listening.",
    "I'm tempted to buy a Framework laptop.",
    "I'm debating whether to switch my major to economics.",
    "I'm trying to decide between Duolingo and Babbel.",
    "Hoping to start a job in Oslo after graduation.",
    "I plan to sit the CFA Level 1 in 2027.",
    "I'd like to spend a semester in Seoul.",
    "I'm keen to try a summer school in Salamanca.",
)
"""A wish, plan or hedge told with a verb complement: no value the learner has now."""

SO: tuple[str, ...] = (
    "I started learning Korean last month.",
    "I began working at Siemens in March.",
    "I'm going to start at Siemens on 1 March.",
    "I finished reading the Rust book.",
    "I managed to pass the B2 exam!",
    "I stopped using Jupyter and now write scripts in VS Code.",
    "I keep forgetting the dative endings.",
    "I decided to move to Leipzig, the lease starts in May.",
    "Trying to learn Rust on an old ThinkPad.",
    "I have to hand in the thesis by 29 May.",
    "I need to score 7 for the registration.",
    "I got to practise German at the bakery every morning.",
    "I continue to work night shifts at the hospital.",
    "I'm going to be living in Graz from October.",
    "I switched to using Obsidian for my notes.",
    "I ended up taking the job at Ocado.",
    "I chose to study statistics instead of biology.",
    "I started doing 30 minutes of Busuu a day.",
    "I've been asked to lead the data team at Klarna.",
    "I got promoted to senior analyst.",
    "I quit working at the café in May.",
    "I'm learning to play the cello with Frau Weber.",
    "I tried to install WSL on the Surface and it worked.",
    "I have to submit the essay by Friday the 9th.",
    "I used to live in Lyon but moved to Lille in January.",
    "I'm set to start the new role on Monday.",
)
"""A value that holds, or a change the learner announces, told with a verb complement."""

PEOPLE: tuple[str, ...] = (
    "friend",
    "flatmate",
    "roommate",
    "sister",
    "brother",
    "cousin",
    "mum",
    "dad",
    "mother",
    "father",
    "aunt",
    "uncle",
    "grandma",
    "neighbour",
    "classmate",
    "coworker",
    "colleague",
    "boss",
    "manager",
    "tutor",
    "mentor",
    "partner",
    "husband",
    "wife",
    "girlfriend",
    "boyfriend",
    "son",
    "daughter",
    "kid",
    "housemate",
    "teammate",
    "buddy",
    "niece",
    "nephew",
    "landlord",
)
"""Head nouns of people the learner names as theirs ("my flatmate gets 650")."""

THINGS: tuple[str, ...] = (
    "stipend",
    "budget",
    "rent",
    "salary",
    "exam",
    "deadline",
    "thesis",
    "laptop",
    "flat",
    "course",
    "streak",
    "score",
    "level",
    "team",
    "class",
    "company",
    "department",
    "school",
    "university",
    "job",
    "major",
    "degree",
    "phone",
    "app",
    "grade",
    "choir",
    "band",
    "project",
    "visa",
    "contract",
    "shift",
    "limit",
    "goal",
    "essay",
    "lab",
    "lesson",
    "appointment",
    "allowance",
    "coverage",
)
"""Head nouns of the learner's things and groups ("my stipend is 500", "our team moved to Kotlin")."""
