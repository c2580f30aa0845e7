"""bench/peer_promptfoo.py: its checks mean the same in both tools, and it stops on a difference.

promptfoo itself is never run here (it needs npm and the network): its side is pinned by
the out.json a real promptfoo 0.121.20 wrote for the bench's first cases
(tests/fixtures/promptfoo/peer).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from tests._cli import verifier
from tests.conftest import FIXTURES

BENCH = Path(__file__).resolve().parents[2] / "bench"
PEER_FIXTURE = FIXTURES / "promptfoo" / "peer"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    import peer_promptfoo

    return peer_promptfoo


def test_verifier_gives_every_planned_verdict(bench: ModuleType, tmp_path: Path) -> None:
    peer = bench.peer
    cases, plan = peer.make_cases(400)
    failed = Counter(claim for (_, claim), ok in plan.items() if not ok)
    # Every check fails somewhere, so agreeing on the plan means agreeing on both verdicts.
    assert set(failed) == set(peer.CLAIMS)
    contract, cases_path = peer.write_verifier_files(tmp_path, cases)
    ran = verifier(
        "run", str(contract), "--cases", str(cases_path), "--store", "g.db", cwd=tmp_path
    )
    assert ran.returncode == 1, ran.stderr
    exported = verifier("export", "--store", "g.db", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert peer.differences("verifier", peer.export_verdicts(exported.stdout), plan) == []


def test_promptfoo_gave_every_planned_verdict(bench: ModuleType, tmp_path: Path) -> None:
    peer = bench.peer
    cases, plan = peer.make_cases(60)
    got = peer.promptfoo_verdicts(PEER_FIXTURE / "out.reduced.json")
    assert len(got) == 60 * len(peer.CHECKS)
    assert sum(not ok for ok in got.values()) > 10
    assert peer.differences("promptfoo", got, plan) == []
    # What promptfoo ran is what the bench writes today.
    peer.write_promptfoo_files(tmp_path, cases)
    for name in ("promptfooconfig.yaml", "tests.jsonl"):
        assert (tmp_path / name).read_text() == (PEER_FIXTURE / name).read_text(), name


def test_a_different_verdict_stops_the_bench(bench: ModuleType) -> None:
    plan = {("case-3", "on_topic"): True, ("case-3", "formal_tone"): False}
    got = {("case-3", "on_topic"): False, ("case-3", "formal_tone"): False}
    with pytest.raises(SystemExit) as stopped:
        bench.check("promptfoo eval", got, plan)
    assert "case-3 / on_topic: expected True, got False" in str(stopped.value)
    with pytest.raises(SystemExit, match="case-3 / formal_tone: expected False, got None"):
        bench.check("verifier run", {("case-3", "on_topic"): True}, plan)


def test_without_node_one_line_says_so(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--promptfoo-dir", str(tmp_path / "pf")])
    message = str(stopped.value)
    assert message.startswith("peer_promptfoo: node is not on PATH; install Node.js")
    assert "\n" not in message
    assert not (tmp_path / "pf").exists()


def test_verifier_path_must_name_a_checkout_or_interpreter(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SystemExit, match=r"--verifier .*: no checkout with \.venv/bin/python"):
        bench.verifier_python(str(tmp_path))
    assert bench.verifier_python(sys.executable) == sys.executable
    monkeypatch.chdir(Path(sys.executable).parent)
    # The runs start in a folder of their own, so a relative path must not reach them.
    assert bench.verifier_python(Path(sys.executable).name) == sys.executable
