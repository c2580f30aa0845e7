"""``when:``: claims, and a system under test, that apply only to some cases.

One run over cases of different kinds, as the prompt evaluator makes them: positive
examples (``expected_output``), negative ones (``bad_output``) and the prompt itself
(``prompt``, no input). Judges and the prompt system answer through the real anthropic
SDK against the local Messages API stand-in.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.judge.messages_server import MessagesServer
from tests.sut._support import KEY, MODEL, model
from verifier.analyses.audit import audit_store
from verifier.analyses.trends import PassRateObserver
from verifier.cases import CaseLine
from verifier.compare.gate import decide_run
from verifier.compare.gate_file import Gate
from verifier.compare.runs import pair_runs
from verifier.compare.stats import PairedTable
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.stored_cases import stored_cases
from verifier.gaps.sqlite.store import SqliteStore
from verifier.pytest_plugin.messages import failure_message
from verifier.run.api import run_contract

CONTRACT = f"""\
contract: mixed-cases
version: 1
llm_fields: [output]
judges:
  strict:
    provider: anthropic
    model: {MODEL}
    sampling: {{max_tokens: 256}}
sut:
  prompt:
    provider: anthropic
    model: {MODEL}
    template: "Answer: {{{{input}}}}"
    sampling: {{max_tokens: 64}}
  when: input
claims:
  - id: standard
    rubric: regex
    field: output
    pattern: '^ANSWER: '
    when: expected_output
  - id: standard_judged
    judge: strict
    instruction: The output answers the question
    when: expected_output
  - id: reverse_note
    rubric: length
    field: reason_why_bad
    min_chars: 5
    when: bad_output
  - id: reverse
    judge: strict
    field: bad_output
    instruction: The bad output is recognisably bad
    when: bad_output
    after: [reverse_note]
    weight: 3
  - id: echo
    rubric: regex
    field: output
    pattern: 'ANSWER'
    when: input
    after: [standard]
  - id: structure
    rubric: regex
    field: prompt
    pattern: '\\{{\\{{input\\}}\\}}'
    when: prompt
"""

CASES = [
    {"id": "example-1", "input": "Where is my parcel?", "expected_output": "In transit."},
    {
        "id": "negative-2",
        "input": "Refund?",
        "bad_output": "I guess you get nothing.",
        "reason_why_bad": "it guesses",
    },
    {"id": "prompt", "prompt": "Answer: {{input}}"},
    {"id": "nothing"},
]


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=model) as running:
        yield running


def write(tmp_path: Path, contract: str = CONTRACT, cases: list[dict[str, Any]] = CASES) -> Path:
    (tmp_path / "mixed.yaml").write_text(contract, encoding="utf-8")
    (tmp_path / "mixed.cases.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8"
    )
    return tmp_path / "mixed.yaml"


def run_text(tmp_path: Path, server: MessagesServer, *extra: str, form: str = "json") -> str:
    """``verifier run`` of the mixed contract; returns its report in ``form``."""
    contract = write(tmp_path)
    out = tmp_path / f"report.{form}"
    result = verifier(
        "run",
        str(contract),
        "--cases",
        str(tmp_path / "mixed.cases.jsonl"),
        "--store",
        str(tmp_path / "gaps.db"),
        "--format",
        form,
        "--out",
        str(out),
        *extra,
        cwd=tmp_path,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        clear_prefixes=("ANTHROPIC_", "CI"),
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return out.read_text(encoding="utf-8")


def run(tmp_path: Path, server: MessagesServer, *extra: str) -> dict[str, Any]:
    return dict(json.loads(run_text(tmp_path, server, *extra)))


def by_case(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["cases"]}


def statuses(case: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in case["results"]}


def stored(tmp_path: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(tmp_path / "gaps.db") as db:
        return [json.loads(r[0]) for r in db.execute("SELECT body FROM rows ORDER BY seq")]


def test_each_claim_is_checked_only_on_the_cases_that_have_its_path(
    tmp_path: Path, server: MessagesServer
) -> None:
    cases = by_case(run(tmp_path, server))
    assert statuses(cases["example-1"]) == {
        "standard": "pass",
        "standard_judged": "pass",
        "reverse_note": "skipped",
        "reverse": "skipped",
        "echo": "pass",
        "structure": "skipped",
    }
    assert statuses(cases["negative-2"]) == {
        "standard": "skipped",
        "standard_judged": "skipped",
        "reverse_note": "pass",
        "reverse": "fail",  # the judge stand-in fails any text with "guess"
        "echo": "skipped",  # after a claim that did not apply: today's gate rule
        "structure": "skipped",
    }
    assert statuses(cases["prompt"])["structure"] == "pass"
    example = {r["id"]: r for r in cases["example-1"]["results"]}
    assert example["reverse"]["reasoning"] == "not applicable: the case has no bad_output"
    assert example["reverse"]["evidence"]["not_applicable"] == "bad_output"
    negative = {r["id"]: r for r in cases["negative-2"]["results"]}
    assert negative["echo"]["reasoning"] == "skipped: waits for standard (skipped) to pass"
    assert "not_applicable" not in negative["echo"]["evidence"]


def test_a_claim_that_does_not_apply_makes_no_judge_call(
    tmp_path: Path, server: MessagesServer
) -> None:
    report = run(tmp_path, server)
    judged = [c.body for c in server.model_calls() if "tool_choice" in c.body]
    # standard_judged on example-1, reverse on negative-2: nothing for the other cases.
    assert len(judged) == 2
    assert report["usage"]["calls"] == 2
    assert not any("Answer: {{input}}" in json.dumps(body) for body in judged)


def test_the_system_runs_only_on_cases_with_its_when_path(
    tmp_path: Path, server: MessagesServer
) -> None:
    run(tmp_path, server)
    asked = [c.body for c in server.model_calls() if "tool_choice" not in c.body]
    assert sorted(b["messages"][0]["content"] for b in asked) == [
        "Answer: Refund?",
        "Answer: Where is my parcel?",
    ]
    rows = {(r["case_id"], r["claim_id"]): r for r in stored(tmp_path)}
    prompt_sut = rows[("prompt", "structure")]["evidence"]["sut"]
    assert prompt_sut["ran"] is False and prompt_sut["when"] == "input"
    assert prompt_sut["system"] == f"prompt:anthropic:{MODEL}"
    assert "kind" not in prompt_sut  # no row claims an output the system produced
    assert rows[("example-1", "standard")]["evidence"]["sut"]["kind"] == "prompt"
    # Not an error row: the prompt case reached its claims as it was.
    assert rows[("prompt", "structure")]["status"] == "pass"


def test_a_case_is_scored_on_the_claims_that_apply_to_it(
    tmp_path: Path, server: MessagesServer
) -> None:
    cases = by_case(run(tmp_path, server))
    assert cases["example-1"]["score"] == 1.0 and cases["example-1"]["pass"] is True
    assert cases["prompt"]["score"] == 1.0 and cases["prompt"]["pass"] is True
    assert cases["example-1"]["not_applicable"] == 3
    # reverse_note passed (weight 1), reverse failed (weight 3), echo is skipped after a
    # claim that did not apply (weight 1), which counts as not passed, as any gated
    # skip does; the three claims that did not apply weigh nothing.
    assert cases["negative-2"]["score"] == 0.2 and cases["negative-2"]["pass"] is False
    assert cases["negative-2"]["not_applicable"] == 3
    # No claim applied: scored 0 like a case whose claims were all skipped.
    nothing = cases["nothing"]
    assert nothing["score"] == 0.0 and nothing["pass"] is False
    assert nothing["not_applicable"] == 6


def test_pass_rates_count_a_not_applicable_row_as_not_checked(
    tmp_path: Path, server: MessagesServer
) -> None:
    report = run(tmp_path, server)
    structure = report["assertion_breakdown"]["structure"]
    assert structure == {
        "pass_rate": 1.0,
        "passed": 1,
        "failed": 0,
        "errors": 0,
        "skipped": 3,
        "not_applicable": 3,
    }
    standard = report["assertion_breakdown"]["standard"]
    assert standard["pass_rate"] == 1.0 and standard["not_applicable"] == 3
    noise = report["judge_noise"]["standard_judged"]
    assert noise["verdicts"] == 1 and noise["pass_rate"] == 1.0


def test_reports_and_the_audit_read_a_mixed_run_cleanly(
    tmp_path: Path, server: MessagesServer
) -> None:
    markdown = run_text(tmp_path, server, form="markdown")
    assert "| structure | 100.0% | 1 | 0 | 0 | 3 (3 n/a) |" in markdown
    store = str(tmp_path / "gaps.db")
    audit = verifier("audit", "--store", store, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    html = tmp_path / "run.html"
    page = verifier("report", "--store", store, "--html", str(html), cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    text = html.read_text(encoding="utf-8")
    assert "3 (3 n/a)" in text
    assert "not applicable: the case has no" not in text  # not listed as results to read
    trend = verifier("report", "--store", store, "--trend", "--html", str(html), cwd=tmp_path)
    assert trend.returncode == 0, trend.stderr


def test_trends_leave_out_the_cases_a_claim_did_not_apply_to(
    tmp_path: Path, server: MessagesServer
) -> None:
    run(tmp_path, server)
    with SqliteStore(tmp_path / "gaps.db") as store:
        observer = PassRateObserver()
        audit_store(store, observers=[observer])
        trends = observer.trends(store.runs())
    rates = {c.claim_id: c.runs[0].tally.pass_rate for c in trends.claims}
    assert rates["structure"] == 1.0 and rates["standard"] == 1.0


def test_console_report_shows_not_applicable_apart(tmp_path: Path, server: MessagesServer) -> None:
    assert "3 (3 n/a)" in run_text(tmp_path, server, form="console")


def test_compare_pairs_only_the_cases_a_claim_applied_to(
    tmp_path: Path, server: MessagesServer
) -> None:
    first = run(tmp_path, server)["run_id"]
    second = run(tmp_path, server)["run_id"]
    with SqliteStore(tmp_path / "gaps.db") as store:
        paired = pair_runs(store, first, second)
    structure = next(c for c in paired.claims if c.name == "structure")
    assert structure.table == PairedTable(both_pass=1) and structure.skipped == 3
    # Whole cases: example-1 and prompt pass on what applied to them, negative-2
    # fails, and "nothing" (no claim applied) is not paired at all.
    assert paired.overall.table == PairedTable(both_pass=2, both_fail=1)
    result = verifier("compare", first, second, "--store", str(tmp_path / "gaps.db"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_judges_off_keeps_a_not_applicable_row_as_it_is(
    tmp_path: Path, server: MessagesServer
) -> None:
    cases = by_case(run(tmp_path, server, "--judges", "off"))
    reverse = {r["id"]: r for r in cases["example-1"]["results"]}["reverse"]
    assert reverse["reasoning"] == "not applicable: the case has no bad_output"
    negative = {r["id"]: r for r in cases["negative-2"]["results"]}["reverse"]
    assert negative["status"] == "skipped" and "not_applicable" not in negative["evidence"]
    assert not [c for c in server.model_calls() if "tool_choice" in c.body]


def test_check_locates_a_when_that_is_not_a_field_path(tmp_path: Path) -> None:
    bad = CONTRACT.replace("    when: prompt\n", "    when: 'prompt..text'\n")
    contract = write(tmp_path, bad)
    result = verifier("check", str(contract), cwd=tmp_path)
    assert result.returncode != 0
    line = CONTRACT.splitlines().index("    when: prompt") + 1
    (message,) = [m for m in result.stdout.splitlines() if "prompt..text" in m]
    assert f"mixed.yaml:{line}" in message and "invalid field path" in message
    assert "Traceback" not in result.stderr


def test_check_locates_a_bad_when_of_the_system(tmp_path: Path) -> None:
    lines = CONTRACT.splitlines()
    line = lines.index("  when: input") + 1
    lines[line - 1] = "  when: ''"
    contract = write(tmp_path, "\n".join(lines) + "\n")
    result = verifier("check", str(contract), cwd=tmp_path)
    assert result.returncode != 0
    (message,) = [m for m in result.stdout.splitlines() if "field path" in m]
    assert f"mixed.yaml:{line}" in message and "sut" in message


RUBRIC_ONLY = """\
contract: totals
version: 1
parse_json: [output]
record:
  redact: [output]
claims:
  - id: total_positive
    rubric: range
    field: output.total
    min: 1
    when: output.total
    weight: 5
  - id: has_output
    rubric: present
    field: output
"""


def rubric_run(tmp_path: Path) -> tuple[Any, Any]:
    (tmp_path / "totals.yaml").write_text(RUBRIC_ONLY, encoding="utf-8")
    loaded = load_contract(tmp_path / "totals.yaml")
    cases = [
        {"id": "with-total", "output": json.dumps({"total": 3})},
        {"id": "without", "output": json.dumps({"note": "no total here"})},
    ]
    return loaded, run_contract(loaded, cases, store=tmp_path / "gaps.db")


def test_when_is_looked_up_after_parse_json_in_a_rubric_only_run(tmp_path: Path) -> None:
    _, result = rubric_run(tmp_path)
    with_total, without = result.cases
    assert with_total.claim("total_positive").status == "pass"
    absent = without.claim("total_positive")
    assert absent.status == "skipped" and absent.reason == (
        "not applicable: the case has no output.total"
    )
    # The heavy claim weighs nothing where it does not apply.
    assert without.score == 1.0 and without.passed
    assert result.summary.breakdown["total_positive"].pass_rate == 1.0


def test_redaction_keeps_the_mark_of_a_claim_that_did_not_apply(tmp_path: Path) -> None:
    loaded, result = rubric_run(tmp_path)
    rows = {(r["case_id"], r["claim_id"]): r for r in stored(tmp_path)}
    row = rows[("without", "total_positive")]
    assert row["evidence"]["not_applicable"] == "output.total"
    # A resumed run rebuilds the case from its rows and scores it the same way.
    with SqliteStore(tmp_path / "gaps.db") as store:
        rebuilt = {
            c.case_id: c
            for c in stored_cases(
                store, result.run_id, build_plan(loaded), loaded.contract.threshold
            )
        }
    assert rebuilt["without"].score == 1.0 and rebuilt["without"].passed


def test_a_system_with_when_gives_the_other_cases_to_the_claims_as_they_are(
    tmp_path: Path,
) -> None:
    contract = tmp_path / "echo.yaml"
    contract.write_text(
        """\
contract: echo
version: 1
sut:
  python: tests.sut.sut_functions:answer
  when: input
claims:
  - id: has_output
    rubric: present
    field: output
""",
        encoding="utf-8",
    )
    cases = [{"id": "asked", "input": "hi"}, {"id": "given", "output": "already here"}]
    result = run_contract(contract, cases, store=tmp_path / "gaps.db")
    asked, given = result.cases
    assert asked.claim("has_output").status == "pass"
    assert asked.claim("has_output").evidence["sut"]["kind"] == "python"
    # Without `when` this case would be an error row: no input to give the system.
    assert given.claim("has_output").status == "pass"
    assert given.claim("has_output").evidence["sut"]["ran"] is False


def test_a_gate_holds_the_pass_rate_of_the_cases_its_claim_applied_to(tmp_path: Path) -> None:
    _, result = rubric_run(tmp_path)
    gate = Gate(
        contract_id="totals",
        contract_sha256="",
        cases_sha256="",
        primary_claim="total_positive",
        metric="pass_rate",
        direction="not-worse",
        threshold=1.0,
        alpha=0.05,
        verifier_version="test",
        created_at="2026-11-26T00:00:00Z",
    )
    with SqliteStore(tmp_path / "gaps.db") as store:
        decision = decide_run(gate, store, result.run_id)
    assert decision.passed, decision.line()


def test_pytest_message_of_a_case_no_claim_applied_to(tmp_path: Path) -> None:
    loaded, _ = rubric_run(tmp_path)
    only = dataclasses.replace(
        loaded,
        contract=loaded.contract.model_copy(
            update={"claims": (loaded.contract.claim("total_positive"),)}
        ),
    )
    line = CaseLine(4, "bare", {"id": "bare", "output": {}})
    result = run_contract(only, [line], store=tmp_path / "bare.db")
    (case,) = result.cases
    message = failure_message(
        loaded=only,
        contract_shown="totals.yaml",
        cases_shown="cases.jsonl",
        line=line,
        result=case,
        threshold=1.0,
        stored=None,
    )
    assert message.splitlines()[0] == (
        "case bare (cases.jsonl:4) failed: no claim applies to it (every claim's `when` "
        "path is missing) (0 of 0 claims passed)"
    )
