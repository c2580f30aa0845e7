"""The audit finds every kind of tampering planted directly in a real store.

Each test runs on a SQLite file and on a PostgreSQL schema (``store_backend``).
"""

from __future__ import annotations

import json

import pytest

from tests.gaps._backends import Backend, head_hash, reseal, stored_body
from tests.gaps._support import begin, draft, fill, finish, forged
from verifier.analyses.audit import AuditReport, audit_store
from verifier.gaps._schema_check import RowSchemaCheck, packaged_row_schema
from verifier.gaps.store import StoreError


def audit(backend: Backend, run_id: str | None = None) -> AuditReport:
    with backend.open() as store:
        return audit_store(store, run_id)


def kinds(report: AuditReport) -> list[str]:
    return [p.kind for p in report.problems]


def tamper(backend: Backend, *statements: tuple[str, tuple[object, ...]] | str) -> None:
    backend.tamper(*statements)


def column(backend: Backend, name: str, seq: int) -> object:
    return backend.column(name, seq)


@pytest.fixture
def filled(store_backend: Backend) -> Backend:
    """A store of one finished run of 30 rows."""
    with store_backend.open() as store:
        fill(store, rows=30)
    return store_backend


def test_an_untouched_store_audits_clean(filled: Backend) -> None:
    report = audit(filled)
    assert report.ok and report.problems == [] and report.first_broken_link is None
    assert (report.rows_checked, report.chain_rows, report.runs_seen) == (30, 30, 1)
    assert report.render_text().endswith("ok: no integrity problems")


def test_an_edited_body_is_reported_as_an_edited_row(filled: Backend) -> None:
    body = stored_body(filled, 17).replace('"status":"pass"', '"status":"fail"')
    tamper(filled, ("UPDATE rows SET body = ?, status = 'fail' WHERE seq = 17", (body,)))
    report = audit(filled)
    assert not report.ok
    link = report.first_broken_link
    assert link is not None and (link.seq, link.row_id) == (17, "run-1-row-17")
    assert link.message == "row 17 was edited: its hash does not match its content"


def test_an_edited_status_column_is_reported_although_the_chain_holds(filled: Backend) -> None:
    tamper(filled, "UPDATE rows SET status = 'pass' WHERE seq = 5")  # row 5 failed
    report = audit(filled)
    assert report.first_broken_link is None
    assert kinds(report) == ["column"]
    assert report.problems[0].message == "row 5's columns disagree with its body: status"


def test_a_deleted_row_is_reported_as_a_gap_in_the_seqs(filled: Backend) -> None:
    tamper(filled, "DELETE FROM rows WHERE seq = 17")
    report = audit(filled)
    assert report.first_broken_link is not None
    assert report.first_broken_link.message == "row 17 missing: seq jumps from 16 to 18"
    assert report.problems[-1].message == (
        "run run-1 ended with 30 rows up to seq 30; the store holds 29 of them"
    )


def test_deleted_rows_at_the_start_are_reported(filled: Backend) -> None:
    tamper(filled, "DELETE FROM rows WHERE seq <= 3")
    link = audit(filled).first_broken_link
    assert link is not None and link.message == "rows 1-3 missing: the chain starts at seq 4"


def test_a_tail_cut_from_a_finished_run_is_reported(filled: Backend) -> None:
    tamper(filled, "DELETE FROM rows WHERE seq > 26")
    report = audit(filled)
    link = report.first_broken_link
    assert link is not None and link.seq == 27
    assert link.message == (
        "run run-1 ended with 30 rows up to seq 30, the store holds 26: "
        "its rows from seq 27 on were removed"
    )


@pytest.fixture
def running(store_backend: Backend) -> Backend:
    """A store of one run of 10 rows, appended 7 and 3, that has not ended."""
    with store_backend.open() as store:
        fill(store, rows=10, finished=False)
    return store_backend


def test_a_tail_cut_from_a_running_run_is_caught_by_the_seal_of_its_append(
    running: Backend,
) -> None:
    tamper(running, "DELETE FROM rows WHERE seq > 8")
    report = audit(running)
    assert kinds(report) == ["seal"]
    assert report.problems[0].message == (
        "seal 3 records row 10, but the chain ends at row 8: rows were removed from its end"
    )


def test_a_tail_cut_with_the_seals_after_it_is_caught_only_by_a_published_head(
    running: Backend,
) -> None:
    # The limit of any chain without an outside anchor: cutting rows and the seals
    # that recorded them leaves a valid, shorter store.
    published = head_hash(running)
    tamper(running, "DELETE FROM rows WHERE seq > 7", "DELETE FROM seals WHERE n > 2")
    assert audit(running).ok
    with running.open() as store:
        report = audit_store(store, expect_head=published)
    assert kinds(report) == ["head"]
    assert report.problems[0].message.startswith(f"the published head {published} is not in")


def test_a_forged_row_inserted_mid_chain_is_detected(filled: Backend) -> None:
    """The forger shifts later rows up and seals a row after row 10 correctly."""
    row_10 = json.loads(stored_body(filled, 10))
    hash_10 = column(filled, "row_hash", 10)
    fake = {**row_10, "row_id": "forged", "seq": 11, "prev_hash": hash_10, "status": "pass"}
    body, row_hash = forged(fake)
    tamper(
        filled,
        "UPDATE rows SET seq = -seq WHERE seq > 10",
        "UPDATE rows SET seq = 1 - seq WHERE seq < 0",
        (
            "INSERT INTO rows VALUES"
            " (11, 'forged', 'run-1', ?, ?, 'rubric', 'pass', 1.0, ?, ?, ?, ?)",
            (fake["case_id"], fake["claim_id"], fake["recorded_at"], body, hash_10, row_hash),
        ),
    )
    report = audit(filled)
    link = report.first_broken_link
    assert link is not None and link.message == "row 12's prev_hash does not match row 11's hash"
    assert "column" in kinds(report)  # row 12 holds the body of row 11


def test_a_correctly_sealed_row_appended_to_a_finished_run_is_detected(filled: Backend) -> None:
    row_30 = json.loads(stored_body(filled, 30))
    hash_30 = column(filled, "row_hash", 30)
    fake = {**row_30, "row_id": "late", "seq": 31, "prev_hash": hash_30}
    body, row_hash = forged(fake)
    tamper(
        filled,
        (
            "INSERT INTO rows VALUES (31, 'late', 'run-1', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                fake["case_id"],
                fake["claim_id"],
                fake["kind"],
                fake["status"],
                fake["score"],
                fake["recorded_at"],
                body,
                hash_30,
                row_hash,
            ),
        ),
    )
    report = audit(filled)
    assert kinds(report) == ["chain"]
    assert "ending in a row it did not record" in report.problems[0].message


def test_a_rewritten_chain_suffix_is_caught_by_the_recorded_last_hash(filled: Backend) -> None:
    """Editing row 20 and resealing every row after it leaves a valid chain, but
    not the run's recorded last row."""
    prev = column(filled, "row_hash", 19)
    statements: list[tuple[str, tuple[object, ...]]] = []
    for seq in range(20, 31):
        row = json.loads(stored_body(filled, seq))
        row["prev_hash"] = prev
        if seq == 20:
            row["reason"] = "nothing to see here"
        body, prev = forged(row)
        statements.append(
            (
                "UPDATE rows SET body = ?, prev_hash = ?, row_hash = ? WHERE seq = ?",
                (body, row["prev_hash"], prev, seq),
            )
        )
    tamper(filled, *statements)
    report = audit(filled)
    # Every seal from the edit on recorded another row, and so did the run's end.
    assert set(kinds(report)) == {"seal", "chain"}
    assert report.problems[0].message.startswith("seal 4 records row 21 with another hash")
    assert [p.seq for p in report.problems if p.kind == "chain"] == [30]


def test_two_swapped_rows_are_detected(filled: Backend) -> None:
    tamper(
        filled,
        "UPDATE rows SET seq = -1 WHERE seq = 8",
        "UPDATE rows SET seq = 8 WHERE seq = 12",
        "UPDATE rows SET seq = 12 WHERE seq = -1",
    )
    report = audit(filled)
    link = report.first_broken_link
    assert link is not None and link.message == "row 8's prev_hash does not match row 7's hash"
    assert {p.seq for p in report.problems if p.kind == "column"} == {8, 12}


def test_two_swapped_bodies_are_detected(filled: Backend) -> None:
    body_3, body_4 = stored_body(filled, 3), stored_body(filled, 4)
    tamper(
        filled,
        ("UPDATE rows SET body = ? WHERE seq = 3", (body_4,)),
        ("UPDATE rows SET body = ? WHERE seq = 4", (body_3,)),
    )
    link = audit(filled).first_broken_link
    assert (
        link is not None and link.message == "row 3 was edited: its hash does not match its content"
    )


def test_a_body_that_is_not_json_is_reported(filled: Backend) -> None:
    tamper(filled, "UPDATE rows SET body = 'oops' WHERE seq = 2")
    assert {"body", "chain"} <= set(kinds(audit(filled)))


def test_a_body_that_is_not_utf8_stops_the_audit_with_a_one_line_error(filled: Backend) -> None:
    if filled.name == "postgres":
        import psycopg

        # PostgreSQL checks the encoding at the door: such a body cannot be planted.
        with pytest.raises(psycopg.DataError, match="invalid byte sequence"):
            tamper(filled, "UPDATE rows SET body = convert_from('\\x7b22ff', 'UTF8')")
        return
    tamper(filled, "UPDATE rows SET body = CAST(X'7B22FF' AS TEXT) WHERE seq = 2")
    with pytest.raises(StoreError, match="decode") as caught:
        audit(filled)
    assert "\n" not in str(caught.value)


def _plant(filled: Backend, seq: int, **changes: object) -> None:
    """Rewrites row ``seq`` and reseals the whole chain after it, as a forger with
    write access would; then the run record is the only trace, so it is redone too."""
    conn_rows = [json.loads(stored_body(filled, s)) for s in range(1, 31)]
    prev = "0" * 64
    statements: list[tuple[str, tuple[object, ...]]] = []
    for row in conn_rows:
        if row["seq"] == seq:
            row.update(changes)
        row["prev_hash"] = prev
        body, prev = forged(row)
        statements.append(
            (
                "UPDATE rows SET body = ?, prev_hash = ?, row_hash = ? WHERE seq = ?",
                (body, row["prev_hash"], prev, row["seq"]),
            )
        )
    summary = json.dumps({"chain": {"rows": 30, "last_seq": 30, "last_hash": prev}})
    statements.append(("UPDATE runs SET summary = ?", (summary,)))
    tamper(filled, *statements)
    reseal(filled)


def test_a_judge_verdict_without_its_triple_is_flagged(filled: Backend) -> None:
    _plant(
        filled, 8, evidence={"judge": {"model_id": "claude-haiku-4-5-20251001"}, "verdict": "yes"}
    )
    report = audit(filled)
    assert kinds(report) == ["judge_triple"]
    assert report.problems[0].seq == 8
    assert (
        "missing evidence.judge.prompt_sha, evidence.judge.sampling_sha"
        in report.problems[0].message
    )


def test_a_judge_error_without_its_triple_is_a_legitimate_record(filled: Backend) -> None:
    _plant(filled, 8, status="error", score=None, evidence={"error": "no model reported"})
    tamper(filled, "UPDATE rows SET status = 'error', score = NULL WHERE seq = 8")
    assert audit(filled).ok


def test_a_comparative_verdict_with_an_incomplete_judge_is_flagged(filled: Backend) -> None:
    _plant(filled, 3, kind="comparative", evidence={"judge": {"model_id": "m", "prompt_sha": ""}})
    tamper(filled, "UPDATE rows SET kind = 'comparative' WHERE seq = 3")
    assert kinds(audit(filled)) == ["judge_triple"]


def test_a_rubric_verdict_on_a_prompt_systems_output_needs_its_triple(filled: Backend) -> None:
    # Row 5 is a rubric row; its output came from a prompt run on a model that named
    # no served model, so the row cannot say which model produced what it checked.
    sut = {"kind": "prompt", "model": "claude-haiku-4-5-20251001"}
    _plant(filled, 5, evidence={"sut": {**sut, "triple": {"model_id": "", "prompt_sha": "a"}}})
    report = audit(filled)
    assert kinds(report) == ["judge_triple"]
    assert report.problems[0].seq == 5
    assert (
        "missing evidence.sut.triple.model_id, evidence.sut.triple.sampling_sha"
        in report.problems[0].message
    )


def test_rows_of_other_systems_need_no_triple(filled: Backend) -> None:
    _plant(filled, 5, evidence={"sut": {"kind": "exec", "command": ["bot"]}})
    assert audit(filled).ok


def test_a_row_breaking_the_schema_is_reported_with_where(filled: Backend) -> None:
    _plant(filled, 6, score=1.5)
    tamper(filled, "UPDATE rows SET score = 1.5 WHERE seq = 6")
    report = audit(filled)
    assert kinds(report) == ["schema"]
    assert report.problems[0].message.startswith("row 6 breaks verifier.gap-row.v1 at score:")


def test_duplicate_row_ids_are_reported(filled: Backend) -> None:
    _plant(filled, 9, row_id="run-1-row-4")
    tamper(filled, "UPDATE rows SET row_id = 'run-1-row-4' WHERE seq = 9")
    report = audit(filled)
    assert kinds(report) == ["duplicate_row_id"]
    assert report.problems[0].message == "row_id run-1-row-4 is held by rows 4, 9"


def test_a_finished_run_whose_recorded_count_was_stripped_is_reported(filled: Backend) -> None:
    tamper(filled, "UPDATE runs SET summary = '{}'")
    reseal(filled)
    report = audit(filled)
    assert kinds(report) == ["run"]
    assert "recorded row count is missing" in report.problems[0].message


def test_rows_of_a_run_without_a_run_record_are_reported_once(filled: Backend) -> None:
    tamper(filled, "DELETE FROM runs")
    report = audit(filled)
    assert kinds(report) == ["run", "seal"]
    assert report.problems[1].message == (
        "run run-1 was sealed (seal 7) but has no run record: the run was deleted"
    )


def test_a_run_filter_limits_row_checks_but_not_the_chain(store_backend: Backend) -> None:
    target = store_backend
    with target.open() as store:
        begin(store, "a")
        begin(store, "b")
        store.append([draft(n, "a" if n % 2 else "b") for n in range(1, 21)])
        finish(store, "a")
        finish(store, "b")
    tamper(target, "UPDATE rows SET status = 'skipped' WHERE seq = 2")  # a row of b
    body = stored_body(target, 4).replace('"reason":"claim', '"reason":"CLAIM')
    tamper(target, ("UPDATE rows SET body = ? WHERE seq = 4", (body,)))  # b again
    report_a = audit(target, "a")
    assert (report_a.rows_checked, report_a.chain_rows, report_a.runs_seen) == (10, 20, 1)
    assert kinds(report_a) == ["chain"]  # b's edited row still breaks the store's chain
    assert set(kinds(audit(target, "b"))) == {"chain", "column"}


def test_auditing_a_run_the_store_never_had_is_a_store_error(filled: Backend) -> None:
    with pytest.raises(StoreError, match="no run nope"):
        audit(filled, "nope")


def test_problems_beyond_the_limit_are_counted_not_kept(filled: Backend) -> None:
    tamper(filled, "UPDATE rows SET case_id = 'x'")
    with filled.open() as store:
        report = audit_store(store, max_problems=5)
    assert len(report.problems) == 5 and report.omitted_problems == 25 and not report.ok
    assert report.as_dict()["omitted_problems"] == 25
    assert report.render_text().splitlines()[-1] == "  ... and 25 more"


def test_report_as_dict_is_json_ready(filled: Backend) -> None:
    tamper(filled, "DELETE FROM rows WHERE seq = 17")
    data = json.loads(json.dumps(audit(filled).as_dict()))
    assert data["ok"] is False
    assert data["first_broken_link"] == {
        "kind": "chain",
        "seq": 18,
        "row_id": "run-1-row-18",
        "message": "row 17 missing: seq jumps from 16 to 18",
    }


def test_audit_uses_the_packaged_schema_compiled_once() -> None:
    assert packaged_row_schema() is packaged_row_schema()
    assert packaged_row_schema().schema["$id"] == "verifier.gap-row.v1"


def test_schema_check_explains_the_first_problem() -> None:
    check = RowSchemaCheck({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert check.first_error({"n": 1}) is None
    assert check.first_error({"n": "one"}) == "n: 'one' is not of type 'integer'"


def test_the_compiled_validator_agrees_with_jsonschema_when_installed() -> None:
    pytest.importorskip("jsonschema_rs")
    from jsonschema import Draft202012Validator

    check = packaged_row_schema()
    assert check.accelerated
    reference = Draft202012Validator(check.schema)
    valid = {**json.loads(forged_row_body()), "row_hash": "f" * 64}
    variants = [valid] + [
        {**valid, field: value}
        for field, value in [
            ("seq", 0),
            ("seq", True),
            ("seq", 1.5),
            ("score", 1.01),
            ("score", False),
            ("recorded_at", "2026-11-25T10:00:00Z\n"),
            ("recorded_at", "2026-11-25T10:00:00"),
            ("row_hash", "F" * 64),
            ("evidence", []),
            ("reason", None),
            ("case_id", ""),
            ("kind", "Judge"),
            ("extra", 1),
        ]
    ]
    for row in variants:
        assert (check.first_error(row) is None) == reference.is_valid(row), row


def forged_row_body() -> str:
    return forged({**draft(4), "seq": 1, "prev_hash": "0" * 64})[0]
