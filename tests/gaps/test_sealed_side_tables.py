"""Every table that decides something is sealed, purges are sealed, and a recheck adds
to the audit: tampered with by raw SQL, as an intruder would, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._cli import verifier
from tests.gaps._backends import Backend
from tests.recheck._support import recheck, run_example, stored_rows
from verifier.compare.calibration_store import CalibrationStore
from verifier.compare.case_calibration_store import CaseCalibrationStore
from verifier.gaps.resamples import ResampleRow, ResampleStore
from verifier.judge.batch_ledger import BatchLedger, BatchRecord


def audit(target: str, cwd: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = verifier("audit", "--store", target, "--format", "json", *args, cwd=cwd)
    return done.returncode, json.loads(done.stdout)


def messages(report: dict[str, Any]) -> list[str]:
    return [p["message"] for p in report["problems"]]


def test_contents_deleted_without_a_purge_fail_the_audit_and_recheck_says_missing(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    sha = stored_rows(store_backend.target)[0]["content_sha256"]
    store_backend.tamper(("DELETE FROM contents WHERE sha256 = ?", (sha,)))

    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    assert any(
        f"case content {sha}" in m and "no purge removed it" in m for m in messages(report)
    ), report["problems"]

    code, rechecked = recheck(store_backend.target, tmp_path)
    assert code == 1
    assert "content_missing" in rechecked["not_recheckable_by_reason"]
    assert "content_purged" not in rechecked["not_recheckable_by_reason"]
    assert not rechecked["audit"]["ok"]


def test_a_purge_is_sealed_and_what_it_removed_is_purged_not_missing(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    (run_id,) = {r["run_id"] for r in stored_rows(store_backend.target)}
    purged = verifier(
        "purge", "--content", "--run", run_id, "--store", store_backend.target, cwd=tmp_path
    )
    assert purged.returncode == 0, purged.stderr
    ((body,),) = store_backend.query("SELECT body FROM seals WHERE kind = 'purge'")
    seal = json.loads(body)["purge"]
    assert seal["runs"] == [run_id] and seal["contents"] and seal["purged_at"]

    code, report = audit(store_backend.target, tmp_path)
    assert code == 0, report["problems"]
    code, rechecked = recheck(store_backend.target, tmp_path)
    assert "content_purged" in rechecked["not_recheckable_by_reason"]
    assert "content_missing" not in rechecked["not_recheckable_by_reason"]

    # The purge seal cannot be dropped to hide a deletion: the chain breaks.
    store_backend.tamper("DELETE FROM seals WHERE kind = 'purge'")
    code, report = audit(store_backend.target, tmp_path)
    assert code == 1


def _resample(run_id: str, agreed: bool = True) -> ResampleRow:
    return ResampleRow(
        "2026-11-28T00:00:00Z", "rs-1", run_id, 0, "account-research", "case-1", "tone",
        "claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001", "p" * 64, "s" * 64,
        "pass", "pass" if agreed else "fail", agreed,
    )  # fmt: skip


def test_forged_or_edited_resamples_and_calibrations_fail_the_audit_and_are_not_used(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    with ResampleStore(store_backend.target) as resamples:
        resamples.save([_resample("r1"), _resample("r1", agreed=False)])
    code, report = audit(store_backend.target, tmp_path)
    assert code == 0, report["problems"]

    # A forged calibration (n=500, kappa 0.99) beside sealed tables.
    with CalibrationStore(store_backend.target):
        pass  # the table, as `calibrate` makes it
    store_backend.tamper(
        (
            "INSERT INTO calibrations (created_at, run_id, labels_sha256, contract_id,"
            " claim_id, model_id, requested_model, prompt_sha, sampling_sha, n, kappa,"
            " agreement, statistics) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ("2026-11-28T00:00:00Z", "r1", "l" * 64, "account-research", "tone", "m", "m",
             "p" * 64, "s" * 64, 500, 0.99, 0.995, "{}"),
        ),
        ("UPDATE resamples SET agreed = 1, resampled_status = 'pass'", ()),
    )  # fmt: skip
    with CalibrationStore(store_backend.target, read_only=True) as calibrations:
        (forged,) = calibrations.all()
    assert not forged.sealed  # so `check` does not credit it
    with ResampleStore(store_backend.target, read_only=True) as resamples:
        measured = resamples.measured(
            contract_id="account-research", claim_id="tone", model="claude-haiku-4-5-20251001",
            prompt_sha="p" * 64, sampling_sha="s" * 64,
        )  # fmt: skip
    assert measured == 1  # the edited row no longer counts

    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    found = messages(report)
    assert any(m.startswith("resamples: a row sealed") and "deleted" in m for m in found), found
    assert report["notes"] or any("calibrations" in m for m in found), report


def test_an_edited_case_calibration_is_not_sealed_and_fails_the_audit_naming_it(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    labels = tmp_path / "labels.jsonl"
    thumbs = {"acct-001": "up", "acct-003": "down", "acct-004": "up", "acct-005": "down"}
    labels.write_text(
        "".join(json.dumps({"case_id": c, "thumbs": t}) + "\n" for c, t in thumbs.items()),
        encoding="utf-8",
    )
    done = verifier("calibrate", "--labels", str(labels), "--store", store_backend.target,
                    cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    code, report = audit(store_backend.target, tmp_path)
    assert code == 0, report["problems"]

    store_backend.tamper("UPDATE case_calibrations SET n = 500")
    with CaseCalibrationStore(store_backend.target, read_only=True) as stored:
        (edited,) = stored.all()
    assert edited.n == 500 and not edited.sealed
    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    # Sealed under its own hash, the edited row reads as the sealed one gone and an
    # unsealed one added, named.
    found = messages(report)
    assert any(m.startswith("case_calibrations: a row sealed") for m in found), found
    assert any(
        m.startswith("case_calibrations: 1 row(s) no seal vouches for")
        and "case calibration (thumbs labels) of run " in m
        for m in found
    ), found


def test_an_edited_batch_ledger_row_is_not_resumed_and_fails_the_audit(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    ledger = BatchLedger(store_backend.target)
    try:
        ledger.record(BatchRecord("r1", "msgbatch_1", "strict", {"j1": {"cache_key": "k1"}}))
        assert [b.batch_id for b in ledger.batches("r1", "strict")] == ["msgbatch_1"]
        store_backend.tamper("UPDATE judge_batches SET batch_id = 'msgbatch_theirs'")
        assert ledger.batches("r1", "strict") == []
    finally:
        ledger.close()
    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    assert any(
        m.startswith("judge_batches: batch 0 of judge strict (run r1) differs from its seal")
        for m in messages(report)
    ), report["problems"]


def test_an_edited_judge_cache_entry_fails_the_plain_audit(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    from verifier.llm.cache import CachedReply

    entry = CachedReply.from_json(
        {"key": "k" * 64, "provider": "anthropic", "model": "m", "prompt_sha": "p" * 64,
         "sampling_sha": "s" * 64, "reply": {"text": "verdict: fail", "served_model": "m"}}
    )  # fmt: skip
    _put(store_backend.target, entry)
    code, report = audit(store_backend.target, tmp_path)
    assert code == 0, report["problems"]
    store_backend.tamper(("UPDATE judge_cache SET entry = replace(entry, 'fail', 'pass')", ()))
    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    assert any(m.startswith(f"judge cache entry {'k' * 64} differs") for m in messages(report))


def _put(target: str, entry: Any) -> None:
    if target.startswith("postgresql"):
        from verifier.llm.pg_cache import PostgresJudgeCache

        cache: Any = PostgresJudgeCache(target)
    else:
        from verifier.llm.cache import SqliteJudgeCache

        cache = SqliteJudgeCache(target)
    try:
        cache.put(entry)
    finally:
        cache.close()


def test_an_edited_contract_path_fails_the_audit(tmp_path: Path, store_backend: Backend) -> None:
    run_example(store_backend.target, tmp_path)
    store_backend.tamper("UPDATE contracts SET path = '/elsewhere/contract.yaml'")
    code, report = audit(store_backend.target, tmp_path)
    assert code == 1
    assert any(
        "'/elsewhere/contract.yaml'" in m and "path was edited" in m for m in messages(report)
    )


def test_recheck_adds_to_the_audit_a_flipped_run_status_fails_it(
    tmp_path: Path, store_backend: Backend
) -> None:
    run_example(store_backend.target, tmp_path)
    store_backend.tamper("UPDATE runs SET status = 'interrupted'")
    code, rechecked = recheck(store_backend.target, tmp_path)
    assert code == 1
    assert rechecked["ok"] is False and rechecked["differ"] == 0
    assert not rechecked["audit"]["ok"]
