"""``--batch``: every judge request of a run sent as one Message Batch, then replayed.

The batch is a pre-pass that fills the judge cache: it checks the rubric claims of
every case (for ``after`` gates), renders each judge request the run will need and
the cache cannot answer, submits them as one batch, records the batch id in the store
before waiting, polls with backoff until the batch ends, and stores every returned
reply in the cache under its request's key. The run itself then proceeds as usual in
``replay`` mode: every verdict comes from the cache, and an item the batch could not
answer becomes an error row carrying the batch's reason. A run interrupted while
waiting is resumed with ``--resume RUN_ID``: the recorded batch is polled again,
never resubmitted.

Gates between two judge claims are not known before the batch returns, so a claim
waiting for another judge claim is asked anyway; its verdict is simply unused when
its gate fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier.cases import CaseLine
from verifier.contract.json_fields import JsonFields
from verifier.contract.models import JudgeClaim
from verifier.errors import VerifierError
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.judge.phase import JudgePhase, names_model
from verifier.judge.prompt import MissingFieldError
from verifier.llm.cache import CachedReply, entry_for
from verifier.llm.types import ModelReply, ModelRequest, ProviderError
from verifier.logs import get_logger
from verifier.runner import check_rubric, skipped_result

log = get_logger("verifier.batch")


class BatchError(VerifierError):
    """A batch that cannot be run (no batch-capable judge, a failed submission)."""


@dataclass(frozen=True)
class BatchRecord:
    """What the store keeps about a run's batch, so the run can be resumed."""

    run_id: str
    batch_id: str
    judge: str
    items: dict[str, dict[str, Any]]  # custom_id -> request identity (for cache entries)


_LEDGER_DDL = (
    "CREATE TABLE IF NOT EXISTS judge_batches (run_id TEXT NOT NULL, judge TEXT NOT NULL,"
    " batch_id TEXT NOT NULL, status TEXT NOT NULL, items TEXT NOT NULL,"
    " PRIMARY KEY (run_id, judge))",
)
_LEDGER = TableSpec("judge_batches", sqlite=_LEDGER_DDL, postgres=_LEDGER_DDL)


class BatchLedger:
    """The ``judge_batches`` table of the store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.

    Raises:
        BatchError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str | Path) -> None:
        self._db = SideTables.open(str(target), _LEDGER, error=_ledger_error)

    def find(self, run_id: str, judge: str) -> BatchRecord | None:
        rows = self._db.fetch(
            "SELECT batch_id, items FROM judge_batches WHERE run_id = ? AND judge = ?",
            (run_id, judge),
        )
        return BatchRecord(run_id, rows[0][0], judge, orjson.loads(rows[0][1])) if rows else None

    def record(self, record: BatchRecord) -> None:
        self._db.execute(
            "INSERT INTO judge_batches (run_id, judge, batch_id, status, items)"
            " VALUES (?, ?, ?, 'submitted', ?) ON CONFLICT (run_id, judge) DO UPDATE"
            " SET batch_id = excluded.batch_id, status = excluded.status, items = excluded.items",
            (record.run_id, record.judge, record.batch_id, orjson.dumps(record.items).decode()),
        )

    def mark(self, run_id: str, judge: str, status: str) -> None:
        self._db.execute(
            "UPDATE judge_batches SET status = ? WHERE run_id = ? AND judge = ?",
            (status, run_id, judge),
        )

    def close(self) -> None:
        self._db.close()


def _ledger_error(message: str) -> BatchError:
    return BatchError(f"judge batches: {message}")


def _requests_for(
    phase: JudgePhase, line: CaseLine, fields: JsonFields | None
) -> list[tuple[str, ModelRequest]]:
    """The judge requests one case needs, by judge name (rubric gates applied), on
    the case as the run will see it (its ``parse_json`` fields parsed)."""
    unparsed: dict[str, str] = {}
    if fields is not None:
        line, unparsed = fields.parse(line)
    assert line.case is not None
    rubric = check_rubric(phase.plan, line.case, unparsed)
    wanted = [
        p
        for p in phase.plan.model
        if isinstance(p.claim, JudgeClaim)
        and p.id not in unparsed
        and skipped_result(p, rubric, line.case) is None
    ]
    out: list[tuple[str, ModelRequest]] = []
    for group in phase._groups(wanted, {}):
        try:
            requests = phase.render_group(line, group)
        except MissingFieldError:
            continue  # the run's own pass records the missing field
        out += [(str(group[0].claim.judge), request) for request in requests]
    return out


async def run_batch_prepass(
    phase: JudgePhase,
    cases: Iterable[CaseLine],
    *,
    ledger: BatchLedger,
    run_id: str,
    poll_interval: float = 10.0,
    max_interval: float = 60.0,
    sleep: Callable[[float], Any] = asyncio.sleep,
) -> dict[str, str]:
    """Fills the cache with one batch per judge; returns batch errors by cache key."""
    errors: dict[str, str] = {}
    pending: dict[str, dict[str, ModelRequest]] = {}
    judges = {name for name in phase.providers}
    for name in judges:
        if phase.contract.judges[name].provider != "anthropic":
            raise BatchError(f"judge {name!r}: --batch needs an anthropic judge (Message Batches)")
    recorded = {name: ledger.find(run_id, name) for name in judges}
    fields = JsonFields.of(phase.contract)
    if not all(recorded.values()):
        for line in cases:
            if line.case is None:
                continue
            for name, request in _requests_for(phase, line, fields):
                if recorded.get(name) is None and (
                    phase.cache is None or phase.cache.get(request.cache_key) is None
                ):
                    pending.setdefault(name, {})[request.custom_id] = request
    for name in sorted(judges):
        provider = phase.providers[name]
        record = recorded[name]
        if record is None:
            requests = pending.get(name, {})
            if not requests:
                continue
            try:
                batch_id = await provider.submit_batch(list(requests.values()))  # type: ignore[attr-defined]
            except ProviderError as exc:
                raise BatchError(
                    f"judge {name!r}: the batch could not be submitted: {exc.message}"
                ) from None
            items = {
                cid: {
                    "cache_key": r.cache_key,
                    "provider": r.provider,
                    "model": r.model,
                    "prompt_sha": r.prompt_sha,
                    "sampling_sha": r.sampling_sha,
                }
                for cid, r in requests.items()
            }
            record = BatchRecord(run_id, batch_id, name, items)
            ledger.record(record)
            log.info("batch submitted", judge=name, batch_id=batch_id, requests=len(items))
        else:
            log.info("batch resumed", judge=name, batch_id=record.batch_id)
        await _wait(provider, record.batch_id, poll_interval, max_interval, sleep)
        async for custom_id, answer in provider.batch_results(record.batch_id):  # type: ignore[attr-defined]
            item = record.items.get(custom_id)
            if item is None:
                continue
            if isinstance(answer, ProviderError):
                errors[item["cache_key"]] = f"batch item failed: {answer.message}"
                continue
            if phase.cache is not None and names_model(answer):
                phase.cache.put(_entry(item, answer, run_id))
        ledger.mark(run_id, name, "ended")
    return errors


def _entry(item: dict[str, Any], reply: ModelReply, run_id: str) -> CachedReply:
    stub = ModelRequest(
        provider=item["provider"],
        model=item["model"],
        system=(),
        user="",
        tool=None,
        sampling={},
        verdict="binary",
        prompt_sha=item["prompt_sha"],
        sampling_sha=item["sampling_sha"],
        cache_key=item["cache_key"],
    )
    return entry_for(stub, reply, run_id)


async def _wait(
    provider: Any, batch_id: str, interval: float, ceiling: float, sleep: Callable[[float], Any]
) -> None:
    while True:
        status, counts = await provider.batch_status(batch_id)
        if status == "ended":
            return
        log.info("batch in progress", batch_id=batch_id, status=status, **counts)
        await sleep(interval)
        interval = min(ceiling, interval * 1.5)
