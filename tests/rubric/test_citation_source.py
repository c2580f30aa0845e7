"""``citation`` with ``source: llm``: the span rule holds for the fields an LLM filled and
leaves the others alone; a field without a value is not checked; a case with nothing an
LLM filled is not applicable (skipped), one with no field metadata an error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from verifier.results import NOT_APPLICABLE

Make = Callable[..., Any]
SPEC = {
    "rubric": "citation",
    "spans": "field_meta.*.source_span",
    "within": "input",
    "source": "llm",
}
INPUT = "Acme Logistics GmbH, headquartered in Hamburg. Team of 40."


def _case(meta: dict[str, Any], fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"input": INPUT, "field_meta": meta, "fields": fields or {}}


def test_only_llm_filled_fields_are_checked(make_check: Make) -> None:
    case = _case(
        {
            "name": {"source": "llm", "source_span": "Acme Logistics GmbH"},
            "website": {"source": "human", "source_span": "typed in by the sales team"},
            "crawl_id": {"source": "system", "source_span": ""},
        }
    )
    outcome = make_check(SPEC)(case)
    assert outcome.status == "pass", outcome.reason
    assert (outcome.evidence["grounded"], outcome.evidence["total"]) == (1, 1)
    assert outcome.evidence["not_llm_filled"] == 2
    # Without source the same case fails on the human's span: what the key is for.
    assert make_check({k: v for k, v in SPEC.items() if k != "source"})(case).status == "fail"


def test_an_invented_llm_span_still_fails(make_check: Make) -> None:
    case = _case(
        {
            "name": {"source": "llm", "source_span": "Acme Logistics GmbH"},
            "headquarters": {"source": "llm", "source_span": "based in Berlin"},
        }
    )
    outcome = make_check(SPEC)(case)
    assert outcome.status == "fail"
    assert "field_meta.headquarters.source_span" in outcome.reason
    assert "not found in input" in outcome.reason


def test_an_llm_filled_field_without_a_span_fails(make_check: Make) -> None:
    outcome = make_check(SPEC)(_case({"name": {"source": "llm"}}, {"name": "Acme"}))
    assert outcome.status == "fail"
    assert "an LLM filled the field but cited no span" in outcome.reason


def test_a_field_without_a_value_is_not_checked(make_check: Make) -> None:
    spec = {**SPEC, "values": "fields.*"}
    meta = {
        "name": {"source": "llm", "source_span": "Acme Logistics GmbH"},
        "tagline": {"source": "llm", "source_span": None},
        "industry": {"source": "llm"},
    }
    outcome = make_check(spec)(_case(meta, {"name": "Acme", "tagline": " ", "industry": None}))
    assert outcome.status == "pass", outcome.reason
    assert outcome.evidence["no_value"] == 2 and outcome.evidence["total"] == 1
    # The same fields with values must cite: the empty span is a fail.
    filled = {"name": "Acme", "tagline": "Freight", "industry": "logistics"}
    assert make_check(spec)(_case(meta, filled)).status == "fail"


def test_an_entry_without_a_source_follows_llm_fields(make_check: Make) -> None:
    case = _case(
        {
            "name": {"source_span": "Acme Logistics GmbH"},
            "notes": {"source_span": "not in the page"},
        }
    )
    outcome = make_check(SPEC, llm_fields=["fields.name"])(case)
    assert outcome.status == "pass", outcome.reason
    assert outcome.evidence["not_llm_filled"] == 1
    assert make_check(SPEC, llm_fields=["fields.name", "fields.notes"])(case).status == "fail"


def test_nothing_an_llm_filled_is_not_applicable_and_no_metadata_is_an_error(
    make_check: Make,
) -> None:
    human = make_check(SPEC)(_case({"website": {"source": "human", "source_span": "x"}}))
    assert human.status == "error" and NOT_APPLICABLE in human.evidence
    assert human.reason.startswith("not applicable: no field an LLM filled has a value")
    bare = make_check(SPEC)({"input": INPUT})
    assert bare.status == "error" and NOT_APPLICABLE not in bare.evidence
    assert bare.reason.startswith("not checked: no field metadata at field_meta.*")


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({**SPEC, "spans": "source_spans.*"}, "with source, spans is ENTRIES.*.SPAN_KEY"),
        ({**SPEC, "spans": "field_meta.name.source_span"}, "with source, spans is"),
        ({**SPEC, "values": "fields.name"}, "values needs exactly one *"),
        ({**SPEC, "source": "human"}, "source"),
        ({k: v for k, v in {**SPEC, "values": "fields.*"}.items() if k != "source"}, "values"),
    ],
)
def test_bad_source_specs_are_refused(make_claim: Make, spec: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem.replace("*", r"\*")):
        make_claim(spec)
