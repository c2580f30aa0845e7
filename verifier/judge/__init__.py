"""Judges: verdict tools and parsing, prompt rendering for claims, majority, the phase,
batches and judge configuration (model calls themselves go through ``verifier.llm``)."""
