"""Archival search at scale: one learner with 100k memories among 1,000 learners, on one Neo4j.

Loads ``--learners`` learners into a Neo4j of its own (``--uri``; never the shared one), with
the product schema (``ArchivalStore.setup``): one "big" learner with ``--big`` memories and
the others with ``--small`` each. One memory goes through ``ArchivalStore.insert_many``; the
rest through ``BULK_INSERT``, the UNWIND equivalent of ``INSERT_MEMORIES`` (same labels,
properties and edges, checked against the product-written node). A complete learner is
skipped, so a second run measures at once (``--runs 0`` only loads). Then it times
``ArchivalStore.search`` (the product's read path, ``agent.search.hybrid``) for the big
learner and for small learners (the baseline, same process, same data) per case:

- ``vector``: the ``vector_only`` recipe (global vector top-k, learner-filtered; an exact
  cosine scan of the learner's memories when the learner's share of the top-k is short);
- ``vector exact``: the same recipe forced onto the exact per-learner scan (what a learner
  whose share of the global top-k is short pays, e.g. when every learner is large);
- ``full-text``: ``fulltext_only`` (Lucene, scoped by the learner key);
- ``hybrid_rrf``: the default recipe (vector + full text, RRF), and again with the exact scan;
- ``--search-where`` (Neo4j 2026.x only): the vector index is created with ``learner_id``
  as a filter property and the vector retriever uses ``SEARCH ... WHERE`` inside the index.

Vectors are random unit 384-d vectors (stored ones drawn by Neo4j, query ones keyed by the
text, ``RandomUnitEmbeddings``): the embedding model's cost is not what is measured.
Texts are Zipf-sampled words, so full text has realistic posting lists. Prints p50/p95 (ms)
per case and learner, and big/small ratios.

    nice -n 10 .venv/bin/python -m bench.neo4j_scale --uri bolt://127.0.0.1:7699 --runs 0
    nice -n 10 .venv/bin/python -m bench.neo4j_scale --uri bolt://127.0.0.1:7699 \
        --learners 1000 --big 100000 --small 100 --queries 100 --runs 3 --budget 12
"""
