"""Any single edit an intruder makes to a stored row is caught by the audit.

Hypothesis picks the edit: a character of a body changed, a column given another value,
a row deleted, two rows' places swapped, a row copied onto the end of the chain, or a
row's hash replaced. The store holds two finished runs (an unfinished run's last rows
can be cut unnoticed, as the README says, so both runs here have ended).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.gaps._support import begin, draft, finish, tamper
from verifier.analyses.audit import audit_store
from verifier.gaps.sqlite.store import SqliteStore

ROWS = 24
_COLUMNS = ("row_id", "run_id", "case_id", "claim_id", "kind", "status", "score",
            "recorded_at", "prev_hash", "row_hash")  # fmt: skip


def _template(folder: Path) -> Path:
    path = folder / "template.db"
    with SqliteStore(path) as store:
        for run in ("run-1", "run-2"):
            begin(store, run)
            drafts = [draft(n, run) for n in range(1, ROWS // 2 + 1)]
            store.append(drafts[:5])
            store.append(drafts[5:])
            finish(store, run)
    return path


# Text SQLite can bind (no lone surrogates; bytes that are not UTF-8 have a test of
# their own in test_gap_audit.py).
_chars = st.characters(blacklist_categories=("Cs",))
_edits = st.one_of(
    st.tuples(st.just("body"), st.integers(1, ROWS), st.integers(0), _chars),
    st.tuples(
        st.just("column"),
        st.integers(1, ROWS),
        st.sampled_from(_COLUMNS),
        st.one_of(st.text(_chars, max_size=70), st.floats(allow_nan=False), st.none()),
    ),
    st.tuples(st.just("delete"), st.integers(1, ROWS)),
    st.tuples(st.just("swap"), st.integers(1, ROWS), st.integers(1, ROWS)),
    st.tuples(st.just("copy"), st.integers(1, ROWS)),
)


def _apply(path: Path, edit: tuple[Any, ...]) -> bool:
    """Makes the edit; ``False`` when it would change nothing (no tampering to find)."""
    conn = sqlite3.connect(path)
    try:
        kind, seq = edit[0], edit[1]
        if kind == "body":
            (body,) = conn.execute("SELECT body FROM rows WHERE seq = ?", (seq,)).fetchone()
            at = edit[2] % len(body)
            changed = body[:at] + edit[3] + body[at + 1 :]
            if changed == body:
                return False
            tamper(path, ("UPDATE rows SET body = ? WHERE seq = ?", (changed, seq)))
        elif kind == "column":
            name, value = edit[2], edit[3]
            (old,) = conn.execute(f"SELECT {name} FROM rows WHERE seq = ?", (seq,)).fetchone()
            if value == old or (value is None and name != "score"):
                return False  # NOT NULL columns refuse None; the same value is no edit
            tamper(path, (f"UPDATE rows SET {name} = ? WHERE seq = ?", (value, seq)))
        elif kind == "delete":
            tamper(path, ("DELETE FROM rows WHERE seq = ?", (seq,)))
        elif kind == "swap":
            other = edit[2]
            if other == seq:
                return False
            tamper(
                path,
                ("UPDATE rows SET seq = -1 WHERE seq = ?", (seq,)),
                ("UPDATE rows SET seq = ? WHERE seq = ?", (seq, other)),
                ("UPDATE rows SET seq = ? WHERE seq = -1", (other,)),
            )
        else:
            tamper(
                path,
                (
                    "INSERT INTO rows SELECT ? , row_id, run_id, case_id, claim_id, kind,"
                    " status, score, recorded_at, body, prev_hash, row_hash"
                    " FROM rows WHERE seq = ?",
                    (ROWS + 1, seq),
                ),
            )
        return True
    finally:
        conn.close()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit=_edits)
def test_any_single_edit_is_caught(edit: tuple[Any, ...]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        template = _template(Path(folder))
        with SqliteStore(template) as store:
            assert audit_store(store).ok
        path = Path(folder) / "tampered.db"
        shutil.copyfile(template, path)
        assume(_apply(path, edit))
        with SqliteStore(path) as store:
            report = audit_store(store)
    assert not report.ok, edit
    assert report.problems, edit
