"""The SQLite store: one file, WAL, the rows' chain checked on append."""
