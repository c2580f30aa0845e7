"""The gap-row model, its committed JSON Schema, and the judge triple rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from tests.gaps._support import TRIPLE, draft
from verifier.gaps.chain import GENESIS, seal
from verifier.gaps.row import (
    GapRow,
    gap_row_json_schema,
    missing_triple_parts,
    render_schema,
    write_schema,
)

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "contracts" / "gap-row.schema.json"
PACKAGED = ROOT / "verifier" / "gaps" / "gap-row.schema.json"
V1_FIELDS = {
    "schema",
    "row_id",
    "run_id",
    "seq",
    "recorded_at",
    "contract_id",
    "contract_version",
    "contract_sha256",
    "case_id",
    "claim_id",
    "kind",
    "status",
    "score",
    "reason",
    "evidence",
    "prev_hash",
    "row_hash",
}


def sealed_row(n: int = 1, **changes: Any) -> dict[str, Any]:
    (row,) = seal([draft(n, **changes)], 0, GENESIS)
    return {**json.loads(row.body), "row_hash": row.row_hash}


def test_committed_schema_is_generated_from_the_model() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_schema(), (
        "contracts/gap-row.schema.json is stale: run `python -m verifier.gaps.row`"
    )


def test_packaged_schema_is_identical_to_the_committed_one() -> None:
    assert PACKAGED.read_bytes() == COMMITTED.read_bytes()


def test_schema_names_itself_and_lists_the_v1_fields_all_required_but_the_content_hash() -> None:
    # content_sha256 came later: rows written before the content record lack it and
    # stay valid, so it is the one optional field.
    schema = gap_row_json_schema()
    assert schema["$id"] == schema["title"] == "verifier.gap-row.v1"
    assert set(schema["properties"]) == V1_FIELDS | {"content_sha256"}
    assert set(schema["required"]) == V1_FIELDS
    assert schema["additionalProperties"] is False
    assert all(prop.get("description") for prop in schema["properties"].values())
    Draft202012Validator.check_schema(schema)


def test_write_schema_writes_sorted_indented_json_with_a_final_newline(tmp_path: Path) -> None:
    target = write_schema(tmp_path / "out" / "gap-row.schema.json")
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


def test_a_sealed_row_is_a_valid_gap_row_and_matches_the_schema() -> None:
    row = sealed_row(4)
    assert GapRow.model_validate(row).model_dump(by_alias=True) == row
    assert list(Draft202012Validator(gap_row_json_schema()).iter_errors(row)) == []


def test_gap_row_is_frozen_and_rejects_unknown_fields() -> None:
    row = GapRow.model_validate(sealed_row())
    with pytest.raises(ValidationError):
        row.status = "fail"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        GapRow.model_validate({**sealed_row(), "verdict": "yes"})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("score", 1.5),
        ("score", "1"),
        ("seq", 0),
        ("seq", "1"),
        ("status", "passed"),
        ("kind", "llm"),
        ("recorded_at", "2026-11-25T10:00:00+02:00"),
        ("recorded_at", "2026-11-25 10:00:00Z"),
        ("prev_hash", "A" * 64),
        ("schema", "verifier.gap-row.v2"),
    ],
)
def test_model_and_schema_both_reject_an_invalid_field(field: str, value: Any) -> None:
    row = {**sealed_row(), field: value}
    with pytest.raises(ValidationError):
        GapRow.model_validate(row)
    assert list(Draft202012Validator(gap_row_json_schema()).iter_errors(row))


def test_a_judge_verdict_without_the_triple_is_not_a_valid_gap_row() -> None:
    row = sealed_row(4)
    row["evidence"] = {"verdict": "yes"}
    with pytest.raises(ValidationError, match="needs its stability triple"):
        GapRow.model_validate(row)


def test_a_judge_error_without_the_triple_is_a_valid_gap_row() -> None:
    row = {**sealed_row(4), "status": "error", "score": None, "evidence": {"raw": "timeout"}}
    assert GapRow.model_validate(row).status == "error"


@pytest.mark.parametrize(
    ("kind", "evidence", "missing"),
    [
        ("rubric", {}, []),
        ("imported", {"judge": {}}, []),
        ("judge", {"judge": dict(TRIPLE)}, []),
        ("judge", {}, ["evidence.judge"]),
        ("judge", {"judge": "claude"}, ["evidence.judge"]),
        ("judge", {"judge": {**TRIPLE, "model_id": ""}}, ["evidence.judge.model_id"]),
        ("judge", {"judge": {**TRIPLE, "prompt_sha": "  "}}, ["evidence.judge.prompt_sha"]),
        (
            "judge",
            {"judge": {"model_id": "m", "sampling_sha": None}},
            ["evidence.judge.prompt_sha", "evidence.judge.sampling_sha"],
        ),
        ("comparative", {"similarity": 0.93}, []),
        (
            "comparative",
            {"judge": {"model_id": "m"}},
            ["evidence.judge.prompt_sha", "evidence.judge.sampling_sha"],
        ),
    ],
)
def test_missing_triple_parts_names_what_is_missing_or_empty(
    kind: str, evidence: dict[str, Any], missing: list[str]
) -> None:
    assert missing_triple_parts({"kind": kind, "evidence": evidence}) == missing
