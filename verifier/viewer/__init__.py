"""The results viewer: server-rendered pages over a gap store (``verifier view``, and
``/view`` under ``verifier serve``). See :mod:`verifier.viewer.app` for how pages join it.

No name here is public: run it with ``verifier view``; what it reads of a store is
exported from ``verifier`` (``list_runs``, ``run_results``, ...).
"""

__all__: list[str] = []
