"""Putting a run's judge phase together from a contract and command-line choices."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from verifier.contract.load import LoadedContract
from verifier.contract.models import CompareClaim, JudgeClaim
from verifier.judge.cache import (
    LayeredCache,
    MemoryCache,
    Recordings,
    SqliteJudgeCache,
    StoreCache,
)
from verifier.judge.limits import CallLimits
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.judge.types import JudgeProvider
from verifier.plan import build_plan

_KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY"}


def judges_used(loaded: LoadedContract) -> set[str]:
    """Names of the judges the contract's claims call."""
    names: set[str] = set()
    for claim in loaded.contract.claims:
        if isinstance(claim, JudgeClaim) or (isinstance(claim, CompareClaim) and claim.judge):
            names.add(str(claim.judge))
    return names


def default_mode(loaded: LoadedContract) -> tuple[JudgeMode, str | None]:
    """``live`` where every judge can be called, else ``replay``, with the reason."""
    for name in sorted(judges_used(loaded)):
        provider = loaded.contract.judges[name].provider
        variable = _KEY_VARIABLES.get(provider)
        if variable and not os.environ.get(variable):
            return "replay", f"{variable} is not set, so judges replay recorded verdicts"
    return "live", None


def default_recordings(contract_path: Path) -> Path:
    """``NAME.recordings.jsonl`` beside ``NAME.yaml``."""
    return contract_path.with_name(f"{contract_path.stem}.recordings.jsonl")


def make_judge_phase(
    loaded: LoadedContract,
    *,
    mode: JudgeMode,
    store_path: str | None,
    recordings: Path | None,
    limits: CallLimits,
    run_id: str,
    base_url: str | None = None,
) -> JudgePhase:
    """The judge phase for one run.

    Args:
        loaded: The contract.
        mode: ``live`` (cache, then call), ``replay`` (cache and recordings only) or
            ``record`` (always call, and write recordings).
        store_path: The store whose cache table is used, as ``--store`` names it: a
            SQLite file, ``sqlite:///FILE`` or a ``postgresql://`` URL (``None``: none;
            when the contract redacts fields, replies are kept for the run only).
        recordings: A recordings file read before the cache (and written in
            ``record`` mode).
        limits: Concurrency, rates, timeout and retries.
        run_id: The run (recorded beside cached replies).
        base_url: Endpoint override for every judge (tests, proxies).
    """
    from verifier.judge.providers import make_provider

    # A judge's reply may quote the case, so a contract that redacts fields keeps its
    # replies for the run only (recordings, a file the user names, are still written).
    store_cache: StoreCache | None
    if loaded.contract.record.redact:
        store_cache = MemoryCache()
    else:
        store_cache = store_cache_for(store_path) if store_path else None
    recorded = Recordings(recordings) if recordings is not None else None
    providers: dict[str, JudgeProvider] = {}
    if mode != "replay":
        for name in judges_used(loaded):
            # Retries are the phase's (bounded waits); the SDK would sleep for any
            # retry-after a server sends.
            providers[name] = make_provider(
                loaded.contract.judges[name], base_url=base_url, max_retries=0
            )
    return JudgePhase(
        loaded,
        build_plan(loaded),
        providers=providers,
        cache=LayeredCache(store_cache, recorded),
        mode=mode,
        limits=limits,
        run_id=run_id,
    )


def store_cache_for(store_path: str) -> StoreCache:
    """The judge cache kept in the store ``store_path`` names, as ``--store`` takes it
    (a SQLite file, ``sqlite:///FILE`` or a ``postgresql://`` URL)."""
    from verifier.gaps.store import is_postgres_url

    if is_postgres_url(store_path):
        from verifier.judge.pg_cache import PostgresJudgeCache

        return PostgresJudgeCache(store_path)
    # The gap store claims its file first (it refuses a file another table made).
    from verifier.gaps.sqlite import SqliteStore

    path = store_path.removeprefix("sqlite:///")
    SqliteStore(path).close()
    return SqliteJudgeCache(path)


def describe(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items() if v is not None)
