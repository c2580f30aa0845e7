"""Putting a run's judge phase together from a contract and command-line choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifier.contract.load import LoadedContract
from verifier.contract.models import CompareClaim, JudgeClaim
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.llm.limits import CallLimits
from verifier.llm.providers import make_provider
from verifier.llm.providers.registry import unset_key
from verifier.llm.replies import reply_cache
from verifier.llm.types import ModelProvider
from verifier.plan import build_plan


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
        variable = unset_key(loaded.contract.judges[name].provider)
        if variable:
            return "replay", f"{variable} is not set, so judges replay recorded verdicts"
    return "live", None


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
    # A judge's reply may quote the case, so a contract that redacts fields keeps its
    # replies for the run only (recordings, a file the user names, are still written).
    cache = reply_cache(store_path, recordings, run_only=bool(loaded.contract.record.redact))
    providers: dict[str, ModelProvider] = {}
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
        cache=cache,
        mode=mode,
        limits=limits,
        run_id=run_id,
    )


def describe(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items() if v is not None)
