"""``verifier audit --recheck`` tells a stored error the store can answer now from a
stored verdict that differs, and says when a stored verdict rechecks to an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.conftest import FIXTURES
from tests.gaps._backends import SqliteBackend
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.recheck._support import rewrite_from, stored_rows

BRIEFS = FIXTURES / "judge_run"
KEY = "sk-ant-api03-recheck-answerable-0123456789"


def _run(folder: Path, contract: Path, *extra: str, server: MessagesServer | None = None) -> None:
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url} if server else {}
    done = verifier(
        "run",
        str(contract),
        "--cases",
        str(BRIEFS / "briefs.cases.jsonl"),
        "--store",
        str(folder / "gaps.db"),
        *extra,
        cwd=folder,
        env=env,
        clear_prefixes=("ANTHROPIC_", "CI"),
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr


def _keyless_then_recorded(folder: Path, contract: Path) -> None:
    """The usual first steps: a run without a key (every judge row a replay miss),
    then the same cases with ``--judges record`` against the stand-in API."""
    _run(folder, contract)
    with MessagesServer(default=brain) as server:
        _run(folder, contract, "--judges", "record", server=server)


@pytest.fixture
def briefs(tmp_path: Path) -> Path:
    contract = tmp_path / "briefs.yaml"
    shutil.copy(BRIEFS / "briefs.yaml", contract)
    return contract


def test_stored_replay_misses_answerable_now_are_listed_apart_and_the_recheck_passes(
    tmp_path: Path, briefs: Path
) -> None:
    _keyless_then_recorded(tmp_path, briefs)
    misses = [r for r in stored_rows(str(tmp_path / "gaps.db")) if r["status"] == "error"]
    assert len(misses) == 8 and all("replay: no recorded verdict" in r["reason"] for r in misses)

    done = verifier("audit", "--store", "gaps.db", "--recheck", cwd=tmp_path)

    assert done.returncode == 0, done.stdout
    lines = done.stdout.split("\n\n")[0].splitlines()  # the recheck, then the audit
    assert lines[0].endswith(
        "24 rows; 24 rechecked, 16 agree, 0 differ, 8 answerable now, 0 not recheckable"
    )
    assert "DIFFERS" not in done.stdout and "FAILED" not in done.stdout
    assert (
        "  8 stored error(s) are answerable now (the run had no answer, the store has one; "
        "not a difference):" in lines
    )
    first = next(line for line in lines if "ANSWERABLE" in line)
    assert first.startswith(f"    ANSWERABLE seq {misses[0]['seq']} run {misses[0]['run_id']} ")
    assert "stored error (no score), rechecked pass (score 1.0)" in first
    assert "(then: replay: no recorded verdict for claim" in first
    assert (
        lines[-1]
        == "ok: no stored verdict differs; 8 stored error(s) are answerable now (listed above)"
    )

    as_json = verifier("audit", "--store", "gaps.db", "--recheck", "--format", "json", cwd=tmp_path)
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and report["ok"] is True
    assert report["differ"] == 0 and report["answerable_now"] == 8 and report["now_error"] == 0
    assert [a["seq"] for a in report["answerable"]] == [r["seq"] for r in misses]

    md = verifier("audit", "--store", "gaps.db", "--recheck", "--format", "markdown", cwd=tmp_path)
    assert md.returncode == 0 and md.stdout.startswith("## ✅ verifier audit --recheck")
    assert "**8 stored error(s) are answerable now**" in md.stdout


def test_a_claim_skipped_behind_a_gate_that_errored_is_answerable_now_too(
    tmp_path: Path, briefs: Path
) -> None:
    text = briefs.read_text(encoding="utf-8").replace(
        "    instruction: Formal executive tone\n",
        "    instruction: Formal executive tone\n    after: [no_speculation]\n",
    )
    briefs.write_text(text, encoding="utf-8")
    _keyless_then_recorded(tmp_path, briefs)
    skipped = [
        r
        for r in stored_rows(str(tmp_path / "gaps.db"))
        if r["status"] == "skipped" and "no_speculation (error)" in r["reason"]
    ]
    assert skipped

    done = verifier("audit", "--store", "gaps.db", "--recheck", "--format", "json", cwd=tmp_path)

    report = json.loads(done.stdout)
    assert done.returncode == 0, report["differences"]
    assert report["differ"] == 0
    # b1's gate passes now, so its tone is judged; b2's gate fails now, still a skip.
    answered = {a["seq"]: a for a in report["answerable"] if a["stored"] == "skipped (no score)"}
    (b1,) = (r for r in skipped if r["case_id"] == "b1")
    assert answered[b1["seq"]]["rechecked"] == "pass (score 1.0)"


def test_a_stored_pass_that_rechecks_to_an_error_now_is_said_apart_and_fails_the_recheck(
    tmp_path: Path,
) -> None:
    contract = tmp_path / "codes.yaml"
    contract.write_text(
        "contract: codes\nversion: 1\nclaims:\n"
        "  - {id: code_is_a, rubric: equals, field: fields.code, value: A}\n"
        "  - {id: has_output, rubric: present, field: output}\n",
        encoding="utf-8",
    )
    cases = tmp_path / "codes.jsonl"
    # field_meta marks the code LLM-written: equality on it cannot be checked (an error).
    cases.write_text(
        json.dumps(
            {
                "id": "c1",
                "output": "x",
                "fields": {"code": "A"},
                "field_meta": {"code": {"source": "llm"}},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    store = tmp_path / "gaps.db"
    run = verifier("run", str(contract), "--cases", str(cases), "--store", str(store), cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    rows = stored_rows(str(store))
    victim = next(r for r in rows if r["status"] == "error")
    victim.update(status="pass", score=1.0, reason="forged")
    rewrite_from(SqliteBackend(store), rows, victim["seq"])

    done = verifier("audit", "--store", str(store), "--recheck", cwd=tmp_path)

    assert done.returncode == 1
    lines = done.stdout.split("\n\n")[0].splitlines()  # the recheck, then the audit
    assert lines[0].endswith("2 rechecked, 1 agree, 0 differ, 1 now error, 0 not recheckable")
    assert (
        "  1 stored verdict(s) recheck to an error now: the store no longer bears them out" in lines
    )
    assert any(
        line.startswith(f"    NOW ERROR seq {victim['seq']} ")
        and "stored pass (score 1.0), rechecked error (no score)" in line
        for line in lines
    ), done.stdout
    assert lines[-1] == "FAILED: 1 stored verdict(s) recheck to an error now"


def test_a_ratio_an_earlier_release_stored_rounded_agrees_with_its_exact_recheck() -> None:
    """Similarity scores were stored rounded to 6 decimals (ADR 0062): 1/3 as 0.333333
    is the same verdict, while a score stored at full precision must match exactly."""
    from verifier.recheck.engine import _differs
    from verifier.results import ClaimResult

    again = ClaimResult("same", "comparative", "pass", 1 / 3, "similar", {})
    assert _differs({"status": "pass", "score": 0.333333}, again, judged=False) is None
    assert _differs({"status": "pass", "score": 0.333334}, again, judged=False) == "score"
    assert _differs({"status": "pass", "score": 0.3333333}, again, judged=False) == "score"
