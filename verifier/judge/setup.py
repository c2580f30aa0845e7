"""Putting a run's judge phase together from a contract and command-line choices."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from verifier.cases import CaseLine
from verifier.contract.load import LoadedContract
from verifier.contract.selection import needs_judge
from verifier.engine.claim_checks import skipped_result
from verifier.engine.comparative import check_deterministic
from verifier.engine.plan import Plan
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.llm.limits import CallLimits
from verifier.llm.providers import make_provider
from verifier.llm.providers.registry import unset_key
from verifier.llm.replies import reply_cache
from verifier.llm.types import ModelProvider
from verifier.results import ClaimResult

JUDGES_OFF = "skipped: judges are off for this run (--judges off); not in the score"
"""The reason of a row whose claim a run without judges did not check."""


def judges_used(loaded: LoadedContract) -> set[str]:
    """Names of the judges the contract's claims call."""
    return {str(claim.judge) for claim in loaded.contract.claims if needs_judge(claim)}


def unset_judge_key(loaded: LoadedContract) -> tuple[str, str] | None:
    """A judge of the contract whose API key is not set, with the key's variable."""
    for name in sorted(judges_used(loaded)):
        variable = unset_key(loaded.contract.judges[name].provider)
        if variable:
            return name, variable
    return None


def default_mode(loaded: LoadedContract) -> tuple[JudgeMode, str | None]:
    """``live`` where every judge can be called, else ``replay``, with the reason."""
    unset = unset_judge_key(loaded)
    if unset is not None:
        return "replay", f"{unset[1]} is not set, so judges replay recorded verdicts"
    return "live", None


class JudgesOff:
    """Phase 2 of a run without judges: the claims a judge would answer (and those
    waiting for one) are skipped, and no call is made; comparisons that need no judge
    are still made.

    Attributes:
        mode: Always ``off``.
    """

    mode = "off"

    def __init__(self, plan: Plan, off: Iterable[str]) -> None:
        self.plan = plan
        self.off = frozenset(off)

    async def evaluate(
        self, chunk: Sequence[CaseLine], prior: Sequence[Mapping[str, ClaimResult]]
    ) -> list[dict[str, ClaimResult]]:
        out: list[dict[str, ClaimResult]] = []
        for line, results in zip(chunk, prior, strict=True):
            merged = dict(results)
            for planned in self.plan.model:
                case = line.case or {}
                skipped = skipped_result(planned, merged, case)
                if skipped is not None:
                    result = skipped
                elif planned.id in self.off:
                    result = ClaimResult(planned.id, planned.kind, "skipped", None, JUDGES_OFF, {})
                else:
                    result = check_deterministic(planned.claim, case)
                merged[planned.id] = result
            out.append({p.id: merged[p.id] for p in self.plan.model})
        return out


def make_judge_phase(
    loaded: LoadedContract,
    *,
    plan: Plan,
    mode: JudgeMode,
    store_path: str | None,
    recordings: Path | None,
    limits: CallLimits,
    run_id: str,
    base_url: str | None = None,
    keep_replies: bool | None = None,
    stand_in: ModelProvider | None = None,
) -> JudgePhase:
    """The judge phase for one run.

    Args:
        loaded: The contract.
        plan: The run's plan of ``loaded`` (built once, and shared with the runner).
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
        keep_replies: Whether replies may be kept in the store's cache (``None``: as
            the contract's record policy says; see ``RecordPolicy.keeps_replies``).
        stand_in: A provider answering for every judge instead of the one its spec
            names (verdicts written by hand).
    """
    # A judge's reply may quote the case, so a run that redacts fields or records no
    # case text keeps its replies for the run only (recordings, a file the user
    # names, are still written).
    if keep_replies is None:
        keep_replies = loaded.contract.record.policy().keeps_replies
    cache = reply_cache(store_path, recordings, run_only=not keep_replies)
    providers: dict[str, ModelProvider] = {}
    if mode != "replay":
        for name in judges_used(loaded):
            # Retries are the phase's (bounded waits); the SDK would sleep for any
            # retry-after a server sends.
            providers[name] = (
                stand_in
                if stand_in is not None
                else make_provider(loaded.contract.judges[name], base_url=base_url, max_retries=0)
            )
    return JudgePhase(
        loaded,
        plan,
        providers=providers,
        cache=cache,
        mode=mode,
        limits=limits,
        run_id=run_id,
    )


def describe(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items() if v is not None)
