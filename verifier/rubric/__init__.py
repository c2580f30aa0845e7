"""Rubric predicates: each a pure function registered under its YAML name.

No name here is public: import ``REGISTRY``, ``PredicateEntry`` and ``Outcome`` from
``verifier``.
"""

__all__: list[str] = []
