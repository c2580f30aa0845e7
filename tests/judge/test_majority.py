from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.judge.majority import combine_samples
from verifier.judge.verdict import ClaimVerdict, VerdictProblem


def vote(status: str, score: float | None = None, claim_id: str = "c") -> ClaimVerdict:
    value = score if score is not None else (1.0 if status == "pass" else 0.0)
    return ClaimVerdict(claim_id, status, value, f"judged {status}")  # type: ignore[arg-type]


PROBLEM = VerdictProblem(
    "malformed", "malformed verdict: results: Field required", True, {"text": "?"}
)


def test_single_sample_passes_through() -> None:
    combined = combine_samples([vote("pass")])
    assert (combined.status, combined.score, combined.agreement_rate) == ("pass", 1.0, 1.0)
    assert combined.reason == "judged pass"


def test_majority_decides_and_agreement_is_recorded() -> None:
    combined = combine_samples([vote("pass"), vote("fail"), vote("pass")])
    assert combined.status == "pass"
    assert combined.agreement_rate == pytest.approx(2 / 3)
    assert combined.score == pytest.approx(2 / 3)
    assert combined.reason == "judged pass (2 of 3 verdicts agree)"
    assert [s["status"] for s in combined.samples] == ["pass", "fail", "pass"]


def test_even_split_fails_naming_the_split() -> None:
    combined = combine_samples([vote("pass"), vote("fail"), vote("fail"), vote("pass")])
    assert combined.status == "fail"
    assert combined.agreement_rate == 0.5
    assert combined.reason.startswith(
        "samples split evenly (2 pass, 2 fail); an even split does not pass"
    )


def test_scale_samples_average_their_normalised_scores() -> None:
    combined = combine_samples([vote("pass", 0.75), vote("pass", 1.0), vote("fail", 0.25)])
    assert combined.status == "pass"
    assert combined.score == pytest.approx(2 / 3)


def test_failed_samples_do_not_vote_but_a_majority_of_verdicts_is_needed() -> None:
    enough = combine_samples([vote("fail"), PROBLEM, vote("fail")])
    assert enough.status == "fail" and enough.agreement_rate == 1.0
    assert enough.samples[1] == {
        "status": "error",
        "problem": "malformed",
        "reason": PROBLEM.reason,
        "raw": {"text": "?"},
    }
    too_few = combine_samples([vote("pass"), PROBLEM, PROBLEM])
    assert too_few.status == "error" and too_few.score is None
    assert too_few.reason == f"only 1 of 3 samples gave a verdict; first problem: {PROBLEM.reason}"


def test_single_failed_sample_is_an_error_with_its_reason() -> None:
    combined = combine_samples([PROBLEM])
    assert (combined.status, combined.reason, combined.agreement_rate) == (
        "error",
        PROBLEM.reason,
        None,
    )


def test_samples_still_missing_count_against_the_quorum() -> None:
    combined = combine_samples([vote("pass"), vote("pass")], requested=5)
    assert combined.status == "error"
    assert combined.reason == "only 2 of 5 samples gave a verdict"


def test_samples_of_different_claims_or_none_are_refused() -> None:
    with pytest.raises(ValueError, match="different claims"):
        combine_samples([vote("pass", claim_id="a"), vote("pass", claim_id="b")])
    with pytest.raises(ValueError, match="no samples"):
        combine_samples([])


@given(st.lists(st.sampled_from(["pass", "fail", "error"]), min_size=1, max_size=15))
def test_status_follows_the_votes(statuses: list[str]) -> None:
    samples = [PROBLEM if s == "error" else vote(s) for s in statuses]
    combined = combine_samples(samples)
    passes, fails = statuses.count("pass"), statuses.count("fail")
    if (passes + fails) * 2 <= len(statuses):
        assert combined.status == "error"
    elif passes > fails:
        assert combined.status == "pass"
    else:
        assert combined.status == "fail"
