"""A store holding verdicts of two judges, made by `verifier run` and `verifier calibrate`.

- ``account-research/strict``: the bundled example, replayed from its recordings twice
  (served model ``example/hand-written``; binary and scale claims, so two triples).
- ``support-replies/strict``: the calibrate fixture with its judge pinned to
  ``claude-sonnet-4-5-20250929``, judged live by the rule-based brain behind the fake
  Messages server (which serves the model asked for), then calibrated on its labels.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests._cli import verifier as run_verifier
from tests.conftest import FIXTURES
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "contracts" / "examples" / "account-research.yaml"
RETIRING = "claude-sonnet-4-5-20250929"
CALIBRATE = FIXTURES / "calibrate"
KEY = "sk-ant-api03-judges-test-key-0123456789"


def verifier(
    where: Path, *args: str, base_url: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``verifier ARGS`` in ``where``, with an API key only when a server is given."""
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": base_url} if base_url else {}
    return run_verifier(*args, cwd=where, env=env, clear_prefixes=("ANTHROPIC_", "CI"), timeout=120)


def judged_store(where: Path) -> Path:
    """Makes ``where/gaps.db`` as the module's docstring says; returns its path."""
    store = where / "gaps.db"
    examples = where / "examples"
    shutil.copytree(EXAMPLE.parent, examples)
    for _ in range(2):
        replayed = verifier(
            where, "run", str(examples / EXAMPLE.name), "--judges", "replay", "--store", str(store)
        )
        assert replayed.returncode == 1, replayed.stderr  # the example has failing cases
    contract = where / "replies.yaml"
    source = (CALIBRATE / "replies.yaml").read_text(encoding="utf-8")
    contract.write_text(source.replace("claude-haiku-4-5-20251001", RETIRING), encoding="utf-8")
    assert RETIRING in contract.read_text(encoding="utf-8")
    cases = str(CALIBRATE / "replies.cases.jsonl")
    with MessagesServer(default=brain) as server:
        judged = verifier(
            where, "run", str(contract), "--cases", cases, "--store", str(store),
            base_url=server.base_url,
        )  # fmt: skip
    assert judged.returncode == 1, judged.stderr  # c13-c24 guess, c25 has no output
    labels = str(CALIBRATE / "labels.jsonl")
    calibrated = verifier(where, "calibrate", "--labels", labels, "--store", str(store))
    assert calibrated.returncode == 0, calibrated.stderr
    return store
