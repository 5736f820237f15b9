"""KAG core: settings, providers, state, stores and prompts.

This package never imports ``tools`` or ``graphs``.
"""
