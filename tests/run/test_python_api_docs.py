"""The Python API's examples of resumed, sampled, sharded and gated runs (the guide's
"The Python API" and the README's "From Python") run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._cli import verifier as run_verifier
from tests.conftest import ROOT
from tests.run.test_run_contract import CONTRACT, StopAfter, write_project
from verifier import run_contract

GUIDE = (ROOT / "docs" / "guides" / "pytest.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def python_blocks(text: str, heading: str) -> list[str]:
    """The Python code blocks of the section under ``heading``, in order."""
    section = text.split(heading, 1)[1]
    section = re.split(r"^#{2,3} ", section, maxsplit=1, flags=re.M)[0]
    return re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)


SNIPPETS = python_blocks(GUIDE, "### Resumed, sampled, sharded and gated runs")


def lock(where: Path, contract: str, store: str, out: str) -> None:
    locked = run_verifier(
        "gate", "lock", contract, "--primary", "polite", "--threshold", "0.5", "--out", out,
        "--store", store, cwd=where,
    )  # fmt: skip
    assert locked.returncode == 0, locked.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VERIFIER_STORE", raising=False)
    write_project(tmp_path, 60)
    return tmp_path


def test_the_guide_has_a_resumed_sampled_gated_and_sharded_example() -> None:
    assert len(SNIPPETS) == 4
    assert "Resume(" in SNIPPETS[0] and "Sample(" in SNIPPETS[0]
    assert "gate=" in SNIPPETS[1] and "ShardPart(" in SNIPPETS[2]
    assert "finish_sharded_run(" in SNIPPETS[3]


def test_the_guides_resumed_sampled_and_gated_runs_run(project: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        run_contract("shop.yaml", "shop.cases.jsonl", chunk_size=5, sinks=[StopAfter(10)])
    lock(project, "shop.yaml", ".verifier/gaps.db", "gate.yaml")
    names: dict[str, object] = {}
    exec(SNIPPETS[0], names)
    resumed, sampled = names["resumed"], names["sampled"]
    assert resumed.summary.total_cases == 60 and resumed.summary.interrupted is False  # type: ignore[attr-defined]
    assert sampled.sample.seed == 7 and 0 < sampled.summary.total_cases < 60  # type: ignore[attr-defined]
    exec(SNIPPETS[1], names)
    assert names["gated"].gate.exit_code == 0  # type: ignore[attr-defined]


def test_the_guides_sharded_run_runs(
    project: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERIFIER_STORE", postgres_url)
    for index in range(1, 5):
        monkeypatch.setenv("SHARD_INDEX", str(index))
        names: dict[str, object] = {}
        exec(SNIPPETS[2], names)
    exec(SNIPPETS[3], names)
    assert names["summary"].total_cases == 60  # type: ignore[attr-defined]
    assert names["summary"].failed_cases == 20  # type: ignore[attr-defined]


def test_the_readmes_python_example_runs(project: Path) -> None:
    (block,) = python_blocks(README, "## From Python")
    evals = project / "evals"
    evals.mkdir()
    (evals / "support-answers.yaml").write_text(CONTRACT, encoding="utf-8")
    contract, cases = write_project(evals, 400)
    cases.rename(evals / "support-answers.cases.jsonl")
    contract.unlink()
    lock(project, "evals/support-answers.yaml", "evals/gaps.db", "evals/support-answers.gate.yaml")
    names: dict[str, object] = {}
    exec(block, names)
    result = names["result"]
    assert result.sample.seed == 11 and 0 < result.summary.total_cases < 400  # type: ignore[attr-defined]
    assert result.gate is not None  # type: ignore[attr-defined]
