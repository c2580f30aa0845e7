"""Recording one reduced promptfoo assertion result as an ``imported`` gap row.

Every import is a run of its own with one row: kind ``imported``, status ``pass`` or
``fail`` from promptfoo's ``pass``, score from its ``score``, reason from its
``reason``, and evidence holding the reduced artifact and the SHA-256 of the source
file's bytes. Nothing is written unless the whole file reduces cleanly.

A run needs a contract source. The import's contract is a small synthetic document
(canonical JSON, see :func:`import_contract_source`) that depends only on the
contract id: every import under one id shares one ``contract_sha256``, so their pass
rates line up across runs for ``verifier audit``. The artifact is not used as the
contract because it differs from one import to the next (a pass and a fail would
look like two contracts), and because it is already in the row.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier._internal.duplicate_keys import duplicate_key
from verifier.gaps.row_fields import ROW_SCHEMA
from verifier.gaps.store import GapStore
from verifier.integrations.promptfoo_artifact import (
    ARTIFACT_SCHEMA,
    MalformedPromptfooResult,
    PromptfooAssertionArtifact,
    reduce_promptfoo_result,
)
from verifier.results import RowStatus

__all__ = [
    "DEFAULT_CASE_ID",
    "IMPORT_CONTRACT_ID",
    "PromptfooImport",
    "check_ids",
    "import_contract_source",
    "import_promptfoo_result",
    "read_promptfoo_result",
    "record_promptfoo_result",
]

IMPORT_CONTRACT_ID: Final = "promptfoo-import"
DEFAULT_CASE_ID: Final = "promptfoo-assertion"
"""A placeholder, not an identity: promptfoo's surfaced result names no test case, and
the import does not invent one from indexes, vars or hashes (pass ``case_id``)."""
CONTRACT_VERSION: Final = 1
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")


@dataclass(frozen=True, slots=True)
class PromptfooImport:
    """What one import recorded."""

    run_id: str
    row_id: str
    status: RowStatus
    artifact: PromptfooAssertionArtifact
    source_sha256: str


def read_promptfoo_result(path: Path) -> tuple[PromptfooAssertionArtifact, str]:
    """Reads and reduces one promptfoo assertion result file.

    Returns:
        The reduced artifact and the SHA-256 (hex) of the file's bytes.

    Raises:
        MalformedPromptfooResult: The file is unreadable, not one JSON document, or
            not exactly one v1-shaped assertion result.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MalformedPromptfooResult(f"cannot read: {exc.strerror or exc}") from None
    return reduce_promptfoo_result(_decoded(raw)), sha256_hex(raw)


def _decoded(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MalformedPromptfooResult(f"not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise MalformedPromptfooResult("empty file; expected one JSON object")
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and all(_is_json(line) for line in lines):
            raise MalformedPromptfooResult(
                f"{len(lines)} JSON documents, one per line (JSONL): exactly one assertion "
                "result is imported, never lines of a larger output"
            ) from None
        raise MalformedPromptfooResult(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    # A parser keeps the last of two equal keys ("pass": false, "pass": true): which
    # one promptfoo meant is unknown, so the document is refused, not read last-wins.
    twice = duplicate_key(text.encode("utf-8"), data)
    if twice is not None:
        raise MalformedPromptfooResult(f"key {twice!r} appears twice in one object")
    return data


def _is_json(line: str) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def import_contract_source(contract_id: str = IMPORT_CONTRACT_ID) -> str:
    """The synthetic contract an import run records (canonical JSON text)."""
    document = {
        "contract": contract_id,
        "version": CONTRACT_VERSION,
        "description": (
            "Results imported from promptfoo: one deterministic equals assertion result "
            f"per run, reduced to {ARTIFACT_SCHEMA}. verifier checks nothing itself; "
            "promptfoo is the source of each outcome."
        ),
        "imported": {"framework": "promptfoo", "schema": ARTIFACT_SCHEMA, "claims": ["equals"]},
    }
    return canonical_json(document).decode("utf-8")


def import_promptfoo_result(
    path: Path,
    store: GapStore,
    *,
    contract_id: str = IMPORT_CONTRACT_ID,
    case_id: str = DEFAULT_CASE_ID,
) -> PromptfooImport:
    """Reduces the assertion result in ``path`` and records it (see ``record_promptfoo_result``).

    Raises:
        MalformedPromptfooResult: The file does not reduce; nothing was written.
        ValueError: ``contract_id`` or ``case_id`` is not a valid id.
        StoreError: The store cannot be written.
    """
    check_ids(contract_id, case_id)
    artifact, source_sha = read_promptfoo_result(path)
    return record_promptfoo_result(
        artifact, source_sha, store, contract_id=contract_id, case_id=case_id
    )


def check_ids(contract_id: str, case_id: str) -> None:
    """Raises ``ValueError`` unless both ids are usable in a gap row."""
    if not _ID.fullmatch(contract_id):
        raise ValueError(
            f"contract id {contract_id!r} is not valid (lowercase letters, digits, '_', "
            "'.' and '-', starting with a letter or digit)"
        )
    if not _CASE_ID.fullmatch(case_id):
        raise ValueError(f"case id {case_id!r} is not valid (letters, digits, '_', '.', ':', '-')")


def record_promptfoo_result(
    artifact: PromptfooAssertionArtifact,
    source_sha256: str,
    store: GapStore,
    *,
    contract_id: str = IMPORT_CONTRACT_ID,
    case_id: str = DEFAULT_CASE_ID,
) -> PromptfooImport:
    """Records a reduced assertion result as a finished run of one ``imported`` row.

    Args:
        artifact: The reduced result.
        source_sha256: SHA-256 (hex) of the bytes it was read from.
        store: Where the run and its row go.
        contract_id: The run's contract id (a lowercase id, as contracts have).
        case_id: The row's case id.

    Raises:
        ValueError: ``contract_id`` or ``case_id`` is not a valid id; nothing was written.
        StoreError: The store cannot be written.
    """
    check_ids(contract_id, case_id)
    from verifier.engine.runner import new_run_id

    run_id = new_run_id()
    claim_id = artifact.assertion_type
    outcome = artifact.result
    status: RowStatus = "pass" if outcome.passed else "fail"
    source = import_contract_source(contract_id)
    contract_sha = sha256_hex(source)
    started_at = _now()
    store.begin_run(
        run_id,
        contract_id=contract_id,
        contract_version=CONTRACT_VERSION,
        contract_sha256=contract_sha,
        contract_path=f"(synthetic: {contract_id}, verifier import promptfoo)",
        contract_source=source,
        started_at=started_at,
        options={"import": "promptfoo", "schema": ARTIFACT_SCHEMA, "source_sha256": source_sha256},
    )
    row_id = f"{run_id}:1:{claim_id}"
    store.append(
        [
            {
                "schema": ROW_SCHEMA,
                "row_id": row_id,
                "run_id": run_id,
                "recorded_at": started_at,
                "contract_id": contract_id,
                "contract_version": CONTRACT_VERSION,
                "contract_sha256": contract_sha,
                "case_id": case_id,
                "content_sha256": None,  # the result came without the output it judged
                "claim_id": claim_id,
                "kind": "imported",
                "status": status,
                "score": float(outcome.score),
                "reason": outcome.reason or _no_reason(claim_id, outcome.passed),
                "evidence": {"promptfoo": artifact.as_json(), "source_sha256": source_sha256},
            }
        ]
    )
    passed = int(outcome.passed)
    store.finish_run(
        run_id,
        status="finished",
        finished_at=_now(),
        summary={
            "total_cases": 1,
            "passed_cases": passed,
            "failed_cases": 1 - passed,
            "average_score": float(outcome.score),
            "threshold": 1.0,
            "assertion_breakdown": {
                claim_id: {
                    "pass_rate": float(passed),
                    "passed": passed,
                    "failed": 1 - passed,
                    "errors": 0,
                    "skipped": 0,
                }
            },
            "usage": None,
        },
    )
    return PromptfooImport(run_id, row_id, status, artifact, source_sha256)


def _no_reason(claim_id: str, passed: bool) -> str:
    return f"promptfoo's {claim_id} assertion {'passed' if passed else 'failed'} (no reason given)"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
