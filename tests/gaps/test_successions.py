"""Judge successions kept beside the rows, sealed, in SQLite and in PostgreSQL: an
edited succession explains nothing, the audit fails on it, and the lineage follows a
chain of successions."""

from __future__ import annotations

import dataclasses

from tests._cli import cli
from tests.gaps._backends import Backend
from verifier.gaps.successions import Lineage, SuccessionRow, SuccessionStore

OLD = ["claude-sonnet-4-5-20250929", "p" * 64, "s" * 64]
NEW = ["claude-opus-4-5-20251101", "p" * 64, "t" * 64]
NEWER = ["claude-opus-4-6-20260301", "q" * 64, "t" * 64]

SWITCH = SuccessionRow(
    created_at="2026-11-28T12:00:00Z",
    succession_id="s1",
    judge="strict",
    contract_id="",
    trial_id="t1",
    old_triples=[OLD],
    new_triples=[NEW],
    rule={"min_kappa": 0.6, "max_shift": 0.05, "statement": "pass when ..."},
    outcome="pass",
    figures={"agreement": 0.95, "kappa": 0.9, "kappa_ci": [0.8, 1.0], "difference": 0.01,
             "difference_ci": [-0.02, 0.04]},
    accepted_failed="",
    written="",
)  # fmt: skip


def test_a_succession_round_trips_sealed_and_an_edit_fails_the_audit(
    store_backend: Backend,
) -> None:
    store_backend.open().close()
    assert not Lineage.read(store_backend.target)
    with SuccessionStore(store_backend.target) as store:
        store.save(SWITCH)
    lineage = Lineage.read(store_backend.target)
    assert lineage.rows == (SWITCH,)
    assert cli("audit", "--store", store_backend.target).exit_code == 0
    store_backend.tamper(("UPDATE successions SET outcome = 'fail'", ()))
    assert not Lineage.read(store_backend.target)
    audit = cli("audit", "--store", store_backend.target)
    assert audit.exit_code == 1
    assert "successions: 1 row(s) no seal vouches for (e.g. succession s1 of judge strict" in (
        audit.output
    )


def test_the_lineage_names_a_direct_succession_and_a_chain() -> None:
    later = dataclasses.replace(
        SWITCH, succession_id="s2", trial_id="t2", old_triples=[NEW], new_triples=[NEWER]
    )
    lineage = Lineage((SWITCH, later))
    old, new, newer = (tuple(t) for t in (OLD, NEW, NEWER))
    assert lineage.between("strict", old, new) == [SWITCH]
    assert lineage.between("strict", old, newer) == [SWITCH, later]
    assert lineage.between("strict", newer, old) == []
    assert lineage.between("lenient", old, new) == []
    assert lineage.successor("strict", old) == SWITCH
    explained = "; ".join(row.summary() for row in lineage.between(None, old, new))
    assert explained == (
        "succession s1 of judge strict: claude-sonnet-4-5-20250929 -> "
        "claude-opus-4-5-20251101 (trial t1, pass: agreement 0.950, kappa 0.900 "
        "[0.800, 1.000], pass-rate shift +0.010 [-0.020, +0.040])"
    )


def test_an_open_store_reads_the_same_lineage_in_its_snapshot(store_backend: Backend) -> None:
    with store_backend.open() as store:
        assert not Lineage.from_select(store.select, store.table_columns)  # type: ignore[attr-defined]
    with SuccessionStore(store_backend.target) as successions:
        successions.save(SWITCH)
    with store_backend.open() as store, store.snapshot():
        read = Lineage.from_select(store.select, store.table_columns)  # type: ignore[attr-defined]
    assert read == Lineage.read(store_backend.target) == Lineage((SWITCH,))
    assert read.of_contract("any").rows == (SWITCH,)
    other = dataclasses.replace(SWITCH, succession_id="s9", contract_id="other")
    assert Lineage((SWITCH, other)).of_contract("mine").rows == (SWITCH,)
    assert Lineage((SWITCH, other)).of_contract("other").rows == (SWITCH, other)
    store_backend.tamper(("UPDATE successions SET judge = 'lenient'", ()))
    with store_backend.open() as store:
        assert not Lineage.from_select(store.select, store.table_columns)  # type: ignore[attr-defined]


def test_a_succession_moves_a_judge_by_the_model_asked_as_by_the_model_served() -> None:
    # A contract asks an alias or a deployment; the triple names the model that served.
    switched = dataclasses.replace(
        SWITCH, asked_models={"old": ["claude-sonnet-4-5"], "new": ["claude-opus-4-5"]}
    )
    assert switched.moves_to("claude-opus-4-5") and switched.moves_to(NEW[0])
    assert switched.moves_off("claude-sonnet-4-5") and switched.moves_off(OLD[0])
    assert not switched.moves_off("claude-opus-4-5") and not switched.moves_to(OLD[0])
    assert switched.pinned() == "claude-opus-4-5"
    assert SWITCH.pinned() == NEW[0]  # recorded without asked models: the served one
