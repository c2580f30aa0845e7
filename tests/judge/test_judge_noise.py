"""Judge noise on every run (pass rate with its Wilson interval, position flips, sample
agreement), test-retest resamples (`verifier audit --resample`) and the warning of
`verifier check` about judges whose agreement was never measured (ADR 0031)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections import Counter
from pathlib import Path
from threading import Lock
from typing import Any

import pytest

from tests.compare.test_comparative_claims import always_first
from tests.compare.test_comparative_claims import run as run_pairwise
from tests.judge.behaviours import Behaviour
from tests.judge.judge_brain import _output_block, _user_text, brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_judge_run import CASES, CONTRACT, run_json, verifier
from verifier.results import wilson_95


def contrary(request: dict[str, Any]) -> Behaviour:
    """The brain with every pass/fail verdict turned round (scores are left as they are)."""
    said = brain(request)
    answer = json.loads(json.dumps(said.tool_input))
    for result in answer.get("results", []):
        if "pass" in result:
            result["pass"] = not result["pass"]
            for criterion in result["criteria"]:
                criterion["met"] = not criterion["met"]
    return dataclasses.replace(said, tool_input=answer)


class ThirdTimeContrary:
    """Answers a request as the brain does, except every third time the same request
    is asked: then it says the opposite (so three samples agree two to one)."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = Lock()

    def __call__(self, request: dict[str, Any]) -> Behaviour:
        # The rendered prompt fences the output with a fresh nonce per request: the
        # same question is the same tool on the same output.
        key = request["tool_choice"]["name"] + _output_block(_user_text(request))
        with self.lock:
            self.seen[key] += 1
            turn = self.seen[key]
        return contrary(request) if turn % 3 == 0 else brain(request)


def run_briefs(
    tmp_path: Path, server: MessagesServer | None, *extra: str, contract: Path = CONTRACT
):  # type: ignore[no-untyped-def]
    """`verifier run` of the briefs over their cases into ``gaps.db`` (replayed without
    a server)."""
    store = str(tmp_path / "gaps.db")
    args = ("run", str(contract), "--cases", str(CASES), "--store", store, *extra)
    base_url = server.base_url if server else None
    return verifier(tmp_path, *args, base_url=base_url, key=server is not None)


def test_wilson_interval_matches_the_published_figures() -> None:
    # Newcombe (1998), table I: 81 of 263 gives 0.2553 to 0.3662.
    low, high = wilson_95(81, 263)
    assert round(low, 4) == 0.2553 and round(high, 4) == 0.3662
    assert wilson_95(0, 0) == (0.0, 1.0)


def test_every_report_shows_each_judge_claims_pass_rate_with_its_interval(
    tmp_path: Path,
) -> None:
    with MessagesServer(default=brain) as server:
        _, report, _ = run_json(tmp_path, server)
        console = run_briefs(tmp_path, server)
    noise = report["judge_noise"]
    assert set(noise) == {"acknowledge_gaps", "no_speculation", "formal_tone"}
    speculation = noise["no_speculation"]  # b2 guesses: 2 of 3 pass
    assert speculation["verdicts"] == 3 and speculation["pass_rate"] == pytest.approx(2 / 3)
    low, high = wilson_95(2, 3)
    assert speculation["pass_rate_ci95"] == [round(low, 6), round(high, 6)]
    assert speculation["flip_rate"] is None and speculation["sample_agreement"] is None
    assert "cites_sources" not in noise  # a rubric claim has no judge noise
    assert "Judge noise" in console.stdout
    assert "no_speculation" in console.stdout and f"{low:.1%}" in console.stdout
    # A rerun is replayed from the store's judge cache: the same verdicts.
    markdown = run_briefs(tmp_path, None, "--format", "markdown")
    html = tmp_path / "run.html"
    page = verifier(
        tmp_path, "report", "--store", str(tmp_path / "gaps.db"), "--html", str(html), base_url=None
    )
    assert page.returncode == 0, page.stderr
    text = html.read_text(encoding="utf-8")
    assert 'id="noise-table"' in text
    assert f"{100 * low:.1f}\N{EN DASH}{100 * high:.1f}%" in text
    assert markdown.returncode == 1, markdown.stderr
    assert "Judge noise:" in markdown.stdout
    assert f"no_speculation: pass rate 66.7% (95% CI {low:.1%}-{high:.1%})" in markdown.stdout


@pytest.mark.e2e
def test_position_flips_are_shown_per_pairwise_claim(tmp_path: Path) -> None:
    with MessagesServer(default=always_first) as server:
        _, report = run_pairwise(tmp_path, server)
    noise = report["judge_noise"]["no_worse_than_baseline"]
    assert noise["pairwise"] == 3 and noise["position_flips"] == 3 and noise["flip_rate"] == 1.0


def test_sample_agreement_is_shown_when_a_judge_takes_several_samples(tmp_path: Path) -> None:
    contract = tmp_path / "briefs.yaml"
    text = CONTRACT.read_text(encoding="utf-8")
    contract.write_text(text.replace("    group: case\n", "    group: case\n    samples: 3\n"))
    with MessagesServer(default=ThirdTimeContrary()) as server:
        out = tmp_path / "report.json"
        result = run_briefs(
            tmp_path, server, "--format", "json", "--out", str(out), contract=contract
        )
    assert result.returncode in (0, 1), result.stderr
    noise = json.loads(out.read_text(encoding="utf-8"))["judge_noise"]
    assert noise["no_speculation"]["sampled"] == 3
    assert noise["no_speculation"]["sample_agreement"] == pytest.approx(2 / 3, abs=1e-6)
    assert noise["formal_tone"]["sample_agreement"] == 1.0  # scores were not turned round


def audit_last(tmp_path: Path, server: MessagesServer | None, *extra: str, key: bool = True):  # type: ignore[no-untyped-def]
    return verifier(
        tmp_path,
        "audit",
        "--store",
        str(tmp_path / "gaps.db"),
        "--run",
        "last",
        *extra,
        base_url=server.base_url if server else None,
        key=key,
    )


def test_resample_measures_test_retest_agreement_and_keeps_it(tmp_path: Path) -> None:
    with MessagesServer(default=brain) as server:
        run_json(tmp_path, server)
        asked = len(server.model_calls())
        steady = audit_last(tmp_path, server, "--resample", "3", "--seed", "7", "--format", "json")
        assert steady.returncode == 0, steady.stderr
        assert len(server.model_calls()) > asked  # asked again, not served from the cache
        server.default = contrary
        changed = audit_last(tmp_path, server, "--resample", "3", "--seed", "7", "--format", "json")
        console = audit_last(tmp_path, server, "--resample", "20", "--seed", "7")
    first, second = json.loads(steady.stdout), json.loads(changed.stdout)
    assert first["seed"] == 7 and first["requested"] == 3
    assert first["eligible"] == 8  # b1 to b3: 3 judge claims, acknowledge_gaps skipped once
    # Binary and scale verdicts are asked with different templates: two triples.
    binary, scale = first["triples"]
    assert binary["claims"] == ["acknowledge_gaps", "no_speculation"]
    assert scale["claims"] == ["formal_tone"]
    assert binary["model_id"] == "claude-haiku-4-5-20251001" and len(binary["prompt_sha"]) == 64
    assert binary["prompt_sha"] != scale["prompt_sha"]
    assert (binary["asked"], binary["agreed"], binary["agreement"]) == (2, 2, 1.0)
    assert (scale["asked"], scale["agreed"]) == (1, 1)
    # The same seed draws the same verdicts; the judge now says the opposite on
    # pass/fail questions and the same on scores.
    turned, same = second["triples"]
    assert turned["prompt_sha"] == binary["prompt_sha"] and (turned["asked"], turned["agreed"]) == (
        2,
        0,
    )
    assert turned["agreement"] == 0.0 and (same["asked"], same["agreed"]) == (1, 1)
    assert "test-retest agreement" in console.stdout and "seed 7" in console.stdout
    with sqlite3.connect(tmp_path / "gaps.db") as db:
        stored = db.execute("SELECT COUNT(*), SUM(agreed) FROM resamples").fetchone()
    assert stored == (3 + 3 + 8, 3 + 1 + 3)
    assert "8 of 8 judge verdicts asked again" in console.stdout


def test_resample_without_a_key_exits_2_with_one_line(tmp_path: Path) -> None:
    with MessagesServer(default=brain) as server:
        run_json(tmp_path, server)
        result = audit_last(tmp_path, server, "--resample", "2", key=False)
        assert len(server.model_calls()) == 6  # the run's calls only
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr
    needs_run = verifier(
        tmp_path, "audit", "--store", str(tmp_path / "gaps.db"), "--resample", "2", base_url=None
    )
    assert needs_run.returncode == 2 and "--run" in needs_run.stderr


def test_check_warns_about_judges_whose_agreement_was_never_measured(tmp_path: Path) -> None:
    store = str(tmp_path / "gaps.db")
    with MessagesServer(default=brain) as server:
        run_json(tmp_path, server)
        before = verifier(tmp_path, "check", str(CONTRACT), "--store", store, base_url=None)
        audit_last(tmp_path, server, "--resample", "20")
    after = verifier(tmp_path, "check", str(CONTRACT), "--store", store, base_url=None)
    warned = [line for line in before.stdout.splitlines() if "warning:" in line]
    assert len(warned) == 3  # one line per judge claim
    assert all("no measured test-retest agreement" in line for line in warned)
    assert [line for line in after.stdout.splitlines() if "warning:" in line] == []


@pytest.mark.e2e
def test_the_audit_of_a_run_shows_its_judge_noise(tmp_path: Path) -> None:
    with MessagesServer(default=always_first) as server:
        run_pairwise(tmp_path, server)
    text = audit_last(tmp_path, None)
    data = audit_last(tmp_path, None, "--format", "json")
    assert text.returncode == 0, text.stderr
    assert "judge noise:" in text.stdout
    assert "no_worse_than_baseline: pass rate 100.0%" in text.stdout
    assert "position flips 3/3 (100.0%)" in text.stdout
    (noise,) = json.loads(data.stdout)["judge_noise"].values()
    assert noise["no_worse_than_baseline"]["flip_rate"] == 1.0
    markdown = audit_last(tmp_path, None, "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    noise_lines = markdown.stdout.split("Judge noise:", 1)[1].strip().splitlines()
    assert "no_worse_than_baseline: pass rate 100.0%" in noise_lines[0]
    assert "position flips 3/3 (100.0%)" in noise_lines[0]
