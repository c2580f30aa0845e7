"""A jaccard comparison on finding types in a contract: `parse` and `match_on` on a
similarity or consistency claim, and the one-line errors for what they cannot mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifier.contract.load import check_contract, load_contract
from verifier.contract.models import CompareClaim
from verifier.contract.schema import contract_json_schema

HEADER = "contract: demo\nversion: 1\nclaims:\n  - id: same\n    compare: consistency\n"


def _errors(path: Path) -> list[str]:
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    return [str(d) for d in diagnostics if d.severity == "error"]


def test_parse_alone_reads_dimension_and_severity(write_contract: Any) -> None:
    path = write_contract(HEADER + "    method: jaccard\n    parse: numbered\n")
    claim = load_contract(path).contract.claim("same")
    assert isinstance(claim, CompareClaim)
    assert (claim.parse, claim.match_on, claim.finding_keys) == (
        "numbered",
        None,
        ("dimension", "severity"),
    )


def test_a_claim_without_parse_is_unchanged(write_contract: Any) -> None:
    path = write_contract(HEADER + "    method: jaccard\n")
    claim = load_contract(path).contract.claim("same")
    assert isinstance(claim, CompareClaim)
    assert (claim.parse, claim.match_on) == (None, None)
    assert "parse" not in claim.model_dump(exclude_defaults=True)


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (
            "    method: ratio\n    parse: json\n",
            "parse reads findings for a jaccard similarity or consistency claim "
            "(`method: jaccard`)",
        ),
        (
            "    method: jaccard\n    match_on: [dimension]\n",
            "match_on reads findings: add `parse: json` or `parse: numbered`",
        ),
        (
            "    method: jaccard\n    parse: numbered\n    match_on: [specific]\n",
            "numbered lines give only dimension and severity; match_on names 'specific'",
        ),
    ],
)
def test_what_parse_and_match_on_cannot_mean_is_one_line(
    write_contract: Any, keys: str, message: str
) -> None:
    path = write_contract(HEADER + keys)
    (error,) = _errors(path)
    assert error.startswith(f"{path}:4:") and error.endswith(f"claim 'same': {message}"), error


def test_match_on_naming_a_key_twice_is_refused(write_contract: Any) -> None:
    path = write_contract(HEADER + "    method: jaccard\n    parse: json\n    match_on: [a, a]\n")
    (error,) = _errors(path)
    assert error == f"{path}:8:15: claim 'same': match_on: match_on names 'a' twice"


def test_a_pairwise_claim_cannot_parse_findings() -> None:
    with pytest.raises(ValueError, match="method: jaccard"):
        CompareClaim.model_validate(
            {"id": "x", "compare": "pairwise", "judge": "j", "instruction": "Which?",
             "method": "jaccard", "parse": "json"}
        )  # fmt: skip


def test_the_json_schema_offers_parse_and_match_on() -> None:
    compare = contract_json_schema()["$defs"]["CompareClaim"]["properties"]
    assert {"parse", "match_on"} <= set(compare)
