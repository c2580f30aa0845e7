"""Judges: verdict tools and parsing, prompt rendering for claims, majority, the phase,
batches and judge configuration (model calls themselves go through ``verifier.llm``).

No name here is public: import ``Judges``, ``JudgeSpec`` and ``JudgesUnavailable``
from ``verifier``.
"""

__all__: list[str] = []
