"""Hybrid retrieval: recipes, fusion, sessions, Lucene query building."""
