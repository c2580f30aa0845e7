"""The findings claim in a contract: its shape, its checks, and the phase it runs in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifier.contract.findings import FindingsClaim
from verifier.contract.load import check_contract, load_contract
from verifier.contract.models import claim_kind
from verifier.contract.schema import contract_json_schema
from verifier.engine.plan import build_plan

HEADER = "contract: demo\nversion: 1\n"
JUDGES = "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
FINDINGS = (
    "  - id: found\n    compare: findings\n    expected: expected_findings\n    min_recall: 0.5\n"
)


def _errors(path: Path) -> list[str]:
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    return [str(d) for d in diagnostics if d.severity == "error"]


def test_a_findings_claim_loads_with_its_defaults_and_runs_with_the_rubric_claims(
    write_contract: Any,
) -> None:
    path = write_contract(
        HEADER + "claims:\n" + FINDINGS + "  - id: short\n    rubric: length\n"
        "    field: output\n    max_chars: 10\n"
    )
    loaded = load_contract(path)
    claim = loaded.contract.claim("found")
    assert isinstance(claim, FindingsClaim)
    assert (claim.field, claim.parse, claim.match_on) == (
        "output",
        "json",
        ("dimension", "severity"),
    )
    assert claim_kind(claim) == "rubric"
    plan = build_plan(loaded)
    assert [p.id for p in plan.rubric] == ["found", "short"]
    assert plan.model == ()


def test_an_unknown_comparison_names_the_known_ones(write_contract: Any) -> None:
    path = write_contract(HEADER + "claims:\n  - id: x\n    compare: findigns\n    expected: e\n")
    assert _errors(path) == [
        f"{path}:5:14: claim 'x': unknown comparison 'findigns' (did you mean 'findings'?); "
        "known comparisons: pairwise, similarity, consistency, findings"
    ]


def test_a_findings_claim_cannot_wait_for_a_judge_claim(write_contract: Any) -> None:
    path = write_contract(
        HEADER
        + JUDGES
        + "claims:\n  - id: tone\n    judge: j\n    instruction: Be kind.\n"
        + FINDINGS
        + "    after: tone\n"
    )
    assert _errors(path) == [
        f"{path}:15:12: claim 'found': a rubric claim cannot wait for judge claim 'tone' "
        "(rubric claims are checked first; gate the judge claim instead)"
    ]


def test_a_judge_claim_may_wait_for_a_findings_claim(write_contract: Any) -> None:
    path = write_contract(
        HEADER
        + JUDGES
        + "claims:\n"
        + FINDINGS
        + "  - id: tone\n    judge: j\n    instruction: Be kind.\n    after: found\n"
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, diagnostics


def test_a_wildcard_path_is_refused(write_contract: Any) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    compare: findings\n    field: out.*\n"
        "    expected: e\n    min_recall: 1\n"
    )
    assert _errors(path) == [
        f"{path}:6:12: claim 'x': field: a findings claim reads one list; 'out.*' has a `*`"
    ]


def test_the_json_schema_offers_the_findings_claim() -> None:
    definitions = contract_json_schema()["$defs"]
    findings = definitions["FindingsClaim"]
    assert findings["required"] == ["id", "compare", "expected"]
    assert set(findings["properties"]) >= {
        "field", "parse", "expected", "match_on", "min_recall", "min_precision",
    }  # fmt: skip
