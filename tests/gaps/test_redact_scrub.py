"""What the scrub of a redacting contract leaves of a result: whole values and quotes
of 12 characters or more become [redacted], evidence of a claim reading a redacted
field names only the field, and triples stay whole."""

from __future__ import annotations

from pathlib import Path

from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.gaps.content import RecordPolicy
from verifier.gaps.redact import QUOTE_CHARS, Redactor, claim_paths
from verifier.results import ClaimResult

CASE = {
    "id": "c1",
    "input": {"email": "ann.smith@example.com", "pin": 4821, "note": "   "},
    "output": "Dear Ann, your parcel left Leeds on Monday.",
}
POLICY = RecordPolicy(redact=("input.*", "output"))


def scrub(result: ClaimResult, reads: dict[str, list[str]] | None = None) -> ClaimResult:
    found = Redactor(POLICY, reads or {}).for_case(CASE)
    assert found is not None
    return found.result(result)


def test_whole_values_and_long_quotes_become_redacted_and_short_fragments_stay() -> None:
    quote = CASE["output"][5 : 5 + QUOTE_CHARS]  # "Ann, your pa"
    short = CASE["output"][5 : 5 + QUOTE_CHARS - 1]
    result = ClaimResult(
        "tone", "judge", "pass", 1.0,
        f"mail to ann.smith@example.com; it says '{quote}' and '{short}'",
        {"verdict": {"reasoning": f"quotes {CASE['output']}"}, "pin": 4821, "note": "   "},
    )  # fmt: skip
    scrubbed = scrub(result)
    assert scrubbed.reason == f"mail to [redacted]; it says '[redacted]' and '{short}'"
    assert scrubbed.evidence == {
        "verdict": {"reasoning": "quotes [redacted]"},
        "pin": "[redacted]",  # a number a redacted field holds
        "note": "   ",  # a blank value is not scrubbed from every space
    }
    assert (scrubbed.status, scrubbed.score) == ("pass", 1.0)


def test_triples_stay_whole_and_provenance_stays_where_evidence_is_withheld() -> None:
    triple = {"model_id": "m", "prompt_sha": "a" * 64, "sampling_sha": "b" * 64}
    judged = ClaimResult(
        "tone", "judge", "pass", 1.0, "ok", {"judge": dict(triple), "text": CASE["output"]}
    )
    assert scrub(judged).evidence == {"judge": triple, "text": "[redacted]"}
    sut = {"kind": "prompt", "triple": dict(triple), "stderr": "sent ann.smith@example.com"}
    matched = ClaimResult(
        "cites", "rubric", "fail", 0.0, "no match", {"match": "Leeds", "sut": sut}
    )
    assert scrub(matched, {"cites": ["output"]}).evidence == {
        "redacted": ["output"],
        "sut": {"kind": "prompt", "triple": triple, "stderr": "sent [redacted]"},
    }


def test_a_case_without_redacted_values_is_left_alone() -> None:
    assert Redactor(RecordPolicy(redact=("secret",)), {}).for_case(CASE) is None


def test_claim_paths_follow_combinators_and_every_path_key(tmp_path: Path) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "contract: demo\nversion: 1\nclaims:\n"
        "  - id: either\n    rubric: any\n    field: output\n    of:\n"
        "      - rubric: regex\n        pattern: x\n"
        "      - rubric: present\n        field: fields.name\n"
        "  - id: grounded\n    rubric: citation\n    spans: spans.*\n    within: input\n",
        encoding="utf-8",
    )
    plan = build_plan(load_contract(contract))
    paths = {p.id: sorted(set(claim_paths(p.claim.model_dump()))) for p in plan.rubric}
    assert paths == {"either": ["fields.name", "output"], "grounded": ["input", "spans.*"]}
    reads = Redactor(RecordPolicy(redact=("input.email",)), paths)
    found = reads.for_case({"id": "x", "input": {"email": "e@x.org"}})
    assert found is not None
    result = ClaimResult("grounded", "rubric", "pass", 1.0, "ok", {"spans": ["e@x.org"]})
    assert found.result(result).evidence == {"redacted": ["input.email"]}
    other = ClaimResult("either", "rubric", "pass", 1.0, "ok", {"value": "e@x.org"})
    assert found.result(other).evidence == {"value": "[redacted]"}
