"""The ``cases:`` section: a log mapping checked by ``verifier check``, at its line."""

from __future__ import annotations

import pytest

from verifier.contract.load import check_contract

HEAD = "contract: demo\nversion: 1\ncases:\n"
CLAIMS = "claims:\n  - id: x\n    rubric: present\n    field: output\n"


@pytest.mark.parametrize(
    ("section", "position", "fragment"),
    [
        ("  map: {}\n", "4:8", "map needs at least one field"),
        ("  map: {id: trace_id, 'in put': request.text}\n", "4:8", "'in put' is not a case field"),
        ("  map: {id: trace_id, output: response..text}\n", "4:8", "map.output: 'response..text'"),
        ("  map: {id: trace_id}\n  since: 7d\n", "4:3", "since needs `time`"),
        (
            "  map: {id: trace_id}\n  time: ts\n  since: last week\n",
            "4:3",
            "'last week' is neither",
        ),
        ("  map: {id: trace_id}\n  window: 7d\n", "5:3", "window"),
    ],
)
def test_a_mapping_that_cannot_be_used_is_refused_at_its_line(
    write_contract, section: str, position: str, fragment: str
) -> None:
    path = write_contract(HEAD + section + CLAIMS)
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    [problem] = [str(d) for d in diagnostics if d.severity == "error"]
    assert problem.startswith(f"{path}:{position}: ") and fragment in problem, problem


def test_a_usable_mapping_loads(write_contract) -> None:
    path = write_contract(
        HEAD + "  map: {id: trace_id, output: response.messages.-1.text}\n"
        "  time: ts\n  since: 2026-11-01\n" + CLAIMS
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, [str(d) for d in diagnostics]
    spec = loaded.contract.cases
    assert spec is not None and spec.map == {
        "id": "trace_id",
        "output": "response.messages.-1.text",
    }


def test_a_mapping_without_id_loads_and_derives_ids(write_contract) -> None:
    path = write_contract(HEAD + "  map: {input: request.text, output: response.text}\n" + CLAIMS)
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, [str(d) for d in diagnostics]
    spec = loaded.contract.cases
    assert spec is not None and "id" not in spec.map
