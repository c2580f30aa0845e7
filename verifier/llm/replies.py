"""Where a run's model replies are kept: the store's cache table and a recordings file.

Judges and a prompt run as the system under test read and write replies the same
way: recordings first (a file beside the contract, committed so CI replays offline),
then the cache table of the gap store the run writes to.
"""

from __future__ import annotations

from pathlib import Path

from verifier._internal.file_lookup import is_file
from verifier.llm.cache import LayeredCache, MemoryCache, Recordings, SqliteJudgeCache, StoreCache


def default_recordings(contract_path: Path) -> Path:
    """``NAME.recordings.jsonl`` beside ``NAME.yaml``."""
    return contract_path.with_name(f"{contract_path.stem}.recordings.jsonl")


def recordings_beside(contract_path: Path, mode: str) -> Path | None:
    """The recordings file beside the contract a run in ``mode`` reads: in ``replay``
    when it exists, in ``record`` to write it; ``None`` otherwise.

    A live run asks the model: it takes no verdict from a file beside the contract,
    which may hold hand-written example data, unless that file is named on purpose.
    """
    if mode not in ("replay", "record"):
        return None
    sibling = default_recordings(contract_path)
    return sibling if is_file(sibling) or mode == "record" else None


def reply_cache(
    store_path: str | None, recordings: Path | None, *, run_only: bool = False
) -> LayeredCache:
    """The cache a run's calls go through.

    Args:
        store_path: The store whose cache table is used, as ``--store`` names it
            (``None``: none).
        recordings: A recordings file read before the store's cache.
        run_only: Keep replies for this run only instead of in the store (a contract
            that redacts fields: a reply may quote the case).
    """
    store_cache: StoreCache | None = None
    if run_only:
        store_cache = MemoryCache()
    elif store_path:
        store_cache = store_cache_for(store_path)
    recorded = Recordings(recordings) if recordings is not None else None
    return LayeredCache(store_cache, recorded)


def store_cache_for(store_path: str) -> StoreCache:
    """The judge cache kept in the store ``store_path`` names, as ``--store`` takes it
    (a SQLite file, ``sqlite:///FILE`` or a ``postgresql://`` URL)."""
    from verifier.gaps.store import is_postgres_url

    if is_postgres_url(store_path):
        from verifier.llm.pg_cache import PostgresJudgeCache

        return PostgresJudgeCache(store_path)
    # The gap store claims its file first (it refuses a file another table made).
    from verifier.gaps.sqlite.store import SqliteStore

    path = store_path.removeprefix("sqlite:///")
    SqliteStore(path).close()
    return SqliteJudgeCache(path)
