"""A run that records no case text (`content: hashes` or `none`), or that redacts every
field, leaves none anywhere: a canary in every field of the cases is checked by every
rubric predicate family, a judge (binary and scale) and both kinds of comparison, then
looked for in the raw store files (the SQLite file and its write-ahead log, or every
table of a PostgreSQL store), the export, `show`, the reports written from the store,
the run's own reports and its debug log. The rows still keep what a reviewer needs
without the text (positions and lengths), and the audit still passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.gaps._backends import Backend
from tests.gaps.test_redaction import quoting_judge
from tests.judge.messages_server import MessagesServer
from verifier.gaps.store import open_store

pytestmark = pytest.mark.e2e

HERE = FIXTURES / "privacy"
CANARY = b"CANARY-q7Zx"
REDACT_ALL = "  redact: [input, output, fields, field_meta, expected, run, baseline]\n"


def contract_recording(tmp_path: Path, record: str) -> Path:
    source = (HERE / "canary.yaml").read_text(encoding="utf-8")
    head, _, _ = source.partition("record:\n")
    path = tmp_path / "canary.yaml"
    path.write_text(head + "record:\n" + record, encoding="utf-8")
    return path


def verifier(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    """Runs the CLI and returns everything it wrote (stdout and the log on stderr)."""
    result = subprocess.run(
        [sys.executable, "-m", "verifier", "--log-level", "debug", *args],
        cwd=tmp_path, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    assert b"Traceback" not in result.stderr, result.stderr.decode()
    assert result.returncode in (0, 1), result.stderr.decode()
    return result.stdout + result.stderr


def store_dump(backend: Backend) -> bytes:
    """The bytes of the store as an intruder with the disk (or a dump) would read them."""
    if backend.name == "sqlite":
        db = Path(backend.target)
        return b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))
    tables = backend.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    )
    dumped = [repr(backend.query(f"SELECT * FROM {name}")) for (name,) in tables]
    return "\n".join(dumped).encode()


def run_everything(tmp_path: Path, backend: Backend, record: str) -> tuple[bytes, list[dict]]:
    """A live run of the canary contract, then every way of reading it back: what they
    all wrote, and the run's rows."""
    contract = contract_recording(tmp_path, record)
    store = backend.target
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CI"))}
    outputs: list[bytes] = []
    with MessagesServer(default=quoting_judge) as server:
        env.update(ANTHROPIC_API_KEY="sk-ant-api03-canary-test", ANTHROPIC_BASE_URL=server.base_url)
        cases = ("--cases", str(HERE / "canary.cases.jsonl"))
        baseline = ("--baseline", str(HERE / "canary.baseline.jsonl"))
        for fmt in ("json", "markdown", "console"):
            run = ("run", str(contract), *cases, *baseline, "--store", store, "--format", fmt)
            outputs.append(verifier(tmp_path, *run, "--judges", "live", env=env))
        # The judge read (and quoted) the canary: what is kept is the question.
        assert any(CANARY in json.dumps(r.body).encode() for r in server.requests if r.body)
    with open_store(store) as gap_store:
        runs = [r.run_id for r in gap_store.recent_runs(limit=10)]
        run_id = runs[0]
        rows = [json.loads(r.body) for r in gap_store.iter_rows(run_id)]
    export = tmp_path / "export.jsonl"
    html = tmp_path / "report.html"
    outputs += [
        verifier(tmp_path, "export", "--store", store, "--out", str(export)),
        export.read_bytes(),
        verifier(tmp_path, "show", run_id, "c1", "--store", store),
        verifier(tmp_path, "show", run_id, "c1", "--store", store, "--format", "json"),
        verifier(tmp_path, "report", run_id, "--store", store, "--html", str(html)),
        html.read_bytes(),
        verifier(tmp_path, "compare", runs[1], run_id, "--store", store, "--format", "markdown"),
        verifier(tmp_path, "compare", runs[1], run_id, "--store", store, "--format", "json"),
        verifier(tmp_path, "audit", "--store", store, "--format", "json"),
        verifier(tmp_path, "audit", "--store", store, "--recheck", "--format", "markdown"),
        store_dump(backend),
    ]
    return b"\n".join(outputs), rows


@pytest.mark.parametrize("mode", ["none", "hashes"])
def test_a_run_recording_no_content_keeps_no_case_text_anywhere(
    tmp_path: Path, store_backend: Backend, mode: str
) -> None:
    everything, rows = run_everything(tmp_path, store_backend, f"  content: {mode}\n")
    assert CANARY not in everything
    by_claim = {r["claim_id"]: r for r in rows if r["case_id"] == "c1"}
    # What matched is kept as where and how long, never as text.
    whole = by_claim["whole_output"]["evidence"]
    assert whole["span"] == {"withheld": "case text", "length": 81}
    assert (whole["start"], whole["end"]) == (0, 95)
    short = by_claim["short_match"]["evidence"]["span"]
    assert short == {"withheld": "case text", "length": 3}
    # The contract's own words stay: a banned value found, a path, the allowed values.
    assert by_claim["no_diagnosis"]["evidence"]["found"] == [
        {"start": 56, "end": 59, "value": "hiv"}
    ]
    industry = by_claim["industry_known"]
    assert industry["evidence"]["allowed"] == ["saas", "fintech"]
    assert industry["reason"] == "fields.industry = '[withheld]' is not one of ['saas', 'fintech']"
    # A judge's reasoning is model text about the case: its length is all that is kept,
    # its verdict, score and triple stay whole.
    tone = by_claim["formal_tone"]
    assert tone["evidence"]["verdict"]["verdict"]["reasoning"]["withheld"] == "case text"
    assert tone["evidence"]["verdict"]["verdict"]["score"] == 2
    assert set(tone["evidence"]["judge"]) == {"model_id", "prompt_sha", "sampling_sha"}
    assert "does not record (content: " in tone["reason"]


def test_redacting_every_field_keeps_no_case_text_anywhere(
    tmp_path: Path, store_backend: Backend
) -> None:
    everything, rows = run_everything(tmp_path, store_backend, REDACT_ALL)
    assert CANARY not in everything
    assert {r["status"] for r in rows if r["kind"] == "judge"} <= {"pass", "fail", "skipped"}
