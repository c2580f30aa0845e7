"""Sealing drafts into a hash chain, and detecting any change to a sealed chain."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gaps._support import ListStore, begin, draft, finish
from verifier._internal.canonical import canonical_json
from verifier.analyses.audit import audit_store
from verifier.gaps.chain import GENESIS, ChainError, SealedRow, row_hash_of, seal, verify_link
from verifier.gaps.sqlite.store import SqliteStore


def test_seal_numbers_rows_from_one_and_links_them_from_genesis() -> None:
    rows = seal([draft(n) for n in range(1, 4)], 0, GENESIS)
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[0].prev_hash == GENESIS
    assert [r.prev_hash for r in rows[1:]] == [r.row_hash for r in rows[:-1]]
    assert all(verify_link(r.prev_hash, r.body, r.row_hash) for r in rows)


def test_seal_continues_a_chain_from_its_last_row() -> None:
    first = seal([draft(1), draft(2)], 0, GENESIS)
    more = seal([draft(3)], first[-1].seq, first[-1].row_hash)
    assert more[0].seq == 3 and more[0].prev_hash == first[-1].row_hash


def test_body_is_canonical_json_of_the_row_without_row_hash() -> None:
    (row,) = seal([draft(1)], 0, GENESIS)
    parsed = json.loads(row.body)
    assert parsed == {**draft(1), "seq": 1, "prev_hash": GENESIS}
    assert row.body.encode() == canonical_json(parsed)
    assert row.row_hash == row_hash_of(GENESIS, row.body)


def test_columns_of_a_sealed_row_copy_its_body() -> None:
    (row,) = seal([draft(4)], 0, GENESIS)
    body = json.loads(row.body)
    for name in SealedRow._fields:
        if name not in ("body", "row_hash"):
            assert getattr(row, name) == body[name]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seq": 9}, "unexpected seq; the store assigns seq itself"),
        ({"row_hash": "f" * 64}, "the store assigns row_hash"),
        ({"verdict": "yes"}, "unexpected verdict"),
    ],
)
def test_seal_refuses_drafts_with_keys_it_does_not_expect(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(ChainError, match=message):
        seal([{**draft(1), **change}], 0, GENESIS)


def test_seal_refuses_a_draft_with_a_missing_key() -> None:
    incomplete = draft(1)
    del incomplete["reason"]
    with pytest.raises(ChainError, match="missing reason"):
        seal([incomplete], 0, GENESIS)


def test_seal_refuses_an_invalid_chain_position() -> None:
    with pytest.raises(ChainError):
        seal([draft(1)], 0, "not-a-hash")


def test_verify_link_fails_on_any_change_of_body_or_hashes() -> None:
    (row,) = seal([draft(1)], 0, GENESIS)
    assert verify_link(GENESIS, row.body, row.row_hash)
    assert not verify_link(GENESIS, row.body.replace('"pass"', '"fail"'), row.row_hash)
    assert not verify_link("1" * 64, row.body, row.row_hash)
    assert not verify_link(GENESIS, row.body, "0" * 64)
    assert not verify_link("é" * 64, row.body, row.row_hash)


# -- property: a sealed chain verifies, and every single change to it is detected --

_text = st.text(st.characters(codec="utf-8"), max_size=12)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | _text
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_drafts = st.lists(
    st.builds(
        lambda n, case, reason, evidence, status: draft(
            n,
            case_id=case or "c",
            reason=reason,
            evidence=evidence,
            status=status,
            kind="rubric",
            score=None if status == "error" else 0.5,
        ),
        st.integers(0, 10**6),
        _text,
        _text,
        st.dictionaries(_text, _json, max_size=3),
        st.sampled_from(["pass", "fail", "error", "skipped"]),
    ),
    min_size=2,
    max_size=12,
)


def _sealed_store(tmp_path: Path, drafts: list[dict[str, Any]]) -> ListStore:
    """Seals drafts through a real SQLite store, then holds its rows in a list."""
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "gaps.db"
    # Copies with unique ids: hypothesis may reuse the drawn dicts.
    drafts = [{**d, "row_id": f"row-{i}"} for i, d in enumerate(drafts)]
    with SqliteStore(path) as store:
        begin(store)
        store.append(drafts[: len(drafts) // 2])
        store.append(drafts[len(drafts) // 2 :])
        finish(store)
        return ListStore(list(store.iter_rows()), store.runs())


_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_settings
@given(drafts=_drafts)
def test_any_sealed_chain_audits_clean(tmp_path: Path, drafts: list[dict[str, Any]]) -> None:
    report = audit_store(_sealed_store(tmp_path, drafts))
    assert report.ok, report.render_text()
    assert report.chain_rows == len(drafts)


@_settings
@given(drafts=_drafts, where=st.data())
def test_any_single_byte_edit_of_any_body_is_detected(
    tmp_path: Path, drafts: list[dict[str, Any]], where: st.DataObject
) -> None:
    store = _sealed_store(tmp_path, drafts)
    i = where.draw(st.integers(0, len(store.rows) - 1), label="row")
    raw = bytearray(store.rows[i].body.encode("utf-8"))
    at = where.draw(st.integers(0, len(raw) - 1), label="byte")
    raw[at] = where.draw(st.integers(0, 255).filter(lambda b: b != raw[at]), label="new byte")
    store.rows[i] = store.rows[i]._replace(body=raw.decode("utf-8", errors="replace"))
    report = audit_store(store)
    assert report.first_broken_link is not None
    assert report.first_broken_link.seq == i + 1
    assert "was edited" in report.first_broken_link.message


@_settings
@given(drafts=_drafts, where=st.data())
def test_any_deleted_row_is_detected(
    tmp_path: Path, drafts: list[dict[str, Any]], where: st.DataObject
) -> None:
    store = _sealed_store(tmp_path, drafts)
    i = where.draw(st.integers(0, len(store.rows) - 1), label="row")
    del store.rows[i]
    report = audit_store(store)
    assert report.first_broken_link is not None
    assert (
        "missing" in report.first_broken_link.message
        or "removed" in report.first_broken_link.message
    )


@_settings
@given(drafts=_drafts, where=st.data())
def test_any_swap_of_two_rows_is_detected(
    tmp_path: Path, drafts: list[dict[str, Any]], where: st.DataObject
) -> None:
    store = _sealed_store(tmp_path, drafts)
    i, j = where.draw(
        st.lists(st.integers(0, len(store.rows) - 1), min_size=2, max_size=2, unique=True)
    )
    a, b = store.rows[i], store.rows[j]
    swap_seqs = where.draw(st.booleans(), label="swap whole rows (else bodies only)")
    if swap_seqs:  # each row moves to the other's place in the chain
        store.rows[i], store.rows[j] = b._replace(seq=a.seq), a._replace(seq=b.seq)
    else:
        store.rows[i], store.rows[j] = a._replace(body=b.body), b._replace(body=a.body)
    report = audit_store(store)
    assert report.first_broken_link is not None
    assert report.first_broken_link.seq == min(i, j) + 1
