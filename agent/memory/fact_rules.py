"""Moved to ``agent.language.facts`` (issue 39): this name stays until ``offline_cognition`` imports it."""

from agent.language.facts import fact_slot, is_fact_statement, query_slots, replaced_values

__all__ = ["fact_slot", "is_fact_statement", "query_slots", "replaced_values"]
