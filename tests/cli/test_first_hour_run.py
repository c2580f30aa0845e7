"""The first hour with `verifier run`: no silent wrong answers.

Live judges ask the model (not the hand-written recordings beside the example), a
live run without its key stops before any case, empty or non-JSONL cases files and
mistyped stores are refused before anything is written, the cases default to
NAME.cases.jsonl, and `--judges off` / `--claims` narrow a run on purpose and say so.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_judge_run import verifier as judge_verifier
from verifier.contract.load import load_contract
from verifier.contract.selection import ClaimChoiceError
from verifier.engine.runner import RunOptions
from verifier.errors import CasesError
from verifier.gaps.store import open_store
from verifier.gaps.target import StoreFolderMissing
from verifier.run.api import run_contract
from verifier.run.assembly import Judges, JudgesUnavailable, assemble_run, check_run

HAND_WRITTEN = "example/hand-written"
JUDGED = ("gaps_acknowledged", "executive_tone")


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The account-research example (contract, cases, recordings) in a folder of its own."""
    folder = tmp_path / "contracts"
    folder.mkdir()
    for path in EXAMPLES.glob("account-research.*"):
        shutil.copy(path, folder / path.name)
    return folder / "account-research.yaml"


def run(tmp_path: Path, *args: str, key: bool = False, base_url: str | None = None):  # type: ignore[no-untyped-def]
    """``verifier run ARGS`` without an API key unless ``key``."""
    return judge_verifier(tmp_path, "run", *args, base_url=base_url, key=key)


def json_run(tmp_path: Path, *args: str, **kwargs: Any) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    out = tmp_path / "report.json"
    result = run(tmp_path, *args, "--format", "json", "--out", str(out), **kwargs)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(out.read_text(encoding="utf-8")), result.stderr


def judge_models(report: dict) -> set[str]:  # type: ignore[type-arg]
    return {
        r["evidence"]["judge"]["model_id"]
        for case in report["cases"]
        for r in case["results"]
        if r["id"] in JUDGED and r["status"] in ("pass", "fail")
    }


# 1. Live judges ask the model, not the recordings beside the contract.


def test_live_judges_call_the_model_instead_of_the_recordings_beside_the_contract(
    tmp_path: Path, example: Path
) -> None:
    store = str(tmp_path / "gaps.db")
    with MessagesServer(default=brain) as server:
        _, report, _ = json_run(
            tmp_path, str(example), "--judges", "live", "--store", store,
            key=True, base_url=server.base_url,
        )  # fmt: skip
        calls = len(server.model_calls())
        assert calls > 0
        assert HAND_WRITTEN not in judge_models(report)
        assert judge_models(report) == {"claude-haiku-4-5-20251001"}
        # The store's own cache still answers a rerun with nothing changed.
        _, again, _ = json_run(
            tmp_path, str(example), "--judges", "live", "--store", store,
            key=True, base_url=server.base_url,
        )  # fmt: skip
        assert len(server.model_calls()) == calls
        assert judge_models(again) == judge_models(report)


def test_live_judges_read_a_recordings_file_named_on_purpose(tmp_path: Path, example: Path) -> None:
    recordings = example.with_name("account-research.recordings.jsonl")
    with MessagesServer(default=brain) as server:
        _, report, _ = json_run(
            tmp_path, str(example), "--judges", "live", "--recordings", str(recordings),
            "--store", str(tmp_path / "gaps.db"), key=True, base_url=server.base_url,
        )  # fmt: skip
        assert server.model_calls() == []
    assert judge_models(report) == {HAND_WRITTEN}


def test_replay_without_a_key_still_reads_the_recordings_beside_the_contract(
    tmp_path: Path, example: Path
) -> None:
    _, report, stderr = json_run(tmp_path, str(example), "--store", str(tmp_path / "gaps.db"))
    assert "ANTHROPIC_API_KEY is not set, so judges replay" in stderr
    assert judge_models(report) == {HAND_WRITTEN}


def test_the_keyless_note_says_what_calls_the_model_and_following_it_does(
    tmp_path: Path, example: Path
) -> None:
    _, _, stderr = json_run(tmp_path, str(example), "--store", str(tmp_path / "gaps.db"))
    (note,) = [line for line in stderr.splitlines() if line.startswith("note:")]
    assert note == (
        "note: ANTHROPIC_API_KEY is not set, so judges replay recorded verdicts (set it to "
        "call the models: runs are then live, and --judges record also saves the replies "
        "for replay)"
    )
    # Done as it says: the key set and nothing else, the judges are called.
    with MessagesServer(default=brain) as server:
        _, report, stderr = json_run(
            tmp_path, str(example), "--store", str(tmp_path / "live.db"),
            key=True, base_url=server.base_url,
        )  # fmt: skip
        assert server.model_calls() and "note:" not in stderr
    assert judge_models(report) == {"claude-haiku-4-5-20251001"}


# 2. Live (or record) without the key stops before any case.


@pytest.mark.parametrize("mode", ["live", "record"])
def test_live_judges_without_a_key_stop_before_any_case(
    tmp_path: Path, example: Path, mode: str
) -> None:
    store = tmp_path / "gaps.db"
    result = run(tmp_path, str(example), "--judges", mode, "--store", str(store))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: judges run {mode}, but ANTHROPIC_API_KEY is not set")
    assert not store.exists()


def test_the_python_api_refuses_live_judges_without_a_key_before_writing(
    tmp_path: Path, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    store = tmp_path / "gaps.db"
    cases = example.with_name("account-research.cases.jsonl")
    with pytest.raises(JudgesUnavailable, match="ANTHROPIC_API_KEY is not set"):
        run_contract(example, cases, store=store, judges=Judges(mode="live"))
    assert not store.exists()


def test_evaluate_refuses_live_judges_without_a_key(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text(
        json.dumps(
            {
                "agent_input": "Brief on Acme.",
                "agent_output": "Acme renewed.",
                "assertions": [{"id": "a", "instruction": "Cite sources", "criteria": ["?"]}],
            }
        ),
        encoding="utf-8",
    )
    result = verifier(
        "evaluate", "e.json", "--provider", "anthropic", "--model", "claude-haiku-4-5-20251001",
        "--judges", "live", "--store", "g.db",
        cwd=tmp_path, clear_prefixes=("ANTHROPIC_",),
    )  # fmt: skip
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY is not set" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "g.db").exists()


# 3. A cases file with no case is refused before the run.


def test_an_empty_cases_file_is_one_line_and_nothing_stored(tmp_path: Path, example: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"\n  \n")
    result = run(tmp_path, str(example), "--cases", "empty.jsonl", "--store", "g.db")
    assert result.returncode == 2
    assert result.stdout == ""  # no "all 0 cases passed" panel
    assert result.stderr == "error: empty.jsonl: no cases (empty file)\n"
    assert not (tmp_path / "g.db").exists()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- id: a\n- id: b\n", "line 1: invalid JSON: "),
        ('[{"id": "a"}, {"id": "b"}]\n', "line 1: a case must be a JSON object, not an array"),
    ],
)
def test_a_file_where_no_line_is_a_case_is_not_jsonl(
    tmp_path: Path, example: Path, text: str, problem: str
) -> None:
    (tmp_path / "cases.txt").write_text(text, encoding="utf-8")
    result = run(tmp_path, str(example), "--cases", "cases.txt", "--store", "g.db")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: cases.txt: cases are JSONL (one JSON object per line) or a suite document "
        f'({{"test_suite", "version", "cases": [...]}}) ({problem}'
    )
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "g.db").exists()


def test_bad_lines_beside_good_ones_are_still_error_rows(tmp_path: Path, example: Path) -> None:
    good = example.with_name("account-research.cases.jsonl").read_text(encoding="utf-8")
    (tmp_path / "mixed.jsonl").write_text("not json\n" + good, encoding="utf-8")
    code, report, _ = json_run(
        tmp_path, str(example), "--cases", "mixed.jsonl", "--judges", "replay",
        "--store", str(tmp_path / "g.db"),
    )  # fmt: skip
    assert code == 1
    first = report["cases"][0]
    assert first["id"] == "line-1" and first["errors"] == first["total"]
    assert report["total_cases"] == 6


def test_the_python_api_refuses_an_empty_cases_file(tmp_path: Path, example: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    with pytest.raises(CasesError, match="no cases"):
        run_contract(example, tmp_path / "empty.jsonl", store=tmp_path / "g.db")
    assert not (tmp_path / "g.db").exists()


# 4. A store in a folder that does not exist is refused.


def test_a_store_in_a_missing_folder_is_refused(tmp_path: Path, example: Path) -> None:
    store = tmp_path / "typo" / "dir" / "x.db"
    result = run(tmp_path, str(example), "--store", str(store))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"error: {store}: the store's folder {store.parent} does not exist "
        "(create it, or pick another --store)"
    ]
    assert not (tmp_path / "typo").exists()
    with pytest.raises(StoreFolderMissing):
        run_contract(example, example.with_name("account-research.cases.jsonl"), store=store)
    assert not (tmp_path / "typo").exists()


def test_the_default_store_is_made_in_the_working_directory(tmp_path: Path, example: Path) -> None:
    result = run(tmp_path, str(example))
    assert result.returncode == 1, result.stderr
    assert (tmp_path / ".verifier" / "gaps.db").is_file()


# 5. The cases default to NAME.cases.jsonl beside the contract.


def test_cases_default_to_the_file_beside_the_contract(tmp_path: Path, example: Path) -> None:
    _, report, _ = json_run(tmp_path, str(example), "--store", str(tmp_path / "g.db"))
    assert report["total_cases"] == 5


def test_a_missing_default_cases_file_says_both_ways(tmp_path: Path, example: Path) -> None:
    example.with_name("account-research.cases.jsonl").unlink()
    result = run(tmp_path, str(example), "--store", "g.db")
    assert result.returncode == 2
    default = example.with_name("account-research.cases.jsonl")
    assert (
        result.stderr
        == f"error: no cases: give --cases FILE, or put them in {default} (the default)\n"
    )


# 6. --judges off and --claims.


def test_judges_off_skips_judged_claims_out_of_the_score(tmp_path: Path, example: Path) -> None:
    example.with_name("account-research.recordings.jsonl").unlink()  # none needed
    code, report, stderr = json_run(
        tmp_path, str(example), "--judges", "off", "--store", str(tmp_path / "g.db")
    )
    assert "judge claims not run: 2 (--judges off)" in stderr
    for claim in JUDGED:
        tally = report["assertion_breakdown"][claim]
        assert tally["skipped"] == 5 and tally["passed"] == tally["failed"] == tally["errors"] == 0
    case = next(c for c in report["cases"] if c["id"] == "acct-001")
    judged = [r for r in case["results"] if r["id"] in JUDGED]
    assert all(r["status"] == "skipped" and "--judges off" in r["reasoning"] for r in judged)
    # Every rubric claim of acct-001 passes: the skipped judge claims do not pull it down.
    assert case["score"] == 1.0 and case["pass"]
    assert code == 1  # other cases fail their rubric claims


def test_comparing_with_a_judges_off_run_says_so(tmp_path: Path, example: Path) -> None:
    store = str(tmp_path / "g.db")
    assert run(tmp_path, str(example), "--store", store).returncode == 1
    assert run(tmp_path, str(example), "--judges", "off", "--store", store).returncode == 1
    compared = verifier("compare", "last~1", "last", "--store", store, cwd=tmp_path)
    shown = compared.stdout + compared.stderr
    said = [line for line in shown.splitlines() if "--judges off" in line]
    assert len(said) == 1 and "count as not passed in whole cases" in said[0], shown
    again = verifier("compare", "last~1", "last~1", "--store", store, cwd=tmp_path)
    assert "--judges off" not in again.stdout + again.stderr


def test_judges_off_in_the_python_api(tmp_path: Path, example: Path) -> None:
    result = run_contract(
        example,
        example.with_name("account-research.cases.jsonl"),
        store=tmp_path / "g.db",
        judges=Judges(mode="off"),
    )
    assert result.mode == "off"
    assert result.skipped == JUDGED
    assert result.case("acct-001").score == 1.0
    assert result.case("acct-001").claim("executive_tone").status == "skipped"


def test_judges_off_with_only_judged_claims_is_refused(tmp_path: Path, example: Path) -> None:
    result = run(
        tmp_path, str(example), "--judges", "off", "--claims", "executive_tone", "--store", "g.db"
    )
    assert result.returncode == 2
    assert "--judges off leaves nothing to check" in result.stderr
    assert not (tmp_path / "g.db").exists()


def test_claims_runs_only_the_chosen_claims(tmp_path: Path, example: Path) -> None:
    store = tmp_path / "g.db"
    _, report, stderr = json_run(
        tmp_path, str(example), "--claims", "formal_tone, cites_sources", "--store", str(store)
    )
    assert "claims run: cites_sources, formal_tone (--claims)" in stderr
    assert set(report["assertion_breakdown"]) == {"cites_sources", "formal_tone"}
    with open_store(str(store)) as gaps:
        rows = list(gaps.iter_rows(report["run_id"]))
        recorded = gaps.run(report["run_id"])
    assert {row.claim_id for row in rows} == {"cites_sources", "formal_tone"}
    assert len(rows) == 10
    assert recorded is not None and recorded.options["claims"] == ["cites_sources", "formal_tone"]


def test_an_unknown_claim_names_the_closest_ids(tmp_path: Path, example: Path) -> None:
    result = run(tmp_path, str(example), "--claims", "cites_source", "--store", "g.db")
    assert result.returncode == 2
    assert result.stderr == (
        f"error: --claims: {example}: no claim 'cites_source' (did you mean 'cites_sources'?)\n"
    )
    assert not (tmp_path / "g.db").exists()


def test_a_chosen_claim_needs_its_gate(tmp_path: Path, example: Path) -> None:
    result = run(tmp_path, str(example), "--claims", "no_placeholder_text", "--store", "g.db")
    assert result.returncode == 2
    assert "claim 'no_placeholder_text' waits for 'brief_length'; add it to --claims" in (
        result.stderr
    )


def test_claims_in_the_python_api(tmp_path: Path, example: Path) -> None:
    cases = example.with_name("account-research.cases.jsonl")
    result = run_contract(
        example, cases, store=tmp_path / "g.db", claims=["cites_sources", "gaps_acknowledged"]
    )
    assert {r.claim_id for c in result.cases for r in c.results} == {
        "cites_sources",
        "gaps_acknowledged",
    }
    with pytest.raises(ClaimChoiceError, match=r"no claim 'tone' \(did you mean"):
        run_contract(example, cases, store=tmp_path / "g.db", claims=["tone"])


def test_a_run_is_resumed_with_the_claims_it_started_with(tmp_path: Path, example: Path) -> None:
    store = str(tmp_path / "g.db")
    loaded = check_run(load_contract(example), Judges(), claims=["cites_sources"])
    with open_store(store) as gaps:
        runner = assemble_run(
            loaded,
            gaps,
            target=store,
            options=RunOptions(options_record={"claims": ["cites_sources"]}),
        ).runner
        runner.begin()  # and never ended: an interrupted run
    resumed = run(tmp_path, str(example), "--resume", runner.run_id, "--store", store)
    assert resumed.returncode == 2
    assert resumed.stderr == (
        "error: the run being resumed checked other claims; resume it --claims cites_sources\n"
    )
    again = run(
        tmp_path, str(example), "--resume", runner.run_id, "--claims", "cites_sources",
        "--store", store,
    )  # fmt: skip
    assert again.returncode == 1, again.stderr
    assert "claims run: cites_sources (--claims)" in again.stderr


def test_a_run_with_judges_off_neither_alerts_nor_differs_in_the_audit(
    tmp_path: Path, example: Path
) -> None:
    for _ in range(3):
        assert run(tmp_path, str(example), "--store", "g.db").returncode == 1
    assert run(tmp_path, str(example), "--judges", "off", "--store", "g.db").returncode == 1
    audit = verifier("audit", "--store", "g.db", "--fail-on-alert", cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout
    assert "degradation alerts (window 5 runs): none" in audit.stdout
    recheck = verifier("audit", "--recheck", "--store", "g.db", cwd=tmp_path)
    assert recheck.returncode == 0, recheck.stdout
    assert "0 differ" in recheck.stdout
    assert "10 a judged claim the run skipped on purpose (--judges off)" in recheck.stdout


def test_a_live_prompt_system_without_its_key_stops_before_any_case(tmp_path: Path) -> None:
    (tmp_path / "bot.md").write_text("Answer: {{input}}\n", encoding="utf-8")
    (tmp_path / "bot.yaml").write_text(
        "contract: bot\nversion: 1\nllm_fields: [output]\n"
        "sut:\n  prompt:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "    template_file: bot.md\n    sampling: {max_tokens: 100}\n"
        "claims:\n  - id: answers\n    rubric: length\n    field: output\n    min_words: 1\n",
        encoding="utf-8",
    )
    (tmp_path / "bot.cases.jsonl").write_text('{"id": "q1", "input": "hi"}\n', encoding="utf-8")
    result = run(tmp_path, "bot.yaml", "--judges", "live", "--store", "g.db")
    assert result.returncode == 2
    assert result.stderr == (
        "error: the prompt system under test runs live, but ANTHROPIC_API_KEY is not set; "
        "set it, or replay its recorded outputs (--judges replay)\n"
    )
    assert not (tmp_path / "g.db").exists()
