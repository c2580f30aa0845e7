"""Every message `verifier check` gives for a contract that does not validate reads in
YAML terms: no pydantic wording, no Python names, no key suggested that YAML cannot hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._cli import verifier

HEADER = "contract: demo\nversion: 1\n"
JUDGE = "judges:\n  j: {provider: anthropic, model: claude-haiku-4-5-20251001}\n"
# Words that belong to pydantic or Python, never to a contract's author.
LEAKS = ("Input should", "valid tuple", "dictionary", "instance of", "Extra inputs")
INTERNAL_NAME = re.compile(r"[a-z0-9]_'")  # `schema_`: a Python alias of `schema`


def problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    done = verifier("check", "c.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    found = [line for line in done.stdout.splitlines() if line.startswith("c.yaml:")]
    for line in found:
        assert not any(leak in line for leak in LEAKS), line
        assert not INTERNAL_NAME.search(line), line
    return found


CASES = [
    pytest.param(
        "claims:\n  - id: a\n    rubric: length\n    field: output\n    max: 3\n",
        "c.yaml:7:5: claim 'a': unknown key 'max'; length takes field, max_chars, max_words, "
        "min_chars, min_words",
        id="no-suggestion-of-the-key-itself",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: range\n    field: output\n    mx: 3\n",
        "c.yaml:7:5: claim 'a': unknown key 'mx' (did you mean 'max'?)",
        id="suggestion-from-the-claims-own-keys",
    ),
    pytest.param(
        JUDGE + "claims:\n  - id: a\n    rubric: regex\n    judge: j\n    field: output\n"
        "    pattern: x\n",
        "c.yaml:8:5: claim 'a': a claim has one of rubric, judge, compare — this one has "
        "rubric and judge",
        id="rubric-and-judge",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: json_schema\n    field: output\n    schem: {}\n",
        "c.yaml:7:5: claim 'a': unknown key 'schem' (did you mean 'schema'?)",
        id="no-internal-alias",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubrc: regex\n    field: output\n    pattern: x\n",
        "c.yaml:4:5: claim 'a': unknown key 'rubrc' (did you mean 'rubric'?)",
        id="misspelt-shape",
    ),
    pytest.param(
        "claims:\n  - id: a\n    field: output\n",
        "c.yaml:4:5: claim 'a': a claim needs exactly one of `rubric`, `judge` or `compare`",
        id="no-shape",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: contains\n    field: output\n    values: 3\n",
        "c.yaml:7:13: claim 'a': values: should be a list (`[a, b]`, or one `- item` per line) "
        "(got 3)",
        id="list",
    ),
    pytest.param(
        JUDGE + "claims:\n  - id: a\n    judge: j\n    instruction: x\n"
        "    scale: {min: 1, max: 5, pass_at: 3, anchors: [a]}\n",
        "c.yaml:9:50: claim 'a': scale.anchors: should be a mapping (`key: value` lines)",
        id="mapping",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regex\n    field: 5\n    pattern: x\n",
        "c.yaml:6:12: claim 'a': field: should be text (a string) (got 5)",
        id="text",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: length\n    field: output\n    max_words: many\n",
        "c.yaml:7:16: claim 'a': max_words: should be a whole number (got 'many')",
        id="whole-number",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: length\n    field: output\n    max_words: 2.5\n",
        "c.yaml:7:16: claim 'a': max_words: should be a whole number, not a fraction (got 2.5)",
        id="whole-number-not-fraction",
    ),
    pytest.param(
        "claims:\n  - id: a\n    compare: similarity\n    outputs: [a, b]\n    min_ratio: high\n",
        "c.yaml:7:16: claim 'a': min_ratio: should be a number (got 'high')",
        id="number",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regex\n    field: output\n    pattern: x\n"
        "    negate: maybe\n",
        "c.yaml:8:13: claim 'a': negate: should be true or false (got 'maybe')",
        id="boolean",
    ),
    pytest.param(
        JUDGE + "claims:\n  - id: a\n    judge: j\n    instruction: ''\n",
        "c.yaml:8:18: claim 'a': instruction: should not be empty (got '')",
        id="empty-text",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: all\n    field: output\n    of:\n      - pattern: x\n",
        "c.yaml:8:9: claim 'a': of.0: an item of `of` needs a `rubric` key naming its predicate",
        id="item-without-rubric",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regexx\n    field: output\n    pattern: x\n",
        "c.yaml:5:13: claim 'a': unknown predicate 'regexx' (did you mean 'regex'?); known "
        "predicates:",
        id="unknown-predicate",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regex\n    pattern: x\n",
        "c.yaml:4:5: claim 'a': missing required key 'field'",
        id="missing-key",
    ),
    pytest.param(
        "claims: []\n",
        "c.yaml:3:9: claims: must have at least 1 item",
        id="too-short",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regex\n    field: output\n    pattern: x\n    flags: q\n",
        "c.yaml:8:12: claim 'a': flags",
        id="value-error",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: regex\n    field: output\n    pattern: x\n    weight: 0\n",
        "c.yaml:8:13: claim 'a': weight: input should be greater than 0 (got 0)",
        id="bound",
    ),
    pytest.param(
        "claims:\n  - id: a\n    rubric: contains\n    field: output\n    values: [x]\n"
        "    mode: some\n",
        "c.yaml:8:11: claim 'a': mode: input should be 'all' or 'any' (got 'some')",
        id="choice",
    ),
    pytest.param(
        "claims:\n  - 5\n",
        "c.yaml:4:5: claims[0]: a claim should be a mapping (`key: value` lines) (got 5)",
        id="claim-not-a-mapping",
    ),
    pytest.param(
        JUDGE + "claims:\n  - id: a\n    judge: j\n    instruction: x\n"
        "    scale: {min: 1, max: 5, pass_at: 3, anchors: {high: x}}\n",
        "c.yaml:9:50: claim 'a': scale.anchors: each key should be a whole number (got 'high')",
        id="mapping-key",
    ),
    pytest.param(
        "llm_fields: output\nclaims:\n  - id: a\n    rubric: present\n    field: output\n",
        "c.yaml:3:13: llm_fields: should be a list",
        id="top-level-list",
    ),
    pytest.param(
        "claims:\n  - id: Bad id\n    rubric: present\n    field: output\n",
        "c.yaml:4:9: claim 'Bad id': id: 'Bad id' is not a valid claim id",
        id="pattern",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_each_message_reads_in_yaml_terms(tmp_path: Path, body: str, expected: str) -> None:
    found = problems(tmp_path, HEADER + body)
    assert len(found) == 1, found
    assert found[0].startswith(expected), found
