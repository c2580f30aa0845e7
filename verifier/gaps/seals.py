"""The seal chain: run records, appends and judge-cache entries, hash-chained with rows.

Rows alone cannot show that a run record was edited, that the newest run was dropped
whole, or that every row after an edit was hashed again. So every write a store makes
also appends a *seal* to a second chain, in the same transaction: ``begin`` (a run's
record as it began: contract, start, options), ``append`` (which runs got rows),
``end`` (status, end time, summary with row count and last row), ``cache`` (the
SHA-256 of a judge-cache entry) and ``gate`` (a pre-registered gate, whole:
``verifier.gaps.gate_locks``), ``record`` (a row of a table beside the rows that
decides something: a calibration, a resample, a judge batch) and
``purge`` (contents deleted on purpose; both ``verifier.gaps.record_seals``). Each
seal records the row chain's last row
(``rows``: seq and hash) at that moment, so the seal chain commits to every row too.

A seal's body is canonical JSON holding its position ``n`` and ``prev_hash``;
``seal_hash = sha256(prev_hash + body)``, as rows are hashed. The last seal's hash is
the store's *head*: it commits to everything the audit's verdict rests on. A head
published earlier must still be in the chain, at the position its body names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import orjson

from verifier._internal.canonical import canonical_json
from verifier.gaps.chain import GENESIS, row_hash_of, verify_link

SEAL_SCHEMA = "verifier.seal.v1"
SEAL_KINDS: frozenset[str] = frozenset(
    {"begin", "append", "end", "cache", "gate", "record", "purge"}
)
SEAL_COLUMNS = "n, kind, subject, body, prev_hash, seal_hash"

Execute = Callable[[str, tuple[Any, ...]], Any]


class StoredSeal(NamedTuple):
    """One seal as stored; ``body`` is the canonical JSON that was hashed."""

    n: int
    kind: str
    subject: str
    body: str
    prev_hash: str
    seal_hash: str


def seal_hash_of(prev_hash: str, body: str | bytes) -> str:
    """``sha256(prev_hash + body)`` as hex: a seal is hashed exactly as a row is."""
    return row_hash_of(prev_hash, body)


def seal_intact(seal: StoredSeal) -> bool:
    """Whether the seal's hash seals its body after its ``prev_hash``."""
    return verify_link(seal.prev_hash, seal.body, seal.seal_hash)


def seal_body(seal: StoredSeal) -> dict[str, Any] | None:
    """A seal's body as a JSON object; ``None`` when it is not one."""
    try:
        value = orjson.loads(seal.body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def make_seal(
    last: tuple[int, str] | None,
    kind: str,
    subject: str,
    rows: tuple[int, str] | None,
    payload: Mapping[str, Any],
) -> StoredSeal:
    """Builds the seal that follows ``last`` (``(n, seal_hash)``, ``None`` when first).

    Args:
        last: The chain's last seal.
        kind: One of ``SEAL_KINDS``.
        subject: The run id (``begin``, ``end``), the cache key (``cache``), or ``""``.
        rows: The row chain's last row as ``(seq, row_hash)``; ``None`` when empty.
        payload: What the seal commits to besides its place and the rows.
    """
    n, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    seq, row_hash = rows if rows else (0, GENESIS)
    body = canonical_json(
        {
            **payload,
            "schema": SEAL_SCHEMA,
            "n": n,
            "prev_hash": prev,
            "kind": kind,
            "subject": subject,
            "rows": {"seq": seq, "hash": row_hash},
        }
    ).decode("utf-8")
    return StoredSeal(n, kind, subject, body, prev, seal_hash_of(prev, body))


def append_seal(
    execute: Execute,
    placeholder: str,
    kind: str,
    subject: str,
    payload: Mapping[str, Any],
    *,
    rows: tuple[int, str] | None = None,
    last: tuple[int, str] | bool | None = True,
) -> StoredSeal:
    """Appends a seal inside a store's write transaction (which holds the chain lock).

    Args:
        execute: The transaction's ``execute`` (a cursor's or a connection's).
        placeholder: The database's parameter marker (``?`` or ``%s``).
        rows: The row chain's last row when the caller knows it (it just appended);
            otherwise read here.
        last: The last seal as ``(n, seal_hash)`` (``None``: there is none) when the
            caller read it in the same transaction; ``True``: read here.
    """
    if last is True:
        found_seal = execute("SELECT n, seal_hash FROM seals ORDER BY n DESC LIMIT 1", ())
        last = found_seal.fetchone()
    if rows is None:
        found = execute("SELECT seq, row_hash FROM rows ORDER BY seq DESC LIMIT 1", ()).fetchone()
        rows = (int(found[0]), str(found[1])) if found else None
    previous = (int(last[0]), str(last[1])) if isinstance(last, tuple) else None
    made = make_seal(previous, kind, subject, rows, payload)
    marks = ", ".join([placeholder] * len(StoredSeal._fields))
    execute(f"INSERT INTO seals ({SEAL_COLUMNS}) VALUES ({marks})", tuple(made))
    return made


def begin_payload(
    *,
    contract_id: str,
    contract_version: int,
    contract_sha256: str,
    started_at: str,
    options: Mapping[str, Any],
    contract_path: str | None = None,
) -> dict[str, Any]:
    """What a ``begin`` seal commits to: the run record as it (re)began, and the path
    its contract is stored under (where a recheck looks for the files it names)."""
    run = {
        "contract_id": contract_id,
        "contract_version": contract_version,
        "contract_sha256": contract_sha256,
        "started_at": started_at,
        "options": dict(options),
    }
    if contract_path is not None:
        run["contract_path"] = contract_path
    return {"run": run}


def append_payload(drafts: list[Mapping[str, Any]], count: int) -> dict[str, Any]:
    """What an ``append`` seal commits to besides the rows: how many, of which runs."""
    return runs_payload({d.get("run_id") for d in drafts}, count)


def runs_payload(run_ids: Iterable[object], count: int) -> dict[str, Any]:
    """``append_payload`` given the drafts' run ids (a store that has them already)."""
    return {"count": count, "runs": sorted({str(run_id) for run_id in run_ids})}


def end_payload(status: str, finished_at: str, summary: Mapping[str, Any]) -> dict[str, Any]:
    """What an ``end`` seal commits to: the run record's end exactly as stored."""
    return {"run": {"status": status, "finished_at": finished_at, "summary": dict(summary)}}


RUN_SEAL_QUERY = (
    f"SELECT {SEAL_COLUMNS} FROM seals WHERE subject = ? AND kind IN ('begin', 'end')"
    " ORDER BY n DESC LIMIT 1"
)


CACHE_ENTRY_QUERY = (
    "SELECT e.entry, s.n, s.kind, s.subject, s.body, s.prev_hash, s.seal_hash"
    " FROM judge_cache e LEFT JOIN seals s ON s.n = (SELECT MAX(n) FROM seals"
    " WHERE subject = e.key AND kind = 'cache') WHERE e.key = ?"
)
"""A judge-cache entry and its latest seal (``NULL`` columns: none) in one statement,
so in one snapshot: read in two, a ``put`` committed between them paired the old
entry with the new seal, and an honest entry looked edited."""


def cache_payload(entry_text: str) -> dict[str, Any]:
    """What a ``cache`` seal commits to: the SHA-256 of the entry's stored text."""
    return {"entry_sha256": hashlib.sha256(entry_text.encode("utf-8")).hexdigest()}


def cache_entry_sealed(seal: StoredSeal | None, key: str, entry_text: str) -> bool:
    """Whether a judge-cache entry is exactly what its seal recorded.

    An entry whose text, seal or seal hash was edited is not served: an intruder who
    flips a cached verdict must rewrite the seal chain from that seal on, which
    changes the store's head.
    """
    if seal is None or seal.kind != "cache" or seal.subject != key or not seal_intact(seal):
        return False
    try:
        recorded = orjson.loads(seal.body).get("entry_sha256")
    except (orjson.JSONDecodeError, AttributeError):
        return False
    return bool(recorded == cache_payload(entry_text)["entry_sha256"])


HEAD_QUERY = f"SELECT {SEAL_COLUMNS} FROM seals ORDER BY n DESC LIMIT 1"


def head_of(execute: Execute) -> StoredSeal | None:
    """The chain's last seal, read with ``execute``; ``None`` when nothing is sealed."""
    found = execute(HEAD_QUERY, ()).fetchone()
    return StoredSeal(*found) if found else None
