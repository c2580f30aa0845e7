"""The SQLite store: one file, WAL, the rows' chain checked on append.

No name here is public: open a store with ``verifier.open_store`` (the store class is
``verifier.gaps.SqliteStore``).
"""

__all__: list[str] = []
