"""``verifier audit --recheck`` where what a row rests on was kept apart: a judge's
reply in the store's judge cache (written by a live run against the local Messages API
server through the real SDK), and a content its record policy redacted, cut or kept
as a hash only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.conftest import FIXTURES
from tests.gaps._backends import Backend
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.recheck._support import CASES, CONTRACT, recheck, stored_rows
from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.content import RecordPolicy
from verifier.gaps.store import open_store
from verifier.judge.setup import make_judge_phase
from verifier.llm.limits import CallLimits

BRIEFS = FIXTURES / "judge_run" / "briefs.yaml"
BRIEF_CASES = FIXTURES / "judge_run" / "briefs.cases.jsonl"


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=brain) as running:
        yield running


def judged_live(tmp_path: Path, store: str, server: MessagesServer) -> list[dict[str, object]]:
    """A live run of the briefs contract: its judge replies land in the store's cache."""
    key = {"ANTHROPIC_API_KEY": "sk-ant-api03-recheck-test-key"}
    done = verifier(
        "run",
        str(BRIEFS),
        "--cases",
        str(BRIEF_CASES),
        "--store",
        store,
        "--judges",
        "live",
        cwd=tmp_path,
        env={**key, "ANTHROPIC_BASE_URL": server.base_url},
    )
    assert done.returncode in (0, 1), done.stderr
    assert server.requests, "the run called no judge"
    return stored_rows(store)


def edit_cache(backend: Backend, old: str, new: str) -> None:
    """Rewrites one judge cache entry (the first, by key, that holds ``old``)."""
    backend.tamper(
        (
            "UPDATE judge_cache SET entry = REPLACE(entry, ?, ?) WHERE key ="
            " (SELECT MIN(key) FROM judge_cache WHERE entry LIKE ?)",
            (old, new, f"%{old}%"),
        )
    )


def test_judge_rows_recheck_from_the_store_cache_and_agree(
    tmp_path: Path, store_backend: Backend, server: MessagesServer
) -> None:
    rows = judged_live(tmp_path, store_backend.target, server)
    calls = len(server.requests)
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    assert report["agree"] == report["rows"] == len(rows)
    assert len(server.requests) == calls  # the re-check called no judge


def test_a_verdict_flipped_in_the_store_judge_cache_is_reported(
    tmp_path: Path, store_backend: Backend, server: MessagesServer
) -> None:
    judged_live(tmp_path, store_backend.target, server)
    edit_cache(store_backend, '"met":true', '"met":false')
    edit_cache(store_backend, '"pass":true', '"pass":false')
    code, report = recheck(store_backend.target, tmp_path)
    # The edited entry no longer matches its seal: it is not taken as a verdict (it
    # would say fail where the row says pass) but reported as tampered with.
    assert code == 1 and not report["ok"] and report["differ"] == 0
    assert report["tampered_cache_rows"] >= 1
    assert all("was edited after it was sealed" in t for t in report["tampered_cache"])


def test_a_served_model_changed_in_the_store_judge_cache_is_reported_as_tampered(
    tmp_path: Path, store_backend: Backend, server: MessagesServer
) -> None:
    rows = judged_live(tmp_path, store_backend.target, server)
    served = next(r["evidence"]["judge"]["model_id"] for r in rows if r["kind"] == "judge")
    edit_cache(store_backend, f'"served_model":"{served}"', '"served_model":"someone-else"')
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 1 and report["tampered_cache_rows"] >= 1


def run_with_policy(target: str, policy: RecordPolicy) -> list[dict[str, object]]:
    """The account-research example run through the runner with a record policy."""
    loaded = load_contract(CONTRACT)
    with open_store(target) as store:
        plan = build_plan(loaded)
        phase = make_judge_phase(
            loaded,
            plan=plan,
            mode="replay",
            store_path=target,
            recordings=CONTRACT.with_name("account-research.recordings.jsonl"),
            limits=CallLimits(),
            run_id="policy-run",
        )
        runner = Runner(
            loaded,
            store,
            plan=plan,
            model_phase=phase,
            options=RunOptions(run_id="policy-run", record=policy),
        )
        run_sync(runner, read_cases(CASES))
        phase.cache.store_cache.close()  # type: ignore[union-attr]
    return stored_rows(target)


def test_a_redacted_field_makes_the_claims_that_read_it_not_recheckable(
    tmp_path: Path, store_backend: Backend
) -> None:
    rows = run_with_policy(store_backend.target, RecordPolicy(redact=("fields.arr_usd",)))
    cases = [json.loads(line) for line in CASES.read_text().splitlines()]
    holding = sum(1 for case in cases if "arr_usd" in (case.get("fields") or {}))
    assert holding
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    withheld = report["not_recheckable_by_reason"]["content_withheld"]
    # summary_block reads fields, arr_plausible fields.arr_usd: both read the redacted value.
    assert withheld["rows"] == 2 * holding
    assert "reads fields.arr_usd (redacted)" in withheld["example"]
    assert report["agree"] == len(rows) - 2 * holding and report["differ"] == 0


def test_a_cut_output_makes_every_claim_that_reads_the_output_not_recheckable(
    tmp_path: Path, store_backend: Backend
) -> None:
    rows = run_with_policy(store_backend.target, RecordPolicy(max_bytes=40))
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    withheld = report["not_recheckable_by_reason"]["content_withheld"]
    assert "(cut)" in withheld["example"]
    # Every output is longer than 40 bytes; of the fields, only some next steps are.
    reading_output = [
        r for r in rows if r["claim_id"] not in {"industry_known", "arr_plausible", "summary_block"}
    ]
    cases = [json.loads(line) for line in CASES.read_text().splitlines()]
    long_fields = sum(1 for c in cases if len(c["fields"]["next_step"].encode()) > 40)
    assert 0 < long_fields < len(cases)
    assert withheld["rows"] == len(reading_output) + long_fields
    assert report["agree"] == len(rows) - withheld["rows"] and report["differ"] == 0


@pytest.mark.parametrize(
    ("mode", "why"), [("hashes", "content_hashes_only"), ("none", "content_not_recorded")]
)
def test_content_kept_as_hashes_only_or_not_at_all_is_not_recheckable(
    tmp_path: Path, store_backend: Backend, mode: str, why: str
) -> None:
    rows = run_with_policy(store_backend.target, RecordPolicy(content=mode))  # type: ignore[arg-type]
    code, report = recheck(store_backend.target, tmp_path)
    assert code == 0, report
    assert report["rechecked"] == 0 and report["not_recheckable"] == len(rows)
    assert report["not_recheckable_by_reason"][why]["rows"] == len(rows)
