"""Judges: prompt rendering, the stability triple, providers, cache, verdict parsing."""
