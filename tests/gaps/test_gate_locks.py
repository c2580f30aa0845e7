"""Gate locks in the seal chain, on both stores: read back as sealed, and audited."""

from __future__ import annotations

from tests.gaps._backends import Backend, reseal
from tests.gaps._support import fill
from verifier.analyses.audit import audit_store
from verifier.gaps.gate_locks import document_sha256, seal_gate, sealed_gates

GATE = {"gate": 2, "contract_id": "c", "primary_claim": "polite", "threshold": 0.9}


def test_a_sealed_gate_reads_back_intact_and_is_the_head(store_backend: Backend) -> None:
    with store_backend.open() as store:
        fill(store, rows=3)
    seal = seal_gate(store_backend.target, GATE)
    with store_backend.open() as store:
        (lock,) = sealed_gates(store)
        assert (lock.n, lock.seal_hash, lock.document, lock.intact) == (
            seal.n,
            seal.seal_hash,
            GATE,
            True,
        )
        assert lock.gate_sha256 == document_sha256(GATE)
        head = store.head()
        assert head is not None and head.seal_hash == seal.seal_hash
        report = audit_store(store)
    assert report.ok, report.problems


def test_an_edited_lock_fails_the_audit_even_resealed(store_backend: Backend) -> None:
    seal_gate(store_backend.target, GATE)
    store_backend.tamper(
        (
            "UPDATE seals SET body = replace(body, ?, ?) WHERE kind = 'gate'",
            ('"threshold":0.9', '"threshold":0.5'),
        )
    )
    with store_backend.open() as store:
        assert not sealed_gates(store)[0].intact
        report = audit_store(store)
    assert not report.ok
    assert any("seal 1 was edited" in p.message for p in report.problems)
    # An intruder who knows the scheme hashes the chain again: the gate in the seal
    # no longer hashes to its subject, the gate it was sealed for.
    reseal(store_backend)
    with store_backend.open() as store:
        (lock,) = sealed_gates(store)
        assert lock.document is not None and lock.document["threshold"] == 0.5
        assert not lock.intact
        report = audit_store(store)
    assert [p.message for p in report.problems] == [
        "seal 1 locks a gate that does not hash to its subject: the lock was edited and sealed again"
    ]
