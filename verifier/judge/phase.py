"""Phase 2 of a run: judge claims, called concurrently within limits, cached, replayable.

For each chunk of cases the phase walks the model-backed claims level by level (a
claim waits for the claims in its ``after``), groups them into requests (``group:
case`` puts one judge's claims for one case in one request), and obtains each
request's verdict from the cache or the provider; ``verifier.judge.claim_results``
makes the replies into results. Every result carries the stability triple of the
reply it rests on, or is an error that names the missing part.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from verifier._internal.canonical import sha256_hex
from verifier.cases import CaseLine
from verifier.contract.judge_template import Template, case_paths, load_template
from verifier.contract.load import LoadedContract
from verifier.contract.models import CompareClaim, JudgeClaim, JudgeSpec
from verifier.engine.claim_checks import skipped_result
from verifier.engine.comparative import check_deterministic, pairwise_outputs
from verifier.engine.plan import Plan, PlannedClaim
from verifier.judge.claim_results import (
    Obtained,
    judge_result,
    names_model,
    not_asked,
    pairwise_result,
    recorded_verdict,
)
from verifier.judge.prompt import (
    MissingFieldError,
    group_key,
    has_reference,
    render_request,
    verdict_kind,
)
from verifier.judge.stats import JudgeStats
from verifier.judge.verdict import VerdictProblem, parse_verdict
from verifier.llm.cache import LayeredCache, entry_for
from verifier.llm.calls import call_within_limits
from verifier.llm.limits import CallLimits, Limiter, shared_limiter
from verifier.llm.types import CallMode, ModelProvider, ModelReply, ModelRequest
from verifier.logs import get_logger
from verifier.results import ClaimResult

JudgeMode = CallMode
log = get_logger("verifier.judge")

NO_RECORDING = "replay: no recorded verdict"
"""How the reason of a row begins when replay found no verdict for its request (the
re-check of stored verdicts tells a missing cache entry from a verdict by it)."""

REJECTED_ENTRY = "replay: the judge cache entry for this request"
"""How the reason begins when the store's cache holds an entry for the request but
refused it for not matching its seal (an edited verdict is never served)."""

MALFORMED_RECORDING = "recorded verdict is malformed"
"""How the reason begins when replay found an entry for the request (a recording or
the store's cache) but its reply does not parse as a verdict: edited by hand, say."""


def _levels(claims: Sequence[PlannedClaim]) -> list[list[PlannedClaim]]:
    """Claims split into waves: each waits only for claims of earlier waves (or rubric)."""
    ids = {c.id for c in claims}
    level: dict[str, int] = {}
    for claim in claims:  # already in gate order
        deps = [level[g] for g in claim.after if g in ids and g in level]
        level[claim.id] = 1 + max(deps) if deps else 0
    waves: list[list[PlannedClaim]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for claim in claims:
        waves[level[claim.id]].append(claim)
    return waves


class JudgePhase:
    """Judge and comparative claims for chunks of cases (the runner's phase 2)."""

    def __init__(
        self,
        loaded: LoadedContract,
        plan: Plan,
        *,
        providers: Mapping[str, ModelProvider],
        cache: LayeredCache | None,
        mode: JudgeMode = "live",
        limits: CallLimits | None = None,
        run_id: str = "",
    ) -> None:
        self.contract = loaded.contract
        self.plan = plan
        self.providers = providers
        self.cache = cache
        self.mode = mode
        self.limits = limits or CallLimits()
        self.run_id = run_id
        self.stats = JudgeStats()
        # Why a request has no verdict when the cache misses in replay mode (filled by
        # a batch pre-pass with each failed item's reason), by cache key.
        self.replay_reasons: dict[str, str] = {}
        self._limiter: Limiter | None = None
        self._put_lock = asyncio.Lock()
        self._waves = _levels(plan.model)
        self._templates: dict[tuple[str, str, bool], Template] = {}
        for planned in plan.model:
            claim = planned.claim
            if isinstance(claim, JudgeClaim) or (
                isinstance(claim, CompareClaim) and claim.compare == "pairwise"
            ):
                key = (str(claim.judge), verdict_kind(claim), has_reference(claim))
                if key not in self._templates:
                    self._templates[key] = load_template(
                        self.contract.judges[key[0]], loaded.files, key[1], reference=key[2]
                    )

    def template_case_paths(self) -> dict[str, tuple[str, ...]]:
        """For each judge, the case paths its templates show (``{{case.PATH}}``): the
        runner warns of one that no case of the run has."""
        shown: dict[str, dict[str, None]] = {}
        for (name, _, _), template in self._templates.items():
            shown.setdefault(name, {}).update(dict.fromkeys(case_paths(template)))
        return {name: tuple(paths) for name, paths in shown.items()}

    async def aclose(self) -> None:
        """Closes the providers' clients (within the loop that made them) and the cache's
        connection to the store: a long-lived process (the HTTP server) makes a phase
        per request, and each left open would hold a database connection."""
        for provider in self.providers.values():
            await provider.aclose()
        if self.cache is not None:
            self.cache.close()

    def status(self) -> str:
        """Counters for the progress bar."""
        s = self.stats
        tokens = s.usage.input_tokens + s.usage.output_tokens
        return f"judge calls {s.calls} · cached {s.cached} · failed {s.failed} · tokens {tokens}"

    async def evaluate(
        self, chunk: Sequence[CaseLine], prior: Sequence[Mapping[str, ClaimResult]]
    ) -> list[dict[str, ClaimResult]]:
        if self._limiter is None:  # made inside the running loop
            self._limiter = shared_limiter(self.limits)
        seen = [dict(p) for p in prior]
        out: list[dict[str, ClaimResult]] = [{} for _ in chunk]
        for wave in self._waves:
            jobs: list[tuple[int, list[PlannedClaim]]] = []
            pairwise: list[tuple[int, PlannedClaim]] = []
            for index, line in enumerate(chunk):
                assert line.case is not None
                for planned in wave:
                    # Before any request is made: a claim not checked on this case costs
                    # no call (the groups below leave out every claim already decided).
                    skipped = skipped_result(planned, seen[index], line.case)
                    if skipped is not None:
                        self._put(seen, out, index, skipped)
                    elif isinstance(planned.claim, CompareClaim):
                        if planned.claim.compare == "pairwise":
                            pairwise.append((index, planned))
                        else:
                            result = check_deterministic(planned.claim, line.case)
                            self._put(seen, out, index, result)
                jobs += [(index, group) for group in self._groups(wave, seen[index])]
            jobs += [(index, [planned]) for index, planned in pairwise]
            answers = await asyncio.gather(
                *(
                    self._pairwise(chunk[i], group[0])
                    if isinstance(group[0].claim, CompareClaim)
                    else self._judge(chunk[i], group)
                    for i, group in jobs
                )
            )
            for (index, _), results in zip(jobs, answers, strict=True):
                for result in results:
                    self._put(seen, out, index, result)
        return out

    @staticmethod
    def _put(
        seen: list[dict[str, ClaimResult]],
        out: list[dict[str, ClaimResult]],
        i: int,
        r: ClaimResult,
    ) -> None:
        seen[i][r.claim_id] = r
        out[i][r.claim_id] = r

    def _groups(
        self, wave: Sequence[PlannedClaim], done: Mapping[str, ClaimResult]
    ) -> list[list[PlannedClaim]]:
        pending = [p for p in wave if p.id not in done and isinstance(p.claim, JudgeClaim)]
        groups: dict[Any, list[PlannedClaim]] = {}
        for planned in pending:
            spec = self.contract.judges[planned.claim.judge]
            key = group_key(planned.claim) if spec.group == "case" else planned.id
            groups.setdefault(key, []).append(planned)
        return list(groups.values())

    async def _judge(self, line: CaseLine, group: list[PlannedClaim]) -> list[ClaimResult]:
        # The chunk's requests run under one gather: an unforeseen exception in one of
        # them must become that group's error rows, not lose every other case's verdicts.
        try:
            return await self._judge_group(line, group)
        except Exception as exc:
            self.stats.failed += 1
            detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            log.error("judge request failed unexpectedly", error=detail, case_id=line.case_id)
            reason = f"internal error while judging: {detail}"
            return [ClaimResult(p.id, p.kind, "error", None, reason, {}) for p in group]

    def render_group(self, line: CaseLine, group: Sequence[PlannedClaim]) -> list[ModelRequest]:
        """The requests for one group of claims on one case, one per sample.

        Each sample has its own cache key, so N samples are N calls and a rerun replays
        all N. Used by the phase and by the batch pre-pass, so both ask the same thing.

        Raises:
            MissingFieldError: The judged field is absent from the case.
        """
        claims = [p.claim for p in group]
        name = str(claims[0].judge)
        spec = self.contract.judges[name]
        kind = verdict_kind(claims[0])
        template = self._templates[(name, kind, has_reference(claims[0]))]
        assert line.case is not None
        requests: list[ModelRequest] = []
        for sample in range(spec.samples):
            request = render_request(
                spec=spec,
                template=template,
                kind=kind,
                claims=claims,
                case=line.case,
                custom_id=_custom_id(line.case_id, [c.id for c in claims], sample),
            )
            if spec.samples > 1:
                request = dataclasses.replace(
                    request, cache_key=sha256_hex(f"{request.cache_key}:sample:{sample}")
                )
            requests.append(request)
        return requests

    async def _judge_group(self, line: CaseLine, group: list[PlannedClaim]) -> list[ClaimResult]:
        claims = [p.claim for p in group]
        name = str(claims[0].judge)
        spec = self.contract.judges[name]
        try:
            requests = self.render_group(line, group)
        except MissingFieldError as exc:
            return not_asked(exc, group)
        # Samples are independent calls: in flight together, within the same limits.
        samples = await asyncio.gather(
            *(self._obtain(r, spec, name, claims, line.case_id) for r in requests)
        )
        return [judge_result(p, spec, name, samples) for p in group]

    async def _obtain(
        self, request: ModelRequest, spec: JudgeSpec, name: str, claims: Sequence[Any], case_id: str
    ) -> Obtained:
        replaying = self.mode == "replay" or spec.provider == "replay"
        ids = ", ".join(c.id for c in claims)
        if self.cache is not None and self.mode != "record":
            hit = self.cache.get(request.cache_key)
            if hit is not None:
                parsed = recorded_verdict(request, hit, claims)
                if not isinstance(parsed, VerdictProblem):
                    self.stats.cached += 1
                    return Obtained(
                        {v.claim_id: v for v in parsed.claims},
                        None,
                        request,
                        hit.reply,
                        hit,
                        winner=parsed.winner,
                    )
                where = self.cache.source(request.cache_key)
                if replaying:
                    problem = parsed.reason.removeprefix("malformed verdict: ")
                    reason = (
                        f"{MALFORMED_RECORDING}: {problem} ({where}; claim {ids}, case {case_id})"
                    )
                    return Obtained(None, reason, request, hit.reply, hit, parsed.raw)
                # Live: the entry is worth nothing, but the judge can still answer; its
                # new verdict replaces the entry.
                log.warning(
                    "a recorded verdict is malformed; the judge is asked again",
                    problem=parsed.reason,
                    where=where,
                    case_id=case_id,
                )
        if replaying:
            known = self.replay_reasons.get(request.cache_key)
            refused = self.cache.rejected(request.cache_key) if self.cache is not None else None
            if refused is not None:
                known = f"{REJECTED_ENTRY} {refused}, so it is not served"
            return Obtained(
                None,
                f"{known} (claim {ids}, case {case_id})"
                if known
                else f"{NO_RECORDING} for claim {ids} on case {case_id}",
                request,
                None,
                None,
            )
        provider = self.providers[name]
        attempts = 0
        while True:
            attempts += 1
            reply, error = await self._call(provider, request)
            if reply is None:
                self.stats.failed += 1
                return Obtained(None, error, request, None, None)
            parsed = parse_verdict(request.verdict, reply, claims)
            if isinstance(parsed, VerdictProblem):
                # A second try draws on the run's retry budget like a transport retry.
                if parsed.retry and attempts == 1 and self._take_retry():
                    self.stats.retries += 1
                    continue
                self.stats.failed += 1
                return Obtained(None, parsed.reason, request, reply, None, parsed.raw)
            if not names_model(reply):
                self.stats.failed += 1
                return Obtained(None, None, request, reply, None)
            if self.cache is not None:
                # A commit to the store file waits on the disk; in a worker thread it
                # does not stall the other calls in flight on this loop. One put at a
                # time: recordings append to a file.
                async with self._put_lock:
                    await asyncio.to_thread(self.cache.put, entry_for(request, reply, self.run_id))
            return Obtained(
                {v.claim_id: v for v in parsed.claims},
                None,
                request,
                reply,
                None,
                winner=parsed.winner,
            )

    async def _pairwise(self, line: CaseLine, planned: PlannedClaim) -> list[ClaimResult]:
        """A pairwise claim, guarded like ``_judge``: an unforeseen exception becomes
        this claim's error row, never the loss of the chunk."""
        try:
            return await self._pairwise_claim(line, planned)
        except Exception as exc:
            self.stats.failed += 1
            detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            log.error("pairwise comparison failed unexpectedly", error=detail, case_id=line.case_id)
            reason = f"internal error while comparing: {detail}"
            return [ClaimResult(planned.id, "comparative", "error", None, reason, {})]

    async def _pairwise_claim(self, line: CaseLine, planned: PlannedClaim) -> list[ClaimResult]:
        """The judge is asked in both orders, so position cannot win."""
        claim = planned.claim
        assert line.case is not None and isinstance(claim, CompareClaim)
        outputs, why = pairwise_outputs(claim, line.case)
        if outputs is None:  # no comparison was made: could not check, not a loss
            return [ClaimResult(planned.id, "comparative", "error", None, why, {})]
        name = str(claim.judge)
        spec = self.contract.judges[name]
        template = self._templates[(name, "pairwise", False)]
        a, b = outputs
        try:
            requests = [
                render_request(
                    spec=spec,
                    template=template,
                    kind="pairwise",
                    claims=[claim],
                    case=line.case,
                    outputs=pair,
                    custom_id=_custom_id(line.case_id, [claim.id, order], 0),
                )
                for order, pair in (("ab", (a, b)), ("ba", (b, a)))
            ]
        except MissingFieldError as exc:  # a field the template shows ({{case.PATH}})
            return not_asked(exc, [planned])
        both = await asyncio.gather(
            *(self._obtain(r, spec, name, [claim], line.case_id) for r in requests)
        )
        self.stats.pairwise += 1
        return [pairwise_result(planned, spec, name, both, self.stats)]

    def _take_retry(self) -> bool:
        assert self._limiter is not None
        return self._limiter.take_retry()

    async def _call(
        self, provider: ModelProvider, request: ModelRequest
    ) -> tuple[ModelReply | None, str]:
        assert self._limiter is not None
        return await call_within_limits(
            provider, request, limiter=self._limiter, limits=self.limits, stats=self.stats
        )


def _custom_id(case_id: str, claim_ids: Sequence[str], sample: int) -> str:
    # Batch custom ids allow [A-Za-z0-9_-]{1,64}; a digest fits any case or claim id.
    return "j" + sha256_hex(f"{case_id}\0{'+'.join(claim_ids)}\0{sample}")[:40]
