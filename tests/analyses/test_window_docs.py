"""The production guide's rolling window in time and its alerts sent to a webhook run
as written, on a store of eight weekly samples."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.analyses._history import plant_run
from tests.analyses._webhook import serving
from tests.conftest import ROOT
from verifier.gaps.sqlite.store import SqliteStore

GUIDE = (ROOT / "docs" / "guides" / "production.md").read_text(encoding="utf-8")
MARK = "<!-- checked by: tests/analyses/test_window_docs.py -->\n"
RATES = [0.90, 0.92, 0.88, 0.91, 0.90, 0.89, 0.91, 0.70]
SUNDAYS = ["10-04", "10-11", "10-18", "10-25", "11-01", "11-08", "11-15", "11-22"]


def examples() -> list[tuple[list[str], list[str]]]:
    """Each checked ``sh`` block's commands and the lines of the ``text`` block after it."""
    found = []
    for part in GUIDE.split(MARK)[1:]:
        match = re.match(r"```sh\n(.*?)```\n\n```text\n(.*?)```", part, flags=re.S)
        assert match is not None, part[:200]
        found.append((match[1].splitlines(), match[2].splitlines()))
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".verifier").mkdir()
    with SqliteStore(tmp_path / ".verifier" / "gaps.db") as store:
        for n, (rate, day) in enumerate(zip(RATES, SUNDAYS, strict=True), start=1):
            plant_run(
                store,
                f"weekly-{n}",
                started_at=f"2026-{day}T02:00:00Z",
                passes={"cites_sources": (round(rate * 100), 100)},
                contract_id="account-research",
            )
    return tmp_path


def said(project: Path, commands: list[str], webhook: str) -> str:
    """What the commands print, stdout and stderr, ``$WEBHOOK`` being ``webhook``."""
    out = []
    for line in commands:
        words = shlex.split(line.replace("$WEBHOOK", webhook))
        env = {}
        while words[0] != "verifier":
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        result = verifier(*words[1:], cwd=project, env=env)
        assert result.returncode == 0, result.stderr
        out.append(result.stdout + result.stderr)
    return "".join(out)


def test_the_guide_has_the_window_and_notify_examples() -> None:
    assert [len(commands) for commands, _ in examples()] == [2, 2]


@pytest.mark.parametrize("n", [0, 1])
def test_each_example_prints_what_the_guide_shows(project: Path, n: int) -> None:
    commands, shown = examples()[n]
    with serving() as hook:
        output = said(project, commands, hook.base_url + "/services/T0/B0/secret")
    for line in shown:
        if line == "...":
            continue
        pattern = ".*".join(re.escape(piece) for piece in line.split("..."))
        assert re.search(pattern, output), f"{line!r} not in:\n{output}"
    if n == 1:  # the same audit twice: the alert is posted once
        (request,) = hook.requests
        assert [a["run_id"] for a in request["body"]["alerts"]] == ["weekly-8"]
        assert "secret" not in output
