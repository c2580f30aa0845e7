"""Contracts: the v1 format's models, safe YAML loading with positions, lint, schema.

No name here is public: import ``load_contract``, ``check_contract``, ``Contract``,
``LoadedContract``, ``JudgeSpec``, ``SutSpec`` and ``ClaimChoiceError`` from ``verifier``.
"""

__all__: list[str] = []
