"""Contents are written with their rows: once per distinct content, in the rows'
transaction, on SQLite and on PostgreSQL alike (``store_backend``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft, finish
from verifier.analyses.audit import audit_store
from verifier.gaps.chain import ChainError
from verifier.gaps.content import build_content


def content_of(case_id: str) -> tuple[str, bytes]:
    # Beyond ASCII and with escapes, to see the stored text is the body's bytes as given.
    output = 'Une réponse naïve — "☃" 🙂\\ done'
    made = build_content({"id": case_id, "input": f"Brief on {case_id}.", "output": output})
    assert made is not None
    return made


def naming(first: int, count: int, sha: str) -> list[dict[str, Any]]:
    return [draft(n, content_sha256=sha) for n in range(first, first + count)]


def stored_contents(backend: Backend) -> list[tuple[str, str]]:
    return [
        (str(sha), str(body)) for sha, body in backend.query("SELECT sha256, body FROM contents")
    ]


def test_a_content_named_by_many_rows_and_batches_is_written_once(
    store_backend: Backend,
) -> None:
    x_sha, x_body = content_of("x")
    y_sha, y_body = content_of("y")
    with store_backend.open() as store:
        begin(store)
        assert store.append(naming(1, 3, x_sha), {x_sha: x_body}) == 3
        # The next batch names the stored content again, beside a new one.
        assert (
            store.append(naming(4, 2, x_sha) + naming(6, 1, y_sha), {x_sha: x_body, y_sha: y_body})
            == 3
        )
        # A batch of rows whose contents are all stored already.
        assert store.append(naming(7, 2, y_sha), {y_sha: y_body}) == 2
        finish(store)
        assert store.content(x_sha) == x_body.decode() and store.content(y_sha) == y_body.decode()
        report = audit_store(store)
    assert sorted(stored_contents(store_backend)) == sorted(
        [(x_sha, x_body.decode()), (y_sha, y_body.decode())]
    )
    assert report.ok and report.chain_rows == 8


def test_contents_are_written_in_their_rows_transaction(store_backend: Backend) -> None:
    x_sha, x_body = content_of("x")
    y_sha, y_body = content_of("y")
    broken = naming(2, 1, y_sha)[0]
    del broken["reason"]
    with store_backend.open() as store:
        begin(store)
        with pytest.raises(ChainError):
            store.append([*naming(1, 1, y_sha), broken], {y_sha: y_body})
        # Neither the rows nor the content of a batch that failed were kept.
        assert stored_contents(store_backend) == []
        assert list(store.iter_rows()) == []
        assert store.append(naming(1, 2, x_sha), {x_sha: x_body}) == 2
        finish(store)
        assert audit_store(store).ok
    assert stored_contents(store_backend) == [(x_sha, x_body.decode())]


def test_a_purged_content_named_again_is_stored_again(store_backend: Backend) -> None:
    x_sha, x_body = content_of("x")
    with store_backend.open() as store:
        begin(store)
        store.append(naming(1, 2, x_sha), {x_sha: x_body})
        assert store.delete_contents([x_sha], runs=["run-1"]) == 1
        assert store.content(x_sha) is None
        store.append(naming(3, 2, x_sha), {x_sha: x_body})
        finish(store)
        assert store.content(x_sha) == x_body.decode()
        assert audit_store(store).ok
    assert stored_contents(store_backend) == [(x_sha, x_body.decode())]
