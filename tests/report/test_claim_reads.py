"""What a claim reads of a case besides the field it checks, from the contract source
the store kept: a citation's ``within``, the fields a judge is shown."""

from __future__ import annotations

import hashlib
from pathlib import Path

from verifier.gaps.sqlite.store import SqliteStore
from verifier.report._claim_notes import claim_notes, judge_saw

SOURCE = """\
contract: reads
version: 1
judges:
  builtin: {provider: anthropic, model: claude-haiku-4-5-20251001}
  own: {provider: anthropic, model: claude-haiku-4-5-20251001, prompt: mine.md}
claims:
  - {id: cited, rubric: citation, spans: "quotes.*", within: "docs.*"}
  - {id: judged, judge: builtin, instruction: x}
  - id: referenced
    judge: own
    field: fields.summary
    instruction: x
    reference: {bad: known_bad, why: bad_because, expected: gold}
  - {id: paired, compare: pairwise, judge: builtin, instruction: x}
  - {id: short, rubric: length, field: output, max_words: 3}
"""


def test_each_claim_names_what_it_reads(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        store.begin_run(
            "r1",
            contract_id="reads",
            contract_version=1,
            contract_sha256=hashlib.sha256(SOURCE.encode()).hexdigest(),
            contract_path="reads.yaml",
            contract_source=SOURCE,
            started_at="2026-11-25T10:00:00Z",
            options={},
        )
        record = store.run("r1")
        assert record is not None
        notes = claim_notes(store, record)
    assert notes["cited"].reads == ("docs.*",)
    assert notes["judged"].reads == ("input", "output") and not notes["judged"].own_prompt
    assert notes["referenced"].reads == (
        "input", "fields.summary", "gold", "known_bad", "bad_because",
    )  # fmt: skip
    assert notes["paired"].reads == () and notes["short"].reads == ()
    assert judge_saw(notes["judged"]) == "the judge was shown input, output"
    assert judge_saw(notes["referenced"]) == (
        "the judge was shown input, fields.summary, gold, known_bad, bad_because; its "
        "judge's own prompt may show other case fields too, which the rows do not record"
    )
    assert judge_saw(None) is None
