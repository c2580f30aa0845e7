"""``verifier audit --recheck``: stored verdicts re-evaluated from the store alone, on
SQLite and PostgreSQL, through the real CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._backends import Backend, SqliteBackend
from tests.gaps._support import begin, draft, finish
from tests.recheck._support import (
    copied_example,
    edit_content,
    flip,
    recheck,
    rewrite_from,
    run_example,
    stored_rows,
)
from verifier._internal.canonical import canonical_json
from verifier.gaps.content import content_sha256


def test_a_clean_run_rechecks_every_row_judges_from_the_recordings_and_none_differs(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    rows = stored_rows(store_backend.target)
    judged = [r for r in rows if r["kind"] == "judge"]
    assert judged and any(r["status"] in ("pass", "fail") for r in judged)
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    assert report["ok"] is True
    assert report["rows"] == report["rechecked"] == report["agree"] == len(rows)
    assert report["differ"] == 0 and report["not_recheckable"] == 0


def test_a_verdict_flipped_by_an_intruder_who_rehashed_the_chain_is_reported(
    tmp_path: Path, store_backend: Backend
) -> None:
    victim = flip(store_backend, tmp_path, "rubric", "pass", {"status": "fail", "score": 0.0})
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 1
    assert report["differ"] == 1 and report["agree"] == report["rows"] - 1
    (difference,) = report["differences"]
    assert difference["seq"] == victim["seq"]
    assert difference["run_id"] == victim["run_id"]
    assert difference["case_id"] == victim["case_id"]
    assert difference["claim_id"] == victim["claim_id"]
    assert difference["stored"].startswith("fail") and difference["rechecked"].startswith("pass")
    assert difference["what"] == "status"


def test_a_judge_verdict_flipped_by_an_intruder_is_reported(
    tmp_path: Path, store_backend: Backend
) -> None:
    victim = flip(store_backend, tmp_path, "judge", "fail", {"status": "pass", "score": 1.0})
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 1
    assert [d["seq"] for d in report["differences"]] == [victim["seq"]]


def test_a_stored_content_edited_is_caught_and_its_rows_are_not_rechecked_against_it(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    rows = stored_rows(store_backend.target)
    sha = rows[0]["content_sha256"]
    edit_content(store_backend, sha, "call", "cull")
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 1
    (tampered,) = report["tampered_contents"]
    referring = sum(1 for r in rows if r["content_sha256"] == sha)
    assert tampered["sha256"] == sha and tampered["actual"] != sha
    assert tampered["rows"] == referring
    assert report["not_recheckable_by_reason"]["content_tampered"]["rows"] == referring
    assert report["agree"] == len(rows) - referring
    console = verifier("audit", "--store", store_backend.target, "--recheck", cwd=tmp_path)
    assert console.returncode == 1
    assert f"  TAMPERED content {sha}: its bytes hash to {tampered['actual']}" in console.stdout
    section = console.stdout.split("\n\n")[0]  # the recheck, then the audit
    assert section.splitlines()[-1] == "FAILED: 1 stored content(s) tampered with"


def test_a_verdict_flipped_in_the_recordings_is_reported(tmp_path: Path) -> None:
    contract = copied_example(tmp_path / "contract")
    store = str(tmp_path / "gaps.db")
    run_example(store, tmp_path, contract)
    recordings = contract.with_name("account-research.recordings.jsonl")
    lines = recordings.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[0])
    (result,) = entry["reply"]["tool_input"]["results"]
    assert result["pass"] is True
    for criterion in result["criteria"]:
        criterion["met"] = False
    result["pass"] = False
    lines[0] = json.dumps(entry)
    recordings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, report = recheck(store, tmp_path)
    assert code == 1
    (difference,) = report["differences"]
    assert difference["claim_id"] == result["id"]
    assert difference["stored"].startswith("pass") and difference["rechecked"].startswith("fail")


def test_judge_rows_without_a_cache_entry_or_recording_are_not_recheckable(
    tmp_path: Path,
) -> None:
    contract = copied_example(tmp_path / "contract")
    store = str(tmp_path / "gaps.db")
    run_example(store, tmp_path, contract)
    contract.with_name("account-research.recordings.jsonl").unlink()
    code, report = recheck(store, tmp_path)
    assert code == 0, report
    rows = stored_rows(store)
    verdicts = [r for r in rows if r["kind"] == "judge" and r["status"] != "skipped"]
    assert report["not_recheckable_by_reason"]["no_cache_entry"]["rows"] == len(verdicts)
    assert report["agree"] == len(rows) - len(verdicts) and report["differ"] == 0


def test_a_missing_schema_file_makes_the_rows_that_need_it_not_recheckable_with_that_reason(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.schema.json").write_text('{"type": "object", "required": ["a"]}')
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "contract: c\nversion: 1\nclaims:\n"
        "  - id: shaped\n    rubric: json_schema\n    field: output\n"
        "    schema_file: c.schema.json\n"
        "  - id: waits\n    rubric: present\n    field: output.a\n    after: [shaped]\n"
        "  - id: other\n    rubric: present\n    field: output\n"
    )
    (tmp_path / "cases.jsonl").write_text('{"id": "x", "output": {"a": 1}}\n')
    store = str(tmp_path / "gaps.db")
    run = verifier("run", str(contract), "--cases", "cases.jsonl", "--store", store, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert recheck(store, tmp_path)[1]["agree"] == 3
    (tmp_path / "c.schema.json").unlink()
    code, report = recheck(store, tmp_path)
    assert code == 0
    why = report["not_recheckable_by_reason"]["schema_file_missing"]
    # shaped needs the file and waits waits for shaped; other needs neither.
    assert why["rows"] == 2 and "'c.schema.json' does not exist" in why["example"]
    assert report["agree"] == report["rechecked"] == 1


def test_recheck_of_one_run_reads_only_its_rows_and_an_unknown_run_is_a_usage_error(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "gaps.db")
    run_example(store, tmp_path)
    run_example(store, tmp_path)
    rows = stored_rows(store)
    first = rows[0]["run_id"]
    code, report = recheck(store, tmp_path, "--run", first)
    assert code == 0
    assert report["run_id"] == first
    assert report["rows"] == sum(1 for r in rows if r["run_id"] == first) < len(rows)
    unknown = verifier("audit", "--store", store, "--recheck", "--run", "nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == f"error: no run nope in {store}"


def test_the_console_report_names_the_counts_and_each_differing_row(
    tmp_path: Path, store_backend: Backend
) -> None:
    victim = flip(store_backend, tmp_path, "rubric", "fail", {"status": "pass", "score": 1.0})
    rows = stored_rows(store_backend.target)
    done = verifier("audit", "--store", store_backend.target, "--recheck", cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.split("\n\n")[0].splitlines()  # the recheck, then the audit
    assert lines[0].endswith(
        f"{len(rows)} rows; {len(rows)} rechecked, {len(rows) - 1} agree, 1 differ, "
        "0 not recheckable"
    )
    assert (
        f"  DIFFERS seq {victim['seq']} run {victim['run_id']} case {victim['case_id']} "
        f"claim {victim['claim_id']}: stored pass (score 1.0), rechecked fail" in done.stdout
    )
    assert lines[-1] == "FAILED: 1 stored verdict(s) differ"


def test_comparisons_recheck_pairwise_from_the_recordings_and_similarity_from_the_content(
    tmp_path: Path, store_backend: Backend
) -> None:
    run = verifier(
        "run",
        str(EXAMPLES / "answer-comparison.yaml"),
        "--cases",
        str(EXAMPLES / "answer-comparison.candidate.jsonl"),
        "--baseline",
        str(EXAMPLES / "answer-comparison.baseline.jsonl"),
        "--store",
        store_backend.target,
        cwd=tmp_path,
        env={"ANTHROPIC_API_KEY": ""},
    )
    assert run.returncode == 1, run.stderr
    rows = stored_rows(store_backend.target)
    assert {r["claim_id"] for r in rows if r["kind"] == "comparative"} == {
        "no_worse_than_baseline",
        "close_to_baseline",
        "stable_across_runs",
    }
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    assert report["agree"] == report["rows"] == len(rows)


def test_rows_from_before_the_content_record_are_not_recheckable(
    tmp_path: Path, store_backend: Backend
) -> None:
    with store_backend.open() as store:
        begin(store)
        store.append([{k: v for k, v in draft(n).items() if k != "content_sha256"} for n in (1, 2)])
        finish(store)
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    assert report["rechecked"] == 0
    assert report["not_recheckable_by_reason"]["before_content_record"]["rows"] == 2


def test_a_content_no_row_refers_to_is_verified_too_when_the_whole_store_is_rechecked(
    tmp_path: Path, store_backend: Backend
) -> None:
    body = canonical_json({"case": {"id": "gone", "output": "text"}})
    sha = content_sha256(body)
    with store_backend.open() as store:
        store.append([], {sha: body})
    edit_content(store_backend, sha, "text", "edit")
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 1
    assert [(t["sha256"], t["rows"]) for t in report["tampered_contents"]] == [(sha, 0)]


def test_the_markdown_report_has_the_counts_and_a_table_of_differing_rows(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "gaps.db")
    victim = flip(SqliteBackend(Path(store)), tmp_path, "rubric", "pass", {"status": "fail"})
    done = verifier("audit", "--store", store, "--recheck", "--format", "markdown", cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "## ❌ verifier audit --recheck"
    assert "| 50 | 49 | 1 | 0 |" in lines
    assert any(
        line.startswith(f"| {victim['seq']} | `{victim['run_id']}` | `{victim['case_id']}` | ")
        and "| fail (score 1.0) | pass (score 1.0) |" in line
        for line in lines
    ), done.stdout


def test_a_recheck_that_could_check_nothing_does_not_claim_every_verdict_agrees() -> None:
    from verifier.recheck.report import RecheckReport

    report = RecheckReport("gaps.db", rows=3)
    report.skip("content_missing", "content abc is not in the store", 3)
    assert report.ok
    assert report.lines()[-1] == "ok: nothing differs, but no row could be rechecked (see above)"
    report.rechecked = report.agree = 1
    assert report.lines()[-1] == "ok: every rechecked verdict agrees"


def test_a_recheck_from_another_folder_says_where_it_looked_for_a_schema_file(
    tmp_path: Path,
) -> None:
    started, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    started.mkdir()
    elsewhere.mkdir()
    (started / "s.json").write_text('{"type": "object"}')
    (started / "c.yaml").write_text(
        "contract: c\nversion: 1\nclaims:\n"
        "  - id: shaped\n    rubric: json_schema\n    field: output\n    schema_file: s.json\n"
    )
    (started / "cases.jsonl").write_text('{"id": "x", "output": {}}\n')
    store = str(tmp_path / "gaps.db")
    run = verifier("run", "c.yaml", "--cases", "cases.jsonl", "--store", store, cwd=started)
    assert run.returncode == 0, run.stderr
    assert recheck(store, started)[1]["agree"] == 1
    why = recheck(store, elsewhere)[1]["not_recheckable_by_reason"]["schema_file_missing"]
    assert f"its stored path is relative, so it was looked for from {elsewhere}" in why["example"]


def test_judge_rows_of_another_prompt_are_not_recheckable_rather_than_differing(
    tmp_path: Path, store_backend: Backend
) -> None:
    # Rows as a run of an earlier release left them: the same verdicts, judged under a
    # prompt_sha of that release's rendering (the recordings are of this one).
    run_example(store_backend.target, tmp_path)
    rows = stored_rows(store_backend.target)
    verdicts = [r for r in rows if r["kind"] == "judge" and r["status"] in ("pass", "fail")]
    earlier = hashlib.sha256(b"an earlier rendering").hexdigest()
    for row in verdicts:
        row["evidence"]["judge"]["prompt_sha"] = earlier
    rewrite_from(store_backend, rows, verdicts[0]["seq"])
    code, report = recheck(store_backend.target, tmp_path)
    # Rewriting the rows here is itself an edit of the record, which the audit that runs
    # with every recheck reports; the recheck of the verdicts finds no difference.
    assert code == 1 and not report["audit"]["ok"]
    assert report["differ"] == 0
    why = report["not_recheckable_by_reason"]["judge_prompt_changed"]
    assert why["rows"] == len(verdicts)
    assert f"prompt_sha {earlier[:12]} stored" in why["example"]
