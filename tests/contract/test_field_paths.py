"""Every field path a contract names is checked for form when the contract is, so
``verifier check`` locates a malformed one and no run meets it mid-way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests._cli import verifier
from verifier.contract.validation import validate_contract
from verifier.rubric._registry import REGISTRY

PATH_KEYS = ("field", "spans", "within", "reference_field")
JUDGES = {"j": {"provider": "anthropic", "model": "claude-haiku-4-5-20251001"}}


def _errors(*claims: dict[str, Any]) -> list[str]:
    document = {"contract": "paths", "version": 1, "judges": JUDGES, "claims": list(claims)}
    with pytest.raises(ValidationError) as caught:
        validate_contract(document, context={"base_dir": Path.cwd()})
    return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in caught.value.errors()]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_path_of_every_predicate_is_checked(name: str) -> None:
    keys = [key for key in PATH_KEYS if key in REGISTRY[name].spec.model_fields]
    assert keys or name in ("not",), f"{name} takes no field path"
    for key in keys:
        claim = {"id": "c", **REGISTRY[name].example, key: "output..text"}
        errors = _errors(claim)
        assert any("invalid field path 'output..text'" in e for e in errors), (key, errors)


def test_paths_inside_combinators_and_judge_and_compare_claims_are_checked() -> None:
    inner = {"rubric": "regex", "pattern": "x", "field": "a."}
    errors = _errors(
        {"id": "every", "rubric": "all", "of": [inner]},
        {"id": "judged", "judge": "j", "instruction": "ok", "field": "output.*."},
        {"id": "compared", "compare": "similarity", "outputs": ["a", "b..c"]},
        {"id": "compared2", "compare": "similarity", "field": ".x"},
    )
    for bad in ("'a.'", "'output.*.'", "'b..c'", "'.x'"):
        assert any(f"invalid field path {bad}" in e for e in errors), (bad, errors)


def test_check_locates_a_malformed_field_path_and_run_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "contract: x\nversion: 1\nclaims:\n"
        "  - id: a\n    rubric: regex\n    pattern: x\n    field: 'output.'\n"
    )
    (tmp_path / "cases.jsonl").write_text('{"id": "1", "output": "x"}\n')
    checked = verifier("check", "c.yaml", cwd=tmp_path)
    assert checked.returncode == 2
    assert "c.yaml:7:12: claim 'a': field: invalid field path 'output.'" in checked.stdout
    ran = verifier("run", "c.yaml", "--cases", "cases.jsonl", cwd=tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert "invalid field path 'output.'" in ran.stderr
    assert not (tmp_path / ".verifier" / "gaps.db").exists()  # no run began
