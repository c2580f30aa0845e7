"""The wording of a judge claim a calibration measured, kept beside its triple.

The stability triple names the judge (model, template with tool and rendering,
sampling); it says nothing of what the claim asks that judge. A calibration measures
how far one judge agrees with people on one wording of one claim, so it records that
wording: the claim's parts that reach the judge (``instruction``, ``criteria``, the
scale's bounds and anchors, the judged ``field`` and the ``reference`` fields shown)
and those that turn the judge's answer into the pass or fail the kappa was measured
on (the scale's ``pass_at``, a ``critique``'s points, a ``compliance`` pass mark).
What only decides where or whether the claim applies (``when``, ``after``,
``weight``) and the claim's id (part of the calibration's key) are left out.

The wording is canonical JSON (sorted keys, compact), so a claim re-saved with its
keys in another order or its anchors spelled ``'1'`` keeps its wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.contract.models import JudgeClaim

if TYPE_CHECKING:
    from verifier.gaps.store import GapStore

__all__ = [
    "JUDGED_PARTS",
    "ClaimWording",
    "StoredWordings",
    "claim_wording",
    "stored_claim_wording",
]

JUDGED_PARTS: Final = (
    "instruction",
    "criteria",
    "scale",
    "critique",
    "compliance",
    "field",
    "reference",
)
"""The keys of a judge claim its wording covers (see the module's docstring)."""


@dataclass(frozen=True, slots=True)
class ClaimWording:
    """A judge claim's wording: ``text`` (canonical JSON of its judged parts) and its
    SHA-256, ``sha``."""

    text: str
    sha: str

    @classmethod
    def from_text(cls, text: str) -> ClaimWording:
        """The wording stored as ``text``."""
        return cls(text, sha256_hex(text.encode("utf-8")))

    def changed_parts(self, other: ClaimWording) -> list[str]:
        """The judged parts that differ between this wording and ``other``, in the
        order of ``JUDGED_PARTS``."""
        mine, theirs = _parts(self.text), _parts(other.text)
        return [part for part in JUDGED_PARTS if mine.get(part) != theirs.get(part)]


def claim_wording(claim: JudgeClaim) -> ClaimWording:
    """The wording of a judge claim, as a calibration records it."""
    parts = claim.model_dump(mode="json", include=set(JUDGED_PARTS))
    return ClaimWording.from_text(canonical_json(parts).decode("utf-8"))


def stored_claim_wording(source: str, claim_id: str) -> ClaimWording | None:
    """The wording of claim ``claim_id`` in a stored contract's text; ``None`` when the
    text has no such judge claim or does not validate.

    Only the claim itself is validated: the files the contract names (templates,
    schemas) need not exist any more for its wording to be read.
    """
    from pydantic import ValidationError

    from verifier._internal.yaml_positions import YamlProblem, parse_yaml_with_positions

    try:
        data, _ = parse_yaml_with_positions(source.encode("utf-8"))
    except YamlProblem:
        return None
    claims = data.get("claims") if isinstance(data, dict) else None
    for item in claims if isinstance(claims, list) else ():
        if isinstance(item, dict) and item.get("id") == claim_id and "compare" not in item:
            try:
                return claim_wording(JudgeClaim.model_validate(item))
            except ValidationError:
                return None
    return None


class StoredWordings:
    """Judge claims' wordings in the contracts a store kept, each read once.

    Args:
        store: The gap store holding the contracts runs were checked under.
    """

    def __init__(self, store: GapStore) -> None:
        self._store = store
        self._found: dict[tuple[str, str], str | None] = {}

    def text(self, contract_sha256: str, claim_id: str) -> str | None:
        """The wording (``ClaimWording.text``) of ``claim_id`` in the stored contract
        ``contract_sha256``; ``None`` when the store lacks either."""
        key = (contract_sha256, claim_id)
        if key not in self._found:
            stored = self._store.contract(contract_sha256)
            wording = stored_claim_wording(stored.source, claim_id) if stored else None
            self._found[key] = wording.text if wording else None
        return self._found[key]


def _parts(text: str) -> dict[str, Any]:
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}  # a wording recorded by sha alone: every part is unknown
    return parsed if isinstance(parsed, dict) else {}
