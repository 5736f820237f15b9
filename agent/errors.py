"""The exceptions KAG raises. Driver errors are wrapped in these.

Every error a run can end with also derives from ``ValueError`` or
``RuntimeError``: the LangGraph server shows the message of those to the client
(others become "An internal error occurred"), so an outage or a refused learner
reads as what it is.
"""

from __future__ import annotations


class KAGError(Exception):
    """Base class for every error KAG raises on purpose."""


class ConfigError(KAGError, ValueError):
    """A setting is missing or invalid; the message names the variable."""

    def __init__(self, variable: str, problem: str) -> None:
        """Name the offending ``variable`` and say what is wrong with it."""
        self.variable = variable
        self.problem = problem
        super().__init__(f"{variable}: {problem}")


class InvalidInputError(KAGError, ValueError):
    """A request, learner id or tool argument failed validation."""


class StoreUnavailableError(KAGError, ConnectionError, RuntimeError):
    """A backing service (Neo4j or Redis) cannot be reached."""

    def __init__(self, service: str, detail: str) -> None:
        """Name the ``service`` and how to start it."""
        self.service = service
        super().__init__(
            f"{service} is unreachable ({detail}). Start it with `scripts/services.sh up` "
            f"or `make services-up`."
        )


class WrongServiceError(KAGError, ConnectionError):
    """A port answers, but not with the protocol KAG expects (e.g. HTTP on the Redis port)."""

    def __init__(self, service: str, address: str, variable: str, detail: str = "") -> None:
        """Name the expected ``service``, the ``address``, the ``variable`` that sets it, what answered."""
        self.service = service
        self.address = address
        self.variable = variable
        what = f" ({detail})" if detail else ""
        super().__init__(
            f"{address} is taken by something that is not {service}{what}. Stop it, or point "
            f"{variable} at {service} (scripts/services.sh up starts it)."
        )


class StoreError(KAGError, RuntimeError):
    """A store operation failed for a reason other than reachability."""


class CoreMemoryLimitError(KAGError, ValueError):
    """A core memory section would exceed its character limit."""


class LearnerMismatchError(KAGError, PermissionError, RuntimeError):
    """A run names a learner other than the authenticated one; nothing was read or written."""


class ThreadOwnedError(KAGError, PermissionError, RuntimeError):
    """A thread id already holds another learner's checkpoints; it cannot be reused."""
