"""A run as one library call: assembling judges and the system under test over a
store, resuming, and the options of ``verifier run``.

No name here is public: import ``run_contract``, ``Judges``, ``Sut``, ``RunResult`` and
``JudgesUnavailable`` from ``verifier``.
"""

__all__: list[str] = []
