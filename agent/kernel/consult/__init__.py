"""Consultation: the memory kernel answers a query with a brief, on demand (docs/kernel.md).

``consult(resources, learner_id, request)`` is the one entry point (the HTTP route, the
``consult_memory`` tool); ``graphs/consult.py`` runs the same steps as a served graph.
"""

from agent.kernel.consult.models import ConsultRequest, ConsultResponse, parse_request
from agent.kernel.consult.service import ConsultDeps, consult

__all__ = ["ConsultDeps", "ConsultRequest", "ConsultResponse", "consult", "parse_request"]
