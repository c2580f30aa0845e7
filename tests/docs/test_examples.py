"""Every example of the documentation is checked, or says why it cannot be.

The ``sh``, ``yaml``, ``json`` and ``python`` blocks of README.md and of every page
under docs/ (the tutorial aside: tests/docs/test_getting_started.py runs it word for
word) are checked here, one test per block, its id ``page.md:LINE``.

A block that cannot be checked says why on the line just before its fence, with an
HTML comment (it works whatever the block's language, and the site does not show it):
``<!-- illustrative: needs ANTHROPIC_API_KEY -->``. A block the page's later blocks
use as a file says where it goes: ``<!-- file: judges/support.md -->``; one that a
test of its own runs (it needs a project set up for it) names that test:
``<!-- checked by: tests/run/test_python_api_docs.py -->``. Each block
is checked in a fresh folder holding a copy of contracts/ and pyproject.toml (with
``.venv/bin`` this interpreter's), and the page's earlier ``file:`` blocks:

- ``sh``: run by bash after the page's earlier ``sh`` blocks (so a block may build on
  the one before it); each command must exit 0, or N when its line ends in
  ``# exits N``. A ``text`` block right after it shows what it prints: each of its
  lines must be printed (``...`` stands for any text; run ids, hashes, the width of
  rules and timings aside). Every ``sh`` block, illustrative too, names only real ``verifier``
  commands and options, and only importable modules after ``python -m``.
- ``yaml``: parses. A contract (``contract:``), a list of claims, or a part of a
  contract (``judges:``, ``sut:``, ``record:``...) is checked by ``check_contract``,
  a part inside a minimal contract; a prompt-eval settings file validates; a
  workflow step using the action passes only the action's inputs; a pre-commit config names only the repository's hooks.
- ``json``: parses (JSON Lines: each line); a request or response of the HTTP API or
  of ``verifier prompt-eval`` validates against its model.
- ``python``: ruff-clean under the project's settings, and runs (exit 0) as an ``sh``
  block does.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from tests.conftest import ROOT
from tests.docs._blocks import NOTE, Block, page_blocks

pytestmark = pytest.mark.e2e

TUTORIAL = ROOT / "docs" / "getting-started.md"
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p != TUTORIAL)]
LANGUAGES = ("sh", "yaml", "json", "python")
BLOCKS = [b for page in PAGES for b in page_blocks(page) if b.lang in LANGUAGES]
CHECKED = [b for b in BLOCKS if b.illustrative is None and b.checked_by is None]
MARKER = "@@@verifier-example"
VOLATILE = (
    (re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}"), "RUN"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "HASH"),
    # pytest's rules, as wide as the terminal, and its timings.
    (re.compile(r"([=_-])\1{2,}"), r"\1\1\1"),
    (re.compile(r"\bin \d+\.\d+s\b"), "in Ns"),
)


def _normal(text: str) -> str:
    for pattern, name in VOLATILE:
        text = pattern.sub(name, text)
    return text


def _page(block: Block) -> list[Block]:
    return [b for b in page_blocks(ROOT / block.page) if b.line < block.line]


def _folder(tmp_path: Path, block: Block) -> Path:
    """A fresh folder with the bundled contracts and the page's files before ``block``."""
    shutil.copytree(ROOT / "contracts", tmp_path / "contracts")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    if sys.prefix != sys.base_prefix:  # a virtual environment: .venv is it
        (tmp_path / ".venv").symlink_to(sys.prefix)
    else:
        (tmp_path / ".venv").mkdir()
        (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    for earlier in _page(block):
        if earlier.file is not None:
            target = tmp_path / earlier.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(earlier.body, encoding="utf-8")
    return tmp_path


# sh: commands, run one by one in one shell ------------------------------------------


def commands(body: str) -> Iterator[str]:
    """The block's commands: a line ending in ``\\``, ``|`` or ``&&`` continues."""
    current = ""
    for line in body.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line + "\n"
        if not re.search(r"(\\|\||&&)\s*$", line.split(" #")[0]) and _closed(current):
            yield current.rstrip("\n")
            current = ""
    if current:
        yield current.rstrip("\n")


def _closed(text: str) -> bool:
    """Whether every quote opened in ``text`` is closed."""
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def _expected_exit(command: str) -> int:
    found = re.search(r"#.*\bexits (\d+)\s*$", command)
    return int(found.group(1)) if found else 0


def _environment() -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "VERIFIER_", "GITHUB_")) and name != "CI"
    }
    return env | {
        "COLUMNS": "100",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
    }


def _run_commands(steps: list[str], where: Path) -> list[str]:
    """Runs ``steps`` in one shell in ``where``; returns what each printed."""
    script = "".join(f'{{ {command}\n}} 2>&1\necho "{MARKER} $?"\n' for command in steps)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=where,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    parts = re.split(rf"^{MARKER} (\d+)\n", done.stdout, flags=re.M)
    results = [(parts[i], int(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]
    assert len(results) == len(steps), f"the shell stopped early:\n{done.stdout}{done.stderr}"
    for command, (printed, status) in zip(steps, results, strict=True):
        assert status == _expected_exit(command), f"{command}\nexit {status}:\n{printed}"
    return [printed for printed, _ in results]


def _earlier_commands(block: Block) -> list[str]:
    return [
        command
        for earlier in _page(block)
        if earlier.lang == "sh" and earlier.illustrative is None
        for command in commands(earlier.body)
    ]


def _shown(block: Block) -> str | None:
    """The ```text block right after ``block``, if any: what its commands print."""
    blocks = page_blocks(ROOT / block.page)
    at = next(i for i, b in enumerate(blocks) if b.line == block.line)
    follows = blocks[at + 1] if at + 1 < len(blocks) else None
    return follows.body if follows is not None and follows.lang == "text" else None


def _line_pattern(line: str) -> re.Pattern[str]:
    """A shown line as a pattern: ``...`` stands for any text, any run of spaces for one."""
    parts = [r"\s+".join(map(re.escape, part.split())) for part in line.split("...")]
    return re.compile(r"\s*" + ".*?".join(parts) + r"\s*")


def _check_shown(shown: str, printed: str) -> None:
    """Each line shown (but a line of ``...``) is printed, run ids and hashes aside."""
    got = [_normal(line) for line in printed.splitlines()]
    for line in _normal(shown).splitlines():
        if line.strip() in ("", "..."):
            continue
        pattern = _line_pattern(line)
        assert any(pattern.fullmatch(g) for g in got), f"shown, not printed: {line}"


def check_sh(block: Block, folder: Path) -> None:
    earlier = _earlier_commands(block)
    printed = _run_commands([*earlier, *commands(block.body)], folder)
    shown = _shown(block)
    if shown is not None:
        _check_shown(shown, "".join(printed[len(earlier) :]))


def check_python(block: Block, folder: Path) -> None:
    script = folder / "docs_example.py"
    script.write_text(block.body, encoding="utf-8")
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(script)],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    _run_commands([*_earlier_commands(block), f"python {script.name}"], folder)


# yaml: parsed; contracts and their parts checked by the contract's own loader -------

BASE_CONTRACT: dict[str, Any] = {
    "contract": "docs-example",
    "version": 1,
    "judges": {"strict": {"provider": "anthropic", "model": "claude-haiku-4-5-20251001"}},
    "claims": [{"id": "docs_example_output", "rubric": "present", "field": "output"}],
}


def as_contract(data: Any) -> dict[str, Any] | None:
    """``data`` as a whole contract, when it is one or a part of one; None otherwise."""
    from verifier.contract.models import Contract

    if isinstance(data, list) and data and all(isinstance(c, dict) and "id" in c for c in data):
        return BASE_CONTRACT | {"claims": data}
    if isinstance(data, dict) and data and set(data) <= set(Contract.model_fields):
        judges = BASE_CONTRACT["judges"] | data.get("judges", {})
        return BASE_CONTRACT | data | {"judges": judges}
    return None


def _check_contract(data: dict[str, Any], block: Block, folder: Path) -> None:
    from verifier.contract.load import check_contract

    path = folder / (block.file or "docs-example.yaml")
    if block.file is None or "contract" not in data:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.body, encoding="utf-8")
    _, diagnostics = check_contract(path)
    errors = [str(d) for d in diagnostics if d.severity == "error"]
    assert errors == [], f"{block.id}: the contract is refused"


def _steps(data: Any) -> Iterator[dict[str, Any]]:
    if isinstance(data, list):
        for item in data:
            yield from _steps(item)
    elif isinstance(data, dict):
        if isinstance(data.get("uses"), str):
            yield data
        for value in data.values():
            yield from _steps(value)


def _check_workflow(data: Any) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    for step in _steps(data):
        if step["uses"].startswith("OWNER/verifier@"):
            assert set(step.get("with", {})) <= set(action["inputs"]), step


def _check_pre_commit(data: Any) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    ours = {hook["id"] for hook in hooks}
    for repo in data["repos"]:
        if repo["repo"].endswith("/verifier"):
            assert {hook["id"] for hook in repo["hooks"]} <= ours


def check_yaml(block: Block, folder: Path) -> None:
    data = yaml.safe_load(block.body)
    assert data is not None, "an empty block"
    if isinstance(data, dict) and "repos" in data:
        _check_pre_commit(data)
        return
    if isinstance(data, dict) and data and set(data) <= {"models", "optimization"}:
        from verifier.prompt_eval.settings import PromptEvalSettings

        PromptEvalSettings.model_validate(data)  # a prompt-eval settings file
        return
    contract = as_contract(data)
    if contract is not None:
        _check_contract(contract, block, folder)
    else:
        _check_workflow(data)


# json: parsed; payloads validated ----------------------------------------------------


def _model(data: Any) -> Any:
    """The model a JSON payload of the docs is an instance of, told by a key of its own."""
    from verifier.evaluate.request import EvaluationInput
    from verifier.prompt_eval.models import EvaluateRequest
    from verifier.server.models import EvaluationOutput

    if not isinstance(data, dict):
        return None
    if "agent_input" in data:
        return EvaluationInput
    if "training_examples" in data:
        return EvaluateRequest
    if {"score", "pass", "results"} <= set(data):
        return EvaluationOutput
    return None


def check_json(block: Block, folder: Path) -> None:
    try:
        values = [json.loads(block.body)]
    except json.JSONDecodeError:
        values = [json.loads(line) for line in block.body.splitlines() if line.strip()]
    for value in values:
        model = _model(value)
        if model is not None:
            model.model_validate(value)


CHECKS = {"sh": check_sh, "yaml": check_yaml, "json": check_json, "python": check_python}


@pytest.mark.parametrize("block", CHECKED, ids=[b.id for b in CHECKED])
def test_the_example_is_right(block: Block, tmp_path: Path) -> None:
    CHECKS[block.lang](block, _folder(tmp_path, block))


# Every sh block, illustrative or not: real commands, options and modules -------------

SH = [b for b in BLOCKS if b.lang == "sh"]


def _words(command: str) -> list[str]:
    return shlex.split(command.replace("\\\n", " "), comments=True)


def invocations(body: str) -> Iterator[list[str]]:
    """Each ``verifier ...`` invocation of a block, up to a pipe or ``&&``: its words.

    A line of a synopsis starting with ``[`` carries on the command above it."""
    lines: list[str] = []
    for line in body.splitlines():
        if lines and line.lstrip().startswith(("[", "(")):
            lines[-1] += " " + line.split("  #")[0]
        else:
            lines.append(line)
    for command in commands("\n".join(lines)):
        words = _words(command.replace("$(", " ").replace(")", " "))
        for at, word in enumerate(words):
            starts = all("=" in w for w in words[:at]) or words[at - 1] in ("|", "&&", ";")
            if starts and (word == "verifier" or word.endswith("/verifier")):
                rest = words[at + 1 :]
                end = next((i for i, w in enumerate(rest) if w in ("|", "&&", ";")), len(rest))
                yield rest[:end]


def _command(words: list[str]) -> tuple[click.Command, list[str]]:
    from verifier.cli import main

    command: click.Command = main
    with click.Context(main) as ctx:
        while isinstance(command, click.Group) and words and not words[0].startswith("-"):
            found = command.get_command(ctx, words[0])
            default = getattr(command, "default_command", None)
            if found is None and default is not None:
                found, words = command.get_command(ctx, default), ["", *words]
            assert found is not None, f"no command {words[0]!r}"
            command, words = found, words[1:]
    return command, words


def _options(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("-")
    } | {"--help", "-h"}


@pytest.mark.parametrize("block", SH, ids=[b.id for b in SH])
def test_the_commands_and_options_exist(block: Block) -> None:
    import importlib.util

    for words in invocations(block.body):
        command, rest = _command(words)
        options = {
            w.strip("[]()").split("=")[0].rstrip(".")
            for w in rest
            if w.lstrip("[(").startswith("-") and w != "-"
        }
        assert options <= _options(command), f"{command.name}: no {options - _options(command)}"
    for module in re.findall(r"python3? -m ([\w.]+)", block.body):
        assert importlib.util.find_spec(module) is not None, f"no module {module}"


def test_every_note_stands_before_a_block() -> None:
    """A note must be on the line just before a fence, and an illustrative one says why."""
    pages = [*PAGES, TUTORIAL]
    blocks = [b for page in pages for b in page_blocks(page)]
    noted = {(b.page, b.line) for b in blocks if b.illustrative or b.file or b.checked_by}
    for page in pages:
        name = page.relative_to(ROOT).as_posix()
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            if NOTE.match(line):
                assert (name, number + 1) in noted, f"{name}:{number}: a note without a block"
    reasons = [b.illustrative for b in blocks if b.illustrative is not None]
    assert all(len(reason.split()) >= 2 for reason in reasons), reasons
    # Most examples run: a page that loses them all is noticed.
    assert len(CHECKED) >= len(BLOCKS) // 2, f"only {len(CHECKED)} of {len(BLOCKS)} checked"


def test_a_block_checked_elsewhere_names_a_test_that_reads_its_page() -> None:
    elsewhere = [b for b in BLOCKS if b.checked_by is not None]
    for block in elsewhere:
        test = ROOT / block.checked_by  # type: ignore[operator]
        assert test.is_file(), f"{block.id}: no test {block.checked_by}"
        page = Path(block.page).name
        assert page in test.read_text(encoding="utf-8"), f"{block.checked_by} never reads {page}"
