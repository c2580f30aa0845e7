"""The judge cache: a verdict already obtained for the same work is never paid for twice.

The key is ``ModelRequest.cache_key``; its parts, and what is left out of it and why,
are listed in one place: ``verifier.llm.cache_key`` (``CACHE_KEY_PARTS`` and
``EXCLUDED_FROM_CACHE_KEY``). With ``samples: N`` each sample has its own key (the
sample index is mixed in), so N samples are N calls and a rerun replays all N.

Entries live in the gap store, beside the rows they back (a table of the SQLite file,
or of the PostgreSQL schema: ``verifier.llm.pg_cache``), and in optional
*recordings* (a JSONL file of entries) that can be committed so CI replays verdicts
offline. A cached reply keeps the triple of the call that produced it.

An entry in the store is sealed when written: the SHA-256 of its text goes into the
store's seal chain (``verifier.gaps.seals``) in the same transaction. ``get`` serves an
entry only while it matches its seal; an edited entry (a flipped verdict, say) or one
without a seal (written before the seal chain) is a miss, so the judge is asked again.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from verifier._internal.canonical import canonical_json
from verifier.errors import VerifierError
from verifier.llm.cache_key import CACHE_KEY_PARTS, EXCLUDED_FROM_CACHE_KEY
from verifier.llm.types import ModelReply, ModelRequest, Usage

__all__ = [
    "CACHE_KEY_PARTS",
    "EXCLUDED_FROM_CACHE_KEY",
    "CachedReply",
    "LayeredCache",
    "MemoryCache",
    "Recordings",
    "SqliteJudgeCache",
    "StoreCache",
]


@dataclass(frozen=True, slots=True)
class CachedReply:
    """A reply stored under a cache key, with the triple of the call that made it."""

    key: str
    provider: str
    model: str
    prompt_sha: str
    sampling_sha: str
    reply: ModelReply
    recorded_at: str
    recorded_run: str

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "provider": self.provider,
            "model": self.model,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
            "recorded_at": self.recorded_at,
            "recorded_run": self.recorded_run,
            "reply": reply_to_json(self.reply),
        }

    def stored(self) -> tuple[tuple[str, ...], str]:
        """The table's values (key, provider, model, prompt_sha, sampling_sha, entry),
        as both stores insert them, and the entry's text, which its seal covers."""
        text = canonical_json(self.as_json()).decode()
        return (
            self.key, self.provider, self.model, self.prompt_sha, self.sampling_sha, text,
        ), text  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CachedReply:
        return cls(
            key=str(data["key"]),
            provider=str(data["provider"]),
            model=str(data["model"]),
            prompt_sha=str(data["prompt_sha"]),
            sampling_sha=str(data["sampling_sha"]),
            reply=reply_from_json(data["reply"]),
            recorded_at=str(data.get("recorded_at", "")),
            recorded_run=str(data.get("recorded_run", "")),
        )


def reply_to_json(reply: ModelReply) -> dict[str, Any]:
    return {
        "served_model": reply.served_model,
        "stop_reason": reply.stop_reason,
        "tool_input": reply.tool_input,
        "text": reply.text,
        "usage": reply.usage.as_dict(),
        "response_id": reply.response_id,
        "latency_ms": reply.latency_ms,
        "raw": reply.raw,
    }


def reply_from_json(data: dict[str, Any]) -> ModelReply:
    usage = data.get("usage") or {}
    return ModelReply(
        served_model=data.get("served_model"),
        stop_reason=data.get("stop_reason"),
        tool_input=data.get("tool_input"),
        text=str(data.get("text") or ""),
        usage=Usage(**{k: int(v) for k, v in usage.items() if k in Usage.__slots__}),
        response_id=data.get("response_id"),
        latency_ms=float(data.get("latency_ms") or 0.0),
        raw=data.get("raw") or {},
    )


def entry_for(request: ModelRequest, reply: ModelReply, run_id: str) -> CachedReply:
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return CachedReply(
        request.cache_key,
        request.provider,
        request.model,
        request.prompt_sha,
        request.sampling_sha,
        reply,
        now,
        run_id,
    )


class CacheError(VerifierError):
    """A cache or recordings file that cannot be used."""


class StoreCache(Protocol):
    """The judge cache kept in a gap store (``SqliteJudgeCache``, ``PostgresJudgeCache``)."""

    def get(self, key: str) -> CachedReply | None: ...

    def put(self, entry: CachedReply) -> None: ...

    def rejected(self, key: str) -> str | None:
        """Why ``get`` refused the entry stored under ``key``, or ``None``."""
        ...

    def close(self) -> None: ...


_REJECTED_REMEMBERED = 10_000


class RejectedEntries:
    """The keys whose stored entries ``get`` refused for not matching their seal, so a
    miss caused by an edited entry can be told from a plain one (bounded: past
    ``_REJECTED_REMEMBERED`` keys the oldest are forgotten)."""

    def __init__(self) -> None:
        self._why: dict[str, str] = {}

    def note(self, key: str, sealed: bool) -> None:
        if len(self._why) >= _REJECTED_REMEMBERED:
            self._why.pop(next(iter(self._why)))
        self._why[key] = (
            "was edited after it was sealed"
            if sealed
            else "has no seal (written before cache entries were sealed, or its seal is gone)"
        )

    def why(self, key: str) -> str | None:
        return self._why.get(key)


class SqliteJudgeCache:
    """Cache entries in a table of the SQLite gap-store file, each sealed in its chain."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        self._rejected = RejectedEntries()
        try:
            self._conn = sqlite3.connect(
                str(path), timeout=30, isolation_level=None, check_same_thread=False
            )
            # As the store's own connection (the file is in WAL mode): a put then waits
            # for no fsync. With the default FULL each one did (5-7 ms), and one at a
            # time they could not keep up with 32 judge calls in flight (ADR 0047).
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS judge_cache (key TEXT PRIMARY KEY,"
                " provider TEXT NOT NULL, model TEXT NOT NULL,"
                " prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL,"
                " entry TEXT NOT NULL)"
            )
        except sqlite3.Error as exc:
            raise CacheError(f"{path}: cannot open the judge cache: {exc}") from None

    def get(self, key: str) -> CachedReply | None:
        """The entry stored under ``key`` if it matches its seal, else ``None``."""
        from verifier.gaps.seals import CACHE_ENTRY_QUERY, StoredSeal, cache_entry_sealed

        with self._lock:
            row = self._conn.execute(CACHE_ENTRY_QUERY, (key,)).fetchone()
        if row is None:
            return None
        seal = StoredSeal(*row[1:]) if row[1] is not None else None
        if not cache_entry_sealed(seal, key, row[0]):
            self._rejected.note(key, seal is not None)
            return None
        return CachedReply.from_json(orjson.loads(row[0]))

    def rejected(self, key: str) -> str | None:
        """Why ``get`` refused the entry stored under ``key``, or ``None``."""
        return self._rejected.why(key)

    def put(self, entry: CachedReply) -> None:
        """Stores ``entry`` under its key, replacing any entry already there, and seals it."""
        from verifier.gaps.seals import append_seal, cache_payload
        from verifier.gaps.sqlite.file import transaction

        params, text = entry.stored()
        with self._lock, transaction(self._conn):
            self._conn.execute(
                "INSERT OR REPLACE INTO judge_cache"
                " (key, provider, model, prompt_sha, sampling_sha, entry)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                params,
            )
            append_seal(self._conn.execute, "?", "cache", entry.key, cache_payload(text))

    def close(self) -> None:
        self._conn.close()


class MemoryCache:
    """Cache entries held by one run only and written nowhere.

    For a contract that redacts fields: its replies may quote the case, so none is
    kept in the store, yet a reply fetched once (a batch's results, collected before
    the run reads them) must still reach the run.
    """

    def __init__(self) -> None:
        self._entries: dict[str, CachedReply] = {}

    def get(self, key: str) -> CachedReply | None:
        return self._entries.get(key)

    def put(self, entry: CachedReply) -> None:
        self._entries[entry.key] = entry

    def rejected(self, key: str) -> str | None:
        """Always ``None``: nothing outside this process can edit these entries."""
        return None

    def close(self) -> None:
        self._entries.clear()


class Recordings:
    """Cache entries in a JSONL file (one ``CachedReply`` per line), for committing.

    Loaded whole: recordings hold one line per judge call of a suite, not per row.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, CachedReply] = {}
        self._lines: dict[str, int] = {}
        self._last_line = 0
        if path.exists():
            for number, entry in _read_recordings(path):
                self._entries[entry.key] = entry
                self._lines[entry.key] = number
            with path.open("rb") as handle:  # blank lines count: a put appends after them
                self._last_line = sum(1 for _ in handle)

    def get(self, key: str) -> CachedReply | None:
        return self._entries.get(key)

    def source(self, key: str) -> str | None:
        """Where the entry served for ``key`` is (``FILE line N``), or ``None``."""
        line = self._lines.get(key)
        return f"{self.path} line {line}" if line is not None else None

    def put(self, entry: CachedReply) -> None:
        self._entries[entry.key] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = canonical_json(entry.as_json()) + b"\n"
        with self.path.open("a+b") as handle:
            # A file edited by hand may end without a newline: the entry must not be
            # joined onto its last line, which would spoil both.
            if handle.seek(0, 2) > 0:
                handle.seek(-1, 2)
                if handle.read(1) != b"\n":
                    line = b"\n" + line
            handle.write(line)
        self._last_line += 1
        self._lines[entry.key] = self._last_line

    def __len__(self) -> int:
        return len(self._entries)


def _read_recordings(path: Path) -> Iterator[tuple[int, CachedReply]]:
    """Each entry of a recordings file with its line number (a later line for the same
    key replaces an earlier one)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            problem = f"{path}:{number}: not a recorded judge reply"
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise CacheError(
                    f"{problem} (invalid JSON: {exc.msg}, column {exc.colno})"
                ) from None
            if not isinstance(data, dict):
                raise CacheError(f"{problem} (a JSON object per line is expected)") from None
            missing = [key for key in _RECORDED_KEYS if key not in data]
            if missing:
                raise CacheError(f"{problem} (missing {', '.join(missing)})") from None
            if not isinstance(data["reply"], dict):
                raise CacheError(f"{problem} (reply must be a JSON object)") from None
            wrong = _reply_problem(data["reply"])
            if wrong is not None:
                raise CacheError(f"{problem} ({wrong})") from None
            try:
                entry = CachedReply.from_json(data)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise CacheError(f"{problem} (reply: {exc})") from None
            yield number, entry


_RECORDED_KEYS = ("key", "provider", "model", "prompt_sha", "sampling_sha", "reply")
_REPLY_TEXTS = ("served_model", "stop_reason", "text", "response_id")


def _reply_problem(reply: dict[str, Any]) -> str | None:
    """What in a recorded reply has a type ``reply_to_json`` never writes, in words."""
    for key in _REPLY_TEXTS:
        if not isinstance(reply.get(key), (str, type(None))):
            return f"reply.{key} must be a string or null"
    usage = reply.get("usage")
    if usage is not None and (
        not isinstance(usage, dict)
        or any(isinstance(v, bool) or not isinstance(v, int) for v in usage.values())
    ):
        return "reply.usage must be an object of token counts (integers)"
    latency = reply.get("latency_ms")
    if latency is not None and (isinstance(latency, bool) or not isinstance(latency, (int, float))):
        return "reply.latency_ms must be a number"
    return None


class LayeredCache:
    """Reads recordings first, then the store's cache; writes to both where present."""

    def __init__(self, store_cache: StoreCache | None, recordings: Recordings | None) -> None:
        self.store_cache = store_cache
        self.recordings = recordings

    def get(self, key: str) -> CachedReply | None:
        if self.recordings is not None:
            hit = self.recordings.get(key)
            if hit is not None:
                return hit
        return self.store_cache.get(key) if self.store_cache is not None else None

    def rejected(self, key: str) -> str | None:
        """Why the store's cache refused its entry for ``key`` (see ``RejectedEntries``)."""
        return self.store_cache.rejected(key) if self.store_cache is not None else None

    def source(self, key: str) -> str:
        """Where ``get`` finds the entry for ``key``: a recordings file's line, or the
        store's cache (what a reason names when the entry cannot be used)."""
        found = self.recordings.source(key) if self.recordings is not None else None
        return found or "the judge cache"

    def close(self) -> None:
        """Releases the store's cache (its database connection); recordings hold none."""
        if self.store_cache is not None:
            self.store_cache.close()

    def put(self, entry: CachedReply) -> None:
        if self.store_cache is not None:
            self.store_cache.put(entry)
        if self.recordings is not None:
            self.recordings.put(entry)
