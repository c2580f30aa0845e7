"""``verifier show RUN CASE``: one case's stored content and every result it got, on the
console and as JSON, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.report._evidence_runs import CASES, SECRET, run_demo
from verifier.gaps.content import RecordPolicy


def show(store: Path, *args: str) -> tuple[int, str, str]:
    result = verifier("show", *args, "--store", str(store), cwd=store.parent)
    assert_no_traceback(result)
    return result.returncode, result.stdout, result.stderr


def test_show_prints_the_cases_content_and_every_result_on_the_console(tmp_path: Path) -> None:
    store, run_id = run_demo(tmp_path)
    code, out, err = show(store, run_id, "rude")
    assert (code, err) == (0, "")
    rude = CASES[1]
    assert out.splitlines()[0] == f"case rude of run {run_id} · evidence-demo v1"
    assert f"output ({len(str(rude['output']))} characters) · marked: match, banned value" in out
    assert str(rude["output"]) in out and str(rude["input"]) in out
    assert "quotes.1 (20 characters) · marked: span not found" in out
    assert "FAIL no_apology [rubric] score 0 · The answer never apologises\n" in out
    assert "  forbidden pattern found in output at 11-16\n" in out
    assert '    "span": "Sorry",\n    "start": 11\n' in out
    assert out.count("\nFAIL ") == 3


def test_show_as_json_has_the_content_and_the_spans_of_each_result(tmp_path: Path) -> None:
    store, run_id = run_demo(tmp_path)
    code, out, _ = show(store, run_id, "rude", "--format", "json")
    assert code == 0
    shown = json.loads(out)
    assert shown["content"] == {"case": CASES[1], "withheld": {}}
    assert shown["content_note"] is None and len(shown["content_sha256"]) == 64
    results = {r["claim_id"]: r for r in shown["results"]}
    assert [r["status"] for r in shown["results"]] == ["fail", "fail", "fail"]
    (span,) = results["no_slang"]["spans"]
    assert span["label"] == "banned value" and span["field"] == "output"
    assert str(CASES[1]["output"])[span["start"] : span["end"]] == "gonna"
    assert results["quotes_grounded"]["description"] == "Every quote comes from the question"
    assert results["quotes_grounded"]["spans"] == [
        {"field": "quotes.1", "start": None, "end": None, "label": "span not found"}
    ]


def test_show_marks_what_a_policy_withheld_and_never_prints_it(tmp_path: Path) -> None:
    store, run_id = run_demo(tmp_path, policy=RecordPolicy(redact=("input",)))
    code, out, _ = show(store, run_id, "rude")
    assert code == 0 and SECRET not in out
    assert "withheld: input redacted (" in out
    code, out, _ = show(store, run_id, "rude", "--format", "json")
    assert SECRET not in out
    assert json.loads(out)["content"]["withheld"]["input"]["why"] == "redacted"


def test_a_case_whose_content_was_not_stored_says_so(tmp_path: Path) -> None:
    store, run_id = run_demo(tmp_path, policy=RecordPolicy(content="hashes"))
    code, out, _ = show(store, run_id, "calm")
    assert code == 0
    assert "content: the content is not in the store (recorded as its hash only, or purged)" in out
    assert "PASS no_apology" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no-such-run", "rude"), "error: run no-such-run is not in {store}"),
        (("{run}", "no-such-case"), "error: case 'no-such-case' is not in run {run} ({store})"),
    ],
)
def test_an_unknown_run_or_case_is_a_one_line_error(
    tmp_path: Path, args: tuple[str, str], message: str
) -> None:
    store, run_id = run_demo(tmp_path)
    code, out, err = show(store, *(a.format(run=run_id) for a in args))
    assert (code, out) == (2, "")
    assert err == message.format(run=run_id, store=store) + "\n"
