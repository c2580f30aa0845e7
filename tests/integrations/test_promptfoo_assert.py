"""The promptfoo python assertion, called with the context promptfoo 0.121 really passes."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import verifier.integrations.promptfoo_assert as promptfoo_assert
from tests.conftest import FIXTURES
from verifier.gaps.sqlite.store import SqliteStore
from verifier.integrations.promptfoo_assert import get_assert

PYTHON_ASSERT = FIXTURES / "promptfoo" / "python-assert"
CAPTURED = json.loads((PYTHON_ASSERT / "context-capital.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def in_fixture_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """promptfoo runs the assertion in its own working folder; contract paths are relative."""
    monkeypatch.chdir(PYTHON_ASSERT)
    monkeypatch.delenv("VERIFIER_STORE", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def context(output: str = "Paris", **config: Any) -> dict[str, Any]:
    """The captured context, for another output or assertion config."""
    ctx = copy.deepcopy(CAPTURED["context"])
    ctx["prompt"] = output
    ctx["vars"] = {"output": output}
    ctx["providerResponse"]["output"] = output
    ctx["config"] = {**ctx["config"], **config}
    return ctx


def test_captured_output_passes_every_claim() -> None:
    graded = get_assert(CAPTURED["output"], CAPTURED["context"])
    assert graded["pass"] is True and graded["score"] == 1.0
    assert graded["reason"] == "capital-answers v1: 2/2 claims passed"
    assert graded["namedScores"] == {"names_a_capital": 1.0, "short": 1.0}
    assert [c["assertion"]["metric"] for c in graded["componentResults"]] == [
        "names_a_capital",
        "short",
    ]


def test_failing_claim_fails_the_output_and_says_why() -> None:
    graded = get_assert("Lyon is lovely", context("Lyon is lovely"))
    assert graded["pass"] is False and graded["score"] == 0.5
    assert graded["reason"].startswith(
        "capital-answers v1: 1/2 claims passed; names_a_capital fail"
    )
    failing = graded["componentResults"][0]
    assert failing["pass"] is False and failing["score"] == 0.0


def test_rows_are_recorded_in_the_store(tmp_path: Path) -> None:
    target = tmp_path / "gaps.db"
    get_assert("Paris", context(store=str(target)))
    with SqliteStore(target) as store:
        [run] = store.runs()
        rows = list(store.iter_rows())
    assert run.contract_id == "capital-answers" and run.options["promptfoo"] == "python assertion"
    assert [(r.case_id, r.claim_id, r.status) for r in rows] == [
        ("capital", "names_a_capital", "pass"),
        ("capital", "short", "pass"),
    ]


def test_store_false_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "capital.yaml").write_bytes((PYTHON_ASSERT / "capital.yaml").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert get_assert("Paris", context())["pass"] is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["capital.yaml"]


def test_parse_json_lets_claims_address_fields(tmp_path: Path) -> None:
    contract = tmp_path / "fields.yaml"
    contract.write_text(
        "contract: fields\nversion: 1\nclaims:\n"
        "  - id: city\n    rubric: enum\n    field: output.city\n    values: [Paris]\n",
        encoding="utf-8",
    )
    text = '{"city": "Paris"}'
    assert get_assert(text, context(text, contract=str(contract), parse_json=True))["pass"]
    assert not get_assert(text, context(text, contract=str(contract)))["pass"]
    graded = get_assert("not json", context("not json", contract=str(contract), parse_json=True))
    assert graded["pass"] is False and "not JSON" in graded["reason"]


def test_a_judge_without_a_verdict_is_an_error_never_a_pass(tmp_path: Path) -> None:
    contract = tmp_path / "judged.yaml"
    contract.write_text(
        "contract: judged\nversion: 1\n"
        "judges:\n  strict:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "claims:\n  - id: polite\n    judge: strict\n    instruction: The answer is polite\n",
        encoding="utf-8",
    )
    graded = get_assert("Paris", context(contract=str(contract), judges="replay"))
    assert graded["pass"] is False and graded["score"] == 0.0
    [component] = graded["componentResults"]
    assert component["reason"].startswith("error: replay: no recorded verdict")


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"contract": None}, "config needs `contract: path/to/contract.yaml`"),
        ({"contract": "missing.yaml"}, "missing.yaml"),
        ({"colour": "blue"}, "unknown config key 'colour'"),
        ({"judges": "sometimes"}, "judges must be one of live, replay, record"),
        ({"store": 3}, "store must be a store target"),
    ],
)
def test_unusable_config_is_a_failure_with_the_reason(config: dict[str, Any], reason: str) -> None:
    graded = get_assert("Paris", context(**config))
    assert graded == {
        "pass": False,
        "score": 0,
        "reason": graded["reason"],
    } and graded["reason"].startswith("verifier could not grade: ")
    assert reason in graded["reason"] and "\n" not in graded["reason"]


def test_invalid_contract_is_a_failure(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("contract: Broken\nversion: 0\nclaims: []\n", encoding="utf-8")
    graded = get_assert("Paris", context(contract=str(broken)))
    assert graded["pass"] is False and "broken.yaml" in graded["reason"]


def test_loads_the_way_promptfoo_loads_a_script() -> None:
    """promptfoo's wrapper imports the file by path, without registering the module."""
    path = Path(promptfoo_assert.__file__)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.get_assert(CAPTURED["output"], CAPTURED["context"])["pass"] is True


@pytest.mark.e2e
def test_module_prints_its_own_path_for_promptfoo_configs() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "verifier.integrations.promptfoo_assert"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(printed) == Path(promptfoo_assert.__file__).resolve()


def test_real_run_output_matches_what_get_assert_returns() -> None:
    """The committed promptfoo run used this assertion; its results are what we return now."""
    run = json.loads((PYTHON_ASSERT / "out.json").read_text(encoding="utf-8"))
    for row in run["results"]["results"]:
        ours = row["gradingResult"]["componentResults"][0]
        output = row["response"]["output"]
        again = get_assert(output, context(output, store=False))
        assert (again["pass"], again["score"], again["reason"]) == (
            ours["pass"],
            ours["score"],
            ours["reason"],
        )
        assert again["componentResults"] == ours["componentResults"]


@pytest.mark.e2e
def test_a_fresh_interpreter_grading_prints_nothing(tmp_path: Path) -> None:
    """promptfoo calls the assertion in a Python of its own: no run log on its streams."""
    script = (
        "import json, sys\n"
        "from verifier.integrations.promptfoo_assert import get_assert\n"
        "ctx = json.loads(sys.argv[1])\n"
        "graded = get_assert('Paris', ctx)\n"
        "assert graded['pass'] is True, graded\n"
    )
    ctx = context(store=str(tmp_path / "gaps.db"))
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(ctx)],
        capture_output=True,
        text=True,
        check=False,
        cwd=PYTHON_ASSERT,
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    with SqliteStore(tmp_path / "gaps.db") as store:
        assert len(list(store.iter_rows())) == 2
