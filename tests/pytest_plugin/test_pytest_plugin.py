"""The pytest plugin as a user meets it: `pytest contracts/` runs every contract x case.

Each test lays out a small project in pytester's directory and runs pytest on it; the
plugin is loaded through its ``pytest11`` entry point, as it is once installed.
"""

from __future__ import annotations

import shutil
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from tests.conftest import EXAMPLES, ROOT
from verifier import audit_store, open_store
from verifier.contract.load import check_contract
from verifier.pytest_plugin.messages import brief_evidence, item_name
from verifier.pytest_plugin.runs import worker_store

pytest_plugins = ["pytester"]

TINY = """\
contract: tiny
version: 1
threshold: 1.0
claims:
  - id: says_hello
    rubric: regex
    field: output
    pattern: hello
  - id: short
    rubric: length
    field: output
    max_words: 5
  - id: polite
    rubric: contains
    field: output
    values: [please]
    after: [says_hello]
"""

TINY_CASES = (
    '{"id": "good", "output": "hello please"}\n'
    '{"id": "rude", "output": "hello you"}\n'
    '{"id": "silent", "output": "bye"}\n'
    '{"id": "chatty", "output": "hello please, one two three four five"}\n'
)


@pytest.fixture(scope="module", autouse=True)
def _machinery_imported() -> None:
    # An in-process pytester run forgets the modules it imported; loading a contract
    # with a judge here first spares every run importing the judge SDK again.

    check_contract(EXAMPLES / "account-research.yaml")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # Judges replay recorded verdicts (no key, no network), as `verifier run` does.
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("CI", raising=False)


@pytest.fixture
def examples(pytester: pytest.Pytester) -> Path:
    """The committed examples under contracts/, collected through verifier_paths."""
    target = pytester.path / "contracts" / "examples"
    shutil.copytree(EXAMPLES, target)
    pytester.makeini("[pytest]\nverifier_paths = contracts\n")
    return target


@pytest.fixture
def tiny(pytester: pytest.Pytester) -> Path:
    """A three-claim contract with four cases: one passes, three fail differently."""
    contracts = pytester.mkdir("contracts")
    (contracts / "tiny.yaml").write_text(TINY, encoding="utf-8")
    (contracts / "tiny.cases.jsonl").write_text(TINY_CASES, encoding="utf-8")
    pytester.makeini("[pytest]\nverifier_paths = contracts\n")
    return contracts


def test_pyproject_registers_the_plugin_as_a_pytest11_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {"verifier": "verifier.pytest_plugin"}
    assert any(
        dep.startswith("pytest-xdist") for dep in project["project"]["optional-dependencies"]["dev"]
    )


def test_examples_collect_one_item_per_contract_and_case(
    pytester: pytest.Pytester, examples: Path
) -> None:
    result = pytester.runpytest("--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids[:2] == [
        "contracts/examples/account-research.yaml::account-research[acct-001]",
        "contracts/examples/account-research.yaml::account-research[acct-002]",
    ]
    assert len([i for i in ids if "account-research[" in i]) == 5
    # The contract id names the items, not the file name; a line without an id is line-N.
    assert "contracts/examples/data-extraction.yaml::org-extraction[line-7]" in ids
    assert len([i for i in ids if "org-extraction[" in i]) == 7
    # answer-comparison has no answer-comparison.cases.jsonl: one item, skipped.
    assert [i for i in ids if "answer-comparison" in i] == [
        "contracts/examples/answer-comparison.yaml::answer-comparison"
    ]
    # support-bot produces its outputs with its system under test.
    assert len([i for i in ids if "support-bot[" in i]) == 6
    # support-log reads a production log through its mapping: the line logged before
    # its `since` is no item; the others are named by their trace ids.
    assert [i for i in ids if "support-log[" in i] == [
        f"contracts/examples/support-log.yaml::support-log[tr-{n}]"
        for n in (1117, 1118, 1119, 1120, 1121)
    ]
    result.stdout.fnmatch_lines(["*24 tests collected*"])


def test_examples_run_through_the_runner_with_replayed_judges(
    pytester: pytest.Pytester, examples: Path
) -> None:
    result = pytester.runpytest("-rs")
    # account-research: acct-003 and acct-005 fail on purpose; data-extraction: four
    # cases fail their claims and line 7 is not valid JSON; support-bot's six answers,
    # produced by running the bot, pass; support-log: tr-1119 cites no section and
    # tr-1120's answer was logged under another key.
    result.assert_outcomes(passed=14, failed=9, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "note: ANTHROPIC_API_KEY is not set, so judges replay recorded verdicts",
            "4 runs stored in a temporary store, removed at exit *",
            "SKIPPED ?1? contracts/examples/answer-comparison.yaml: contract answer-comparison: "
            "no cases file (contracts/examples/answer-comparison.cases.jsonl is missing; *",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_failure_lists_failing_claims_with_reasons_and_evidence(
    pytester: pytest.Pytester, examples: Path
) -> None:
    result = pytester.runpytest("-k", "acct-005")
    result.assert_outcomes(failed=1, deselected=23)
    result.stdout.fnmatch_lines(
        [
            "*case acct-005 (contracts/examples/account-research.cases.jsonl:5) failed: "
            "score 0.182 is below the threshold 0.85 (2 of 10 claims passed)",
            "  FAIL    cites_sources (contracts/examples/account-research.yaml:23): "
            "pattern not found in output (47 chars)",
            '          evidence: {"path":"output","pattern":*',
            "  FAIL    industry_known (contracts/examples/account-research.yaml:68): "
            "fields.industry = 'devtools' is not one of *",
            # A judge claim, answered from the hand-written recordings, with its triple.
            "  FAIL    executive_tone (contracts/examples/account-research.yaml:*): "
            "A fragment with a placeholder*",
            "          evidence: judge example/hand-written, prompt 6597892fe8ab, sampling *",
            "  SKIPPED no_placeholder_text: skipped: waits for brief_length (fail) to pass",
            "gap rows: run * in a temporary store (--verifier-store PATH keeps them)",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_unusable_case_line_fails_naming_its_line(
    pytester: pytest.Pytester, examples: Path
) -> None:
    result = pytester.runpytest("-k", "line-7")
    result.assert_outcomes(failed=1, deselected=23)
    result.stdout.fnmatch_lines(
        [
            "case line-7 (contracts/examples/data-extraction.cases.jsonl:7) is unusable: "
            "line 7: invalid JSON: *; all 10 claims are errors"
        ]
    )


def test_k_selects_cases_and_contracts(pytester: pytest.Pytester, tiny: Path) -> None:
    result = pytester.runpytest("-k", "good or silent", "-v")
    result.assert_outcomes(passed=1, failed=1, deselected=2)
    assert "contracts/tiny.yaml::tiny[good] PASSED" in result.stdout.str()
    assert "contracts/tiny.yaml::tiny[silent] FAILED" in result.stdout.str()
    assert pytester.runpytest("-k", "tiny", "-m", "verifier").ret == pytest.ExitCode.TESTS_FAILED


def test_x_stops_at_the_first_failing_case(pytester: pytest.Pytester, tiny: Path) -> None:
    result = pytester.runpytest("-x")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])
    assert "FAILED contracts/tiny.yaml::tiny[rude]" in result.stdout.str()


def test_gates_and_scores_come_from_the_runner(pytester: pytest.Pytester, tiny: Path) -> None:
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*case silent (contracts/tiny.cases.jsonl:3) failed: score 0.333 is below the "
            "threshold 1 (1 of 3 claims passed)",
            "  FAIL    says_hello (contracts/tiny.yaml:5): pattern not found in output (3 chars)",
            "  SKIPPED polite: skipped: waits for says_hello (fail) to pass",
        ]
    )


def test_junitxml_has_one_testcase_per_case_with_the_reasons(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    pytester.runpytest("--junitxml=report.xml")
    suite = ET.parse(pytester.path / "report.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "3", "0")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {"tiny[good]", "tiny[rude]", "tiny[silent]", "tiny[chatty]"}
    assert cases["tiny[good]"].find("failure") is None
    failure = cases["tiny[chatty]"].find("failure")
    assert failure is not None
    assert "FAIL    short (contracts/tiny.yaml:9): output has 7 words" in (failure.text or "")


@pytest.mark.e2e
def test_xdist_workers_each_keep_their_own_store(
    pytester: pytest.Pytester, tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    # Three fresh interpreters: naming the two plugins spares each of them importing
    # every other installed plugin (the entry point itself is exercised above).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess(
        "-p",
        "xdist.plugin",
        "-p",
        "verifier.pytest_plugin",
        "-n",
        "2",
        "--verifier-store",
        "rows/gaps.db",
    )
    result.assert_outcomes(passed=1, failed=3)
    stores = sorted(p.name for p in (pytester.path / "rows").glob("gaps.gw*.db"))
    assert stores == ["gaps.gw0.db", "gaps.gw1.db"]
    checked: list[str] = []
    for name in stores:
        with open_store(str(pytester.path / "rows" / name)) as store:
            assert audit_store(store).ok
            runs = store.runs()
            assert all(run.status == "finished" for run in runs)
            checked += [row.case_id for row in store.iter_rows()]
    # Every case was checked exactly once, by one worker, three claims each.
    assert sorted(set(checked)) == ["chatty", "good", "rude", "silent"]
    assert len(checked) == 12


def test_store_option_keeps_an_auditable_run_per_contract_file(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    result = pytester.runpytest("--verifier-store", "gaps.db", "-k", "not chatty")
    result.assert_outcomes(passed=1, failed=2, deselected=1)
    result.stdout.fnmatch_lines(["1 run stored in *gaps.db: *"])
    with open_store(str(pytester.path / "gaps.db")) as store:
        assert audit_store(store).ok
        (run,) = store.runs()
        assert run.status == "finished"
        assert run.options["via"] == "pytest"
        assert run.summary["total_cases"] == 3
        assert {row.case_id for row in store.iter_rows()} == {"good", "rude", "silent"}


def test_a_contracts_record_block_applies_to_the_run_pytest_stores(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    record = "record: {content: none, redact: [output]}\nclaims:"
    (tiny / "tiny.yaml").write_text(TINY.replace("claims:", record), encoding="utf-8")
    result = pytester.runpytest("--verifier-store", "gaps.db")
    result.assert_outcomes(passed=1, failed=3)
    with open_store(str(pytester.path / "gaps.db")) as store:
        (run,) = store.runs()
        assert run.options["record"] == {"content": "none", "redact": ["output"], "max_bytes": None}
        assert list(store.iter_contents()) == []
        rows = list(store.iter_rows())
    assert rows and all('"content_sha256":null' in row.body for row in rows)
    assert not any("hello please" in row.body for row in rows)


def test_invalid_contract_is_one_collection_error_with_positions(
    pytester: pytest.Pytester,
) -> None:
    contracts = pytester.mkdir("contracts")
    (contracts / "broken.yaml").write_text(
        "contract: broken\nversion: 1\nclaims:\n  - id: a\n    rubric: enumm\n    field: output\n"
        "  - id: a\n    rubric: regex\n    field: output\n    pattern: '(x'\n",
        encoding="utf-8",
    )
    (contracts / "broken.cases.jsonl").write_text('{"id": "c1", "output": "x"}\n')
    pytester.makeini("[pytest]\nverifier_paths = contracts\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting contracts/broken.yaml*",
            "contracts/broken.yaml:5:13: claim 'a': unknown predicate 'enumm' (did you mean 'enum'?)*",
            "contracts/broken.yaml:7:9: duplicate claim id 'a' (first used on line 4)",
            "contracts/broken.yaml:10:14: claim 'a': pattern: invalid regex*",
            "contracts/broken.yaml: invalid contract (3 problems)",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "verifier/pytest_plugin/__init__.py" not in result.stdout.str()


def test_contract_without_cases_is_skipped_with_the_reason(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    (tiny / "tiny.cases.jsonl").unlink()
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED ?1? contracts/tiny.yaml: contract tiny: no cases file "
            "(contracts/tiny.cases.jsonl is missing; name one with verifier_cases or "
            "--verifier-cases CONTRACT=CASES)"
        ]
    )


def test_files_that_are_not_contracts_are_ignored(pytester: pytest.Pytester, tiny: Path) -> None:
    (tiny / "judges.yaml").write_text("judges:\n  strict: {provider: anthropic}\n")
    (tiny / "nested.yaml").write_text("meta:\n  contract: not-top-level\n")
    (tiny / "contract.schema.json").write_text('{"type": "object"}\n')
    result = pytester.runpytest("--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "contracts/tiny.yaml::tiny[good]",
        "contracts/tiny.yaml::tiny[rude]",
        "contracts/tiny.yaml::tiny[silent]",
        "contracts/tiny.yaml::tiny[chatty]",
    ]


def test_project_test_run_never_collects_contracts_outside_verifier_paths(
    pytester: pytest.Pytester,
) -> None:
    # The project's own layout: testpaths = tests, with broken contract fixtures under
    # tests/fixtures and real contracts under contracts/.
    fixtures = pytester.mkdir("tests") / "fixtures"
    fixtures.mkdir()
    (fixtures / "bad.yaml").write_text("contract: Bad_Id\nversion: 0\nclaims: []\n")
    (pytester.path / "tests" / "test_one.py").write_text("def test_one():\n    pass\n")
    shutil.copytree(EXAMPLES, pytester.path / "contracts" / "examples")
    pytester.makeini("[pytest]\ntestpaths = tests\nverifier_paths = contracts\n")
    pytester.runpytest().assert_outcomes(passed=1)
    # Naming tests/ explicitly still leaves its YAML alone ...
    pytester.runpytest("tests").assert_outcomes(passed=1)
    # ... unless --verifier asks for every contract pytest walks past.
    result = pytester.runpytest("tests", "--verifier")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting tests/fixtures/bad.yaml*"])


def test_a_contract_named_on_the_command_line_is_collected_without_configuration(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "tiny.yaml").write_text(TINY)
    (pytester.path / "tiny.cases.jsonl").write_text(TINY_CASES)
    pytester.runpytest("tiny.yaml").assert_outcomes(passed=1, failed=3)
    assert pytester.runpytest(".").ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_cases_can_be_named_by_ini_or_option_and_baselines_join_by_id(
    pytester: pytest.Pytester, examples: Path
) -> None:
    pytester.makeini(
        "[pytest]\nverifier_paths = contracts\nverifier_cases =\n"
        "    contracts/examples/answer-comparison.yaml = "
        "contracts/examples/answer-comparison.candidate.jsonl\n"
    )
    result = pytester.runpytest("-k", "answer-comparison", "-v")
    # The baseline beside the contract is joined: similarity and pairwise claims pass
    # for the cases whose baseline is close, fail for the one that is not.
    result.assert_outcomes(passed=3, failed=1, deselected=23)
    assert "answer-comparison[shipping-abroad] FAILED" in result.stdout.str()
    # By contract id on the command line: the candidate cases of data-extraction.
    result = pytester.runpytest(
        "-k",
        "org-extraction",
        "--verifier-cases",
        "org-extraction=contracts/examples/data-extraction.candidate.cases.jsonl",
        "--collect-only",
        "-q",
    )
    assert "org-extraction[line-7]" not in result.stdout.str()
    bad = pytester.runpytest("--verifier-cases", "no-equals-sign")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--verifier-cases: 'no-equals-sign' is not CONTRACT=CASES*"])


def test_configured_cases_file_that_is_missing_is_a_collection_error(
    pytester: pytest.Pytester, tiny: Path
) -> None:
    result = pytester.runpytest("--verifier-cases", "contracts/tiny.yaml=gone.jsonl")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "contracts/tiny.yaml: cases file gone.jsonl "
            "(named by verifier_cases or --verifier-cases) not found"
        ]
    )


def test_item_names_are_sanitised_and_unique() -> None:
    assert item_name("acct", "case 1/2::x[y]") == "acct[case_1_2__x_y_]"
    assert item_name("acct", "café") == "acct[caf_]"
    assert item_name("org.extraction-2", "a-1.b_c") == "org.extraction-2[a-1.b_c]"


def test_colliding_sanitised_ids_get_their_line(pytester: pytest.Pytester, tiny: Path) -> None:
    (tiny / "tiny.cases.jsonl").write_text(
        '{"id": "a b", "output": "hello please"}\n{"id": "a_b", "output": "hello please"}\n'
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)
    assert "tiny.yaml::tiny[a_b] PASSED" in result.stdout.str()
    assert "tiny.yaml::tiny[a_b-line2] PASSED" in result.stdout.str()


def test_brief_evidence_shows_a_judge_triple_or_short_json() -> None:
    triple = {"model_id": "m-1", "prompt_sha": "a" * 64, "sampling_sha": "b" * 64}
    assert brief_evidence({"judge": triple, "cache": "hit"}) == (
        "judge m-1, prompt aaaaaaaaaaaa, sampling bbbbbbbbbbbb (from cache)"
    )
    long = brief_evidence({"text": "x" * 500})
    assert len(long) == 160 and long.endswith("…")


def test_worker_store_names_one_file_per_worker() -> None:
    assert worker_store("rows/gaps.db", None) == "rows/gaps.db"
    assert worker_store("rows/gaps.db", "gw1") == "rows/gaps.gw1.db"
    assert worker_store("sqlite:///rows/gaps.db", "gw0") == "sqlite:///rows/gaps.gw0.db"
    assert worker_store("postgresql://u@h/db", "gw0") == "postgresql://u@h/db"


@pytest.fixture
def unconfigured_structlog() -> Iterator[None]:
    was_configured, saved = structlog.is_configured(), structlog.get_config()
    structlog.reset_defaults()
    yield
    if was_configured:
        structlog.configure(**saved)
    else:
        structlog.reset_defaults()


def test_log_lines_go_to_pytests_log_capture(
    pytester: pytest.Pytester, tiny: Path, unconfigured_structlog: None
) -> None:
    result = pytester.runpytest("-k", "rude", "--log-level=INFO")
    result.stdout.fnmatch_lines(
        [
            "*Captured log call*",
            "INFO     verifier.engine.runner:*run started run_id=* contract=tiny version=1",
        ]
    )
    # Nothing is printed outside pytest's capture, and the session leaves structlog as
    # it found it.
    assert "run finished" not in result.stdout.str()
    assert not structlog.is_configured()


def test_live_judges_without_a_key_stop_the_session_with_one_line(
    pytester: pytest.Pytester, examples: Path
) -> None:
    result = pytester.runpytest("--verifier-judges", "live")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = [line for line in result.outlines if "ANTHROPIC_API_KEY is not set" in line]
    assert len(said) == 1, result.outlines
    assert result.parseoutcomes().get("failed", 0) == 0
