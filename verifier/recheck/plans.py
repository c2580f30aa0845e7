"""Stored contracts made ready to re-check rows, loaded once per contract hash.

A contract is loaded from the text the store kept, as if read from the path the run
named (so a ``schema_file``, a judge template and the recordings are looked for
beside it), planned as the runner plans it, and given a judge phase that only
replays: it reads the store's judge cache and the recordings, and never calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier._internal.canonical import sha256_hex
from verifier.cases import CaseLine
from verifier.contract.json_fields import JsonFields, unparsed_results
from verifier.contract.load import LoadedContract, check_contract_source
from verifier.contract.models import CompareClaim, JudgeClaim
from verifier.contract.schema_files import schema_file_hashes, schema_file_names
from verifier.contract.selection import needs_judge
from verifier.engine.claim_checks import RubricPass, UnavailableModelPhase
from verifier.engine.comparative import output_paths
from verifier.engine.plan import Plan, PlannedClaim, build_plan
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.judge.phase import JudgePhase
from verifier.recheck.report import Why
from verifier.recheck.schema_files import without_missing_schemas
from verifier.results import ClaimResult

__all__ = ["PlanUnavailable", "StoredPlan", "StoredPlans"]

# Keys under which a rubric claim (and the items of all/any/not, and a findings claim)
# names what it reads.
_PATH_KEYS = frozenset({"field", "spans", "within", "reference_field", "expected"})


@dataclass(frozen=True, slots=True)
class PlanUnavailable:
    """Why the rows of a stored contract cannot be re-checked."""

    why: Why
    detail: str


@dataclass
class StoredPlan:
    """One stored contract, ready to re-evaluate cases.

    Attributes:
        judged: Ids of the claims a judge decides (judge claims, pairwise comparisons).
        judge_problem: Why no judge phase could be set up, or ``None``.
        missing_files: Why, by claim id, a claim whose schema file is gone cannot be
            re-checked (it was loaded with a stand-in; see ``schema_files``).
    """

    loaded: LoadedContract
    plan: Plan
    judge: JudgePhase | None
    judge_problem: str | None
    loop: asyncio.AbstractEventLoop
    missing_files: dict[str, str] = field(default_factory=dict)
    claims: dict[str, PlannedClaim] = field(default_factory=dict)
    judged: frozenset[str] = frozenset()
    _reads: dict[str, tuple[str, ...] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.schema_hashes = schema_file_hashes(self.loaded)
        self._schema_names: dict[str, list[str]] = {}
        for claim_id, name in schema_file_names(self.loaded.contract.claims):
            self._schema_names.setdefault(claim_id, []).append(name)
        self.claims = {p.id: p for p in self.plan.order}
        self.judged = frozenset(p.id for p in self.plan.model if needs_judge(p.claim))
        self._model_ids = frozenset(p.id for p in self.plan.model)
        self._rubric_pass = RubricPass(self.plan)
        self._json = JsonFields.of(self.loaded.contract)
        self._kinds = {p.id: p.kind for p in self.plan.order}

    def results(
        self, case_id: str, case: dict[str, Any], claim_ids: Sequence[str]
    ) -> dict[str, ClaimResult]:
        """Every claim's result on ``case`` as the runner would give it, judges replayed.

        The model phase runs only when one of ``claim_ids`` needs it.
        """
        line = CaseLine(0, case_id, case)
        unparsed: dict[str, str] = {}
        if self._json is not None:
            # As the run did: a stored case keeps what parsed as its value (parsing it
            # again leaves it be) and text that did not parse as text.
            line, unparsed = self._json.parse(line)
            case = line.case or case
        results = self._rubric_pass(case, unparsed)
        if any(claim_id in self._model_ids for claim_id in claim_ids):
            phase = self.judge or UnavailableModelPhase(self.plan)
            model = self.loop.run_until_complete(phase.evaluate([line], [results]))[0]
            results = {**results, **model}
        return unparsed_results(results, unparsed, self._kinds) if unparsed else results

    def missing_file(self, claim_id: str) -> str | None:
        """Why a claim, or a claim it waits for, lacks its schema file (``None``: it does not)."""
        if claim_id in self.missing_files:
            return self.missing_files[claim_id]
        for gate in self.claims[claim_id].after:
            why = self.missing_file(gate) if gate in self.claims else None
            if why is not None:
                return why
        return None

    def changed_file(self, claim_id: str, read: Mapping[str, Any] | None) -> str | None:
        """Why a claim, or a claim it waits for, would be re-checked against another
        schema file than the run read (``read``: the run's ``schema_files`` option;
        ``None``: the run kept none, so nothing can be told)."""
        if read is None:
            return None
        for name in self._schema_names.get(claim_id, ()):
            now, then = self.schema_hashes.get(name), read.get(name)
            if now != then:
                return (
                    f"schema file {name!r} of claim {claim_id} has sha256 {str(now)[:12]}… "
                    f"now, {str(then)[:12]}… when the run read it"
                )
        for gate in self.claims[claim_id].after:
            why = self.changed_file(gate, read) if gate in self.claims else None
            if why is not None:
                return why
        return None

    def reads(self, claim_id: str, case: Mapping[str, Any]) -> tuple[str, ...] | None:
        """The field paths a claim (and every claim it waits for) reads; ``None``: any."""
        planned = self.claims[claim_id]
        claim = planned.claim
        if isinstance(claim, CompareClaim):
            own: tuple[str, ...] | None = output_paths(claim, case)
            if claim.compare == "pairwise":
                own = ("input", *(own or ()))
        elif claim_id in self._reads:
            own = self._reads[claim_id]
        else:
            own = self._reads[claim_id] = _own_reads(claim)
        if own is None:
            return None
        paths = list(own)
        for gate in planned.after:
            if gate in self.claims:
                more = self.reads(gate, case)
                if more is None:
                    return None
                paths += more
        return tuple(paths)


def _own_reads(claim: Any) -> tuple[str, ...] | None:
    # Whether a claim applies (``when``) depends on that field too.
    when = (claim.when,) if getattr(claim, "when", None) else ()
    if isinstance(claim, JudgeClaim):
        # What a judge request carries: the case's input, the judged field and the
        # reference material it is compared with.
        reference = tuple(claim.reference.paths().values()) if claim.reference else ()
        return ("input", claim.field, *reference, *when)
    found: list[str] = []
    _collect(claim.model_dump(by_alias=True), found)
    return (*found, *when) if found else None


def _collect(value: Any, found: list[str]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _PATH_KEYS and isinstance(item, str):
                found.append(item)
            else:
                _collect(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, found)


def touched(paths: tuple[str, ...] | None, withheld: Mapping[str, Any]) -> str | None:
    """The first withheld path that one of ``paths`` reads (or lies inside), if any.

    Args:
        paths: Field paths, ``*`` allowed; ``None`` reads everything.
        withheld: The ``withheld`` map of a content envelope (concrete paths).
    """
    for concrete in withheld:
        if paths is None:
            return concrete
        parts = concrete.split(".")
        for path in paths:
            if all(a == b or a == "*" for a, b in zip(path.split("."), parts, strict=False)):
                return concrete
    return None


class StoredPlans:
    """Stored contracts by hash, each loaded on first use and kept for the audit.

    Args:
        store: The store holding the contracts.
        target: The store as ``--store`` names it (its judge cache is replayed).
        judge_phase: Makes the judge phase of a loaded contract, over its plan, instead
            of the replaying one (a resample asks the judges again).
    """

    def __init__(
        self,
        store: GapStore,
        target: str,
        *,
        judge_phase: Callable[[LoadedContract, Plan], JudgePhase] | None = None,
    ) -> None:
        self._store = store
        self._target = target
        self._make_phase = judge_phase or self._replaying_phase
        self._plans: dict[str, StoredPlan | PlanUnavailable] = {}
        self._loop = asyncio.new_event_loop()
        self._closers: list[Any] = []

    def get(self, sha: str) -> StoredPlan | PlanUnavailable:
        """The plan of the contract stored under ``sha``, or why there is none."""
        plan = self._plans.get(sha)
        if plan is None:
            plan = self._plans[sha] = self._load(sha)
        return plan

    def _load(self, sha: str) -> StoredPlan | PlanUnavailable:
        stored = self._store.contract(sha)
        if stored is None:
            return PlanUnavailable("contract_missing", f"contract {sha} is not in the store")
        source = stored.source.encode("utf-8")
        if sha256_hex(source) != sha:
            return PlanUnavailable(
                "contract_unloadable", f"the contract stored under {sha} does not hash to it"
            )
        path = Path(stored.path)
        loaded, diagnostics = check_contract_source(source, path)
        missing: dict[str, str] = {}
        if loaded is None:
            patched = without_missing_schemas(source, path, sha)
            if patched is None:
                errors = [d for d in diagnostics if d.severity == "error"]
                detail = str(errors[0]) if errors else f"{stored.path}: cannot be loaded"
                return PlanUnavailable("contract_unloadable", detail)
            loaded, missing = patched
        plan = build_plan(loaded)
        judge: JudgePhase | None = None
        problem: str | None = None
        if any(needs_judge(p.claim) for p in plan.model):
            try:
                judge = self._make_phase(loaded, plan)
            except (VerifierError, ValueError, OSError) as exc:
                problem = " ".join(str(exc).split())
        return StoredPlan(loaded, plan, judge, problem, self._loop, missing)

    def _replaying_phase(self, loaded: LoadedContract, plan: Plan) -> JudgePhase:
        from verifier.judge.setup import make_judge_phase
        from verifier.llm.limits import CallLimits
        from verifier.llm.replies import default_recordings

        recordings = default_recordings(loaded.path)
        phase = make_judge_phase(
            loaded,
            plan=plan,
            mode="replay",
            store_path=self._target,
            recordings=recordings if recordings.exists() else None,
            limits=CallLimits(),
            run_id="recheck",
        )
        if phase.cache is not None and phase.cache.store_cache is not None:
            self._closers.append(phase.cache.store_cache.close)
        return phase

    def close(self) -> None:
        """Closes the judge caches this audit opened and the event loop."""
        for close in self._closers:
            close()
        self._loop.close()
