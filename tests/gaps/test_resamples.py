"""Test-retest resamples kept beside the rows, in SQLite and in PostgreSQL."""

from __future__ import annotations

from tests.gaps._backends import Backend
from verifier.gaps.resamples import ResampleRow, ResampleStore


def retest(claim_id: str, agreed: bool, *, model: str = "claude-haiku-4-5-20251001") -> ResampleRow:
    return ResampleRow(
        created_at="2026-11-26T15:00:00Z",
        resample_id="r1",
        run_id="run-1",
        seed=7,
        contract_id="briefs",
        case_id="b1",
        claim_id=claim_id,
        model_id=model,
        requested_model="claude-haiku-4-5-20251001",
        prompt_sha="a" * 64,
        sampling_sha="b" * 64,
        stored_status="pass",
        resampled_status="pass" if agreed else "fail",
        agreed=agreed,
    )


def test_resamples_round_trip_on_each_backend(store_backend: Backend) -> None:
    store_backend.open().close()  # the store exists, its resamples table does not
    with ResampleStore(store_backend.target, read_only=True) as store:
        assert store.all() == []  # no table yet: nothing measured, nothing created
    rows = [retest("no_guessing", True), retest("no_guessing", False), retest("tone", True)]
    with ResampleStore(store_backend.target) as store:
        assert store.save(rows) == 3
    with ResampleStore(store_backend.target, read_only=True) as store:
        assert store.all() == rows
        triple = {"prompt_sha": "a" * 64, "sampling_sha": "b" * 64}
        found = store.measured(
            contract_id="briefs",
            claim_id="no_guessing",
            model="claude-haiku-4-5-20251001",
            **triple,
        )
        assert found == 2
        assert store.measured(contract_id="briefs", claim_id="x", model="m", **triple) == 0
