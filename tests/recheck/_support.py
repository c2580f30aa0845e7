"""Running ``verifier audit --recheck`` and rewriting stored rows as an intruder would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._backends import Backend
from tests.gaps._support import forged
from verifier.gaps.store import open_store

CONTRACT = EXAMPLES / "account-research.yaml"
CASES = EXAMPLES / "account-research.cases.jsonl"


def run_example(store: str, cwd: Path, contract: Path = CONTRACT) -> None:
    """The account-research example (rubric and judge claims, judges replayed)."""
    # No key: the judges replay the recordings even where the environment has one.
    no_key = {"ANTHROPIC_API_KEY": ""}
    run = verifier(
        "run", str(contract), "--cases", str(CASES), "--store", store, cwd=cwd, env=no_key
    )
    assert run.returncode == 1, run.stderr


def copied_example(folder: Path) -> Path:
    """The example contract and its recordings, copied where a test may edit them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("account-research.yaml", "account-research.recordings.jsonl"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder / "account-research.yaml"


def recheck(store: str, cwd: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``verifier audit --recheck --format json``: its exit code and report."""
    done = verifier("audit", "--store", store, "--recheck", "--format", "json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout)


def stored_rows(target: str) -> list[dict[str, Any]]:
    """Every row of a store: its body, parsed, with its ``row_hash``."""
    with open_store(target) as store:
        return [
            {**json.loads(r.body), "row_hash": r.row_hash, "prev_hash": r.prev_hash}
            for r in store.iter_rows()
        ]


def rewrite_from(backend: Backend, rows: list[dict[str, Any]], seq: int) -> None:
    """Stores ``rows`` (edited from ``seq`` on) with every hash from there recomputed."""
    statements: list[tuple[str, tuple[Any, ...]]] = []
    prev = rows[seq - 2]["row_hash"] if seq > 1 else "0" * 64
    for row in rows[seq - 1 :]:
        row["prev_hash"] = prev
        body, row["row_hash"] = forged(row)
        prev = row["row_hash"]
        statements.append(
            (
                "UPDATE rows SET body = ?, prev_hash = ?, row_hash = ?, status = ?, score = ?"
                " WHERE seq = ?",
                (body, row["prev_hash"], row["row_hash"], row["status"], row["score"], row["seq"]),
            )
        )
    backend.tamper(*statements)


def flip(
    backend: Backend, cwd: Path, kind: str, status: str, edit: dict[str, Any]
) -> dict[str, Any]:
    """Runs the example into ``backend`` and rewrites its first ``kind`` row of
    ``status`` with ``edit`` (hashes recomputed); returns that row as rewritten."""
    run_example(backend.target, cwd)
    rows = stored_rows(backend.target)
    victim = next(r for r in rows if r["kind"] == kind and r["status"] == status)
    victim.update(edit)
    rewrite_from(backend, rows, victim["seq"])
    return victim


def edit_content(backend: Backend, sha: str, old: str, new: str) -> None:
    """Edits a stored content as an intruder would: its no-update trigger dropped first."""
    drop = "DROP TRIGGER IF EXISTS contents_no_update"
    if backend.name == "postgres":
        drop += " ON contents"
    edit = "UPDATE contents SET body = REPLACE(body, ?, ?) WHERE sha256 = ?"
    backend.tamper(drop, (edit, (old, new, sha)))
