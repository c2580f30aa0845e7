"""Which judge changes a recorded succession explains: a judge's and its claims', of
the trial's contract or of any, directly or through a chain; nothing else."""

from __future__ import annotations

import dataclasses

from verifier.analyses.drift import DriftChange, JudgeSetup
from verifier.analyses.lineage import explain_drift
from verifier.gaps.successions import Lineage, SuccessionRow

A = ("claude-haiku-4-5-20251001", "p" * 64, "s" * 64)
B = ("claude-sonnet-4-5-20250929", "p" * 64, "s" * 64)
C = ("claude-opus-4-5-20251101", "p" * 64, "s" * 64)

A_TO_B = SuccessionRow(
    created_at="2026-11-28T12:00:00Z", succession_id="s1", judge="strict", contract_id="",
    trial_id="t1", old_triples=[list(A)], new_triples=[list(B)],
    rule={"min_kappa": 0.6, "max_shift": 0.05}, outcome="pass",
    figures={"agreement": 0.9, "kappa": 0.8}, accepted_failed="", written="",
)  # fmt: skip


def change(old: tuple[str, str, str], new: tuple[str, str, str], **fields: object) -> DriftChange:
    judge = str(fields.pop("judge", "strict"))
    made = DriftChange(
        "judge", "house", judge, "r2", 10, "2026-11-28T13:00:00Z", "r1",
        JudgeSetup(*old, judge_name=judge), JudgeSetup(*new, judge_name=judge), "binary",
    )  # fmt: skip
    return dataclasses.replace(made, **fields)  # type: ignore[arg-type]


def test_a_judges_change_and_its_claims_are_a_succession_and_the_rest_drift() -> None:
    lineage = Lineage((A_TO_B,))
    judge = change(A, B)
    claim = change(A, B, scope="claim", subject="factual")
    later = change(B, C)
    other_judge = change(A, B, judge="lenient")
    drift, successions = explain_drift([judge, claim, later, other_judge], lineage)
    assert [c.subject for c in successions] == ["strict", "factual"]
    assert all(c.succession == A_TO_B.summary() for c in successions)
    assert drift == [later, other_judge]
    assert all(c.succession is None for c in drift)
    assert drift[0].as_dict()["succession"] is None


def test_a_claim_moved_to_another_judge_is_not_explained() -> None:
    moved = change(A, B, scope="claim", subject="factual")
    moved = dataclasses.replace(moved, before=JudgeSetup(*A, judge_name="lenient"))
    assert explain_drift([moved], Lineage((A_TO_B,))) == ([moved], [])


def test_another_contracts_trial_and_a_stored_prompt_change_are_not_explained() -> None:
    elsewhere = dataclasses.replace(A_TO_B, contract_id="other")
    assert explain_drift([change(A, B)], Lineage((elsewhere,)))[1] == []
    mine = dataclasses.replace(A_TO_B, contract_id="house")
    assert len(explain_drift([change(A, B)], Lineage((mine,)))[1]) == 1
    stored = change(A, B)
    stored = dataclasses.replace(
        stored, after=dataclasses.replace(stored.after, stored_prompt=("pmpt", "2"))
    )
    assert explain_drift([stored], Lineage((A_TO_B,))) == ([stored], [])


def test_a_chain_explains_the_change_from_its_first_triple_to_its_last() -> None:
    b_to_c = dataclasses.replace(
        A_TO_B, succession_id="s2", trial_id="t2", old_triples=[list(B)], new_triples=[list(C)]
    )
    (explained,) = explain_drift([change(A, C)], Lineage((A_TO_B, b_to_c)))[1]
    assert explained.succession == f"{A_TO_B.summary()}; {b_to_c.summary()}"
