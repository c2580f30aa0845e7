"""Checks on the two runs of a comparison: they exist, they checked one contract, and
what a reader should be warned about (a changed contract file or schema file, an
unfinished run); the judges of the two runs are ``judge_changes``' to tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verifier.contract.schema_files import RUN_OPTION as SCHEMA_FILES_OPTION
from verifier.contract.schema_files import changed_schema_files
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord

__all__ = [
    "CompareError",
    "RunInfo",
    "check_runs",
    "run_info",
]


class CompareError(VerifierError):
    """Two runs that cannot be compared (unknown, or of different contracts)."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What a comparison says about each of its runs."""

    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    status: str
    judges_off: bool = False
    schema_files: Mapping[str, Any] | None = None  # None: the run kept no hashes

    @classmethod
    def of(cls, record: RunRecord) -> RunInfo:
        schema_files = record.options.get(SCHEMA_FILES_OPTION)
        return cls(
            record.run_id,
            record.contract_id,
            record.contract_version,
            record.contract_sha256,
            record.status,
            record.options.get("judges") == "off",
            schema_files if isinstance(schema_files, Mapping) else None,
        )


def run_info(store: GapStore, run_id: str, role: str) -> RunInfo:
    record = store.run(run_id)
    if record is None:
        raise CompareError(f"{role} run {run_id!r} is not in {store.location}")
    return RunInfo.of(record)


def check_runs(baseline: RunInfo, candidate: RunInfo) -> list[str]:
    if baseline.contract_id != candidate.contract_id:
        raise CompareError(
            f"run {baseline.run_id} checked contract {baseline.contract_id!r} but run "
            f"{candidate.run_id} checked {candidate.contract_id!r}; only runs of one "
            "contract can be compared"
        )
    warnings: list[str] = []
    if baseline.run_id == candidate.run_id:
        warnings.append(f"run {baseline.run_id} is compared with itself")
    if baseline.contract_sha256 != candidate.contract_sha256:
        warnings.append(
            f"the runs checked different versions of contract {baseline.contract_id!r} "
            f"(v{baseline.contract_version}, sha256 {baseline.contract_sha256[:12]}… and "
            f"v{candidate.contract_version}, sha256 {candidate.contract_sha256[:12]}…): a "
            "change may come from the contract rather than the system"
        )
    if baseline.schema_files is not None and candidate.schema_files is not None:
        for name in changed_schema_files(baseline.schema_files, candidate.schema_files):
            warnings.append(
                f"the runs read different versions of schema file {name}: a change of a "
                "json_schema claim may come from the schema rather than the system"
            )
    for info in (baseline, candidate):
        if info.judges_off:
            warnings.append(
                f"run {info.run_id} ran with --judges off: its judged claims were skipped, "
                "left out of their claims' pairs, and count as not passed in whole cases"
            )
        if info.status != "finished":
            warnings.append(
                f"run {info.run_id} is {info.status}: only the rows it stored are compared"
            )
    return warnings
