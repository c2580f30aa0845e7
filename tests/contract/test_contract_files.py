"""Files a contract names stay inside its folder's tree, and a file outside it is never
quoted: `verifier check` and `run` refuse `../`, absolute and linked names that lead out
with one located line, unless `--allow-outside DIR` allows the directory."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from verifier.files import FileRefused, FileScope
from verifier.rubric._json_schema import load_schema
from verifier.server.contracts import resolve_contract

# Shaped to be quoted by each reader's own messages: a YAML key, a placeholder name,
# a JSON Schema type.
SECRET = "hunter2_db_password_7731"
HEAD = "contract: c\nversion: 1\n"
JUDGES = "judges:\n  j: {provider: replay, model: m-1, prompt: PROMPT}\n"
RUBRIC = "claims:\n  - {id: shaped, rubric: json_schema, field: output, schema_file: SCHEMA}\n"
JUDGED = "claims:\n  - {id: judged, judge: j, instruction: It is right}\n"
PROMPT_SUT = (
    "sut:\n  prompt: {provider: replay, model: m-1, template_file: TEMPLATE}\n"
    "claims:\n  - {id: said, rubric: regex, field: output, pattern: x}\n"
)
EXEC_SUT = (
    "sut:\n  exec: {command: [ls], cwd: CWD}\n"
    "claims:\n  - {id: said, rubric: regex, field: output, pattern: x}\n"
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``project/`` (where contracts go, with a link out) beside ``outside/`` (secrets)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(f"{SECRET}: 1\n{SECRET}: 2\n", encoding="utf-8")
    (outside / "secret.json").write_text(f'{{"type": "{SECRET}"}}', encoding="utf-8")
    (outside / "secret.md").write_text(f"Say {{{{{SECRET}}}}} to {{{{input}}}}", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.md").symlink_to(outside / "secret.md")
    return tmp_path


def contracts(tree: Path) -> dict[str, tuple[str, str]]:
    """Each way of naming a file outside, as a contract and how its refusal names it."""
    absolute = str(tree / "outside" / "secret.json")
    return {
        "relative schema": (
            HEAD + RUBRIC.replace("SCHEMA", "../outside/secret.yaml"),
            "schema_file '../",
        ),
        "absolute schema": (HEAD + RUBRIC.replace("SCHEMA", absolute), f"schema_file '{absolute}'"),
        "linked prompt": (HEAD + JUDGES.replace("PROMPT", "link.md") + JUDGED, "prompt 'link.md'"),
        "template": (
            HEAD + PROMPT_SUT.replace("TEMPLATE", "../outside/secret.md"),
            "template file '../",
        ),
        "cwd": (HEAD + EXEC_SUT.replace("CWD", "../outside"), "cwd '../outside'"),
    }


def write(tree: Path, text: str) -> Path:
    path = tree / "project" / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def said(result: subprocess.CompletedProcess[str]) -> str:
    assert_no_traceback(result)
    return result.stdout + result.stderr


@pytest.mark.parametrize(
    "way", ["relative schema", "absolute schema", "linked prompt", "template", "cwd"]
)
def test_check_refuses_a_file_outside_the_contract_folder_without_quoting_it(
    tree: Path, way: str
) -> None:
    text, named = contracts(tree)[way]
    path = write(tree, text)
    result = verifier("check", "--annotations", "github", str(path), cwd=tree / "project")
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    assert lines[0].startswith(f"{path}:")
    assert f"{named}" in lines[0] and "leads outside the contract's folder" in lines[0]
    assert "--allow-outside DIR" in lines[0]
    assert "::error file=" in result.stderr
    assert SECRET not in said(result)


@pytest.mark.parametrize("way", ["relative schema", "absolute schema", "linked prompt", "template"])
def test_an_allowed_directory_is_read_but_its_files_are_never_quoted(tree: Path, way: str) -> None:
    text, _ = contracts(tree)[way]
    path = write(tree, text)
    result = verifier(
        "check", "--allow-outside", "../outside", "--annotations", "github", str(path),
        cwd=tree / "project",
    )  # fmt: skip
    assert result.returncode == 2  # every secret file is also a broken one
    assert "not quoted: the file is outside the contract's folder" in result.stdout
    assert "leads outside" not in result.stdout
    assert SECRET not in said(result)


def test_an_allowed_directory_lets_a_contract_use_its_files(tree: Path) -> None:
    (tree / "outside" / "shape.json").write_text('{"type": "object"}', encoding="utf-8")
    path = write(tree, HEAD + RUBRIC.replace("SCHEMA", "../outside/shape.json"))
    refused = verifier("check", str(path), cwd=tree / "project")
    assert refused.returncode == 2
    allowed = verifier("check", "--allow-outside", str(tree / "outside"), str(path), cwd=tree)
    assert allowed.returncode == 0, said(allowed)
    cases = tree / "cases.jsonl"
    cases.write_text('{"id": "a", "output": {"k": 1}}\n', encoding="utf-8")
    store = str(tree / "gaps.db")
    run = ("run", str(path), "--cases", str(cases), "--store", store)
    assert verifier(*run, "--allow-outside", str(tree / "outside"), cwd=tree).returncode == 0


def test_run_refuses_a_contract_naming_a_file_outside_its_folder(tree: Path) -> None:
    text, _ = contracts(tree)["relative schema"]
    path = write(tree, text)
    cases = tree / "cases.jsonl"
    cases.write_text('{"id": "a", "output": "{}"}\n', encoding="utf-8")
    store = tree / "gaps.db"
    result = verifier(
        "run", str(path), "--cases", str(cases), "--store", str(store), cwd=tree / "project"
    )
    assert result.returncode == 2
    assert [line for line in result.stderr.splitlines() if "leads outside" in line] == [
        line for line in result.stderr.splitlines() if line.startswith(str(path))
    ]
    assert "schema_file '../outside/secret.yaml' leads outside" in result.stderr
    assert SECRET not in said(result)
    assert not store.exists()


def test_files_inside_the_folder_and_links_within_it_are_read(tree: Path) -> None:
    project = tree / "project"
    (project / "schemas").mkdir()
    (project / "schemas" / "shape.json").write_text('{"type": "object"}', encoding="utf-8")
    (project / "shape-link.json").symlink_to(project / "schemas" / "shape.json")
    scope = FileScope.of(project)
    assert load_schema(scope, "schemas/shape.json") == {"type": "object"}
    assert load_schema(project, "shape-link.json") == {"type": "object"}
    assert load_schema(project, "schemas/../shape-link.json") == {"type": "object"}
    with pytest.raises(FileRefused, match="leads outside"):
        load_schema(project, "schemas/../../outside/secret.json")


def test_a_stored_server_contract_may_name_files_anywhere_in_the_contracts_directory(
    tmp_path: Path,
) -> None:
    root = tmp_path / "contracts"
    (root / "teams" / "a").mkdir(parents=True)
    (root / "shared").mkdir()
    (root / "shared" / "shape.json").write_text('{"type": "object"}', encoding="utf-8")
    text = HEAD + RUBRIC.replace("SCHEMA", "../../shared/shape.json")
    (root / "teams" / "a" / "c.yaml").write_text(text, encoding="utf-8")
    resolved = resolve_contract("teams/a/c.yaml", root)
    assert resolved.loaded.contract.contract == "c"
