"""The playground's run: a contract's claims on one case, through the run library.

A try is :func:`verifier.run.api.run_contract`, the call ``verifier run`` makes, with
the case given in memory, the server's judge mode and the recordings beside the
contract's place in the contracts directory, so its verdicts are the ones ``verifier
run`` gives the same contract and case. Its gap rows go to a SQLite store of its own
in a temporary folder, removed when the call returns: a try of a contract being edited
is not a run of record, and would otherwise count in the trends, drift and alerts of
the contract it was started from (ADR 0081). What is shown is read from the run's
result in memory, each verdict's deciding spans marked as the viewer's pages mark them
(:func:`verifier.report._case_content.field_views`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from verifier.contract.load import LoadedContract
from verifier.judge.phase import JudgeMode
from verifier.report._case_content import (
    SHOWN_FIELDS,
    CaseContent,
    FieldView,
    field_views,
    result_fields,
)
from verifier.report._claim_notes import ClaimNote, judge_saw, notes_of_source
from verifier.report._run_view import CONTENT_CHARS
from verifier.report._spans import deciding_spans
from verifier.results import CaseResult, ClaimResult

__all__ = ["PLAY_CASE_ID", "PlayOutcome", "Verdict", "run_one_case"]

PLAY_CASE_ID: Final = "playground"
"""The id of a pasted case (a stored case keeps its own)."""

_TRIPLE: Final = ("model_id", "prompt_sha", "sampling_sha")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One claim's result on the case, as the playground shows it.

    Attributes:
        line: The claim's line in the contract text.
        triple: A judge's stability triple (served model, prompt sha, sampling sha).
        fields: The case's fields this result read, its deciding spans marked.
        saw: A judge claim's: the case fields its judge was shown (``judge_saw``).
    """

    claim_id: str
    kind: str
    status: str
    score: float | None
    reason: str
    line: int
    triple: dict[str, str] | None
    fields: tuple[FieldView, ...]
    content_note: str | None = None
    saw: str | None = None


@dataclass(frozen=True, slots=True)
class PlayOutcome:
    """A try: the case's verdict and each claim's.

    Attributes:
        output: The case's shown fields with every failing result's spans marked.
        notes: What the run told (why judges replay), one line each.
    """

    case_id: str
    passed: bool
    score: float
    threshold: float
    verdicts: tuple[Verdict, ...]
    output: tuple[FieldView, ...]
    notes: tuple[str, ...]


def run_one_case(
    loaded: LoadedContract, case: Mapping[str, Any], *, mode: JudgeMode | None
) -> PlayOutcome:
    """Checks every claim of ``loaded`` on ``case`` as ``verifier run`` would.

    Args:
        loaded: The contract, standing where it would be saved (its recordings are
            read from beside that place).
        case: The case, with an ``id``.
        mode: The server's judge mode (``None``: live when the judges' keys are set).

    Raises:
        VerifierError: What stops ``verifier run`` before or during a run.
    """
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges

    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="verifier-play-") as folder:
        result = run_contract(
            loaded,
            [dict(case)],
            store=str(Path(folder) / "play.db"),
            judges=Judges(mode=mode),
            use_declared_sut=False,
            options_record={"api": "playground"},
            note=notes.append,
        )
    return _outcome(loaded, case, result.cases[0], result.summary.threshold, tuple(notes))


def _outcome(
    loaded: LoadedContract,
    case: Mapping[str, Any],
    checked: CaseResult,
    threshold: float,
    notes: tuple[str, ...],
) -> PlayOutcome:
    content = CaseContent(dict(case))
    claim_notes = notes_of_source(loaded.source)
    verdicts = tuple(
        _verdict(loaded, content, result, claim_notes.get(result.claim_id))
        for result in checked.results
    )
    failing = [
        span
        for result in checked.results
        if result.status in ("fail", "error")
        for span in deciding_spans(result.evidence)
    ]
    return PlayOutcome(
        case_id=checked.case_id,
        passed=checked.passed,
        score=checked.score,
        threshold=threshold,
        verdicts=verdicts,
        output=field_views(content, failing, CONTENT_CHARS * 4, SHOWN_FIELDS),
        notes=notes,
    )


def _verdict(
    loaded: LoadedContract, content: CaseContent, result: ClaimResult, note: ClaimNote | None
) -> Verdict:
    """One result as the viewer's run page shows it: the same fields, the same fold."""
    return Verdict(
        claim_id=result.claim_id,
        kind=result.kind,
        status=result.status,
        score=result.score,
        reason=result.reason,
        line=loaded.claim_line(result.claim_id),
        triple=_triple(result.evidence),
        fields=result_fields(content, result.evidence, note, CONTENT_CHARS),
        saw=judge_saw(note) if result.kind == "judge" else None,
    )


def _triple(evidence: Mapping[str, Any]) -> dict[str, str] | None:
    judge = evidence.get("judge")
    if not isinstance(judge, Mapping):
        return None
    return {part: str(judge.get(part) or "") for part in _TRIPLE}
