"""Comparing two stored runs: pairing, exclusions, corrections, verdicts and the CLI."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier as run_verifier
from tests.conftest import EXAMPLES, FIXTURES
from verifier._internal.canonical import sha256_hex
from verifier.compare.analysis import compare_runs
from verifier.compare.report import as_json, write_report
from verifier.compare.runs import OVERALL, CompareError, pair_runs
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import GapStore

RUNS = FIXTURES / "compare_runs"

Outcome = str | tuple[str, float]


def add_run(
    store: GapStore,
    run_id: str,
    outcomes: Mapping[tuple[str, str], Outcome],
    *,
    contract_id: str = "demo",
    edition: int = 1,
    finished: bool = True,
    judge: dict[str, str] | None = None,
    judge_name: str | None = None,
    extra: list[tuple[tuple[str, str], Outcome]] | None = None,
) -> None:
    """Stores a run whose rows have the given statuses (and scores) per (case, claim).

    ``edition`` changes the contract's text, and so its sha256, but not its id.
    """
    source = f"contract: {contract_id}\n# edition {edition}\n"
    sha = sha256_hex(source)
    store.begin_run(
        run_id,
        contract_id=contract_id,
        contract_version=1,
        contract_sha256=sha,
        contract_path="contract.yaml",
        contract_source=source,
        started_at="2026-11-25T10:00:00Z",
        options={},
    )
    drafts = []
    for n, ((case_id, claim_id), outcome) in enumerate([*outcomes.items(), *(extra or [])]):
        status, score = (outcome, None) if isinstance(outcome, str) else outcome
        if score is None and status in ("pass", "fail"):
            score = 1.0 if status == "pass" else 0.0
        drafts.append(
            {
                "schema": "verifier.gap-row.v1",
                "row_id": f"{run_id}:{n}:{claim_id}",
                "run_id": run_id,
                "recorded_at": "2026-11-25T10:00:00Z",
                "contract_id": contract_id,
                "contract_version": 1,
                "contract_sha256": sha,
                "case_id": case_id,
                "claim_id": claim_id,
                "kind": "judge" if judge else "rubric",
                "status": status,
                "score": score,
                "reason": "checked",
                "evidence": _evidence(judge, judge_name),
            }
        )
    store.append(drafts)
    if finished:
        store.finish_run(run_id, status="finished", finished_at="2026-11-25T10:01:00Z", summary={})


def _evidence(judge: dict[str, str] | None, name: str | None) -> dict[str, Any]:
    if not judge:
        return {}
    return {"judge": judge, **({"judge_name": name} if name else {})}


def outcomes(claim: str, statuses: str, *, start: int = 0) -> dict[tuple[str, str], Outcome]:
    """``{(case-i, claim): status}`` from a string of p (pass), f, e (error), s (skipped)."""
    names = {"p": "pass", "f": "fail", "e": "error", "s": "skipped"}
    return {(f"case-{start + i}", claim): names[c] for i, c in enumerate(statuses)}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore(tmp_path / "gaps.db") as opened:
        yield opened


# --- pairing ------------------------------------------------------------------------------


def test_pairs_fill_the_paired_table_of_each_claim(store: SqliteStore) -> None:
    add_run(store, "a", {**outcomes("x", "ppppf"), **outcomes("y", "ppfff")})
    add_run(store, "b", {**outcomes("x", "pfffp"), **outcomes("y", "ppfff")})
    paired = pair_runs(store, "a", "b")
    x, y = paired.claims
    assert (x.name, y.name) == ("x", "y")
    assert (x.table.both_pass, x.table.baseline_only, x.table.candidate_only) == (1, 3, 1)
    assert x.table.both_fail == 0
    assert (y.table.both_pass, y.table.both_fail, y.table.baseline_only) == (2, 3, 0)
    assert paired.paired_cases == 5
    assert not x.graded and x.score_differences == (0.0, -1.0, -1.0, -1.0, 1.0)


def test_error_and_skipped_pairs_are_left_out_and_counted(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "ppepsp"))
    add_run(store, "b", outcomes("x", "pfpepf"))
    (x,) = pair_runs(store, "a", "b").claims
    # case-2 error in a, case-3 error in b, case-4 skipped in a: left out.
    assert (x.errors, x.skipped, x.table.pairs) == (2, 1, 3)
    assert (x.table.both_pass, x.table.baseline_only) == (1, 2)


def test_cases_in_one_run_only_are_reported_and_left_out(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "pppp"))
    add_run(store, "b", outcomes("x", "ppfff", start=2))
    paired = pair_runs(store, "a", "b")
    assert paired.paired_cases == 2
    assert (paired.cases_only_in_baseline, paired.cases_only_in_candidate) == (2, 3)
    assert paired.claims[0].table.pairs == 2


def test_claims_in_one_run_only_are_reported(store: SqliteStore) -> None:
    add_run(store, "a", {**outcomes("x", "pp"), **outcomes("old", "pp")})
    add_run(store, "b", {**outcomes("x", "pp"), **outcomes("new", "pp")})
    paired = pair_runs(store, "a", "b")
    assert [c.name for c in paired.claims] == ["x"]
    assert paired.claims_only_in_baseline == ("old",)
    assert paired.claims_only_in_candidate == ("new",)


def test_duplicate_rows_are_counted_and_the_first_is_used(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "pp"), extra=[(("case-0", "x"), "fail")])
    add_run(store, "b", outcomes("x", "pp"), extra=[(("case-1", "x"), "fail")])
    paired = pair_runs(store, "a", "b")
    assert paired.duplicate_rows == {"baseline": 1, "candidate": 1}
    assert paired.claims[0].table.both_pass == 2


def test_graded_scores_are_recognised(store: SqliteStore) -> None:
    add_run(store, "a", {("c1", "sim"): ("pass", 0.95), ("c2", "sim"): ("pass", 1.0)})
    add_run(store, "b", {("c1", "sim"): ("pass", 0.91), ("c2", "sim"): ("pass", 1.0)})
    (sim,) = pair_runs(store, "a", "b").claims
    assert sim.graded
    assert sim.score_differences == pytest.approx((-0.04, 0.0))


def test_whole_cases_pass_when_every_shared_claim_passed(store: SqliteStore) -> None:
    add_run(store, "a", {**outcomes("x", "pppe"), **outcomes("y", "pfpp")})
    add_run(store, "b", {**outcomes("x", "pfpp"), **outcomes("y", "ppsp")})
    overall = pair_runs(store, "a", "b").overall
    assert overall.name == OVERALL
    # case-0 pass/pass; case-1 fail/fail; case-2 pass/fail (a skip is not a pass);
    # case-3 has an error in the baseline.
    table = overall.table
    assert (table.both_pass, table.both_fail, table.baseline_only) == (1, 1, 1)
    assert overall.errors == 1
    assert overall.graded  # shares of claims passed: 1/2 in case-1 and case-2


# --- usage errors and warnings ---------------------------------------------------------------


def test_unknown_run_is_a_compare_error(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "p"))
    with pytest.raises(CompareError, match="candidate run 'zzz' is not in"):
        pair_runs(store, "a", "zzz")


def test_runs_of_different_contracts_cannot_be_compared(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "p"))
    add_run(store, "b", outcomes("x", "p"), contract_id="other")
    with pytest.raises(CompareError, match="only runs of one contract"):
        pair_runs(store, "a", "b")


def test_runs_without_a_common_case_cannot_be_compared(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "pp"))
    add_run(store, "b", outcomes("x", "pp", start=5))
    with pytest.raises(CompareError, match="no case id in common"):
        pair_runs(store, "a", "b")


def test_changed_contract_file_and_unfinished_run_are_warnings(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "pp"))
    add_run(store, "b", outcomes("x", "pp"), edition=2, finished=False)
    warnings = pair_runs(store, "a", "b").warnings
    assert any("different versions of contract 'demo'" in w for w in warnings)
    assert any("run b is running" in w for w in warnings)


def test_a_claim_judged_by_another_judge_is_a_warning(store: SqliteStore) -> None:
    judge = {"model_id": "claude-haiku-4-5-20251001", "prompt_sha": "a" * 64}
    add_run(store, "a", outcomes("tone", "pp"), judge={**judge, "sampling_sha": "b" * 64})
    add_run(store, "b", outcomes("tone", "pp"), judge={**judge, "sampling_sha": "c" * 64})
    add_run(store, "c", outcomes("tone", "pf"), judge={**judge, "sampling_sha": "b" * 64})
    (warning,) = pair_runs(store, "a", "b").warnings
    assert "claim tone was judged under different judges" in warning
    assert pair_runs(store, "a", "c").warnings == ()


# --- verdicts -------------------------------------------------------------------------------


def test_clear_regression_is_worse_and_unchanged_claim_is_not(store: SqliteStore) -> None:
    add_run(store, "a", {**outcomes("x", "p" * 20), **outcomes("y", "p" * 18 + "ff")})
    add_run(store, "b", {**outcomes("x", "f" * 12 + "p" * 8), **outcomes("y", "p" * 18 + "ff")})
    comparison = compare_runs(store, "a", "b")
    x, y = comparison.claims
    # Hand: 12 discordant pairs, all one way: p = 2 / 2**12 = 0.00048828125; the
    # testable family is x and whole cases (y has no discordant pair), so Holm doubles
    # the smaller of two equal p-values: 0.0009765625.
    assert x.p_value == pytest.approx(2 / 4096)
    assert x.p_adjusted == pytest.approx(4 / 4096)
    assert x.verdict == "worse"
    assert y.verdict == "no detectable change" and y.p_value == 1.0 and y.p_adjusted is None
    assert y.cases_needed is None
    assert comparison.overall is not None and comparison.overall.verdict == "worse"
    assert [c.name for c in comparison.worse] == ["x", OVERALL]


def test_holm_keeps_two_borderline_claims_from_being_called_worse(store: SqliteStore) -> None:
    # Each claim alone: 6 pairs all one way, p = 2 / 64 = 0.03125 < 0.05. Whole cases:
    # 12 regressions, p = 2 / 4096. Holm over three: 0.0015, then 0.0625 and 0.0625.
    add_run(store, "a", {**outcomes("x", "p" * 12), **outcomes("y", "p" * 12)})
    add_run(store, "b", {**outcomes("x", "f" * 6 + "p" * 6), **outcomes("y", "p" * 6 + "f" * 6)})
    comparison = compare_runs(store, "a", "b")
    x, y = comparison.claims
    assert x.p_value == pytest.approx(0.03125) and x.p_adjusted == pytest.approx(0.0625)
    assert x.verdict == y.verdict == "no detectable change"
    assert comparison.overall is not None and comparison.overall.verdict == "worse"
    assert comparison.overall.p_adjusted == pytest.approx(3 * 2 / 4096)


def test_too_few_discordant_pairs_are_left_out_of_the_family(store: SqliteStore) -> None:
    # Five regressions: the most lopsided split gives p = 2 / 32 = 0.0625 > 0.05, so
    # the claim cannot be significant under any correction (Tarone 1990).
    add_run(store, "a", outcomes("x", "p" * 10))
    add_run(store, "b", outcomes("x", "fffff" + "p" * 5))
    comparison = compare_runs(store, "a", "b")
    (x,) = comparison.claims
    assert x.p_value == pytest.approx(0.0625)
    assert x.p_adjusted is None and x.verdict == "no detectable change"
    # Exact power with p10 = 0.5, p01 = 0: every discordant pair is a regression, so
    # the test rejects once there are 6 of them, D ~ Binomial(n, 1/2) and the power is
    # P(D >= 6). Hand: n = 10 gives (210 + 120 + 45 + 10 + 1) / 1024; n = 14 gives
    # 1 - 3473/16384 = 0.788 and n = 15 gives 1 - 4944/32768 = 0.849, so 15.
    # (Connor's large-sample formula said 14, where the exact power is 0.788.)
    assert x.power == pytest.approx(386 / 1024, abs=1e-12)
    assert x.cases_needed == 15 and x.cases_needed_beyond is None


def test_single_claim_has_no_separate_whole_case_test(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "p" * 8))
    add_run(store, "b", outcomes("x", "f" * 8))
    comparison = compare_runs(store, "a", "b")
    assert comparison.overall is None
    # Alone in its family, the claim keeps its p-value: 2 / 2**8.
    assert comparison.claims[0].p_adjusted == pytest.approx(2 / 256)
    assert comparison.claims[0].verdict == "worse"


def test_improvement_is_better(store: SqliteStore) -> None:
    add_run(store, "a", outcomes("x", "f" * 8))
    add_run(store, "b", outcomes("x", "p" * 8))
    assert compare_runs(store, "a", "b").claims[0].verdict == "better"


def test_graded_claim_gets_signed_rank_test_and_binary_claim_none(store: SqliteStore) -> None:
    base = {(f"c{i}", "sim"): ("pass", 1.0) for i in range(8)}
    cand = {(f"c{i}", "sim"): ("pass", 0.9) for i in range(8)}
    add_run(store, "a", {**base, **outcomes("x", "p" * 8, start=0)})
    add_run(store, "b", {**cand, **outcomes("x", "p" * 8, start=0)})
    comparison = compare_runs(store, "a", "b")
    sim, x = comparison.claims
    assert x.scores is None
    assert sim.scores is not None and sim.verdict == "no detectable change"
    # Eight equal drops: every rank negative; exact p = 2 / 2**8.
    assert sim.scores.nonzero == 8 and sim.scores.p_value == pytest.approx(2 / 256)
    assert sim.scores.median_difference == pytest.approx(-0.1)


def test_scores_equal_on_paper_tie_in_the_signed_rank_test(store: SqliteStore) -> None:
    # Stored differences -0.1, -0.1, -0.2, -0.2, -0.3, +0.1, each from scores whose
    # float differences all differ. As in the hand computation of
    # [-1, -1, -2, -2, -3, +1] (tests/compare/test_signed_rank.py): p = 8/64.
    pairs = [(0.3, 0.2), (0.8, 0.7), (0.9, 0.7), (0.5, 0.3), (0.7, 0.4), (0.1, 0.2)]
    add_run(store, "a", {(f"c{i}", "sim"): ("pass", b) for i, (b, _) in enumerate(pairs)})
    add_run(store, "b", {(f"c{i}", "sim"): ("pass", c) for i, (_, c) in enumerate(pairs)})
    (sim,) = compare_runs(store, "a", "b").claims
    assert sim.scores is not None
    assert (sim.scores.p_value, sim.scores.statistic, sim.scores.method) == (0.125, 2.0, "exact")


def test_whole_case_scores_tie_in_thirds(store: SqliteStore) -> None:
    # Three claims. Cases 0-2 go from 2 to 3 passing claims of three, cases 3-4 from 1
    # to 2, case 5 from 2 to 1; as floats 1 - 2/3 and 2/3 - 1/3 differ. Hand: six tied
    # differences of 1/3, one negative: the sign test, (1 + 6 + 6 + 1) / 64.
    base = {**outcomes("x", "pppppp"), **outcomes("y", "ffffff"), **outcomes("z", "pppffp")}
    cand = {**outcomes("x", "pppppp"), **outcomes("y", "pppppf"), **outcomes("z", "pppfff")}
    add_run(store, "a", base)
    add_run(store, "b", cand)
    overall = compare_runs(store, "a", "b").overall
    assert overall is not None and overall.scores is not None
    assert overall.scores.nonzero == 6 and overall.scores.statistic == 3.5
    assert overall.scores.p_value == 14 / 64
    assert overall.scores.median_difference == pytest.approx(1 / 3)


def test_report_says_when_discordant_pairs_cannot_reach_alpha(
    store: SqliteStore, tmp_path: Path
) -> None:
    add_run(store, "a", outcomes("x", "p" * 10))
    add_run(store, "b", outcomes("x", "fffff" + "p" * 5))
    comparison = compare_runs(store, "a", "b")
    assert comparison.min_discordant == 6
    assert [c.name for c in comparison.untestable] == ["x"]
    note = (
        "x: 5 discordant pairs cannot be significant at alpha 0.05 in any split "
        "(at least 6 are needed)"
    )
    for fmt in ("markdown", "console"):
        path = tmp_path / f"report.{fmt}"
        with path.open("w", encoding="utf-8") as out:
            write_report(comparison, fmt, out)
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert note in text
        assert "38%" in text and "15" in text  # power with these pairs, cases needed
    report = as_json(comparison)
    assert report["min_discordant"] == 6
    assert report["claims"][0]["can_reach_alpha"] is False


def test_a_difference_beyond_the_search_is_shown_as_more_than_it(
    store: SqliteStore, tmp_path: Path
) -> None:
    # 100 pairs, 10 regressions and 11 improvements: a one-point difference that the
    # exact test would need more than 10,000 paired cases to detect with 80% power.
    add_run(store, "a", outcomes("x", "p" * 10 + "f" * 11 + "p" * 79))
    add_run(store, "b", outcomes("x", "f" * 10 + "p" * 11 + "p" * 79))
    comparison = compare_runs(store, "a", "b")
    (x,) = comparison.claims
    assert (x.cases_needed, x.cases_needed_beyond) == (None, 10_000)
    assert x.power is not None and x.power < 0.05
    path = tmp_path / "comment.md"
    with path.open("w", encoding="utf-8") as out:
        write_report(comparison, "markdown", out)
    assert "| >10000 |" in path.read_text(encoding="utf-8")


def test_json_report_shape(store: SqliteStore) -> None:
    add_run(store, "a", {**outcomes("x", "p" * 10), **outcomes("y", "pp")})
    add_run(store, "b", {**outcomes("x", "f" * 10), **outcomes("y", "pe")})
    report = as_json(compare_runs(store, "a", "b"))
    assert report["verdict"] == "worse" and report["worse"] == ["x", OVERALL]
    assert report["baseline"]["run_id"] == "a" and report["candidate"]["contract"]["id"] == "demo"
    x = report["claims"][0]
    assert set(x) == {
        "claim",
        "pairs",
        "baseline",
        "candidate",
        "discordant",
        "difference",
        "ci95",
        "p_value",
        "p_adjusted",
        "verdict",
        "power",
        "cases_needed",
        "cases_needed_beyond",
        "can_reach_alpha",
        "excluded",
        "scores",
    }
    assert x["discordant"] == {"baseline_only": 10, "candidate_only": 0}
    assert report["claims"][1]["excluded"] == {"error": 1, "skipped": 0}
    json.dumps(report)  # plain JSON, nothing exotic


def test_markdown_report_has_a_row_per_claim(store: SqliteStore, tmp_path: Path) -> None:
    add_run(store, "a", {**outcomes("x", "p" * 10), **outcomes("y", "pp")})
    add_run(store, "b", {**outcomes("x", "f" * 10), **outcomes("y", "pp")})
    path = tmp_path / "comment.md"
    with path.open("w", encoding="utf-8") as out:
        write_report(compare_runs(store, "a", "b"), "markdown", out)
    text = path.read_text(encoding="utf-8")
    assert "| claim | pairs | baseline | candidate | difference [95% CI] | p (Holm) |" in text
    assert "| `x` | 10 | 100.0% | 0.0% | -100.0 pp" in text and "**worse**" in text
    assert "| `y` | 2 | 100.0% | 100.0% | +0.0 pp" in text


def test_a_claim_without_pairs_has_no_pass_rates_rather_than_zero(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # a file gets the whole table
    # Every result of z is skipped in the candidate (judges off): nothing to pair.
    add_run(store, "a", {**outcomes("x", "pppp"), **outcomes("z", "pppf")})
    add_run(store, "b", {**outcomes("x", "pppp"), **outcomes("z", "ssss")})
    comparison = compare_runs(store, "a", "b")
    z = next(c for c in as_json(comparison)["claims"] if c["claim"] == "z")
    assert z["pairs"] == 0
    assert z["baseline"]["pass_rate"] is None and z["candidate"]["pass_rate"] is None
    for fmt in ("markdown", "console"):
        path = tmp_path / f"compare.{fmt}"
        with path.open("w", encoding="utf-8") as out:
            write_report(comparison, fmt, out)
        text = path.read_text(encoding="utf-8")
        (row,) = [line for line in text.splitlines() if " z " in line or "`z`" in line]
        assert "0.0%" not in row and row.count("—") >= 3, row


# --- end to end: `verifier run` twice, then `verifier compare` --------------------------------


def verifier(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_verifier(*args, cwd=cwd, env=env, clear_prefixes=("COLUMNS",), timeout=120)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A store holding a baseline and a candidate run of the fixture contract."""
    where = tmp_path_factory.mktemp("compare")
    ids = []
    for cases in ("baseline.jsonl", "candidate.jsonl"):
        result = verifier(
            "run",
            str(RUNS / "contract.yaml"),
            "--cases",
            str(RUNS / cases),
            "--store",
            "gaps.db",
            "--format",
            "json",
            cwd=where,
        )
        assert result.returncode in (0, 1), result.stderr
        ids.append(json.loads(result.stdout)["run_id"])
    return where, ids[0], ids[1]


def _claims(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["claim"]: c for c in report["claims"]}


def test_compare_flags_the_worse_claim_and_exits_one(two_runs: tuple[Path, str, str]) -> None:
    where, baseline, candidate = two_runs
    result = verifier(
        "compare", baseline, candidate, "--store", "gaps.db", "--format", "json", cwd=where
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "worse"
    assert report["worse"] == ["cites_source", OVERALL]
    assert report["cases"] == {"paired": 20, "only_in_baseline": 1, "only_in_candidate": 1}
    claims = _claims(report)
    assert list(claims) == ["cites_source", "short_enough", "keeps_disclaimer"]
    cites = claims["cites_source"]
    assert cites["verdict"] == "worse"
    assert cites["baseline"] == {"passed": 20, "pass_rate": 1.0}
    assert cites["candidate"] == {"passed": 6, "pass_rate": 0.3}
    assert cites["discordant"] == {"baseline_only": 14, "candidate_only": 0}
    assert cites["difference"] == pytest.approx(-0.7)
    low, high = cites["ci95"]
    assert -1.0 <= low < -0.7 < high < 0.0
    assert cites["p_value"] == pytest.approx(2 / 2**14)
    assert cites["p_adjusted"] <= 0.05 and cites["cases_needed"] < 20
    short = claims["short_enough"]
    assert short["verdict"] == "no detectable change" and short["difference"] == 0.0
    assert short["discordant"] == {"baseline_only": 0, "candidate_only": 0}
    assert (short["baseline"]["passed"], short["pairs"]) == (19, 20)
    # Every disclaimer still passes, but ten scores dropped: the signed-rank test sees
    # what pass/fail cannot.
    disclaimer = claims["keeps_disclaimer"]
    assert disclaimer["verdict"] == "no detectable change"
    assert disclaimer["scores"]["nonzero"] == 10 and disclaimer["scores"]["p_value"] < 0.05
    assert report["overall"]["claim"] == OVERALL and report["overall"]["verdict"] == "worse"
    assert "Traceback" not in result.stderr


def test_compare_in_reverse_is_better_and_exits_zero(two_runs: tuple[Path, str, str]) -> None:
    where, baseline, candidate = two_runs
    result = verifier(
        "compare", candidate, baseline, "--store", "gaps.db", "--format", "json", cwd=where
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "better" and report["worse"] == []
    assert _claims(report)["cites_source"]["verdict"] == "better"
    assert _claims(report)["short_enough"]["verdict"] == "no detectable change"


def test_compare_console_and_markdown(two_runs: tuple[Path, str, str]) -> None:
    where, baseline, candidate = two_runs
    console = verifier("compare", baseline, candidate, "--store", "gaps.db", cwd=where)
    assert console.returncode == 1
    assert "cites_source" in console.stdout and "worse" in console.stdout
    assert "significantly worse: cites_source" in console.stdout
    markdown = verifier(
        "compare", baseline, candidate, "--store", "gaps.db", "--format", "markdown", cwd=where
    )
    assert markdown.returncode == 1
    assert "| `cites_source` | 20 | 100.0% | 30.0% | -70.0 pp" in markdown.stdout


def test_compare_fits_an_80_column_terminal_with_every_figure_whole(
    two_runs: tuple[Path, str, str],
) -> None:
    where, baseline, candidate = two_runs
    wide = verifier("compare", baseline, candidate, "--store", "gaps.db", cwd=where)
    assert max(map(len, wide.stdout.splitlines())) > 80  # written to a pipe: the full table
    narrow = verifier(
        "compare", baseline, candidate, "--store", "gaps.db", cwd=where, env={"COLUMNS": "80"}
    )
    assert narrow.returncode == 1
    lines = narrow.stdout.splitlines()
    assert max(map(len, lines)) <= 80, narrow.stdout
    assert "…" not in narrow.stdout  # no figure or name cut short
    row = next(line for line in lines if line.lstrip().startswith("cites_source"))
    assert row.split()[:4] == ["cites_source", "100.0%", "30.0%", "-70.0"]
    tests = next(line for line in lines[lines.index(row) + 1 :] if "cites_source" in line)
    assert tests.split() == ["cites_source", "20", "0.0001", "(0.0002)", ">99%", "10"]
    assert "keeps_disclaimer" in narrow.stdout and "significantly worse: cites_source" in (
        narrow.stdout
    )


def test_compare_usage_errors_exit_two(two_runs: tuple[Path, str, str]) -> None:
    where, baseline, _ = two_runs
    unknown = verifier("compare", baseline, "no-such-run", "--store", "gaps.db", cwd=where)
    assert unknown.returncode == 2
    assert "no-such-run" in unknown.stderr and "Traceback" not in unknown.stderr
    missing = verifier("compare", baseline, baseline, "--store", "nowhere.db", cwd=where)
    assert missing.returncode == 2 and "no store found" in missing.stderr


def test_runs_of_different_contracts_exit_two(tmp_path: Path) -> None:
    ids = []
    for contract, cases in (
        (RUNS / "contract.yaml", RUNS / "baseline.jsonl"),
        (EXAMPLES / "data-extraction.yaml", EXAMPLES / "data-extraction.cases.jsonl"),
    ):
        result = verifier(
            "run", str(contract), "--cases", str(cases), "--format", "json", cwd=tmp_path
        )
        ids.append(json.loads(result.stdout)["run_id"])
    result = verifier("compare", *ids, cwd=tmp_path)
    assert result.returncode == 2
    assert "only runs of one contract can be compared" in result.stderr
