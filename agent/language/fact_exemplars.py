"""Statements written for KAG that do or do not tell a value of the learner's own, without "I".

``agent.language.own_values.owns_a_value`` reads, with a logistic regression over their MiniLM
vectors, whether a statement with no first-person word but with a value (a number, a name,
a code such as "B2") tells something of the learner's: "Passed the N3 exam last month!" (the
subject "I" left out), "They moved the viva to 3 March." (the learner's viva, moved by
others); or not: news, general truths, someone else's life, code, plans, small talk with a
number in it. None of these sentences is from a scenario set; ``python -m bench.fact_write_knobs``
reads them leave-one-out to choose ``own_values.OWN_VALUE``.
"""

from __future__ import annotations

OWN: tuple[str, ...] = (
    "Passed the N3 exam last month!",
    "Finally done with week one at Spotify.",
    "Three exams left this semester.",
    "Only two evenings a week for Spanish from now on.",
    "Got a 7.5 on the retake.",
    "Started at Shopify on Monday as a data engineer.",
    "Moved into a flat in Porto over the weekend.",
    "New laptop arrived: a MacBook Air M3.",
    "Down to 120 flashcards a day after the exams.",
    "Switched to the B2 group after the placement test.",
    "Twelve more kata solved since Friday.",
    "Deadline's now the 14th, thanks to the strike.",
    "They moved the viva to 3 March.",
    "Thesis supervisor is now Dr. Mensah.",
    "Final grade for the stats module came back as 68.",
    "Finished chapter 9 of the Rust book yesterday.",
    "Another 40 minutes of listening practice today.",
    "Currently on lesson 54 of the Duolingo Italian course.",
    "Back at 1600 on chess.com after a rough week.",
    "Working from Lisbon for the next few months.",
    "The department gave us until Friday the 9th for the essay.",
    "Two weeks into the job at Accenture and still no laptop.",
    "Got moved up to the advanced group at the Goethe-Institut.",
    "Just 300 euros left in the course budget.",
    "Now on the night shift at the Kaiser hospital.",
    "Streak's at 45 days on Busuu.",
    "Scored 88 on the mock exam.",
    "The piano recital got pushed to the 21st.",
    "Half the course budget gone on the AWS exam voucher.",
    "Week three at Ocado done, the codebase is huge.",
    "Promoted to senior analyst at Deloitte!",
    "Four hours of sleep and two assignments due, great.",
)
"""Statements of a value of the learner's own, without a first-person word."""

NOT_OWN: tuple[str, ...] = (
    "Python 3.13 was released in October.",
    "The Eiffel Tower is 330 metres tall.",
    "Germany has 16 federal states.",
    "The function returns 42 when the list is empty.",
    "Chapter 3 of the textbook covers recursion.",
    "Anna from class got 95 on the test.",
    "The café on Main Street opens at 8.",
    "Pandas 2.0 switched to Arrow-backed strings.",
    "The Beatles released Abbey Road in 1969.",
    "Linus Torvalds wrote Git in 2005.",
    "Maybe tomorrow at 6 then.",
    "Thanks a lot, that helped with question 4!",
    "The loop runs 10 times before it stops.",
    "Water boils at 100 degrees at sea level.",
    "Tom's sister moved to Berlin in May.",
    "React 19 dropped forwardRef.",
    "Haha, Monday again.",
    "Same error as before on line 12.",
    "Kubernetes was open-sourced by Google in 2014.",
    "The answer to exercise 7 is 3/4.",
    "Marie Curie won two Nobel prizes.",
    "Good morning from a rainy Tuesday!",
    "In Japan the school year starts in April.",
    "Probably the 2nd option, then.",
    "Next time, the chapter on Dijkstra.",
    "Each LeetCode contest lasts 90 minutes.",
    "The B1 exam has four parts: reading, writing, listening and speaking.",
    "Rust 1.80 made LazyLock stable.",
    "Her new job at Google starts in May.",
    "The Mars rover landed in 2021.",
    "SQL Server uses TOP 10 instead of LIMIT 10.",
    "Happy Friday, only 2 more hours to go haha.",
)
"""Statements with a number or a name that tell no value of the learner's."""
