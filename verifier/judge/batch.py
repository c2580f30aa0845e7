"""``--batch``: every judge request of a run sent through Message Batches, then replayed.

The batches are a pre-pass that fills the judge cache: it checks the rubric claims of
every case (for ``after`` gates), renders each judge request the run will need and
the cache cannot answer, splits them per judge into as many batches as the API's
limits need (requests and bytes per batch), submits them in order, records each
batch's id and requests in the store as soon as it is submitted, polls all of them
with backoff until they end, and stores every returned reply in the cache under its
request's key. The run itself then proceeds as usual in ``replay`` mode: every
verdict comes from the cache, and a request no batch answered (its item failed, its
batch expired or was canceled) becomes an error row naming its batch. A run
interrupted while submitting or waiting is resumed with ``--resume RUN_ID``: the
recorded batches are polled again, never resubmitted, and only the requests none of
them carries are submitted.

Gates between two judge claims are not known before the batches return, so a claim
waiting for another judge claim is asked anyway; its verdict is simply unused when
its gate fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import orjson

from verifier.cases import CaseLine
from verifier.contract.json_fields import JsonFields
from verifier.contract.models import Contract, JudgeClaim
from verifier.engine.claim_checks import check_rubric, skipped_result
from verifier.judge.batch_ledger import BatchError, BatchLedger, BatchRecord
from verifier.judge.batch_split import (
    MAX_BATCH_BYTES,
    MAX_BATCH_REQUESTS,
    BatchLimits,
    BatchProvider,
    split_batches,
)
from verifier.judge.claim_results import names_model
from verifier.judge.phase import JudgePhase
from verifier.judge.prompt import MissingFieldError
from verifier.llm.cache import CachedReply, entry_for
from verifier.llm.providers.registry import provider_entry
from verifier.llm.types import ModelReply, ModelRequest, ProviderError
from verifier.logs import get_logger

__all__ = [
    "MAX_BATCH_BYTES",
    "MAX_BATCH_REQUESTS",
    "BatchError",
    "BatchLedger",
    "BatchLimits",
    "BatchRecord",
    "check_batchable",
    "run_batch_prepass",
    "split_batches",
]

log = get_logger("verifier.batch")


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


def check_batchable(contract: Contract, judges: Iterable[str]) -> None:
    """Refuses ``--batch`` when one of ``judges`` is on a provider without Message
    Batches (asked before a run is recorded, and again by its pre-pass).

    Raises:
        BatchError: One line naming the first such judge.
    """
    for name in sorted(judges):
        provider = contract.judges[name].provider
        if not provider_entry(provider).batches:
            raise BatchError(
                f"judge {name!r}: --batch needs Message Batches, which the {provider} "
                "provider does not offer; run it without --batch"
            )


async def run_batch_prepass(
    phase: JudgePhase,
    cases: Iterable[CaseLine],
    *,
    ledger: BatchLedger,
    run_id: str,
    limits: BatchLimits | None = None,
    poll_interval: float = 10.0,
    max_interval: float = 60.0,
    sleep: Callable[[float], Any] = asyncio.sleep,
) -> dict[str, str]:
    """Fills the judge cache through as many batches per judge as ``limits`` need.

    Batches the ledger already holds for ``run_id`` are polled again, never
    resubmitted; only requests none of them carries (and the cache cannot answer) are
    submitted, each new batch recorded before any is polled. All batches are then
    polled at once.

    Args:
        phase: The run's judge phase (its providers and cache).
        cases: The run's cases.
        ledger: Where the run's batches are kept.
        run_id: The run.
        limits: The most one batch may carry (default: the API's limits).
        poll_interval: First wait between two polls of a batch, in seconds.
        max_interval: Longest wait between two polls (the wait grows by half each time).
        sleep: Waits between polls.

    Returns:
        Why a request got no reply (its batch item failed, its batch expired or could
        not be collected), by cache key.

    Raises:
        BatchError: A judge's provider offers no batches, or a batch could not be submitted
            (those already submitted are kept for ``--resume``).
    """
    limits = limits or BatchLimits()
    judges = sorted(phase.providers)
    check_batchable(phase.contract, judges)
    recorded = {name: ledger.batches(run_id, name) for name in judges}
    pending = _pending(phase, cases, recorded)
    errors: dict[str, str] = {}
    batches: list[tuple[BatchProvider, BatchRecord]] = []
    for name in judges:
        provider = cast(BatchProvider, phase.providers[name])
        for record in recorded[name]:
            log.info("batch resumed", judge=name, batch_id=record.batch_id, seq=record.seq)
            batches.append((provider, record))
        requests = pending.get(name, {}).values()
        sized = [(r, len(orjson.dumps(provider.batch_item(r)))) for r in requests]
        chunks, oversized = split_batches(sized, limits)
        for request in oversized:
            errors[request.cache_key] = (
                f"the request is too large for a batch (over {limits.bytes} bytes on its own)"
            )
        seq = recorded[name][-1].seq + 1 if recorded[name] else 0
        for chunk in chunks:
            record = await _submit(provider, chunk, run_id=run_id, judge=name, seq=seq)
            ledger.record(record)  # before anything else: a kill now loses no batch
            log.info("batch submitted", judge=name, batch_id=record.batch_id, seq=seq,
                     requests=len(chunk))  # fmt: skip
            batches.append((provider, record))
            seq += 1
    waits = _Waits(poll_interval, max_interval, sleep)
    await asyncio.gather(
        *(_collect(phase, p, record, ledger, errors, waits) for p, record in batches)
    )
    return errors


def _pending(
    phase: JudgePhase, cases: Iterable[CaseLine], recorded: dict[str, list[BatchRecord]]
) -> dict[str, dict[str, ModelRequest]]:
    """The requests still to submit, by judge and ``custom_id``: those no recorded
    batch carries and the cache cannot answer."""
    carried = {
        name: {cid for r in records for cid in r.items} for name, records in recorded.items()
    }
    fields = JsonFields.of(phase.contract)
    pending: dict[str, dict[str, ModelRequest]] = {}
    for line in cases:
        if line.case is None:
            continue
        for name, request in _requests_for(phase, line, fields):
            if request.custom_id in carried.get(name, ()):
                continue
            if phase.cache is None or phase.cache.get(request.cache_key) is None:
                pending.setdefault(name, {})[request.custom_id] = request
    return pending


async def _submit(
    provider: BatchProvider, chunk: list[ModelRequest], *, run_id: str, judge: str, seq: int
) -> BatchRecord:
    try:
        batch_id = await provider.submit_batch(chunk)
    except ProviderError as exc:
        raise BatchError(
            f"judge {judge!r}: batch {seq} could not be submitted: {exc.message}"
            " (batches already submitted are kept; --resume submits the rest)"
        ) from None
    items = {
        r.custom_id: {
            "cache_key": r.cache_key,
            "provider": r.provider,
            "model": r.model,
            "prompt_sha": r.prompt_sha,
            "sampling_sha": r.sampling_sha,
        }
        for r in chunk
    }
    return BatchRecord(run_id, batch_id, judge, items, seq)


async def _collect(
    phase: JudgePhase,
    provider: BatchProvider,
    record: BatchRecord,
    ledger: BatchLedger,
    errors: dict[str, str],
    waits: _Waits,
) -> None:
    """Waits for one batch, files its replies in the cache and its failures in
    ``errors`` (each naming the batch), then marks it ended."""
    batch_id = record.batch_id
    answered: set[str] = set()
    try:
        await _wait(provider, batch_id, waits)
        async for custom_id, answer in provider.batch_results(batch_id):
            item = record.items.get(custom_id)
            if item is None:
                continue
            answered.add(custom_id)
            if isinstance(answer, ProviderError):
                errors[item["cache_key"]] = (
                    f"batch item failed in batch {batch_id}: {answer.message}"
                )
            elif phase.cache is not None and names_model(answer):
                phase.cache.put(_entry(item, answer, record.run_id))
    except ProviderError as exc:
        # Left ``submitted``: a resumed run tries to collect it again.
        reason = f"batch {batch_id} could not be collected: {exc.message}"
        for custom_id, item in record.items.items():
            if custom_id not in answered:
                errors[item["cache_key"]] = reason
        return
    for custom_id, item in record.items.items():
        if custom_id not in answered:
            errors[item["cache_key"]] = f"batch {batch_id} returned no result for this request"
    ledger.mark(record, "ended")


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


@dataclass(frozen=True)
class _Waits:
    first: float
    ceiling: float
    sleep: Callable[[float], Any]


async def _wait(provider: BatchProvider, batch_id: str, waits: _Waits) -> None:
    """Polls until the batch has ended; a failed poll the API calls transient is
    tried again at the next interval."""
    interval = waits.first
    while True:
        try:
            status, counts = await provider.batch_status(batch_id)
        except ProviderError as exc:
            if not exc.retryable:
                raise
            log.warning("batch poll failed", batch_id=batch_id, error=exc.message)
        else:
            if status == "ended":
                if counts.get("expired") or counts.get("canceled"):
                    log.warning("batch ended unanswered", batch_id=batch_id, **counts)
                return
            log.info("batch in progress", batch_id=batch_id, status=status, **counts)
        await waits.sleep(interval)
        interval = min(waits.ceiling, interval * 1.5)
