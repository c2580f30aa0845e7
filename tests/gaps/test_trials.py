"""Judge trials kept beside the rows, sealed, in SQLite and in PostgreSQL: an edited
trial is no trial to use, and the audit fails on it."""

from __future__ import annotations

from tests._cli import cli
from tests.gaps._backends import Backend
from verifier.gaps.trials import TrialRow, TrialStore

TRIAL = TrialRow(
    created_at="2026-11-28T12:00:00Z",
    trial_id="t1",
    judge="strict",
    candidate_model="claude-sonnet-4-5-20250929",
    contract_id="",
    run_id="",
    seed=3,
    requested=200,
    rule={"min_kappa": 0.6, "max_shift": 0.05, "statement": "pass when ..."},
    outcome="fail",
    figures={"overall": {"n": 2, "kappa": None}, "why": "kappa's interval is undefined"},
    verdicts=[
        {"case_id": "c1", "claim_id": "factual", "old": "pass", "new": "fail"},
        {"case_id": "c2", "claim_id": "factual", "old": "fail", "new": "fail"},
    ],
)


def test_a_trial_round_trips_sealed_and_an_edit_fails_the_audit(store_backend: Backend) -> None:
    store_backend.open().close()  # the store exists, its trials table does not
    with TrialStore(store_backend.target, read_only=True) as store:
        assert store.all() == []
    with TrialStore(store_backend.target) as store:
        store.save(TRIAL)
    with TrialStore(store_backend.target, read_only=True) as store:
        assert store.all() == [TRIAL]
    audit = cli("audit", "--store", store_backend.target)
    assert audit.exit_code == 0, audit.output
    store_backend.tamper(("UPDATE trials SET outcome = 'pass'", ()))
    with TrialStore(store_backend.target, read_only=True) as store:
        assert store.all() == []
        assert [t.outcome for t in store.all(sealed_only=False)] == ["pass"]
    audit = cli("audit", "--store", store_backend.target)
    assert audit.exit_code == 1
    assert "trials: 1 row(s) no seal vouches for (e.g. trial t1 of judge strict" in audit.output


def test_a_trial_deleted_fails_the_audit(store_backend: Backend) -> None:
    with TrialStore(store_backend.target) as store:
        store.save(TRIAL)
    store_backend.tamper(("DELETE FROM trials", ()))
    audit = cli("audit", "--store", store_backend.target)
    assert audit.exit_code == 1
    assert "trials: a row sealed (seal " in audit.output
    assert "is gone from the table" in audit.output
