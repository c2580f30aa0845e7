"""A large case under `record: content: none`: no result of it keeps a value of it whole (of
four characters or more), in any escaped form, nor any run of `QUOTE_CHARS` characters
copied from it, whatever its results quote and however they quote it."""

from __future__ import annotations

import json
import random
import string

from verifier.gaps.redact import QUOTE_CHARS
from verifier.gaps.withhold import Withholder
from verifier.results import ClaimResult

CONTRACT = {
    "contract": "large",
    "claims": [{"id": "cites", "pattern": "source", "field": "output"}],
}


def _word(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9)))


def _large_case(rng: random.Random) -> dict[str, object]:
    """About 300 KB of text: a long output, 2,000 listed values, nested JSON in a string."""
    output = " ".join(_word(rng) for _ in range(40_000))
    notes = {"owner": f'{_word(rng)} "{_word(rng)}"\n{_word(rng)}', "arr": 81_234}
    return {
        "id": "big-1",
        "input": f"brief on {_word(rng)} {_word(rng)}",
        "output": output,
        "fields": {"tags": [_word(rng) for _ in range(2_000)], "notes": json.dumps(notes)},
    }


def _results(case: dict[str, object], rng: random.Random) -> list[ClaimResult]:
    """Results quoting the case every way a check or a judge does: spans, found values,
    slices cut mid-word, repr and JSON forms, a value inside a key."""
    output = str(case["output"])
    fields = case["fields"]
    assert isinstance(fields, dict)
    tags, notes = fields["tags"], json.loads(fields["notes"])
    cut = output[1_000:1_040]
    return [
        ClaimResult(
            "cites",
            "rubric",
            "fail",
            0.0,
            f"pattern found in output at 5-40: {output[5:40]!r}; then {cut[3:30]} and {tags[7]}",
            {"path": "output", "span": output[5:40], "start": 5, "end": 40},
        ),
        ClaimResult(
            "tags",
            "rubric",
            "pass",
            1.0,
            f"output contains {json.dumps(tags[10])} and {tags[11]!r} and {notes['owner']!r}",
            {
                "found": [{"value": t, "start": n} for n, t in enumerate(tags[:300])],
                tags[12]: {"nested": [tags[13], 81_234, notes["owner"]]},
                "reason": f"quoted {json.dumps(notes['owner'])} at length",
            },
        ),
        ClaimResult(
            "judge",
            "judge",
            "fail",
            0.2,
            f"the judge said: {output[20_000:20_400]}",
            {"verdict": {"reasoning": output[30_000:30_500], "score": 2}, "judge": {"model": "m"}},
        ),
    ]


def _texts(case: object) -> list[str]:
    if isinstance(case, dict):
        return [t for v in case.values() for t in _texts(v)]
    if isinstance(case, list):
        return [t for v in case for t in _texts(v)]
    return [str(case)]


def test_a_large_case_leaves_no_text_in_its_results() -> None:
    rng = random.Random(35)
    case = _large_case(rng)
    values = _texts(case) + _texts(json.loads(str(case["fields"]["notes"])))  # type: ignore[index]
    forms = {f for v in values for f in (v, repr(v)[1:-1], json.dumps(v)[1:-1])}
    windows = {f[i : i + QUOTE_CHARS] for f in forms for i in range(len(f) - QUOTE_CHARS + 1)}
    scrub = Withholder("none", CONTRACT).for_case(case)
    for result in _results(case, rng):
        kept = scrub.result(result)
        stored = json.dumps([kept.reason, kept.evidence], ensure_ascii=False)
        copied = [stored[i : i + QUOTE_CHARS] for i in range(len(stored) - QUOTE_CHARS + 1)]
        assert not windows.intersection(copied), kept
        for value in values:
            if len(value) >= 4:
                assert value not in kept.reason, (value, kept.reason)
        for found in (repr(v) for v in values):
            assert found not in kept.reason
        assert kept.status == result.status and kept.score == result.score
    # Positions, numbers that are no value of the case, and the judge's triple stay.
    first = scrub.result(_results(case, rng)[0])
    assert (first.evidence["start"], first.evidence["end"]) == (5, 40)
    assert first.evidence["span"] == {"withheld": "case text", "length": 35}
    judged = scrub.result(_results(case, rng)[2])
    assert judged.evidence["judge"] == {"model": "m"}
    assert judged.evidence["verdict"]["reasoning"] == {"withheld": "case text", "length": 500}
    assert judged.evidence["verdict"]["score"] == 2
