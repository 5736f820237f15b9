"""Memory-kernel benches (issue 14): ingestion, consultation latency, system learning, RAG vs kernel.

    .venv/bin/python -m bench.kernel [ingestion|consult|learning|rag ...] [--small]

Each part is a module with a ``run_*`` coroutine returning a result whose ``lines()`` are
what ``__main__`` prints; the tests (``tests/bench/test_kernel_bench*.py``) run the same
coroutines on a tiny configuration against the real services.
"""
