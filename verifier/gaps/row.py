"""The gap row: one claim checked against one case, as it is stored and audited.

``GapRow`` is the typed view of a row (its fields are those of
``verifier.gaps.row_fields.ROW_FIELDS``) and the source of its JSON Schema
(``verifier.gap-row.v1``), which is committed as ``contracts/gap-row.schema.json`` and
shipped inside the package for ``verifier audit``. The hot paths (sealing, storing,
auditing) work on plain dicts and never build a ``GapRow`` per row; the model exists
for readers, importers, and to generate the schema.

The stability-triple rule (a judge verdict names who judged, with which prompt and
which sampling) depends on ``kind`` and ``status`` together, so it is checked by
``GapRow`` and by the audit through ``missing_triple_parts`` rather than encoded in the
schema's structure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from verifier.gaps.row_fields import FIELDS_BY_NAME, ROW_SCHEMA
from verifier.gaps.vendor_managed import VENDOR_MANAGED, VENDOR_MANAGED_PREFIX
from verifier.results import RowKind, RowStatus

SCHEMA_ID = ROW_SCHEMA
HEX64_PATTERN = r"^[0-9a-f]{64}$"
# UTC only, so a row's time never depends on the zone of the machine that wrote it;
# [0-9] rather than \d, which in Python's re also matches non-ASCII digits.
UTC_TIMESTAMP_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|\+00:00)$"
)

TRIPLE_PARTS: tuple[str, ...] = ("model_id", "prompt_sha", "sampling_sha")
# Only a verdict needs proof of who judged. An error row records that no verdict
# could be had (often precisely because the triple was missing); a skipped row made
# no call at all.
TRIPLE_REQUIRED_STATUSES: frozenset[str] = frozenset({"pass", "fail"})


def _about(name: str) -> str:
    return FIELDS_BY_NAME[name].description


class GapRow(BaseModel):
    """One gap row, exactly as ``verifier.gap-row.v1`` defines it.

    Strict and frozen: a row is a record, so nothing is coerced (``"1"`` is not a
    seq) and nothing changes once built. Build one from a stored row with
    ``GapRow.model_validate(row_dict)`` and dump it with ``model_dump(by_alias=True)``.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        populate_by_name=True,
        title=SCHEMA_ID,
        json_schema_extra={
            "$id": SCHEMA_ID,
            "description": (
                "One claim checked against one case, as verifier stores it. Rows are "
                "append-only and hash-chained per store: row_hash = sha256(prev_hash + "
                "canonical JSON of the row without row_hash). A pass or fail row of kind "
                "judge (or comparative with evidence.judge) must carry evidence.judge "
                "with non-empty model_id, prompt_sha and sampling_sha, and any pass or "
                "fail row whose evidence.sut is of kind prompt must carry the same three "
                "in evidence.sut.triple; verifier audit checks both rules."
            ),
        },
    )

    # ``schema`` would shadow BaseModel.schema(), hence the alias. Each field is one of
    # ``ROW_FIELDS``, in its order and with its description; a test holds them together.
    schema_: Literal["verifier.gap-row.v1"] = Field(alias="schema", description=_about("schema"))
    row_id: str = Field(min_length=1, description=_about("row_id"))
    run_id: str = Field(min_length=1, description=_about("run_id"))
    seq: int = Field(ge=1, description=_about("seq"))
    recorded_at: str = Field(pattern=UTC_TIMESTAMP_PATTERN, description=_about("recorded_at"))
    contract_id: str = Field(min_length=1, description=_about("contract_id"))
    contract_version: int = Field(ge=1, description=_about("contract_version"))
    contract_sha256: str = Field(pattern=HEX64_PATTERN, description=_about("contract_sha256"))
    case_id: str = Field(min_length=1, description=_about("case_id"))
    content_sha256: str | None = Field(
        default=None, pattern=HEX64_PATTERN, description=_about("content_sha256")
    )
    claim_id: str = Field(min_length=1, description=_about("claim_id"))
    kind: RowKind = Field(description=_about("kind"))
    status: RowStatus = Field(description=_about("status"))
    score: float | None = Field(ge=0.0, le=1.0, description=_about("score"))
    reason: str = Field(description=_about("reason"))
    evidence: dict[str, Any] = Field(description=_about("evidence"))
    prev_hash: str = Field(pattern=HEX64_PATTERN, description=_about("prev_hash"))
    row_hash: str = Field(pattern=HEX64_PATTERN, description=_about("row_hash"))

    @model_validator(mode="after")
    def _verdicts_carry_the_triple(self) -> GapRow:
        if self.status in TRIPLE_REQUIRED_STATUSES:
            missing = missing_triple_parts({"kind": self.kind, "evidence": self.evidence})
            if missing:
                raise ValueError(
                    f"a {self.status} {self.kind} row needs its stability triple; missing: "
                    + ", ".join(missing)
                )
        return self


def needs_triple(row: Mapping[str, Any]) -> bool:
    """Whether a row's kind means it was judged by a model.

    A ``judge`` row always is; a ``comparative`` row is when its evidence has a
    ``judge`` key (a similarity comparison calls no model).
    """
    kind = row.get("kind")
    if kind == "judge":
        return True
    evidence = row.get("evidence")
    return kind == "comparative" and isinstance(evidence, Mapping) and "judge" in evidence


def missing_triple_parts(row: Mapping[str, Any]) -> list[str]:
    """Returns the parts of the stability triples a row lacks (empty when complete).

    Two triples are required: the judge's on a judged row (see ``needs_triple``), and
    a prompt system under test's (``evidence.sut.triple``) on every row checked
    against an output that a model produced from the contract's prompt.

    Args:
        row: A gap row as a dict (only ``kind`` and ``evidence`` are read).

    Returns:
        ``[]`` when the row needs no triple or has complete ones; otherwise the
        dotted names of what is missing or empty, e.g. ``["evidence.judge.model_id"]``,
        or ``["evidence.judge"]`` when there is no triple object at all. The caller
        decides what that means for the row's status (see ``TRIPLE_REQUIRED_STATUSES``).
    """
    evidence = row.get("evidence")
    if not isinstance(evidence, Mapping):
        return ["evidence.judge"] if needs_triple(row) else []
    missing = _missing_in(evidence.get("judge"), "evidence.judge") if needs_triple(row) else []
    sut = evidence.get("sut")
    if isinstance(sut, Mapping) and sut.get("kind") == "prompt":
        missing += _missing_in(sut.get("triple"), "evidence.sut.triple")
    return missing


def malformed_sentinels(row: Mapping[str, Any]) -> list[str]:
    """Dotted names of the row's ``prompt_sha`` that claim a vendor-managed prompt
    without naming both vendor and endpoint (``vendor-managed:openai``), which proves
    nothing about what prompt judged.

    Args:
        row: A gap row as a dict (only ``evidence`` is read).
    """
    evidence = row.get("evidence")
    if not isinstance(evidence, Mapping):
        return []
    sut = evidence.get("sut")
    triples = [("evidence.judge", evidence.get("judge"))]
    if isinstance(sut, Mapping):
        triples.append(("evidence.sut.triple", sut.get("triple")))
    found = []
    for where, triple in triples:
        sha = triple.get("prompt_sha") if isinstance(triple, Mapping) else None
        claims = isinstance(sha, str) and sha.startswith(VENDOR_MANAGED_PREFIX)
        if claims and VENDOR_MANAGED.fullmatch(str(sha)) is None:
            found.append(f"{where}.prompt_sha")
    return found


def _missing_in(triple: Any, where: str) -> list[str]:
    if not isinstance(triple, Mapping):
        return [where]
    return [
        f"{where}.{part}"
        for part in TRIPLE_PARTS
        if not (isinstance(triple.get(part), str) and triple[part].strip())
    ]


def gap_row_json_schema() -> dict[str, Any]:
    """Returns the JSON Schema (draft 2020-12) of ``verifier.gap-row.v1``."""
    schema = GapRow.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def render_schema() -> str:
    """The schema exactly as committed: sorted keys, two-space indent, final newline."""
    return json.dumps(gap_row_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: str | Path) -> Path:
    """Writes the gap-row JSON Schema to ``path`` and returns the path.

    Regenerate both committed copies (``contracts/`` and the one shipped in the
    package) after changing ``GapRow`` with ``python -m verifier.gaps.row``.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_schema(), encoding="utf-8")
    return target


if __name__ == "__main__":
    # From a source checkout: regenerate the committed schema and the packaged copy.
    _package_copy = Path(__file__).with_name("gap-row.schema.json")
    for _target in (_package_copy, _package_copy.parents[2] / "contracts" / "gap-row.schema.json"):
        write_schema(_target)
        print(f"wrote {os.path.relpath(_target)}")
