"""``trial_judge`` against the Messages API stand-in: a store of a live run of a small
judged contract, and a candidate model that judges known cases otherwise. Every figure
is computed here again from the known table, by formula and with scipy."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from tests.judge.messages_server import MessagesServer
from tests.trial._support import BINARY, NEW_MODEL, OLD_MODEL, expected_pairs
from verifier.gaps.store import open_store
from verifier.trial import Candidate, NoJudgeKey, NoVerdicts, TrialRule, trial_judge


def fce_kappa(a: int, b: int, c: int, d: int) -> tuple[float, float, float]:
    """Kappa and its 95% Wald interval (Fleiss, Cohen & Everitt 1969), written out:
    ``a`` both pass, ``b`` judge pass and candidate fail, ``c`` the other way, ``d``
    both fail."""
    n = a + b + c + d
    p11, p12, p21, p22 = a / n, b / n, c / n, d / n
    r1, r2, c1, c2 = p11 + p12, p21 + p22, p11 + p21, p12 + p22
    po, pe = p11 + p22, r1 * c1 + r2 * c2
    k = (po - pe) / (1 - pe)
    term_a = p11 * (1 - (r1 + c1) * (1 - k)) ** 2 + p22 * (1 - (r2 + c2) * (1 - k)) ** 2
    term_b = (1 - k) ** 2 * (p12 * (c1 + r2) ** 2 + p21 * (c2 + r1) ** 2)
    term_c = (k - pe * (1 - k)) ** 2
    se = math.sqrt(term_a + term_b - term_c) / ((1 - pe) * math.sqrt(n))
    z = stats.norm.ppf(0.975)
    return k, max(-1.0, k - z * se), min(1.0, k + z * se)


def cells(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int, int]:
    count = Counter(pairs)
    return count[(True, True)], count[(True, False)], count[(False, True)], count[(False, False)]


def test_every_stored_verdict_is_asked_once_with_the_candidate_and_measured(
    store: str, server: MessagesServer
) -> None:
    said: list[str] = []
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store,
            Candidate("strict", NEW_MODEL, base_url=server.base_url),
            sample=1000,
            seed=7,
            announce=said.append,
        )
    calls = server.model_calls()
    # One call per binary verdict (the scale is not trialled), every one with the candidate.
    assert len(calls) == len(expected_pairs()) == 24
    assert {c.body["model"] for c in calls} == {NEW_MODEL}
    assert said[0].startswith("rule: pass when the lower bound of Cohen's kappa's 95% interval")
    assert report.eligible == 24 and report.not_asked == []
    expected = expected_pairs()
    got = {(v.case_id, v.claim_id): (v.old, v.new) for v in report.verdicts}
    assert got == expected
    overall = report.as_dict()["overall"]
    a, b, c, d = cells(list(expected.values()))
    assert (a, b, c, d) == (10, 4, 2, 8)
    kappa, low, high = fce_kappa(a, b, c, d)
    assert overall["kappa"] == pytest.approx(kappa, abs=1e-6)
    assert overall["kappa_ci"] == pytest.approx([low, high], abs=1e-6)
    assert overall["agreement"] == pytest.approx((a + d) / 24, abs=1e-6)
    assert overall["pass_rate_before"] == pytest.approx(14 / 24, abs=1e-6)
    assert overall["pass_rate_after"] == pytest.approx(12 / 24, abs=1e-6)
    assert overall["difference"] == pytest.approx((c - b) / 24, abs=1e-6)
    diff_low, diff_high = overall["difference_ci"]
    assert diff_low < (c - b) / 24 < diff_high
    assert overall["mcnemar_p"] == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, abs=1e-6)
    assert overall["stricter"] == 4 and overall["laxer"] == 2
    for claim in BINARY:
        mine = [pair for (_, cl), pair in expected.items() if cl == claim]
        figures = report.as_dict()["claims"][claim]
        k, lo, hi = fce_kappa(*cells(mine))
        assert figures["kappa"] == pytest.approx(k, abs=1e-6)
        assert figures["kappa_ci"] == pytest.approx([lo, hi], abs=1e-6)
    flipped = {(f["case_id"], f["claim_id"]): f for f in report.as_dict()["flipped"]}
    assert set(flipped) == {key for key, (old, new) in expected.items() if old != new}
    assert flipped[("c09", "factual")]["old"] == "fail"
    assert flipped[("c09", "factual")]["new"] == "pass"
    assert flipped[("c09", "factual")]["new_reason"] == "the candidate turned factual round"
    assert "guess" in flipped[("c09", "factual")]["old_reason"].lower()
    assert {v.new_triple["model_id"] for v in report.verdicts} == {NEW_MODEL}
    assert {v.old_triple["model_id"] for v in report.verdicts} == {OLD_MODEL}
    # Kappa's lower bound is below 0.6, and the difference's interval leaves ±0.05.
    assert low < 0.6
    assert report.decision()[0] == "fail"


def test_the_decision_follows_the_rule(store: str, server: MessagesServer) -> None:
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store, Candidate("strict", NEW_MODEL, base_url=server.base_url), sample=100
        )
    overall = report.overall()
    assert overall.kappa_ci is not None
    low = overall.kappa_ci[0]
    below, above = overall.difference_ci
    loose = TrialRule(min_kappa=round(low - 0.01, 3), max_shift=max(-below, above) + 0.01)
    assert loose.decide(overall)[0] == "pass"
    strict_kappa = TrialRule(min_kappa=round(low + 0.01, 3), max_shift=1.0)
    assert strict_kappa.decide(overall)[0] == "fail"
    narrow_shift = TrialRule(min_kappa=-1.0, max_shift=max(-below, above) - 0.01)
    assert narrow_shift.decide(overall)[0] == "fail"


def test_a_sample_is_stratified_deterministic_and_asked_once_per_verdict(
    store: str, server: MessagesServer
) -> None:
    def drawn(seed: int) -> list[tuple[str, str]]:
        with open_store(store) as gap_store:
            report = trial_judge(
                gap_store,
                Candidate("strict", NEW_MODEL, base_url=server.base_url),
                sample=8,
                seed=seed,
            )
        return [(v.case_id, v.claim_id) for v in report.verdicts]

    first = drawn(3)
    assert len(server.model_calls()) == 8
    assert all(c.body["model"] == NEW_MODEL for c in server.model_calls())
    assert drawn(3) == first
    # Four strata (claim by stored verdict) of 7, 5, 7 and 5: one of each, then 1.2, 0.8,
    # 1.2 and 0.8 of the other 4, the larger remainders rounded up: two of each.
    expected = expected_pairs()
    strata = Counter((claim, expected[(case, claim)][0]) for case, claim in first)
    assert strata == {(c, old): 2 for c in BINARY for old in (True, False)}


def test_no_key_stops_the_trial_before_any_call(
    store: str, server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with open_store(store) as gap_store, pytest.raises(NoJudgeKey, match="ANTHROPIC_API_KEY"):
        trial_judge(gap_store, Candidate("strict", NEW_MODEL, base_url=server.base_url))
    assert server.model_calls() == []


def test_a_judge_with_no_binary_verdicts_is_refused(store: str, server: MessagesServer) -> None:
    with open_store(store) as gap_store, pytest.raises(NoVerdicts, match="'lenient'"):
        trial_judge(gap_store, Candidate("lenient", NEW_MODEL, base_url=server.base_url))
    assert server.model_calls() == []


def test_a_prompt_given_asks_with_that_template_and_a_contract_filter_applies(
    store: str, server: MessagesServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import json

    import verifier.judge

    builtin = Path(verifier.judge.__file__).parent / "templates" / "assertions.md"
    text = builtin.read_text(encoding="utf-8")
    template = tmp_path_factory.mktemp("elsewhere") / "successor.md"
    template.write_text(text.replace("You are an evaluation judge.", "You are the successor."))
    candidate = Candidate("strict", NEW_MODEL, prompt=template, base_url=server.base_url)
    with open_store(store) as gap_store:
        report = trial_judge(gap_store, candidate, sample=4, contract_id="trialled")
        with pytest.raises(NoVerdicts, match="of contract other"):
            trial_judge(gap_store, candidate, contract_id="other")
    calls = server.model_calls()
    assert len(calls) == 4
    assert all("You are the successor." in json.dumps(c.body) for c in calls)
    assert len(report.verdicts) == 4
    for verdict in report.verdicts:
        assert verdict.new_triple["prompt_sha"] != verdict.old_triple["prompt_sha"]
        assert verdict.new_triple["sampling_sha"] == verdict.old_triple["sampling_sha"]


def test_a_verdict_the_candidate_cannot_give_is_not_counted(
    store: str, server: MessagesServer
) -> None:
    from tests.judge.behaviours import Behaviour, http_error
    from tests.judge.judge_brain import _output_block, _user_text
    from tests.trial._support import OUTPUTS, per_model

    def refuses_c12(request: dict[str, Any]) -> Behaviour:
        if _output_block(_user_text(request)).strip() == OUTPUTS["c12"]:
            return http_error(400, "the candidate refuses this request")
        return per_model(request)

    server.default = refuses_c12
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store, Candidate("strict", NEW_MODEL, base_url=server.base_url), sample=100
        )
    assert len(server.model_calls()) == 24
    assert len(report.verdicts) == 22
    assert {(v.case_id) for v in report.verdicts} == set(OUTPUTS) - {"c12"}
    assert len(report.not_asked) == 2
    assert all("case c12" in line and "no verdict" in line for line in report.not_asked)
    # The two verdicts it could not give count neither as agreeing nor as flipped.
    assert report.overall().n == 22


def redacting_store(folder: Path, server: MessagesServer, redact: str) -> str:
    """A store of a run of the contract whose record policy redacts ``redact``; each
    case has a ``meta.customer`` field no claim reads."""
    import json

    from tests.trial._support import write_contract
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges

    folder.mkdir()
    contract, cases = write_contract(folder)
    contract.write_text(contract.read_text() + f"record:\n  redact: [{redact}]\n", encoding="utf-8")
    lines = [json.loads(line) for line in cases.read_text().splitlines()]
    cases.write_text("".join(json.dumps({**c, "meta": {"customer": "Acme"}}) + "\n" for c in lines))
    target = str(folder / "gaps.db")
    judges = Judges(mode="live", base_url=server.base_url, recordings_beside_contract=False)
    run_contract(contract, cases, store=target, judges=judges)
    server.requests.clear()
    return target


def test_a_redacting_run_keeps_no_candidate_reason_and_a_redacted_judged_field_is_not_asked(
    store: str, server: MessagesServer, tmp_path: Path
) -> None:
    from verifier.trial.report import WITHHELD_REASON

    candidate = Candidate("strict", NEW_MODEL, base_url=server.base_url)
    with open_store(redacting_store(tmp_path / "meta", server, "meta.customer")) as gap_store:
        report = trial_judge(gap_store, candidate, sample=100)
    assert len(report.verdicts) == 24 and len(server.model_calls()) == 24
    flipped = report.as_dict()["flipped"]
    assert flipped[0]["new_reason"].startswith("the candidate turned")  # shown, not kept
    assert {v["new_reason"] for v in report.row().verdicts} == {WITHHELD_REASON}
    server.requests.clear()
    with open_store(redacting_store(tmp_path / "output", server, "output")) as gap_store:
        report = trial_judge(gap_store, candidate, sample=100)
    assert report.verdicts == [] and server.model_calls() == []
    assert len(report.not_asked) == 24
    assert all("the claim reads output, which the store withheld" in n for n in report.not_asked)
    assert report.decision() == ("undecided", "no verdict was re-asked")


def test_a_candidate_agreeing_on_every_verdict_is_bounded_and_decided(
    store: str, server: MessagesServer
) -> None:
    # The judge's own model as the candidate: the same 24 verdicts, 14 passes.
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store, Candidate("strict", OLD_MODEL, base_url=server.base_url), sample=100
        )
    assert len(server.model_calls()) == 24 and report.flipped() == []
    overall = report.as_dict()["overall"]
    pe = (14 / 24) ** 2 + (10 / 24) ** 2
    bound = (0.025 ** (1 / 24) - pe) / (1 - pe)
    assert bound == pytest.approx(0.706911, abs=1e-6)
    assert overall["kappa_ci"] == pytest.approx([bound, 1.0], abs=1e-6)
    assert overall["kappa_ci_method"] == "zero-disagreement bound"
    # Kappa's bound clears 0.6, but 24 verdicts leave the difference's interval wide.
    low, high = overall["difference_ci"]
    outcome, why = report.decision()
    assert outcome == "fail" and "kappa" not in why
    assert why == (f"the pass-rate difference's interval [{low:+.3f}, {high:+.3f}] leaves ±0.05")
