"""``verifier judge trial``: the rule printed first, the outcome as the exit code, the
trial sealed in the store (an edited trial fails ``verifier audit``), and no call
without the candidate's API key."""

from __future__ import annotations

import json
import sqlite3

from tests._cli import cli
from tests.judge.messages_server import MessagesServer
from tests.trial._support import KEY, NEW_MODEL
from verifier.gaps.trials import TrialStore
from verifier.trial import figures_of


def report_figures(verdicts: list[dict[str, object]]) -> dict[str, object]:
    """The figures of kept verdicts, computed again from their pass/fail pairs."""
    return figures_of((v["old"] == "pass", v["new"] == "pass") for v in verdicts).as_dict()


def trial(store: str, server: MessagesServer, *extra: str, key: str | None = KEY):  # type: ignore[no-untyped-def]
    return cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--store", store,
        "--base-url", server.base_url, *extra,
        env={"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip


def test_the_rule_comes_first_and_the_outcome_decides_the_exit_code(
    store: str, server: MessagesServer
) -> None:
    failed = trial(store, server)
    assert failed.exit_code == 1, failed.output
    lines = failed.stdout.splitlines()
    assert lines[0].startswith("rule: pass when the lower bound of Cohen's kappa's 95% interval")
    assert "at least 0.6" in lines[0] and "±0.05" in lines[0]
    assert lines[1] == f"asking 24 of 24 verdicts of judge strict again with {NEW_MODEL} (seed 0)"
    overall = next(line for line in lines if line.startswith("overall ")).split()
    assert overall[1] == "24" and overall[2] == "75.0%"
    assert overall[-2:] == ["4", "2"]  # 4 turned stricter, 2 laxer
    assert "flipped (6):" in failed.stdout
    assert "c09 / factual: fail -> pass" in failed.stdout
    assert failed.stdout.rstrip().splitlines()[-1].startswith("outcome: FAIL: kappa's lower bound")
    assert len(server.model_calls()) == 24
    passed = trial(store, server, "--min-kappa", "-1", "--max-shift", "1", "--format", "json")
    assert passed.exit_code == 0, passed.output
    assert passed.stderr.startswith("rule: pass when")
    document = json.loads(passed.stdout)
    assert document["outcome"] == "pass"
    assert document["decision"] == {"outcome": "pass", "why": document["why"]}
    named = {"kind", "agreement", "kappa", "kappa_ci", "pass_rate_before", "pass_rate_after"}
    named |= {"difference_ci", "mcnemar_p", "flipped", "mean_shift", "wilcoxon_p"}
    for figures in (document["overall"], *document["claims"].values()):
        assert named <= set(figures) and figures["kind"] == "binary"
    assert document["overall"]["flipped"] == 6
    assert document["rule"]["min_kappa"] == -1.0 and document["rule"]["max_shift"] == 1.0
    assert len(document["flipped"]) == 6


def test_the_trial_is_sealed_and_an_edited_trial_fails_the_audit(
    store: str, server: MessagesServer
) -> None:
    done = trial(store, server, "--sample", "8", "--seed", "5", "--run", "last")
    assert done.exit_code == 1, done.output
    with TrialStore(store, read_only=True) as trials:
        (kept,) = trials.all()
    (run_id,) = {v["run_id"] for v in kept.verdicts}
    assert kept.run_id == run_id  # "last" resolved to the run's id
    assert kept.judge == "strict" and kept.candidate_model == NEW_MODEL
    assert kept.outcome == "fail" and kept.seed == 5 and kept.requested == 8
    assert kept.rule["min_kappa"] == 0.6 and kept.rule["statement"].startswith("pass when")
    assert len(kept.verdicts) == 8
    assert kept.figures["overall"]["kappa_ci"] == report_figures(kept.verdicts)["kappa_ci"]
    assert "kappa_ci95" not in kept.figures["overall"]
    assert {v["new_triple"]["model_id"] for v in kept.verdicts} == {NEW_MODEL}
    audit = cli("audit", "--store", store)
    assert audit.exit_code == 0, audit.output
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE trials SET outcome = 'pass'")
    audit = cli("audit", "--store", store)
    assert audit.exit_code == 1, audit.output
    # A row keyed by its own hash, edited, is a sealed row gone and an unsealed one added.
    assert (
        "trials: a row sealed (seal " in audit.output and "is gone from the table" in audit.output
    )
    named = f"trial {kept.trial_id} of judge strict with {NEW_MODEL}"
    assert f"trials: 1 row(s) no seal vouches for (e.g. {named})" in audit.output
    with TrialStore(store, read_only=True) as trials:
        assert trials.all() == []  # an edited trial is no trial to trust
        assert [t.outcome for t in trials.all(sealed_only=False)] == ["pass"]


def test_without_the_candidates_key_it_exits_2_before_any_call(
    store: str, server: MessagesServer
) -> None:
    refused = trial(store, server, key=None)
    assert refused.exit_code == 2
    assert refused.stderr.strip().splitlines() == [
        f"error: the trial asks {NEW_MODEL}, but ANTHROPIC_API_KEY is not set"
    ]
    assert refused.stdout == ""
    assert server.model_calls() == []


def test_a_judge_without_stored_verdicts_exits_2(store: str, server: MessagesServer) -> None:
    refused = trial(store, server, "--run", "no-such-run")
    assert refused.exit_code == 2
    assert "no stored pass/fail verdict of judge 'strict' in run no-such-run" in refused.stderr
    assert server.model_calls() == []
