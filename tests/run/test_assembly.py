"""The library entry point: a contract run from Python, read per case and claim."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from verifier.errors import CasesError
from verifier.gaps.store import open_store
from verifier.run.api import run_contract
from verifier.run.assembly import Judges

RESEARCH = EXAMPLES / "account-research.yaml"
RESEARCH_CASES = EXAMPLES / "account-research.cases.jsonl"


def _cases(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_plain_dict_cases_give_the_same_verdicts_as_the_cases_file(tmp_path: Path) -> None:
    store = str(tmp_path / "gaps.db")
    from_file = run_contract(RESEARCH, RESEARCH_CASES, store=store, judges=Judges(mode="replay"))
    from_dicts = run_contract(
        RESEARCH, _cases(RESEARCH_CASES), store=store, judges=Judges(mode="replay")
    )

    def verdicts(result: object) -> list[tuple[str, str, str]]:
        return [
            (case.case_id, claim.claim_id, claim.status)
            for case in result.cases  # type: ignore[attr-defined]
            for claim in case.results
        ]

    assert verdicts(from_dicts) == verdicts(from_file)
    assert from_file.run_id != from_dicts.run_id
    assert [c.case_id for c in from_dicts.cases] == [
        "acct-001",
        "acct-002",
        "acct-003",
        "acct-004",
        "acct-005",
    ]
    assert not from_dicts.passed
    assert from_dicts.summary.failed_cases == 2
    # Judge claims replayed from the recordings beside the contract, with their triple.
    verdict = from_dicts.case("acct-001").claim("gaps_acknowledged")
    assert verdict.kind == "judge" and verdict.status == "pass"
    assert verdict.evidence["judge"]["model_id"]


def test_every_result_is_a_stored_gap_row(tmp_path: Path) -> None:
    store = str(tmp_path / "gaps.db")
    result = run_contract(RESEARCH, RESEARCH_CASES, store=store, judges=Judges(mode="replay"))
    with open_store(store) as gaps:
        rows = list(gaps.iter_rows(result.run_id))
        run = gaps.run(result.run_id)
    claims = sum(len(case.results) for case in result.cases)
    assert len(rows) == claims == 5 * len(result.cases[0].results)
    assert run is not None and run.status == "finished"
    assert result.summary.head


def test_cases_without_usable_ids_become_error_results_not_exceptions(tmp_path: Path) -> None:
    result = run_contract(
        RESEARCH,
        [{"input": "no id"}, {"id": "a", "output": "x"}, {"id": "a", "output": "y"}],
        store=str(tmp_path / "gaps.db"),
        judges=Judges(mode="replay"),
    )
    reasons = [case.results[0].reason for case in result.cases]
    assert result.cases[0].line == 1
    assert 'no "id"' in reasons[0]
    assert reasons[2] == "case 3: duplicate case id 'a'"
    assert all(r.status == "error" for r in result.cases[2].results)


def test_without_recordings_replay_records_an_error_per_judge_verdict(tmp_path: Path) -> None:
    result = run_contract(
        RESEARCH,
        RESEARCH_CASES,
        store=str(tmp_path / "gaps.db"),
        judges=Judges(mode="replay", recordings_beside_contract=False),
    )
    verdict = result.case("acct-001").claim("gaps_acknowledged")
    assert verdict.status == "error"
    assert "no recorded verdict" in verdict.reason
    # Rubric claims of the same case are still checked.
    assert result.case("acct-001").claim("cites_sources").status == "pass"


def test_the_mode_note_reaches_the_caller_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    told: list[str] = []
    result = run_contract(
        RESEARCH, RESEARCH_CASES, store=str(tmp_path / "gaps.db"), note=told.append
    )
    assert result.mode == "replay"
    assert told == list(result.notes)
    assert told == ["ANTHROPIC_API_KEY is not set, so judges replay recorded verdicts"]


def test_the_contracts_own_system_under_test_produces_the_outputs(tmp_path: Path) -> None:
    result = run_contract(
        EXAMPLES / "support-bot.yaml",
        EXAMPLES / "support-bot.cases.jsonl",
        store=str(tmp_path / "gaps.db"),
    )
    first = result.cases[0]
    assert first.content is not None
    assert isinstance(first.content["output"], str) and first.content["output"]
    assert len(first.content["runs"]) == 3


def test_store_defaults_to_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "from-env.db"
    monkeypatch.setenv("VERIFIER_STORE", str(target))
    result = run_contract(RESEARCH, RESEARCH_CASES, judges=Judges(mode="replay"))
    with open_store(str(target)) as gaps:
        assert gaps.run(result.run_id) is not None


def _guide_example() -> str:
    guide = (Path(__file__).parents[2] / "docs" / "guides" / "pytest.md").read_text(
        encoding="utf-8"
    )
    section = guide.split("## The Python API", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.e2e
def test_the_guides_python_api_example_runs_as_written(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "contracts").symlink_to(EXAMPLES.parent, target_is_directory=True)
    (tmp_path / "example.py").write_text(_guide_example(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "VERIFIER_STORE"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[1:3] == ["failed", "head"]
    assert "acct-003 cites_sources: pattern not found in output (258 chars)" in lines
    assert lines[-1].startswith("pass {'model_id': 'example/hand-written', 'prompt_sha': '")
    # Nothing but the example's own prints reaches stdout (log events go to logging).
    assert "run started" not in done.stdout
    assert (tmp_path / ".verifier" / "gaps.db").is_file()


def test_the_package_is_marked_typed() -> None:
    import verifier

    assert (Path(verifier.__file__).parent / "py.typed").is_file()
    assert {"run_contract", "Judges", "Sut", "RunResult"} <= set(verifier.__all__)


@pytest.mark.parametrize("cases", [[], iter(())], ids=["list", "iterator"])
def test_no_cases_is_refused_and_nothing_is_stored(tmp_path: Path, cases: object) -> None:
    store = tmp_path / "gaps.db"
    with pytest.raises(CasesError, match=r"^no cases: the cases given are empty$"):
        run_contract(RESEARCH, cases, store=str(store), judges=Judges(mode="replay"))  # type: ignore[arg-type]
    assert not store.exists()


def test_an_empty_cases_file_is_refused_as_the_cli_refuses_it(tmp_path: Path) -> None:
    empty = tmp_path / "cases.jsonl"
    empty.write_text("\n", encoding="utf-8")
    store = tmp_path / "gaps.db"
    with pytest.raises(CasesError, match=r"cases\.jsonl: no cases \(empty file\)$"):
        run_contract(RESEARCH, empty, store=str(store), judges=Judges(mode="replay"))
    assert not store.exists()
