"""The pull-request comment body: breakdown, changes against a baseline, limits, errors."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES
from tests.report.conftest import case, claim, summary
from verifier.ci.baseline import BaselineRun, load_baseline
from verifier.ci.from_store import StoredRunError, replay_stored_run
from verifier.ci.pr_comment import MAX_BODY_CHARS, MAX_CHANGES, PrCommentWriter
from verifier.gaps.store import open_store
from verifier.results import CaseResult, ClaimTally

CONTRACT = EXAMPLES / "data-extraction.yaml"
MAIN_CASES = EXAMPLES / "data-extraction.cases.jsonl"
PR_CASES = EXAMPLES / "data-extraction.candidate.cases.jsonl"


def _baseline(**overrides: object) -> BaselineRun:
    fields: dict[str, object] = {
        "source": "main.json",
        "run_id": "run-0",
        "contract_id": "account-research",
        "contract_version": 2,
        "contract_sha256": "ab" * 32,
        "total_cases": 4,
        "passed_cases": 2,
        "breakdown": {"cites": ClaimTally(passed=2, failed=2), "old": ClaimTally(passed=4)},
        "cases": frozenset({"a", "b", "c", "d"}),
        "failing": {("a", "cites"): "fail", ("b", "cites"): "error"},
    }
    fields.update(overrides)
    return BaselineRun(**fields)  # type: ignore[arg-type]


def _comment(cases: list[CaseResult], baseline: BaselineRun | None, **run: object) -> str:
    out = io.StringIO()
    writer = PrCommentWriter(out, baseline=baseline)
    for c in cases:
        writer.add_case(c)
    writer.finish(summary(cases, **run))
    return out.getvalue()


def test_comment_without_baseline_is_marker_heading_breakdown_and_failures() -> None:
    body = _comment([case("a", claim("cites", "fail", "no `span` | here"))], None)

    lines = body.splitlines()
    assert lines[0] == "<!-- verifier-pr-comment:account-research -->"
    assert lines[1] == "## ❌ `account-research v2`: 1 of 1 cases failed"
    assert "| claim | pass rate | passed | failed | errors | skipped |" in lines
    assert "| cites | 0.0% | 0 | 1 | 0 | 0 |" in lines
    assert "  - `cites` **fail**: ``no `span` | here``" in lines
    assert "baseline" not in body


def test_changes_against_baseline_are_matched_on_case_and_claim() -> None:
    cases = [
        case("a", claim("cites", "pass"), claim("new_claim")),  # fixed
        case("b", claim("cites", "fail", "still bad"), claim("new_claim")),  # was error: not new
        case("c", claim("cites", "fail", "broke"), claim("new_claim")),  # newly failing
        case("e", claim("cites", "error", "timeout"), claim("new_claim")),  # a new case
    ]

    body = _comment(cases, _baseline())

    assert (
        "Compared with baseline run `run-0` (`main.json`): cases passing 2/4 → 1/4 (▼ -25.0 pp)."
        in body
    )
    assert "| cites | 25.0% | ▼ -25.0 pp | 1 | 2 | 1 | 0 |" in body
    assert "| new_claim | 100.0% | new | 4 | 0 | 0 | 0 |" in body
    assert "*In the baseline only:* `old` (100.0%)." in body
    assert "**2** new failing results · **1** fixed" in body
    assert "- `c` · `cites` **fail**: `broke`" in body
    assert "- `e` · `cites` **error**: `(new case) timeout`" in body
    assert "`b` · `cites` **fail**" not in body.split("### Failing cases")[0]
    assert "- `a` · `cites` (was **fail**)" in body
    assert "The contract changed" not in body


def test_baseline_of_another_contract_or_version_is_flagged() -> None:
    cases = [case("a", claim("cites"))]
    other = _comment(cases, _baseline(contract_id="other", contract_version=1))
    assert "> ⚠️ The baseline checked another contract, `other v1`." in other
    edited = _comment(cases, _baseline(contract_sha256="cd" * 32, contract_version=1))
    assert "The contract changed since the baseline (v1 → v2)" in edited


def test_unchanged_run_says_so() -> None:
    cases = [case("a", claim("cites", "fail")), case("c", claim("cites"))]
    body = _comment(cases, _baseline(failing={("a", "cites"): "fail"}))
    assert "No result changed between passing and failing." in body


def test_long_change_lists_are_capped_and_counted() -> None:
    cases = [case(f"n{i}", claim("cites", "fail")) for i in range(MAX_CHANGES + 7)]
    body = _comment(cases, _baseline(cases=frozenset(f"n{i}" for i in range(100)), failing={}))
    assert f"**{MAX_CHANGES + 7}** new failing results" in body
    assert "- *…and 7 more*" in body
    assert body.count(" · `cites` **fail**") == MAX_CHANGES


def _run(tmp: Path, cases: Path, *extra: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return verifier("run", str(CONTRACT), "--cases", str(cases), *extra, cwd=tmp, env=env)


def test_run_compares_with_a_json_report_of_main(tmp_path: Path) -> None:
    main = _run(tmp_path, MAIN_CASES, "--format", "json", "--out", "main.json")
    assert main.returncode == 1, main.stderr

    pr = _run(tmp_path, PR_CASES, "--pr-comment", "comment.md", "--against", "main.json")

    assert pr.returncode == 1, pr.stderr
    body = (tmp_path / "comment.md").read_text()
    main_id = json.loads((tmp_path / "main.json").read_text())["run_id"]
    assert f"Compared with baseline run `{main_id}` (`main.json`): cases passing 2/7 → 4/7" in body
    assert "**1** new failing result · **4** fixed" in body
    assert "- `vela-2026-11-03` · `website_is_url` (was **fail**)" in body


def test_run_compares_with_a_run_in_the_same_store(tmp_path: Path) -> None:
    assert _run(tmp_path, MAIN_CASES).returncode == 1
    with open_store(str(tmp_path / ".verifier" / "gaps.db")) as store:
        main_id = store.runs()[-1].run_id

    pr = _run(tmp_path, PR_CASES, "--pr-comment", "comment.md", "--against", main_id)

    assert pr.returncode == 1, pr.stderr
    body = (tmp_path / "comment.md").read_text()
    assert f"Compared with baseline run `{main_id}`: cases passing 2/7 → 4/7 (▲ +28.6 pp)." in body
    assert "| spans_grounded | 85.7% | ▲ +28.6 pp | 6 | 1 | 0 | 0 |" in body


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            None,
            "error: baseline nope.json: neither a JSON report file nor a run in .verifier/gaps.db",
        ),
        ("{not json", "error: nope.json: baseline is not JSON:"),
        (
            '{"run_id": "x"}',
            "error: nope.json: not a JSON report of `verifier run --format json` (missing key 'contract')",
        ),
        (
            '{"run_id": "x", "contract": {"id": "c", "version": 1}, "total_cases": 1, "passed_cases": 1,'
            ' "assertion_breakdown": {}, "cases": [{"id": "a", "results": [{"id": "k", "status": "meh"}]}]}',
            "error: nope.json: not a JSON report of `verifier run --format json` (unknown status 'meh')",
        ),
        (
            '{"run_id": "x", "contract": {"id": "c", "version": 1}, "cases": 5}',
            "error: nope.json: not a JSON report of `verifier run --format json` (cases must be an "
            "array, not an integer)",
        ),
        (
            '{"run_id": "x", "contract": {"id": "c", "version": 1}, "total_cases": 1, "passed_cases": 1,'
            ' "assertion_breakdown": {"k": {"passed": "1"}}, "cases": []}',
            "error: nope.json: not a JSON report of `verifier run --format json` "
            "(assertion_breakdown['k'].passed must be an integer, not a string)",
        ),
    ],
)
def test_bad_baseline_is_one_line_exit_two(
    tmp_path: Path, content: str | None, message: str
) -> None:
    if content is not None:
        (tmp_path / "nope.json").write_text(content)
    result = _run(tmp_path, PR_CASES, "--pr-comment", "c.md", "--against", "nope.json")
    assert result.returncode == 2
    assert result.stderr.strip().startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert_no_traceback(result)


def test_against_needs_somewhere_to_write(tmp_path: Path) -> None:
    result = _run(tmp_path, PR_CASES, "--against", "main.json")
    assert result.returncode == 2
    assert "--against compares for --pr-comment or the step summary" in result.stderr


def test_unwritable_comment_file_is_usage_error_before_the_run(tmp_path: Path) -> None:
    result = _run(tmp_path, PR_CASES, "--pr-comment", str(tmp_path / "missing" / "c.md"))
    assert result.returncode == 2
    assert "cannot write the PR comment" in result.stderr
    assert not (tmp_path / ".verifier").exists()  # nothing was run


def test_comment_rebuilt_from_the_store_matches_the_live_one(tmp_path: Path) -> None:
    assert _run(tmp_path, MAIN_CASES, "--format", "json", "--out", "main.json").returncode == 1
    live = _run(tmp_path, PR_CASES, "--pr-comment", "live.md", "--against", "main.json")
    assert live.returncode == 1

    with open_store(str(tmp_path / ".verifier" / "gaps.db")) as store:
        # The live run named the file relative to its directory; so does the comment.
        baseline = replace(load_baseline(str(tmp_path / "main.json"), store), source="main.json")
        out = io.StringIO()
        run_id = store.runs()[-1].run_id
        rebuilt = replay_stored_run(store, run_id, [PrCommentWriter(out, baseline=baseline)])

    assert rebuilt.total_cases == 7 and rebuilt.passed_cases == 4
    assert out.getvalue() == (tmp_path / "live.md").read_text()


def test_rebuilding_an_unknown_run_is_an_error(tmp_path: Path) -> None:
    with (
        open_store(str(tmp_path / "gaps.db")) as store,
        pytest.raises(StoredRunError, match="run nope is not in"),
    ):
        replay_stored_run(store, "nope", [])


def test_comment_stays_under_githubs_size_limit_listing_fewer_cases() -> None:
    claims = [f"claim_{i}" for i in range(40)]
    cases = [
        case(f"case-{n}", *(claim(c, "fail", f"{c} " + "x" * 280) for c in claims))
        for n in range(25)
    ]

    body = _comment(cases, None)

    assert len(body) <= MAX_BODY_CHARS
    listed = body.count("\n- `case-")
    assert 0 < listed < 25
    assert f"*…and {25 - listed} more failing cases not listed here" in body
