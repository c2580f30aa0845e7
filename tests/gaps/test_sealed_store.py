"""What an intruder with write access does beyond editing a row, and how it is caught.

Each test runs on a SQLite file and on a PostgreSQL schema (``store_backend``). The
intruder drops the guards (triggers) first, as anyone can. Edits that leave the seal
chain disagreeing with the rows or run records are caught by the audit alone; an
intruder who rewrites the seal chain too is caught only against a head published
before (``expect_head``), which is the honest limit of any self-contained store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.gaps._backends import Backend, head_hash, reseal
from tests.gaps._support import begin, draft, forged
from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.analyses.audit import AuditReport, audit_store
from verifier.gaps.chain import GENESIS

ROWS = 30


def honest_summary(drafts: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals a runner records for these rows (threshold 1: a case passes when
    every claim passes)."""
    cases: dict[str, bool] = {}
    breakdown: dict[str, dict[str, int]] = {}
    keys = {"pass": "passed", "fail": "failed", "error": "errors", "skipped": "skipped"}
    for row in drafts:
        cases[row["case_id"]] = cases.get(row["case_id"], True) and row["status"] == "pass"
        counts = breakdown.setdefault(row["claim_id"], dict.fromkeys(keys.values(), 0))
        counts[keys[row["status"]]] += 1
    passed = sum(cases.values())
    return {
        "total_cases": len(cases),
        "passed_cases": passed,
        "failed_cases": len(cases) - passed,
        "assertion_breakdown": breakdown,
        "threshold": 1.0,
    }


def run(backend: Backend, run_id: str, *, finished: bool = True) -> None:
    drafts = [draft(n, run_id) for n in range(1, ROWS + 1)]
    with backend.open() as store:
        begin(store, run_id)
        for start in range(0, ROWS, 7):
            store.append(drafts[start : start + 7])
        if finished:
            store.finish_run(
                run_id,
                status="finished",
                finished_at="2026-11-25T10:05:00Z",
                summary=honest_summary(drafts),
            )


@pytest.fixture
def two_runs(store_backend: Backend) -> Backend:
    """A store of two finished runs of 30 rows each (seqs 1-30 and 31-60)."""
    run(store_backend, "run-1")
    run(store_backend, "run-2")
    return store_backend


def audit(backend: Backend, expect_head: str | None = None) -> AuditReport:
    with backend.open() as store:
        return audit_store(store, expect_head=expect_head)


def kinds(report: AuditReport) -> set[str]:
    return {p.kind for p in report.problems}


def messages(report: AuditReport) -> str:
    return "\n".join(p.message for p in report.problems)


def rewrite_rows(backend: Backend, first: int, **changes: Any) -> None:
    """Edits row ``first`` and hashes every later row again, run records to match."""
    rows = backend.query("SELECT seq, body FROM rows ORDER BY seq")
    prev = GENESIS if first == 1 else str(backend.column("row_hash", first - 1))
    statements: list[Any] = []
    last: dict[str, tuple[int, int, str]] = {}
    for seq, text in rows:
        row = json.loads(text)
        if seq >= first:
            if seq == first:
                row.update(changes)
            row["prev_hash"] = prev
            body, prev = forged(row)
            statements.append(
                (
                    "UPDATE rows SET body = ?, status = ?, score = ?, prev_hash = ?,"
                    " row_hash = ? WHERE seq = ?",
                    (body, row["status"], row["score"], row["prev_hash"], prev, seq),
                )
            )
        count = last.get(row["run_id"], (0, 0, ""))[0] + 1
        last[row["run_id"]] = (
            count,
            seq,
            prev if seq >= first else str(backend.column("row_hash", seq)),
        )
    for run_id, (count, seq, row_hash) in last.items():
        (summary,) = backend.query("SELECT summary FROM runs WHERE run_id = ?", (run_id,))[0]
        recorded = json.loads(summary)
        recorded["chain"] = {"rows": count, "last_seq": seq, "last_hash": row_hash}
        statements.append(
            ("UPDATE runs SET summary = ? WHERE run_id = ?", (json.dumps(recorded), run_id))
        )
    backend.tamper(*statements)


def retotal(backend: Backend, run_id: str) -> None:
    """Rewrites a run's summary to agree with its (edited) rows, as the intruder would."""
    bodies = backend.query("SELECT body FROM rows WHERE run_id = ? ORDER BY seq", (run_id,))
    (summary,) = backend.query("SELECT summary FROM runs WHERE run_id = ?", (run_id,))[0]
    totals = {**json.loads(summary), **honest_summary([json.loads(b) for (b,) in bodies])}
    backend.tamper(("UPDATE runs SET summary = ? WHERE run_id = ?", (json.dumps(totals), run_id)))


def test_an_untouched_store_audits_clean_and_holds_its_published_head(two_runs: Backend) -> None:
    published = head_hash(two_runs)
    report = audit(two_runs, expect_head=published)
    assert report.ok, messages(report)
    assert report.head == published and report.expected_head_at == report.head_seal
    assert report.head_rows == 2 * ROWS
    # A head published earlier stays valid as the store grows.
    run(two_runs, "run-3")
    later = audit(two_runs, expect_head=published)
    assert later.ok and later.head != published and later.expected_head_at is not None


def test_rows_flipped_with_every_later_hash_recomputed_are_caught(two_runs: Backend) -> None:
    published = head_hash(two_runs)
    rewrite_rows(two_runs, 5, status="pass", score=1.0)  # row 5 was a fail
    report = audit(two_runs)
    assert kinds(report) == {"seal", "summary"}
    assert "seal 2 records row 7 with another hash than the chain holds" in messages(report)
    # The intruder rewrites the run's totals and the seal chain too: only the
    # published head catches it.
    retotal(two_runs, "run-1")
    reseal(two_runs)
    assert audit(two_runs).ok
    report = audit(two_runs, expect_head=published)
    assert kinds(report) == {"head"}
    assert report.problems[0].message.startswith(f"the published head {published} is not in")


def test_a_cut_tail_with_its_run_record_edited_to_match_is_caught(two_runs: Backend) -> None:
    last_kept = str(two_runs.column("row_hash", 56))
    chain = {"rows": 26, "last_seq": 56, "last_hash": last_kept}
    (summary,) = two_runs.query("SELECT summary FROM runs WHERE run_id = 'run-2'")[0]
    edited = {**json.loads(summary), "chain": chain}
    two_runs.tamper(
        "DELETE FROM rows WHERE seq > 56",
        ("UPDATE runs SET summary = ? WHERE run_id = 'run-2'", (json.dumps(edited),)),
    )
    report = audit(two_runs)
    assert "seal" in kinds(report)
    text = messages(report)
    assert "run run-2's record disagrees with its seal" in text and "summary" in text
    assert "but the chain ends at row 56: rows were removed from its end" in text


def test_a_run_set_back_to_running_with_its_tail_cut_is_caught(two_runs: Backend) -> None:
    two_runs.tamper(
        "DELETE FROM rows WHERE seq > 50",
        "UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = 'run-2'",
    )
    report = audit(two_runs)
    assert (
        "run run-2's record disagrees with its seal 14 (status (running, sealed as finished)"
        in messages(report)
    )


def test_the_newest_run_dropped_whole_is_caught(two_runs: Backend) -> None:
    published = head_hash(two_runs)
    two_runs.tamper(
        "DELETE FROM rows WHERE run_id = 'run-2'", "DELETE FROM runs WHERE run_id = 'run-2'"
    )
    report = audit(two_runs)
    assert "run run-2 was sealed (seal 14) but has no run record: the run was deleted" in (
        messages(report)
    )
    # Its seals dropped too, the store is a valid shorter one: the published head is gone.
    two_runs.tamper("DELETE FROM seals WHERE n > 7")
    assert audit(two_runs).ok
    assert kinds(audit(two_runs, expect_head=published)) == {"head"}


def test_an_emptied_store_fails_against_its_published_head(two_runs: Backend) -> None:
    published = head_hash(two_runs)
    two_runs.tamper("DELETE FROM rows", "DELETE FROM runs")
    assert "rows were removed from its end" in messages(audit(two_runs))
    two_runs.tamper("DELETE FROM seals", "DELETE FROM contracts")
    emptied = audit(two_runs)
    assert emptied.ok and emptied.head is None  # nothing left to contradict anything
    report = audit(two_runs, expect_head=published)
    assert kinds(report) == {"head"}
    assert "(it holds no seal)" in report.problems[0].message


def test_a_rewritten_summary_is_caught_by_its_seal_and_by_its_rows(two_runs: Backend) -> None:
    (summary,) = two_runs.query("SELECT summary FROM runs WHERE run_id = 'run-1'")[0]
    recorded = json.loads(summary)
    total = recorded["total_cases"]
    flattering = {**recorded, "passed_cases": total, "failed_cases": 0}
    for counts in flattering["assertion_breakdown"].values():
        counts.update(passed=counts["passed"] + counts["failed"], failed=0)
    two_runs.tamper(
        ("UPDATE runs SET summary = ? WHERE run_id = 'run-1'", (json.dumps(flattering),))
    )
    assert kinds(audit(two_runs)) == {"seal", "summary"}
    reseal(two_runs)  # the seal rewritten too: the rows still contradict the summary
    report = audit(two_runs)
    assert kinds(report) == {"summary"}
    message = report.problems[0].message
    assert message.startswith("run run-1's summary contradicts its rows (")
    assert "claim claim-0's counts differ from its rows" in message
    assert message.endswith("the summary was rewritten")


def test_an_edited_contract_source_is_caught(two_runs: Backend) -> None:
    two_runs.tamper("UPDATE contracts SET source = source || '  - id: extra'")
    report = audit(two_runs)
    assert kinds(report) == {"contract"}
    assert "(contracts/demo.yaml) does not hash to its key" in report.problems[0].message


def test_an_edited_case_content_is_caught(store_backend: Backend) -> None:
    body = canonical_json({"case": {"id": "case-1", "output": "Acme renewed."}})
    sha = sha256_hex(body)
    with store_backend.open() as store:
        begin(store)
        store.append([draft(1, content_sha256=sha)], {sha: body})
    assert audit(store_backend).ok
    store_backend.tamper(
        ("UPDATE contents SET body = replace(body, 'renewed', 'churned') WHERE sha256 = ?", (sha,))
    )
    report = audit(store_backend)
    assert kinds(report) == {"content"}
    assert report.problems[0].message == (
        f"case content {sha} does not hash to its key: it was edited"
    )


def test_the_audit_command_prints_the_head_and_checks_a_published_one(
    two_runs: Backend, tmp_path: Path
) -> None:
    store = two_runs.target
    first = verifier("audit", "--store", store, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    published = head_hash(two_runs)
    assert f"head: {published} (seal 14, committing to rows up to seq 60)" in first.stdout
    held = verifier("audit", "--store", store, "--expect-head", published, cwd=tmp_path)
    assert held.returncode == 0 and f"published head {published}: held at seal 14" in held.stdout
    rewrite_rows(two_runs, 40, reason="nothing to see here")
    reseal(two_runs)
    caught = verifier("audit", "--store", store, "--expect-head", published, cwd=tmp_path)
    assert caught.returncode == 1
    assert f"[head] the published head {published} is not in the seal chain" in caught.stdout
    wrong = verifier("audit", "--store", store, "--expect-head", "abc", cwd=tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "--expect-head 'abc' is not a head: 64 lowercase hex digits" in wrong.stderr


def test_the_run_page_shows_the_head_right_after_the_run(two_runs: Backend, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    result = verifier("report", "--store", two_runs.target, "--html", str(page), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    html = page.read_text(encoding="utf-8")
    assert '<dd id="head" class="mono"' in html and head_hash(two_runs) in html


def test_the_page_of_a_run_that_has_not_ended_shows_no_head(
    store_backend: Backend, tmp_path: Path
) -> None:
    run(store_backend, "open", finished=False)
    page = tmp_path / "page.html"
    args = ("report", "open", "--store", store_backend.target, "--html", str(page))
    result = verifier(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert 'id="head"' not in page.read_text(encoding="utf-8")


def test_a_run_prints_the_head_it_left_where_ci_logs_and_pr_comments_keep_it(
    tmp_path: Path,
) -> None:
    import re

    from tests.conftest import EXAMPLES

    store = str(tmp_path / "gaps.db")
    comment = tmp_path / "comment.md"
    run = verifier(
        "run",
        str(EXAMPLES / "account-research.yaml"),
        "--cases",
        str(EXAMPLES / "account-research.cases.jsonl"),
        "--store",
        store,
        "--pr-comment",
        str(comment),
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr
    audit = verifier("audit", "--store", store, "--format", "json", cwd=tmp_path)
    head = json.loads(audit.stdout)["head"]
    assert re.fullmatch(r"[0-9a-f]{64}", head)
    assert f"store head {head}" in run.stderr
    assert f"`verifier audit --expect-head {head}`" in comment.read_text()
    checked = verifier("audit", "--store", store, "--expect-head", head, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout


def test_a_recheck_holds_the_published_head_too(two_runs: Backend, tmp_path: Path) -> None:
    store = two_runs.target
    published = head_hash(two_runs)
    args = ("audit", "--recheck", "--store", store, "--expect-head", published)
    held = verifier(*args, cwd=tmp_path)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "published head" not in held.stderr
    rewrite_rows(two_runs, 40, reason="nothing to see here")
    reseal(two_runs)
    caught = verifier(*args, cwd=tmp_path)
    assert caught.returncode == 1
    # The recheck runs the whole audit too, which names the lost head.
    assert f"[head] the published head {published} is not in the seal chain" in caught.stdout
