"""A judge claim's paths (its ``field``, its reference's, its template's
``{{case.PATH}}``) that find nothing in any case are named after the run with the
closest path that exists: end to end against the Messages API stand-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_case_fields import CASES, CONTRACT, TEMPLATE
from tests.judge.test_judge_run import verifier


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running:
        yield running


def warnings(
    tmp_path: Path, server: MessagesServer, *, template: str = TEMPLATE, claim: str = ""
) -> list[str]:
    (tmp_path / "judge.md").write_text(template, encoding="utf-8")
    contract = tmp_path / "rag.yaml"
    contract.write_text(CONTRACT + claim, encoding="utf-8")
    cases = tmp_path / "rag.cases.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    result = verifier(
        tmp_path, "run", str(contract), "--cases", str(cases), "--format", "json",
        "--store", str(tmp_path / "gaps.db"), base_url=server.base_url,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    found: list[str] = json.loads(result.stdout).get("warnings", [])
    return found


def test_a_template_placeholder_no_case_has_is_named(
    tmp_path: Path, server: MessagesServer
) -> None:
    template = TEMPLATE.replace("{{case.retrieved}}", "{{case.retreived}}")
    assert warnings(tmp_path, server, template=template) == [
        "judge grounded: its template's {{case.retreived}} matched nothing in all 3 cases "
        "(closest: {{case.retrieved}})"
    ]


def test_a_placeholder_some_cases_have_is_no_warning(
    tmp_path: Path, server: MessagesServer
) -> None:
    # c3 has no reference: an error for that case, and no warning for the run.
    assert warnings(tmp_path, server) == []


def test_a_judged_field_no_case_has_is_named(tmp_path: Path, server: MessagesServer) -> None:
    claim = "    field: outptu\n"
    assert warnings(tmp_path, server, claim=claim) == [
        "claim supported: its field: path outptu matched nothing in all 3 cases (closest: output)"
    ]


def test_a_reference_path_no_case_has_is_named(tmp_path: Path, server: MessagesServer) -> None:
    claim = "    reference: {expected: referense}\n"
    template = TEMPLATE.replace("{{assertions}}", "{{reference}}\n\n{{assertions}}")
    assert warnings(tmp_path, server, template=template, claim=claim) == [
        "claim supported: its reference.expected: path referense matched nothing in all "
        "3 cases (closest: reference)"
    ]
