"""The PostgreSQL gap store: its schema and migrations, triggers, errors, and the CLI.

What it shares with the SQLite store (runs, appends, streaming, two writers at once)
is tested on both in ``test_stores.py``; tampering caught by the audit in
``test_gap_audit.py``. These tests need a server (``conftest.postgres_server``).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import verifier as run_verifier
from tests.conftest import EXAMPLES
from tests.gaps._support import begin, draft, fill
from verifier._internal.canonical import sha256_hex
from verifier.analyses.audit import audit_store
from verifier.gaps.postgres import schema as _postgres_schema
from verifier.gaps.postgres.schema import Migration
from verifier.gaps.postgres.store import PostgresStore
from verifier.gaps.store import StoreError, open_store

psycopg = pytest.importorskip("psycopg")


def sql(url: str, query: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Runs one statement as another client of the database would."""
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def password_of(url: str) -> str:
    return str(psycopg.conninfo.conninfo_to_dict(url).get("password") or "")


def test_a_new_store_gets_the_schema_at_the_latest_version(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        assert store.location.startswith("postgresql://") and "@" in store.location
    tables = sql(
        postgres_url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
    )
    assert {t for (t,) in tables} == {
        "schema_version",
        "meta",
        "contracts",
        "runs",
        "rows",
        "contents",
        "seals",
        "run_shards",
        "alert_deliveries",
    }
    assert sql(postgres_url, "SELECT version FROM schema_version ORDER BY version") == [
        (1,),
        (2,),
        (3,),
        (4,),
        (5,),
        (6,),
        (7,),
    ]
    assert sql(postgres_url, "SELECT value FROM meta WHERE key = 'store'") == [
        ("verifier.gap-store",)
    ]
    # The body is text holding the hashed bytes; JSONB would re-serialise them.
    assert sql(
        postgres_url,
        "SELECT data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = 'rows' AND column_name = 'body'",
    ) == [("text",)]


def test_rows_cannot_be_updated_deleted_or_truncated(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        fill(store, rows=3)
    for statement in (
        "UPDATE rows SET status = 'pass'",
        "DELETE FROM rows WHERE seq = 2",
        "TRUNCATE rows",
    ):
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            sql(postgres_url, statement)
    assert sql(postgres_url, "SELECT count(*) FROM rows") == [(3,)]
    assert not hasattr(PostgresStore, "delete") and not hasattr(PostgresStore, "update")


def test_the_stored_body_is_exactly_the_hashed_text(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        begin(store)
        store.append([draft(1, reason='naïve ünïcode \u2028 and \\ quotes " ok', score=0.1)])
        (row,) = store.iter_rows()
    ((body, score),) = sql(postgres_url, "SELECT body, score FROM rows")
    assert body == row.body and score == 0.1
    assert '"reason":"naïve ünïcode' in body


def test_a_draft_value_of_the_wrong_type_is_a_store_error(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        begin(store)
        with pytest.raises(StoreError, match="wrong type"):
            store.append([draft(1), draft(2, case_id=2)])
        assert list(store.iter_rows()) == []


def test_appends_commit_asynchronously_and_ending_a_run_waits_for_the_disk(
    postgres_url: str,
) -> None:
    PostgresStore(postgres_url).close()  # creates the schema
    # Triggers note the synchronous_commit of the transaction that wrote each table.
    sql(postgres_url, "CREATE TABLE commit_modes (tab TEXT, mode TEXT)")
    sql(
        postgres_url,
        "CREATE FUNCTION note_commit_mode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        " INSERT INTO commit_modes VALUES (TG_TABLE_NAME,"
        " current_setting('synchronous_commit')); RETURN NULL; END $$",
    )
    for table in ("rows", "runs"):
        sql(
            postgres_url,
            f"CREATE TRIGGER note_{table} AFTER INSERT OR UPDATE ON {table}"
            " FOR EACH STATEMENT EXECUTE FUNCTION note_commit_mode()",
        )
    with PostgresStore(postgres_url) as store:
        fill(store, rows=10)  # begin, two appends, finish
        assert store._conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
    assert sql(postgres_url, "SELECT tab, mode FROM commit_modes") == [
        ("runs", "on"),
        ("rows", "off"),
        ("rows", "off"),
        ("runs", "on"),
    ]


def test_a_version_1_store_is_migrated_and_keeps_its_chain(postgres_url: str) -> None:
    # A store made by a verifier from before the content record (version 1) ...
    with PostgresStore(postgres_url) as store:
        fill(store, rows=20)
    sql(postgres_url, "DROP TABLE contents, seals, run_shards, alert_deliveries")
    sql(postgres_url, "DROP FUNCTION gap_contents_unchanged, gap_seals_append_only")
    sql(postgres_url, "DELETE FROM schema_version WHERE version > 1")
    # ... is brought to the latest version: its rows still audit, contents can be stored.
    with PostgresStore(postgres_url) as store:
        report = audit_store(store)
        assert report.ok and report.chain_rows == 20
        store.begin_run(
            "run-new",
            contract_id="c",
            contract_version=1,
            contract_sha256=sha256_hex("x"),
            contract_path="c.yaml",
            contract_source="x",
            started_at="2026-01-01T00:00:00Z",
            options={},
        )
        store.append([], {"ab" * 32: b'{"case":{}}'})
    versions = sql(postgres_url, "SELECT version FROM schema_version ORDER BY version")
    assert versions == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]
    tables = sql(postgres_url, "SELECT to_regclass('contents') IS NOT NULL")
    assert tables == [(True,)]
    with PostgresStore(postgres_url):  # already at the latest version: nothing runs twice
        pass
    assert len(sql(postgres_url, "SELECT version FROM schema_version")) == 7


def test_a_failed_migration_leaves_the_store_at_its_version(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    PostgresStore(postgres_url).close()
    broken = Migration(8, "broken", ("CREATE INDEX one ON rows (seq)", "SELECT no_such_thing"))
    monkeypatch.setattr(_postgres_schema, "MIGRATIONS", (*_postgres_schema.MIGRATIONS, broken))
    with pytest.raises(StoreError, match="no_such_thing") as caught:
        PostgresStore(postgres_url)
    assert "\n" not in str(caught.value)
    versions = sql(postgres_url, "SELECT version FROM schema_version ORDER BY version")
    assert versions == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]
    assert sql(postgres_url, "SELECT indexname FROM pg_indexes WHERE indexname = 'one'") == []


def test_stores_opened_at_once_migrate_a_new_schema_exactly_once(postgres_url: str) -> None:
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            PostgresStore(postgres_url).close()
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    versions = sql(postgres_url, "SELECT version FROM schema_version ORDER BY version")
    assert versions == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]


def test_a_store_from_a_newer_verifier_is_refused(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    sql(postgres_url, "INSERT INTO schema_version (version, description) VALUES (99, 'future')")
    with pytest.raises(StoreError, match="schema version 99, newer than this verifier"):
        PostgresStore(postgres_url)


def test_another_programs_tables_are_refused_and_left_untouched(postgres_url: str) -> None:
    sql(postgres_url, "CREATE TABLE rows (id integer)")
    sql(postgres_url, "INSERT INTO rows VALUES (7)")
    with pytest.raises(StoreError, match="not a verifier gap store"):
        PostgresStore(postgres_url)
    assert sql(postgres_url, "SELECT * FROM rows") == [(7,)]
    assert sql(postgres_url, "SELECT to_regclass('meta')") == [(None,)]


def test_a_store_without_its_version_record_is_damaged(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    sql(postgres_url, "DELETE FROM schema_version")
    with pytest.raises(StoreError, match="no schema version: it is damaged"):
        PostgresStore(postgres_url)


def test_a_database_not_in_utf8_is_refused(postgres_server: str) -> None:
    name = "verifier_sql_ascii"
    sql(postgres_server, f"DROP DATABASE IF EXISTS {name}")
    sql(postgres_server, f"CREATE DATABASE {name} ENCODING 'SQL_ASCII' TEMPLATE template0")
    try:
        url = postgres_server.rsplit("/", 1)[0] + f"/{name}"
        with pytest.raises(StoreError, match="must use UTF8"):
            PostgresStore(url)
    finally:
        sql(postgres_server, f"DROP DATABASE {name}")


def test_open_store_takes_postgresql_urls(postgres_url: str) -> None:
    for scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        url = scheme + postgres_url.removeprefix("postgresql")
        with open_store(url) as store:
            assert isinstance(store, PostgresStore)


def test_a_long_read_sees_one_snapshot_and_does_not_hold_up_appends(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        begin(store)
        store.append([draft(n) for n in range(1, 5001)])
        reading = store.iter_rows()
        first = next(reading)
        store.append([draft(n) for n in range(5001, 5011)])  # while the cursor is open
        rest = list(reading)
        assert first.seq == 1 and len(rest) == 4999
        assert sum(1 for _ in store.iter_rows()) == 5010


def test_a_read_abandoned_midway_leaves_no_fetching_thread(postgres_url: str) -> None:
    def fetchers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("verifier-fetch")]

    with PostgresStore(postgres_url) as store:
        begin(store)
        store.append([draft(n) for n in range(1, 5001)])
        reading = store.iter_rows()
        assert next(reading).seq == 1
        assert len(fetchers()) == 1  # the next batch is on its way
        reading.close()
        assert fetchers() == []
        assert sum(1 for _ in store.iter_rows()) == 5000


def test_a_closed_store_refuses_further_calls(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.runs()
    with pytest.raises(StoreError, match="is closed"):
        list(store.iter_rows())


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://auditor:s3cret-Pw@127.0.0.1:{refused_port}/gaps",
        "postgresql://auditor@127.0.0.1:{refused_port}/gaps?password=s3cret-Pw",
        "postgresql://auditor:s3cret-Pw@127.0.0.1:notaport/gaps",
        "postgresql://auditor:s3cret-Pw@127.0.0.1/gaps?nonsense=s3cret-Pw",
    ],
    ids=["refused", "password-in-query", "bad-port", "bad-option"],
)
def test_errors_are_one_line_and_never_show_the_password(url: str, refused_port: int) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url.format(refused_port=refused_port))
    message = str(caught.value)
    assert "s3cret" not in message and "\n" not in message
    assert message.startswith(("gap store postgresql://auditor@127.0.0.1", "invalid PostgreSQL"))


def test_a_wrong_password_is_reported_without_it(postgres_server: str) -> None:
    password = password_of(postgres_server)
    url = postgres_server.replace(f":{password}@", ":Wr0ng-s3cret@")
    with pytest.raises(StoreError, match="password authentication failed") as caught:
        open_store(url)
    assert "Wr0ng-s3cret" not in str(caught.value) and password not in str(caught.value)


# The command line against a PostgreSQL store.


def verifier(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_verifier(*args, cwd=cwd, env=env, timeout=120)


def test_verifier_run_then_audit_on_a_postgresql_store(postgres_url: str, tmp_path: Path) -> None:
    contract = EXAMPLES / "account-research.yaml"
    cases = EXAMPLES / "account-research.cases.jsonl"
    run = verifier(
        "run", str(contract), "--cases", str(cases), "--store", postgres_url, cwd=tmp_path
    )
    assert run.returncode == 1, run.stderr  # the example's cases include failures
    assert "gap rows in postgresql://" in run.stderr
    audit = verifier("audit", "--store", postgres_url, "--format", "json", cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    report = json.loads(audit.stdout)
    assert report["ok"] and report["chain_rows"] > 0
    (count,) = sql(postgres_url, "SELECT count(*) FROM rows")[0]
    assert report["chain_rows"] == count
    password = password_of(postgres_url)
    for output in (run.stdout, run.stderr, audit.stdout, audit.stderr):
        assert password not in output
    assert not (tmp_path / ".verifier").exists()  # nothing fell back to a SQLite file


def test_audit_exits_one_on_a_tampered_postgresql_store(postgres_url: str, tmp_path: Path) -> None:
    with PostgresStore(postgres_url) as store:
        fill(store, rows=10)
    sql(postgres_url, "DROP TRIGGER rows_no_update ON rows")
    sql(postgres_url, "UPDATE rows SET body = replace(body, 'claim checked', 'fine') WHERE seq = 4")
    audit = verifier("audit", "--store", postgres_url, cwd=tmp_path)
    assert audit.returncode == 1
    assert "row 4 was edited" in audit.stdout


@pytest.fixture
def judge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from tests.judge.judge_brain import brain
    from tests.judge.messages_server import MessagesServer

    with MessagesServer(default=brain) as running:
        yield running


def test_live_verdicts_are_cached_in_the_postgresql_store(
    postgres_url: str, tmp_path: Path, judge_server: object
) -> None:
    from tests.judge.test_judge_phase import KEY, write_cases, write_contract

    contract = write_contract(tmp_path, claims=2)
    cases = write_cases(tmp_path, ["Acme renewed 240 seats.", "I guess they churned."])
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": judge_server.base_url}  # type: ignore[attr-defined]
    args = ("run", str(contract), "--cases", str(cases), "--store", postgres_url)
    first = verifier(*args, "--judges", "live", cwd=tmp_path, env=env)
    assert first.returncode == 1, first.stderr  # the guessing output fails
    calls = len(judge_server.model_calls())  # type: ignore[attr-defined]
    assert calls == 4
    assert sql(postgres_url, "SELECT count(*) FROM judge_cache") == [(4,)]
    again = verifier(*args, "--judges", "live", cwd=tmp_path, env=env)
    assert again.returncode == 1, again.stderr
    assert len(judge_server.model_calls()) == calls  # type: ignore[attr-defined]  # all cached
    with PostgresStore(postgres_url) as store:
        assert audit_store(store).ok
        assert len(store.runs()) == 2


def test_a_page_of_rows_by_case_is_read_through_an_index_of_their_order(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    # The page query of ``iter_rows_by_case``, planned with sequential scans ruled out: an
    # index of the code-point order answers it, so no page sorts the run's rows.
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = conn.execute(
            "EXPLAIN SELECT seq FROM rows WHERE run_id = 'r' AND (case_id COLLATE \"C\", seq)"
            " > ('c', 1) ORDER BY case_id COLLATE \"C\", seq LIMIT 2000"
        ).fetchall()
    text = "\n".join(str(line) for (line,) in plan)
    assert "rows_case_code" in text
    assert "Sort" not in text
