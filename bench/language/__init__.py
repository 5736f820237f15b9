"""Benches of the language layer (``agent.language``): segmentation and the exemplar knobs."""
