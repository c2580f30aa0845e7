"""``--repeat`` for consistency claims, ``--variant`` for pairwise claims and
``verifier compare``: the system runs for real (Python functions, one CLI process)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.judge import behaviours as b
from tests.judge.messages_server import MessagesServer
from tests.sut._support import MODEL, results, run_report, stored_rows, verifier, write_cases
from verifier.contract.load import load_contract
from verifier.sut.variants import without_comparisons

CONSISTENT = """\
contract: repeat
version: 1
llm_fields: [output]
sut:
  python: sut_functions:{function}
claims:
  - id: stable
    compare: consistency
    min_ratio: 90
"""

VARIANTS = f"""\
contract: variants
version: 1
llm_fields: [output]
judges:
  pref:
    provider: anthropic
    model: {MODEL}
    sampling: {{max_tokens: 200}}
claims:
  - id: cites
    rubric: regex
    field: output
    pattern: 'source: Handbook'
  - id: no_worse
    compare: pairwise
    judge: pref
    instruction: Which answer cites its source?
  - id: close
    compare: similarity
    min_ratio: 60
"""


def _block(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}-([0-9a-f]+)>(.*?)</{tag}-\1>", text, re.S)
    return match.group(2) if match else ""


def prefers_cited(request: dict[str, Any]) -> b.Behaviour:
    """A pairwise judge that prefers the response citing its source (ties otherwise)."""
    content = request["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(x["text"] for x in content)
    first, second = (("source:" in _block(text, f"response-{n}")) for n in (1, 2))
    winner = "tie" if first == second else ("1" if first else "2")
    return b.tool_use({"winner": winner, "reasoning": "by rule"})


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=prefers_cited) as running:
        yield running


@pytest.mark.e2e
@pytest.mark.parametrize(("function", "status"), [("answer", "pass"), ("drifting", "fail")])
def test_repeat_feeds_every_run_to_a_consistency_claim(
    tmp_path: Path, function: str, status: str
) -> None:
    path = tmp_path / "repeat.yaml"
    path.write_text(CONSISTENT.format(function=function), encoding="utf-8")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "capital of France?"})
    _, report = run_report(tmp_path, path, cases, "--repeat", "3")
    stable = results(report)["a"]["stable"]
    assert stable["status"] == status
    assert stable["evidence"]["outputs"] == 3 and stable["evidence"]["paths"] == ["runs.*"]
    assert len(stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]["calls"]) == 3


@pytest.mark.e2e
def test_repeat_without_a_system_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text(
        "contract: plain\nversion: 1\nclaims:\n"
        "  - {id: x, rubric: regex, field: output, pattern: x}\n",
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "output": "x"})
    result = verifier(tmp_path, "run", str(path), "--cases", str(cases), "--repeat", "2")
    assert result.returncode == 2
    assert result.stderr.strip().endswith(
        "--repeat needs a system under test (`sut:` in the contract, or --sut)"
    )


@pytest.mark.e2e
def test_variants_are_stored_as_two_runs_compared_pairwise_and_by_verifier_compare(
    tmp_path: Path, server: MessagesServer
) -> None:
    path = tmp_path / "variants.yaml"
    path.write_text(VARIANTS, encoding="utf-8")
    cases = write_cases(
        tmp_path / "cases.jsonl", *({"id": f"q{i}", "input": f"question {i}"} for i in range(8))
    )
    result, report = run_report(
        tmp_path,
        path,
        cases,
        "--variant",
        "old=python:sut_functions:answer",
        "--variant",
        "new=python:sut_functions:drifting",
        base_url=server.base_url,
    )
    assert result.returncode == 1
    base_id, cand_id = re.search(
        r"compare them: verifier compare (\S+) (\S+)", result.stderr
    ).groups()  # type: ignore[union-attr]
    assert base_id.endswith("-old") and cand_id.endswith("-new") and report["run_id"] == cand_id
    by_case = results(report)
    # The candidate never cites; the judge prefers the baseline's cited answer.
    assert by_case["q0"]["cites"]["status"] == "fail"
    assert by_case["q0"]["no_worse"]["status"] == "fail"
    assert by_case["q0"]["no_worse"]["evidence"]["preferred"] == "b"
    assert by_case["q0"]["close"]["evidence"]["paths"] == ["output", "baseline.output"]
    baseline_rows = stored_rows(tmp_path / "gaps.db", base_id)
    assert {r["claim_id"] for r in baseline_rows} == {"cites"}
    assert all(r["status"] == "pass" for r in baseline_rows) and len(baseline_rows) == 8
    assert baseline_rows[0]["evidence"]["sut"]["variant"] == "old"
    candidate_row = stored_rows(tmp_path / "gaps.db", cand_id)[0]
    assert candidate_row["evidence"]["sut"]["function"] == "sut_functions:drifting"
    assert candidate_row["evidence"]["sut"]["baseline"] == {"variant": "old", "run_id": base_id}
    compared = verifier(
        tmp_path,
        "compare",
        base_id,
        cand_id,
        "--store",
        str(tmp_path / "gaps.db"),
        "--format",
        "json",
    )
    assert compared.returncode == 1, compared.stderr  # significantly worse on `cites`
    assert '"cites"' in compared.stdout and "worse" in compared.stdout


@pytest.mark.e2e
def test_both_variant_runs_keep_what_record_content_says(
    tmp_path: Path, server: MessagesServer
) -> None:
    path = tmp_path / "variants.yaml"
    path.write_text(VARIANTS, encoding="utf-8")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "q0", "input": "question 0"})
    result, _ = run_report(
        tmp_path, path, cases,
        "--variant", "old=python:sut_functions:answer",
        "--variant", "new=python:sut_functions:drifting",
        "--record-content", "none",
        base_url=server.base_url,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    from verifier.gaps.store import open_store

    with open_store(str(tmp_path / "gaps.db")) as store:
        runs = store.runs()
        assert [r.options["record"]["content"] for r in runs] == ["none", "none"]
        assert list(store.iter_contents()) == []
    assert all(r["content_sha256"] is None for r in stored_rows(tmp_path / "gaps.db"))


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--variant", "a=python:sut_functions:answer"), "--variant needs exactly two variants"),
        (
            ("--variant", "a=python:m:f", "--variant", "a=python:m:g"),
            "both variants are named 'a'",
        ),
        (("--variant", "=python:m:f", "--variant", "b=python:m:g"), "expected NAME=SPEC"),
        (
            ("--sut", '{python: "json:dumps", input: "a..b"}'),
            "--sut: input: invalid field path 'a..b'",
        ),
        (("--sut", "shell:ls"), "--sut: expected exec:COMMAND, python:MODULE:FUNCTION"),
        (
            ("--sut", "python:not a function"),
            "--sut: python: 'not a function' is not MODULE:FUNCTION",
        ),
        (
            ("--sut", "{exec: {command: []}}"),
            "--sut: exec.command: must not be empty",
        ),
        (
            ("--sut", "exec:no-such-program-here"),
            "program 'no-such-program-here' not found on PATH",
        ),
        (("--sut", "python:sut_functions:answer", "--batch"), "--batch cannot be combined"),
    ],
)
def test_bad_sut_options_are_one_line_usage_errors(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text(
        "contract: plain\nversion: 1\nclaims:\n"
        "  - {id: x, rubric: regex, field: output, pattern: x}\n",
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "x"})
    result = verifier(
        tmp_path, "run", str(path), "--cases", str(cases), "--store", str(tmp_path / "g.db"), *args
    )
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


VARIANT_FAILS = """\
contract: variant-fails
version: 1
llm_fields: [output]
claims:
  - {id: cites, rubric: regex, field: output, pattern: 'source: Handbook'}
  - {id: close, compare: similarity, min_ratio: 60}
  - {id: stable, compare: consistency, min_ratio: 90}
"""


@pytest.mark.e2e
def test_a_failed_baseline_call_makes_the_candidates_comparisons_errors_not_failures(
    tmp_path: Path,
) -> None:
    path = tmp_path / "variants.yaml"
    path.write_text(VARIANT_FAILS, encoding="utf-8")
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "fine", "input": "refund window?"},
        {"id": "boom", "input": "boom"},
    )
    result, report = run_report(
        tmp_path,
        path,
        cases,
        "--repeat",
        "2",
        "--variant",
        "old=python:sut_functions:fails_on_boom",
        "--variant",
        "new=python:sut_functions:answer",
    )
    base_id = re.search(r"compare them: verifier compare (\S+) ", result.stderr).group(1)  # type: ignore[union-attr]
    by_case = results(report)
    assert by_case["fine"]["close"]["status"] == "pass"
    close = by_case["boom"]["close"]
    assert close["status"] == "error", close
    assert "baseline variant 'old'" in close["reasoning"]
    assert "baseline broke on this case" in close["reasoning"]
    # The candidate's own claims are checked as usual.
    assert by_case["boom"]["cites"]["status"] == "pass"
    assert by_case["boom"]["stable"]["status"] == "pass"
    # The baseline keeps its consistency claim (its own runs), drops the similarity one.
    baseline_rows = stored_rows(tmp_path / "gaps.db", base_id)
    assert {r["claim_id"] for r in baseline_rows} == {"cites", "stable"}
    stable = {r["case_id"]: r for r in baseline_rows if r["claim_id"] == "stable"}
    assert stable["fine"]["status"] == "pass" and stable["boom"]["status"] == "error"


def test_the_baseline_run_keeps_claims_that_do_not_compare_with_a_baseline(
    write_contract,  # type: ignore[no-untyped-def]
) -> None:
    loaded = load_contract(
        write_contract(
            "contract: c\nversion: 1\nclaims:\n"
            "  - {id: r, rubric: regex, field: output, pattern: x}\n"
            "  - {id: sim, compare: similarity}\n"
            "  - {id: sim_own, compare: similarity, outputs: [output.a, output.b]}\n"
            "  - {id: con, compare: consistency}\n"
            "  - {id: con_base, compare: consistency, outputs: [output, baseline.output]}\n"
        )
    )
    kept = without_comparisons(loaded)
    assert kept is not None
    assert [c.id for c in kept.contract.claims] == ["r", "sim_own", "con"]
