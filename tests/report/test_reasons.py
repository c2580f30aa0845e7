"""Why claims did not pass: reasons that differ only in numbers or in the case's own id
are one reason, counted together."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from verifier.report._reasons import ReasonTally
from verifier.results import CaseResult, ClaimResult

Make = Callable[..., Any]


def top_reasons(cases: list[CaseResult]) -> list[tuple[str, str, int]]:
    tally = ReasonTally()
    for c in cases:
        tally.add(c)
    return [(r.claim_id, t.reason, t.count) for r in tally.top() for t in r.top]


@pytest.fixture
def no_verdict(
    make_case: Callable[..., CaseResult], make_claim: Callable[..., ClaimResult]
) -> Callable[[str], CaseResult]:
    def one(case_id: str) -> CaseResult:
        reason = f"replay: no recorded verdict for claim tone on case {case_id}"
        return make_case(case_id, make_claim("tone", "error", reason), make_claim("short"))

    return one


def test_reasons_that_differ_only_in_the_case_id_are_one_reason(
    no_verdict: Callable[[str], CaseResult],
) -> None:
    cases = [no_verdict("late-parcel"), no_verdict("return-shoes"), no_verdict("lost-card")]

    assert top_reasons(cases) == [
        ("tone", "replay: no recorded verdict for claim tone on case CASE", 3)
    ]


def test_a_reason_given_for_one_case_keeps_its_id(no_verdict: Callable[[str], CaseResult]) -> None:
    assert top_reasons([no_verdict("late-parcel")]) == [
        ("tone", "replay: no recorded verdict for claim tone on case late-parcel", 1)
    ]


def test_only_whole_tokens_of_an_id_are_the_id(make_case: Make, make_claim: Make) -> None:
    # "parcel" is part of the token late-parcel, "acct-00" a prefix of acct-003.
    cases = [
        make_case("parcel", make_claim("tone", "fail", "no verdict for late-parcel")),
        make_case("other", make_claim("tone", "fail", "no verdict for late-other")),
        make_case("acct-00", make_claim("cites", "fail", "cites acct-003 twice")),
        make_case("acct-01", make_claim("cites", "fail", "cites acct-013 twice")),
    ]

    assert top_reasons(cases) == [
        ("tone", "no verdict for late-parcel", 1),
        ("tone", "no verdict for late-other", 1),
        ("cites", "cites acct-N twice", 2),
    ]


@pytest.mark.parametrize("order", ["bacd", "abcd", "dcba"])
def test_a_short_id_that_is_also_a_word_does_not_split_a_reason(
    order: str, make_case: Make, make_claim: Make
) -> None:
    # The case "a" names no id: its "a" is the article the other cases give too.
    words = "expected a value at output"
    cases = [make_case(i, make_claim("shape", "fail", words)) for i in order]

    assert top_reasons(cases) == [("shape", words, 4)]


def test_numeric_ids_are_grouped_as_numbers(make_case: Make, make_claim: Make) -> None:
    cases = [
        make_case(str(n), make_claim("tone", "fail", f"no verdict for case {n}")) for n in (7, 12)
    ]

    assert top_reasons(cases) == [("tone", "no verdict for case N", 2)]


def test_every_claim_failing_alike_is_grouped_by_case_id_too(
    make_case: Make, make_claim: Make
) -> None:
    def unusable(case_id: str) -> CaseResult:
        reason = f"line of case {case_id} is not JSON"
        return make_case(
            case_id, make_claim("a", "error", reason), make_claim("b", "error", reason)
        )

    assert top_reasons([unusable("x-1"), unusable("y-2")]) == [
        ("(every claim)", "line of case CASE is not JSON", 2)
    ]
