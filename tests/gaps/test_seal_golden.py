"""Sealing's bytes are pinned: a row sealed today hashes as rows sealed before did.

The hashes were computed by the sealing code of before issue 18's speed-ups; any
change to a body's bytes (key order, number or string formatting, the fallback for
what orjson refuses) breaks them, and with them every existing store's audit.
"""

from __future__ import annotations

from typing import Any

import pytest

from verifier.gaps.chain import ChainError, seal

GOLDEN = [
    "3b596dc997b214ea13470c75d6535631abfb9eeee0108c62641797a63879923e",
    "2666c2384b334aa581c1b9c3c0bd5641b05240ea14a14fe1820c0657fe5ef73b",
    "3ab41964bb105116bfb6337c2f4087dce408436bf648e51524f4898720bafa3c",
    "bd44895d2dfd57d7a048003622a13a2da316cac3ff9550dc97ba87d5f1f721c0",
]


def draft(**over: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "schema": "verifier.gap-row.v1",
        "row_id": "r:1:c",
        "run_id": "r",
        "recorded_at": "2026-11-26T19:34:24.101442Z",
        "contract_id": "k",
        "contract_version": 1,
        "contract_sha256": "ab" * 32,
        "case_id": "case-1",
        "content_sha256": "cd" * 32,
        "claim_id": "c",
        "kind": "rubric",
        "status": "pass",
        "score": 1.0,
        "reason": "pattern found in output at 3-9",
        "evidence": {"path": "output", "start": 3, "end": 9},
    }
    d.update(over)
    return d


def drafts() -> list[dict[str, Any]]:
    legacy = draft(row_id="r:2:c")
    del legacy["content_sha256"]
    return [
        draft(),
        draft(
            row_id="r:1:d",
            claim_id="d",
            status="fail",
            score=0.25,
            reason="café — “quoted” \u2028 ✓",
            evidence={"z": [1, 2.5, None, True], "a": {"b": "é", "A": -0.0}},
        ),
        # An integer beyond 64 bits: orjson refuses it, the standard library writes it.
        draft(
            row_id="r:1:e",
            claim_id="e",
            kind="judge",
            status="error",
            score=None,
            evidence={"big": 2**70, "n": 1e300},
        ),
        legacy,  # a row from before the content record
    ]


def test_row_hashes_are_those_sealed_before() -> None:
    sealed = seal(drafts(), 41, "12" * 32)
    assert [row.row_hash for row in sealed] == GOLDEN
    assert [row.seq for row in sealed] == [42, 43, 44, 45]
    assert sealed[1].prev_hash == GOLDEN[0]
    assert sealed[2].body.count('"big":1180591620717411303424') == 1
    assert (sealed[1].status, sealed[1].score, sealed[2].score) == ("fail", 0.25, None)


def test_key_order_of_a_draft_does_not_matter() -> None:
    reordered = [dict(reversed(list(d.items()))) for d in drafts()]
    assert [row.row_hash for row in seal(reordered, 41, "12" * 32)] == GOLDEN


def test_a_draft_with_a_chain_field_is_still_refused() -> None:
    with pytest.raises(ChainError, match="the store assigns seq itself"):
        seal([{**draft(), "seq": 3}], 0, "0" * 64)
