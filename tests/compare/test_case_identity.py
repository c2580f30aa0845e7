"""A case's identity is every field but the outputs the contract names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verifier.compare.case_identity import case_identity, output_paths
from verifier.contract.validation import validate_contract

CONTRACT: dict[str, Any] = {
    "contract": "c",
    "version": 1,
    "llm_fields": ["fields.summary", "items.*.note"],
    "claims": [{"id": "x", "rubric": "present", "field": "output"}],
}


def identity(tmp_path: Path, *cases: Any, contract: dict[str, Any] = CONTRACT) -> str:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return case_identity(path, validate_contract(contract)).sha256


def test_outputs_do_not_change_the_identity_and_the_rest_does(tmp_path: Path) -> None:
    case = {
        "id": "a", "input": "q", "reference": "r", "output": "one", "runs": ["one", "two"],
        "fields": {"summary": "s", "industry": "saas"}, "items": [{"note": "n", "k": 1}],
    }  # fmt: skip
    base = identity(tmp_path, case)
    other_outputs = {
        **case, "output": {"any": "thing"}, "runs": [], "fields": {"industry": "saas"},
        "items": [{"note": "other", "k": 1.0}],
    }  # fmt: skip
    assert identity(tmp_path, other_outputs) == base
    assert identity(tmp_path, {**case, "input": "q2"}) != base
    assert identity(tmp_path, {**case, "id": "b"}) != base
    assert identity(tmp_path, {**case, "reference": "r2"}) != base
    assert identity(tmp_path, {**case, "fields": {"summary": "s", "industry": "health"}}) != base
    assert identity(tmp_path, {**case, "items": [{"note": "n", "k": 2}]}) != base
    assert identity(tmp_path, case, case) != base  # a case more


def test_the_system_under_tests_output_key_is_an_output(tmp_path: Path) -> None:
    contract = {**CONTRACT, "sut": {"exec": {"command": "cat"}, "output": "answer"}}
    assert "answer" in output_paths(validate_contract(contract))
    one = identity(tmp_path, {"id": "a", "input": "q", "answer": "x"}, contract=contract)
    two = identity(tmp_path, {"id": "a", "input": "q"}, contract=contract)
    assert one == two
