"""A stored run made ready to be re-scored: its contract re-read from the store, the
claims it checked, its threshold and plan.

Every surface that scores a stored run's cases again (the CI outputs made from a store,
a sharded run's merge, the calibration of case labels) starts here, so a case's score
is computed from its rows one way only (``verifier.engine.plan.score_case``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verifier.contract.load import LoadedContract, check_contract_source
from verifier.contract.selection import choose_claims, judged_claims, unscored
from verifier.engine.plan import Plan, build_plan
from verifier.engine.stored_cases import stored_cases
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord, StoredContract
from verifier.results import CaseResult

__all__ = ["StoredRun", "StoredRunError", "stored_run"]


class StoredRunError(VerifierError):
    """A stored run whose results cannot be rebuilt."""


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A stored run with what re-scoring its cases needs.

    Attributes:
        record: The run's record.
        contract: Its contract as the store kept it.
        loaded: That contract loaded, narrowed to the claims the run checked (judged
            claims unscored when the run had judges off).
        plan: The plan of ``loaded``.
        threshold: The run's threshold.
    """

    record: RunRecord
    contract: StoredContract
    loaded: LoadedContract
    plan: Plan
    threshold: float

    def cases(self, store: GapStore) -> Iterator[CaseResult]:
        """The run's cases re-scored from their rows, in line order; a line stored
        twice (a resumed run redid it) once: its later rows. Memory grows with the
        run's cases."""
        found = {
            case.line: case
            for case in stored_cases(store, self.record.run_id, self.plan, self.threshold)
        }
        return iter(sorted(found.values(), key=lambda c: c.line))


def stored_run(store: GapStore, run_id: str) -> StoredRun:
    """Reads run ``run_id`` and its contract from ``store``, ready to re-score.

    Raises:
        StoredRunError: The run or its contract is not in the store, or the contract
            no longer loads.
    """
    record = store.run(run_id)
    if record is None:
        raise StoredRunError(f"run {run_id} is not in {store.location}")
    stored = store.contract(record.contract_sha256)
    if stored is None:
        raise StoredRunError(f"run {run_id}: its contract is not in {store.location}")
    loaded, diagnostics = check_contract_source(stored.source.encode("utf-8"), Path(stored.path))
    if loaded is None:
        problem = next(iter(diagnostics), None)
        raise StoredRunError(f"run {run_id}: its stored contract no longer loads: {problem}")
    # Scored as the run was: on the claims it checked, judged claims out with judges off.
    claims = record.options.get("claims")
    if isinstance(claims, list):
        loaded = choose_claims(loaded, [str(claim) for claim in claims])
    if record.options.get("judges") == "off":
        loaded = unscored(loaded, judged_claims(loaded))
    threshold = float(record.options.get("threshold", loaded.contract.threshold))
    return StoredRun(record, stored, loaded, build_plan(loaded), threshold)
