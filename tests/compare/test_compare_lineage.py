"""``verifier compare`` across a judge succession: two runs whose judge's model differs
say so as today without a succession, and name the succession, with its trial's
agreement and pass-rate shift, when the store records one (either way round), in
SQLite and PostgreSQL, in every format and on the viewer's diff page."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.compare.test_compare_runs import add_run, outcomes
from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from tests.gaps.test_successions import NEW, OLD
from tests.gaps.test_successions import SWITCH as STORED
from verifier.compare.runs import pair_runs
from verifier.gaps.store import open_store
from verifier.gaps.successions import Lineage, SuccessionStore

SWITCH = dataclasses.replace(STORED, contract_id="demo")
"""The stored succession of judge ``strict`` from ``OLD`` to ``NEW``, of contract demo."""

SUMMARY = (
    "succession s1 of judge strict: claude-sonnet-4-5-20250929 -> claude-opus-4-5-20251101 "
    "(trial t1, pass: agreement 0.950, kappa 0.900 [0.800, 1.000], pass-rate shift "
    "+0.010 [-0.020, +0.040])"
)
UNEXPLAINED = (
    "claim {} was judged under different judges (model, prompt or sampling) in the two "
    "runs: a change may come from the judge rather than the system"
)


def _line(a: str, b: str, old: list[str], new: list[str]) -> str:
    return (
        f"claims tone, clear were judged by judge strict with {old[0]} in run {a} and with "
        f"{new[0]} in run {b}: the judges differ by a succession the store records "
        f"({SUMMARY}); a change may come from the judge rather than the system"
    )


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store holding run ``a`` judged by the old model and run ``b`` by the new one,
    with a rubric claim beside, on each backend."""
    found = (
        str(tmp_path / "gaps.db")
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    judged_runs(found, {**outcomes("tone", "ppppf"), **outcomes("clear", "pfpfp")})
    return found


def judged_runs(target: str, statuses: dict[tuple[str, str], Any]) -> None:
    """Stores run ``a``, judged by judge strict under ``OLD``, and run ``b`` under
    ``NEW``, both with ``statuses``."""
    with open_store(target) as store:
        for run_id, triple in (("a", OLD), ("b", NEW)):
            judge = dict(zip(("model_id", "prompt_sha", "sampling_sha"), triple, strict=True))
            add_run(store, run_id, statuses, judge=judge, judge_name="strict")


def _change(old: list[str], new: list[str], succession: Any) -> dict[str, Any]:
    return {
        "judge": "strict",
        "claims": ["tone", "clear"],
        "old": [old],
        "new": [new],
        "succession": succession,
    }


def _succession(direction: str) -> dict[str, Any]:
    return {
        "direction": direction,
        "summary": SUMMARY,
        "chain": [
            {
                "succession_id": "s1",
                "judge": "strict",
                "trial_id": "t1",
                "old_model": OLD[0],
                "new_model": NEW[0],
                "outcome": "pass",
                "figures": SWITCH.figures,
                "accepted_failed": None,
                "summary": SUMMARY,
            }
        ],
    }


def _compare(target: str, a: str, b: str, fmt: str, cwd: Path) -> tuple[str, list[str]]:
    result = verifier("compare", a, b, "--store", target, "--format", fmt, cwd=cwd)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    return result.stdout, warnings


def test_without_a_succession_the_judges_differ_as_before(target: str, tmp_path: Path) -> None:
    out, warnings = _compare(target, "a", "b", "json", tmp_path)
    report = json.loads(out)
    assert report["judge_changes"] == [_change(OLD, NEW, None)]
    expected = [UNEXPLAINED.format("tone"), UNEXPLAINED.format("clear")]
    assert report["warnings"] == expected
    assert warnings == [f"warning: {w}" for w in expected]


def test_across_a_succession_compare_names_it_with_the_trial(target: str, tmp_path: Path) -> None:
    with SuccessionStore(target) as successions:
        successions.save(SWITCH)
    out, warnings = _compare(target, "a", "b", "json", tmp_path)
    report = json.loads(out)
    assert report["judge_changes"] == [_change(OLD, NEW, _succession("forward"))]
    assert report["warnings"] == [_line("a", "b", OLD, NEW)]
    assert warnings == [f"warning: {_line('a', 'b', OLD, NEW)}"]
    markdown, _ = _compare(target, "a", "b", "markdown", tmp_path)
    assert f"> **Warning:** {_line('a', 'b', OLD, NEW)}\n" in markdown
    # The baseline may be the newer run: the same succession, led backward.
    out, warnings = _compare(target, "b", "a", "json", tmp_path)
    report = json.loads(out)
    assert report["judge_changes"] == [_change(NEW, OLD, _succession("backward"))]
    assert warnings == [f"warning: {_line('b', 'a', NEW, OLD)}"]


@pytest.mark.parametrize(
    "other",
    [
        {"judge": "lenient"},
        {"contract_id": "another"},
        {"new_triples": [["claude-opus-4-5-20251101", "p" * 64, "u" * 64]]},
    ],
    ids=["another judge", "another contract", "another triple"],
)
def test_a_succession_that_does_not_lead_between_the_runs_explains_nothing(
    tmp_path: Path, other: dict[str, Any]
) -> None:
    target = str(tmp_path / "gaps.db")
    judged_runs(target, outcomes("tone", "pf"))
    with open_store(target) as store:
        paired = pair_runs(
            store, "a", "b", lineage=Lineage((dataclasses.replace(SWITCH, **other),))
        )
        assert paired.warnings == (UNEXPLAINED.format("tone"),)
        (change,) = paired.judge_changes
        assert change.successions == ()
        # The same succession, untouched, explains it; with any contract too.
        anywhere = dataclasses.replace(SWITCH, contract_id="")
        paired = pair_runs(store, "a", "b", lineage=Lineage((anywhere,)))
        assert paired.judge_changes[0].successions == (anywhere,)


def test_an_edited_succession_explains_nothing(tmp_path: Path) -> None:
    target = str(tmp_path / "gaps.db")
    judged_runs(target, outcomes("tone", "pf"))
    with SuccessionStore(target) as successions:
        successions.save(SWITCH)
    with sqlite3.connect(target) as conn:
        conn.execute("UPDATE successions SET figures = ?", ('{"agreement": 1.0}',))
    out, warnings = _compare(target, "a", "b", "json", tmp_path)
    assert json.loads(out)["judge_changes"][0]["succession"] is None
    assert warnings == [f"warning: {UNEXPLAINED.format('tone')}"]


def test_a_chain_of_successions_is_named_whole(tmp_path: Path) -> None:
    target = str(tmp_path / "gaps.db")
    newer = ["claude-opus-4-6-20260301", "q" * 64, "t" * 64]
    later = dataclasses.replace(
        SWITCH, succession_id="s2", trial_id="t2", old_triples=[NEW], new_triples=[newer]
    )
    with open_store(target) as store:
        for run_id, triple in (("a", OLD), ("c", newer)):
            judge = dict(zip(("model_id", "prompt_sha", "sampling_sha"), triple, strict=True))
            add_run(store, run_id, outcomes("tone", "pf"), judge=judge, judge_name="strict")
        paired = pair_runs(store, "a", "c", lineage=Lineage((SWITCH, later)))
    (change,) = paired.judge_changes
    assert change.successions == (SWITCH, later)
    assert change.explained == f"{SUMMARY}; {later.summary()}"
    assert change.as_json()["succession"]["direction"] == "forward"
