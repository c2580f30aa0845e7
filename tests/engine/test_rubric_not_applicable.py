"""A rubric check that finds nothing it applies to on a case (``citation`` with ``source:
llm`` on a case no LLM filled) is a ``skipped`` row left out of the case's score, through
``verifier run`` and the stored rows; a case it could not check stays an error."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import run_written
from verifier.gaps.store import open_store

CONTRACT = """\
contract: spans-by-source
version: 1
llm_fields: [fields.name]
claims:
  - id: spans_grounded
    rubric: citation
    spans: field_meta.*.source_span
    within: input
    source: llm
    values: fields.*
  - id: has_fields
    rubric: present
    field: fields
"""
INPUT = "Acme Logistics GmbH, headquartered in Hamburg."
CASES = [
    {  # the LLM's span is grounded; the human's is not checked
        "id": "mixed",
        "input": INPUT,
        "fields": {"name": "Acme Logistics GmbH", "website": "https://acme.example"},
        "field_meta": {
            "name": {"source": "llm", "source_span": "Acme Logistics GmbH"},
            "website": {"source": "human", "source_span": "from the CRM"},
        },
    },
    {  # nothing an LLM filled: the span rule does not apply
        "id": "human-only",
        "input": INPUT,
        "fields": {"website": "https://acme.example"},
        "field_meta": {"website": {"source": "human", "source_span": "from the CRM"}},
    },
    {  # no field metadata: who filled what is unknown
        "id": "no-meta",
        "input": INPUT,
        "fields": {"name": "Acme"},
    },
]


def test_a_case_no_llm_filled_is_skipped_and_one_without_metadata_is_an_error(
    tmp_path: Path,
) -> None:
    result, report = run_written(tmp_path, CONTRACT, CASES)
    assert result.returncode == 1, result.stderr  # the error case does not pass
    cases = {case["id"]: case for case in report["cases"]}
    spans = {case_id: case["results"][0] for case_id, case in cases.items()}
    assert spans["mixed"]["status"] == "pass"
    assert spans["human-only"]["status"] == "skipped"
    assert spans["human-only"]["reasoning"].startswith("not applicable: no field an LLM filled")
    assert spans["no-meta"]["status"] == "error"
    # The skipped claim weighs nothing: the human-only case passes on its other claim.
    assert (cases["human-only"]["score"], cases["human-only"]["pass"]) == (1.0, True)
    with open_store(str(tmp_path / "gaps.db")) as store:
        bodies = [json.loads(row.body) for row in store.iter_rows(report["run_id"])]
    stored = {b["case_id"]: b["status"] for b in bodies if b["claim_id"] == "spans_grounded"}
    assert stored == {"mixed": "pass", "human-only": "skipped", "no-meta": "error"}
