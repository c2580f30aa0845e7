"""The run engine: the plan of a contract's claims, the runner that checks chunks of
cases and stores their rows, comparative and stored-case checks, path warnings.

No name here is public: import ``Runner``, ``RunOptions`` and ``run_sync`` from
``verifier``.
"""

__all__: list[str] = []
