"""What a run's contract says of each claim, read from the contract source the store kept.

Reports show a claim's description (or a judge claim's instruction) beside its id,
and a scale claim's verdict on its own scale (``2/5``) beside the score in [0, 1].
The source is parsed, not validated: a report of an old run must not fail because
today's rules would refuse its contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from verifier.gaps.store import GapStore, RunRecord

__all__ = ["ClaimNote", "claim_notes", "judge_saw", "notes_of_source", "scale_verdict"]


@dataclass(frozen=True, slots=True)
class ClaimNote:
    """A claim as its contract describes it.

    Attributes:
        description: The claim's ``description``, else a judge claim's ``instruction``.
        scale: A scale claim's ``(min, max)``.
        reads: The case fields the claim reads besides the one it checks, as the
            contract names them (they may hold ``*``): a judge's ``input``, the field it
            judges and its reference's fields; a citation's ``within``.
        own_prompt: A judge claim whose judge has a prompt of its own (``prompt`` or
            ``stored_prompt``), which may show more case fields (``{{case.PATH}}``) than
            its rows record.
    """

    description: str | None = None
    scale: tuple[int, int] | None = None
    reads: tuple[str, ...] = ()
    own_prompt: bool = False


_REFERENCE_ROLES = ("instructions", "expected", "bad", "why")
"""A judge reference's roles, in the order the judge reads them (``Reference.paths``)."""


def claim_notes(store: GapStore, record: RunRecord) -> dict[str, ClaimNote]:
    """Each claim of the run's contract by id (empty when the source is not there or
    cannot be read)."""
    stored = store.contract(record.contract_sha256)
    if stored is None:
        return {}
    return notes_of_source(stored.source.encode("utf-8"))


def notes_of_source(source: bytes) -> dict[str, ClaimNote]:
    """Each claim of the contract whose text is ``source``, by id (empty when it cannot
    be read)."""
    from verifier._internal.yaml_positions import YamlProblem, parse_yaml_with_positions

    try:  # the contracts' reader and limits, as for every YAML verifier reads
        document, _ = parse_yaml_with_positions(source)
    except YamlProblem:
        return {}
    claims = document.get("claims") if isinstance(document, Mapping) else None
    judges = document.get("judges") if isinstance(document, Mapping) else None
    judges = judges if isinstance(judges, Mapping) else {}
    notes: dict[str, ClaimNote] = {}
    for claim in claims if isinstance(claims, list) else ():
        if isinstance(claim, Mapping) and isinstance(claim.get("id"), str):
            notes[claim["id"]] = _note(claim, judges)
    return notes


def _reads(claim: Mapping[str, Any], judges: Mapping[str, Any]) -> tuple[tuple[str, ...], bool]:
    """What ``ClaimNote.reads`` and ``ClaimNote.own_prompt`` say of ``claim``."""
    if claim.get("rubric") == "citation":
        within = claim.get("within")
        return ((within,) if isinstance(within, str) else ()), False
    if not isinstance(claim.get("judge"), str) or "compare" in claim:
        return (), False
    field = claim.get("field")
    paths = ["input", field if isinstance(field, str) else "output"]
    reference = claim.get("reference")
    if isinstance(reference, Mapping):
        paths.extend(p for r in _REFERENCE_ROLES if isinstance(p := reference.get(r), str))
    judge = judges.get(claim["judge"])
    own = isinstance(judge, Mapping) and bool(judge.get("prompt") or judge.get("stored_prompt"))
    return tuple(dict.fromkeys(paths)), own


def _note(claim: Mapping[str, Any], judges: Mapping[str, Any]) -> ClaimNote:
    text = claim.get("description") or claim.get("instruction")
    description = " ".join(text.split()) if isinstance(text, str) and text.strip() else None
    scale = claim.get("scale")
    bounds = None
    if isinstance(scale, Mapping):
        low, high = scale.get("min"), scale.get("max")
        if _is_int(low) and _is_int(high) and low < high:
            bounds = (low, high)
    reads, own_prompt = _reads(claim, judges)
    return ClaimNote(description, bounds, reads, own_prompt)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def scale_verdict(evidence: Any, score: float | None, note: ClaimNote | None) -> str | None:
    """A scale judge's verdict as ``score/max`` (``2/5``), or ``None`` for other claims.

    The judge's own score in the evidence is preferred; a row that lacks it (a
    majority of samples) is mapped back from its score in [0, 1] and the scale.
    """
    verdict = evidence.get("verdict") if isinstance(evidence, Mapping) else None
    if isinstance(verdict, Mapping):
        given, scale = verdict.get("verdict"), verdict.get("scale")
        if isinstance(given, Mapping) and isinstance(scale, Mapping):
            raw, high = given.get("score"), scale.get("max")
            if _is_int(raw) and _is_int(high):
                return f"{raw}/{high}"
    if note is None or note.scale is None or score is None:
        return None
    low, high = note.scale
    return f"{round(low + score * (high - low))}/{high}"


def judge_saw(note: ClaimNote | None) -> str | None:
    """The case fields a judge claim's judge was shown, in words (``None`` when the
    contract does not say: its source is not in the store)."""
    if note is None or not note.reads:
        return None
    saw = f"the judge was shown {', '.join(note.reads)}"
    if note.own_prompt:
        saw += (
            "; its judge's own prompt may show other case fields too, which the rows do not record"
        )
    return saw
