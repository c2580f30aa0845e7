"""The PostgreSQL store: one database shared by many writers, one chain per run.

No name here is public: open a store with ``verifier.open_store`` (the store class is
``verifier.gaps.PostgresStore``).
"""

__all__: list[str] = []
