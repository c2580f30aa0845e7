"""The SQLite gap store: its file, errors and checkpoints (what every store does is in
``test_stores.py``, run on SQLite and PostgreSQL)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tests.gaps._support import begin, draft, filled_store, finish
from verifier.analyses.audit import audit_store
from verifier.errors import VerifierError
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import StoreError, open_store


def test_store_creates_its_folders_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "gaps.db"
    with SqliteStore(path):
        pass
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"rows", "runs", "contracts", "meta", "contents", "seals", "alert_deliveries"}
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("5",)


def test_rows_cannot_be_updated_or_deleted_through_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    filled_store(path, rows=3).close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE rows SET status = 'pass'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM rows WHERE seq = 2")
    assert not hasattr(SqliteStore, "delete") and not hasattr(SqliteStore, "update")


def test_a_file_that_is_not_sqlite_is_a_one_line_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="is not a verifier gap store") as caught:
        SqliteStore(path)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, VerifierError)


def test_another_programs_sqlite_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a verifier gap store"):
        SqliteStore(path)
    assert path.read_bytes() == before


def test_a_store_from_a_newer_verifier_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 99, newer"):
        SqliteStore(path)


def test_a_corrupt_store_is_a_store_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    filled_store(path, rows=200).close()
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")  # the page size, from the file's header
    data[page : 2 * page] = b"\xff" * page  # wreck the second page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError), SqliteStore(path) as store:
        list(store.iter_rows())


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        SqliteStore(tmp_path)


def test_open_store_takes_a_path_or_a_sqlite_url(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "a.db")) as store:
        assert store.location == str(tmp_path / "a.db")
    with open_store(f"sqlite:///{tmp_path / 'b.db'}") as store:
        assert Path(store.location) == tmp_path / "b.db"
    assert (tmp_path / "b.db").exists()


def test_open_store_rejects_an_unknown_scheme() -> None:
    with pytest.raises(StoreError, match="unknown store scheme 'mysql'"):
        open_store("mysql://localhost/gaps")


def test_a_low_sqlite_parameter_limit_shrinks_the_multi_row_insert(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        store._conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
        from verifier.gaps.sqlite.store import _rows_per_insert

        assert _rows_per_insert(store._conn) == 999 // 12


def test_appends_are_checkpointed_by_a_background_thread(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store)
        empty = path.stat().st_size
        padding = "x" * 1000
        store.append([draft(n, reason=padding) for n in range(1, 2001)])
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
        conn.close()
        # Automatic checkpoints are off for the appending connection, so only the
        # thread can move the rows from the WAL into the database file.
        deadline = time.monotonic() + 10
        while path.stat().st_size <= empty + 1_000_000 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert path.stat().st_size > empty + 1_000_000
        assert len(list(store.iter_rows())) == 2000
    assert not path.with_name("gaps.db-wal").exists()
    with SqliteStore(path) as store:
        assert audit_store(store).ok


def test_a_failed_checkpoint_thread_brings_back_automatic_checkpoints(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        store.append([draft(1)])
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        assert store._checkpointer is not None
        store._checkpointer.failed = True
        store.append([draft(2)])
        store.append([draft(3)])
        assert store._checkpointer is None
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
        assert [r.seq for r in store.iter_rows()] == [1, 2, 3]


def test_reading_a_store_starts_no_checkpoint_thread(tmp_path: Path) -> None:
    with filled_store(tmp_path / "gaps.db", rows=3):
        pass
    with SqliteStore(tmp_path / "gaps.db") as store:
        assert len(list(store.iter_rows())) == 3
        assert store._checkpointer is None


def test_a_new_store_has_large_pages_and_an_old_one_keeps_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.gaps.sqlite import file as _sqlite_file

    with SqliteStore(tmp_path / "new.db") as store:
        assert store._conn.execute("PRAGMA page_size").fetchone() == (16384,)
    monkeypatch.setattr(_sqlite_file, "PAGE_SIZE", 4096)  # a store made before the change
    filled_store(tmp_path / "old.db", rows=10, finished=False).close()
    monkeypatch.undo()
    with SqliteStore(tmp_path / "old.db") as store:
        assert store._conn.execute("PRAGMA page_size").fetchone() == (4096,)
        store.append([draft(n) for n in range(11, 21)])
        finish(store)
        assert audit_store(store).ok


def test_a_version_1_file_gains_the_content_record_and_keeps_its_chain(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with filled_store(path, rows=12):
        pass
    # Made as a verifier from before the content record left it: no contents table
    # (nor the seal chain, which came later still).
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER contents_no_update")
    conn.execute("DROP TABLE contents")
    conn.execute("DROP TABLE seals")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with SqliteStore(path) as store:
        assert audit_store(store).ok
        begin(store, "run-2")
        store.append([draft(1, run_id="run-2")], {"ab" * 32: b'{"case":{"id":"x"}}'})
        assert store.content("ab" * 32) == '{"case":{"id":"x"}}'
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("5",)
    with pytest.raises(sqlite3.IntegrityError, match="never change"):
        conn.execute("UPDATE contents SET body = '{}'")


def test_contents_whose_hashes_share_their_first_64_bits_are_kept_apart(tmp_path: Path) -> None:
    # Contents are looked up by the first 64 bits of their hash, then by the whole hash.
    first, second = "ab" * 8 + "0" * 48, "ab" * 8 + "1" * 48
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        store.append([draft(1)], {first: b'{"case":{"id":"1"}}', second: b'{"case":{"id":"2"}}'})
        store.append([draft(2)], {second: b'{"case":{"id":"2"}}'})  # stored already: kept once
        assert store.content(first) == '{"case":{"id":"1"}}'
        assert store.content(second) == '{"case":{"id":"2"}}'
        assert store.content("ab" * 8 + "2" * 48) is None
        assert store.content("not a hash") is None
        assert sorted(sha for sha, _ in store.iter_contents()) == [first, second]
        assert store.delete_contents([first]) == 1
        assert store.content(first) is None and store.content(second) is not None
