"""A command imports what it uses: the guard of start-up time that does not time anything.

Each test runs one command in a fresh interpreter and looks at the modules it left
loaded. A module that became an eager import again (an SDK, structlog, scipy, jinja2)
fails here, whatever the machine's speed; ``bench/startup.py`` measures the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, FIXTURES, ROOT
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer

pytestmark = pytest.mark.e2e

# Runs the console script's function, then writes the names of the loaded modules.
_PROBE = """\
import json, sys
from verifier.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(sorted(sys.modules), out)
"""

# Costly to import and needed by none of the commands below, unless said otherwise.
HEAVY = ("anthropic", "openai", "httpx", "structlog", "rich", "scipy", "numpy", "jinja2")


def loaded_by(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    """The top-level packages loaded by ``verifier ARGS`` run in a fresh interpreter."""
    return {name.partition(".")[0] for name in modules_loaded_by(tmp_path, *args, env=env)}


def modules_loaded_by(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    """Every module (dotted name) loaded by ``verifier ARGS`` run in a fresh interpreter."""
    listing = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(listing), *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return set(json.loads(listing.read_text(encoding="utf-8")))


def test_help_loads_no_heavy_package_nor_the_contract_models(tmp_path: Path) -> None:
    loaded = loaded_by(tmp_path, "--help")
    assert "verifier" in loaded
    assert loaded.isdisjoint({*HEAVY, "pydantic", "yaml"}), loaded & {*HEAVY, "pydantic", "yaml"}


def test_check_of_a_rubric_contract_loads_no_sdk_logging_or_statistics(tmp_path: Path) -> None:
    loaded = loaded_by(tmp_path, "check", str(EXAMPLES / "data-extraction.yaml"))
    assert "pydantic" in loaded  # the contract was validated
    assert loaded.isdisjoint({*HEAVY, "sqlite3"}), loaded & {*HEAVY, "sqlite3"}


def test_check_builds_no_gap_row_and_loads_no_predicate_library_it_does_not_run(
    tmp_path: Path,
) -> None:
    # A predicate's library is the evaluation's (prepared for a run), the gap row's
    # model is the store's: validating and linting a contract needs neither (ADR 0050).
    modules = modules_loaded_by(tmp_path, "check", str(EXAMPLES / "data-extraction.yaml"))
    assert "verifier.contract.models" in modules
    unused = {"rapidfuzz", "verifier.gaps.row", "verifier.results"}
    assert modules.isdisjoint(unused), modules & unused


# One claim comparing texts, the one kind of claim that needs rapidfuzz at all.
FUZZY = (
    "contract: fuzzy\nversion: 1\nclaims:\n"
    "  - {id: near, rubric: similar, field: output, reference: hello there}\n",
    '{"id": "c1", "output": "hello there!"}\n',
)


def test_a_run_loads_rapidfuzz_for_a_claim_that_compares_texts(tmp_path: Path) -> None:
    (tmp_path / "fuzzy.yaml").write_text(FUZZY[0], encoding="utf-8")
    (tmp_path / "fuzzy.jsonl").write_text(FUZZY[1], encoding="utf-8")
    args = ("run", "fuzzy.yaml", "--cases", "fuzzy.jsonl", "--store", "gaps.db")
    assert "rapidfuzz" in loaded_by(tmp_path, *args)


def test_a_rubric_run_loads_no_sdk_statistics_nor_structlog(tmp_path: Path) -> None:
    modules = modules_loaded_by(
        tmp_path,
        "run",
        str(EXAMPLES / "data-extraction.yaml"),
        "--cases",
        str(EXAMPLES / "data-extraction.cases.jsonl"),
        "--store",
        str(tmp_path / "gaps.db"),
    )
    assert (tmp_path / "gaps.db").exists()
    loaded = {name.partition(".")[0] for name in modules}
    unused = set(HEAVY) - {"rich"}  # rich draws the report
    unused.add("rapidfuzz")  # its citation claim takes exact spans only
    assert loaded.isdisjoint(unused), loaded & unused
    # Neither --gate nor --shard: the gate's statistics and a sharded run's end wait.
    waiting = {"verifier.compare.gate", "verifier.ci.sharded_runs"}
    assert modules.isdisjoint(waiting), modules & waiting


def test_a_judge_run_calls_anthropic_without_its_sdk(tmp_path: Path) -> None:
    # The Messages client speaks the API over httpx2 (ADR 0049): the SDK, a second of
    # CPU to import, is for batches only.
    with MessagesServer(default=brain) as server:
        loaded = loaded_by(
            tmp_path,
            "run",
            str(FIXTURES / "judge_run" / "briefs.yaml"),
            "--cases",
            str(FIXTURES / "judge_run" / "briefs.cases.jsonl"),
            "--store",
            str(tmp_path / "gaps.db"),
            env={"ANTHROPIC_API_KEY": "sk-ant-startup-test", "ANTHROPIC_BASE_URL": server.base_url},
        )
        assert server.model_calls()  # the judge was called
    assert "httpx2" in loaded
    unused = {"anthropic", "openai", "scipy", "numpy", "jinja2"}
    assert loaded.isdisjoint(unused), loaded & unused


def test_a_contract_loads_only_the_predicate_families_it_names(tmp_path: Path) -> None:
    # The registry imports a family when one of its predicates is asked for, so the
    # re2 and jsonschema_rs bindings wait for a regex or a JSON Schema claim.
    (tmp_path / "judge.yaml").write_text(
        "contract: polite\nversion: 1\njudges:\n"
        "  j: {provider: anthropic, model: claude-haiku-4-5-20251001}\n"
        "claims:\n  - {id: polite, judge: j, instruction: The output is polite}\n",
        encoding="utf-8",
    )
    judge = modules_loaded_by(tmp_path, "check", "judge.yaml")
    families = {name for name in judge if name.startswith("verifier.rubric._")}
    assert families <= {
        "verifier.rubric._base",
        "verifier.rubric._registry",
        "verifier.rubric._scales",
    }
    assert judge.isdisjoint({"re2", "jsonschema_rs"}), judge & {"re2", "jsonschema_rs"}

    rubric = modules_loaded_by(tmp_path, "check", str(EXAMPLES / "data-extraction.yaml"))
    assert {"verifier.rubric._regex", "verifier.rubric._json_schema", "re2"} <= rubric
    assert "verifier.rubric._combinators" not in rubric  # it names no all, any or not
