"""Every lint rule reports FILE:LINE:COL with a message, and all problems come at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, FIXTURES
from verifier.contract.load import check_contract, load_contract
from verifier.errors import ContractError

HEADER = "contract: demo\nversion: 1\n"


def problems(path: Path) -> list[str]:
    loaded, diagnostics = check_contract(path)
    assert loaded is None, "expected the contract to be rejected"
    return [str(d) for d in diagnostics if d.severity == "error"]


def only_problem(path: Path) -> str:
    found = problems(path)
    assert len(found) == 1, found
    return found[0]


def test_examples_lint_clean() -> None:
    for path in sorted(EXAMPLES.glob("*.yaml")):
        loaded, diagnostics = check_contract(path)
        assert loaded is not None, [str(d) for d in diagnostics]


def test_every_problem_is_reported_at_once_with_positions() -> None:
    path = FIXTURES / "contracts" / "many-problems.yaml"
    found = problems(path)
    text = "\n".join(found)
    expected = [
        ":1:",
        "Bad_Id",  # id pattern
        ":3:",
        "threshold",  # threshold out of range
        "moving alias",  # judge model alias
        "judges/missing.md",  # prompt file missing
        "invalid regex",  # RE2 rejects backreferences
        "duplicate claim id 'a'",
        "min",  # min > max
        "unknown predicate 'enumm'",
        "values",  # empty enum
        "LLM-written field 'output'",
        "unknown judge 'lenient'",
        "unknown claim 'nowhere'",
        "unknown key 'colour'",
        "max_words",  # bad parameter type
    ]
    for fragment in expected:
        assert fragment in text, f"{fragment!r} not reported in:\n{text}"
    for line in found:
        file, lineno, col, _ = line.split(":", 3)
        assert file == str(path) and int(lineno) > 0 and int(col) > 0
    assert len(found) >= 13


def test_duplicate_claim_id_points_at_second_and_names_first(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n"
        "  - id: x\n    rubric: present\n    field: output\n"
        "  - id: x\n    rubric: present\n    field: input\n"
    )
    assert only_problem(path) == f"{path}:7:9: duplicate claim id 'x' (first used on line 4)"


def test_a_judge_that_is_not_a_mapping_is_named_without_python_class_names(
    write_contract,
) -> None:
    path = write_contract(
        HEADER + "judges:\n  j: 5\nclaims:\n  - id: x\n    rubric: present\n    field: output\n"
    )
    assert (
        only_problem(path)
        == f"{path}:4:6: judge 'j': should be a mapping (`key: value` lines) (got 5)"
    )


def test_unknown_predicate_suggests_the_closest(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    rubric: regx\n    field: output\n    pattern: a\n"
    )
    message = only_problem(path)
    assert ":5:13:" in message and "unknown predicate 'regx' (did you mean 'regex'?)" in message


def test_unknown_key_is_an_error_with_suggestion(write_contract) -> None:
    path = write_contract(
        HEADER
        + "claims:\n  - id: x\n    rubric: regex\n    field: output\n    patern: a\n    pattern: b\n"
    )
    assert (
        only_problem(path)
        == f"{path}:7:5: claim 'x': unknown key 'patern' (did you mean 'pattern'?)"
    )


def test_top_level_typo_is_an_error(write_contract) -> None:
    path = write_contract(
        HEADER + "treshold: 0.5\nclaims:\n  - id: x\n    rubric: present\n    field: output\n"
    )
    assert "unknown key 'treshold' (did you mean 'threshold'?)" in only_problem(path)


def test_bad_parameter_type_names_claim_and_key(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    rubric: length\n    field: output\n    max_words: many\n"
    )
    message = only_problem(path)
    assert message.startswith(f"{path}:7:16: claim 'x': max_words")


def test_invalid_regex_is_reported_at_the_pattern(write_contract) -> None:
    path = write_contract(
        HEADER
        + "claims:\n  - id: x\n    rubric: regex\n    field: output\n    pattern: '(?<=a)b'\n"
    )
    message = only_problem(path)
    assert f"{path}:7:14:" in message and "invalid regex" in message


def test_min_above_max_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    rubric: range\n    field: n\n    min: 3\n    max: 2\n"
    )
    assert "min" in only_problem(path) and "max" in only_problem(path)


def test_empty_enum_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    rubric: enum\n    field: n\n    values: []\n"
    )
    assert "claim 'x': values" in only_problem(path)


def test_unknown_judge_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    judge: strict\n    instruction: Be kind\n"
    )
    assert (
        only_problem(path)
        == f"{path}:5:12: claim 'x': unknown judge 'strict' (judges: none declared)"
    )


def test_after_naming_unknown_claim_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n  - id: x\n    rubric: present\n    field: output\n    after: [y]\n"
    )
    assert only_problem(path) == f"{path}:7:13: claim 'x': `after` names unknown claim 'y'"


def test_after_cycle_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "claims:\n"
        "  - id: x\n    rubric: present\n    field: output\n    after: [z]\n"
        "  - id: y\n    rubric: present\n    field: output\n    after: [x]\n"
        "  - id: z\n    rubric: present\n    field: output\n    after: [y]\n"
    )
    message = only_problem(path)
    assert "cycle" in message and "x -> z -> y -> x" in message


def test_rubric_claim_cannot_wait_for_a_judge_claim(write_contract) -> None:
    path = write_contract(
        HEADER + "judges:\n  j:\n    provider: replay\n    model: example/hand-written\n"
        "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
        "  - id: b\n    rubric: present\n    field: output\n    after: [a]\n"
    )
    assert "rubric claim cannot wait for judge claim 'a'" in only_problem(path)


def test_threshold_outside_unit_interval_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "threshold: -0.1\nclaims:\n  - id: x\n    rubric: present\n    field: output\n"
    )
    assert only_problem(path).startswith(f"{path}:3:12: threshold:")


@pytest.mark.parametrize(
    "claim",
    [
        "rubric: equals\n    field: fields.name\n    value: Acme Inc",
        "rubric: sha256\n    field: fields.name\n    value: " + "a" * 64,
        "rubric: enum\n    field: fields.name\n    values: [Acme Inc]",
        "rubric: any\n    field: fields.name\n    of:\n      - rubric: equals\n        value: Acme",
    ],
)
def test_equality_on_llm_written_field_is_rejected(write_contract, claim: str) -> None:
    path = write_contract(HEADER + f"llm_fields: [fields]\nclaims:\n  - id: x\n    {claim}\n")
    message = only_problem(path)
    assert (
        "claim 'x'" in message
        and "LLM-written field 'fields.name'" in message
        and "judge" in message
    )


def test_equality_on_field_no_llm_wrote_is_allowed(write_contract) -> None:
    path = write_contract(
        HEADER
        + "llm_fields: [output]\nclaims:\n  - id: x\n    rubric: equals\n    field: snapshot.kind\n    value: html\n"
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, diagnostics


@pytest.mark.parametrize(
    ("claim", "position", "fragment"),
    [
        ("rubric: regex\n    field: fields.name\n    pattern: '^Acme Inc$'", "8:14", "regex"),
        (
            "rubric: regex\n    field: fields.name\n    pattern: '\\AAcme Inc\\.\\z'",
            "8:14",
            "regex",
        ),
        (
            "rubric: regex\n    field: fields.name\n    pattern: '^Acme$'\n    negate: true",
            "8:14",
            "regex",
        ),
        (
            "rubric: regex\n    field: fields.name\n    pattern: '^acme inc$'\n    flags: i",
            "8:14",
            "regex",
        ),
        (
            "rubric: similar\n    field: fields.name\n    reference: Acme Inc\n    min_ratio: 100",
            "9:16",
            "min_ratio 100",
        ),
        (
            "rubric: all\n    field: fields.name\n    of:\n      - rubric: similar\n        reference: Acme\n        min_ratio: 100",
            "11:20",
            "min_ratio 100",
        ),
    ],
)
def test_equality_in_disguise_on_llm_written_field_is_rejected(
    write_contract, claim: str, position: str, fragment: str
) -> None:
    path = write_contract(HEADER + f"llm_fields: [fields]\nclaims:\n  - id: x\n    {claim}\n")
    message = only_problem(path)
    assert message.startswith(f"{path}:{position}: claim 'x': "), message
    assert fragment in message and "LLM-written field 'fields.name'" in message
    assert "equality in disguise" in message and "`contains`" in message
    assert "`similar` below 100" in message and "judge" in message and "\n" not in message


@pytest.mark.parametrize(
    ("field", "rule"),
    [
        ("fields.name", "rubric: regex\n    pattern: '^Acme( Inc)?$'"),
        ("fields.name", "rubric: regex\n    pattern: '^Acme Inc'"),
        ("fields.name", "rubric: regex\n    pattern: 'Acme Inc$'"),
        ("fields.name", "rubric: regex\n    pattern: '^Acme.Inc$'"),
        ("fields.name", "rubric: regex\n    pattern: '^Acme Inc$'\n    flags: m"),
        ("fields.name", "rubric: similar\n    reference: Acme Inc\n    min_ratio: 99.5"),
        ("snapshot.kind", "rubric: regex\n    pattern: '^html$'"),
        ("snapshot.kind", "rubric: similar\n    reference: html\n    min_ratio: 100"),
    ],
)
def test_regex_and_similar_that_are_not_equality_on_llm_text_pass_check(
    write_contract, field: str, rule: str
) -> None:
    path = write_contract(
        HEADER + f"llm_fields: [fields]\nclaims:\n  - id: x\n    field: {field}\n    {rule}\n"
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, [str(d) for d in diagnostics]


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("claude-sonnet-latest", "moving alias"),
        ("claude-haiku-4-5", "pin the snapshot 'claude-haiku-4-5-20251001'"),
    ],
)
def test_judge_model_alias_is_rejected(write_contract, model: str, fragment: str) -> None:
    path = write_contract(
        HEADER + f"judges:\n  j:\n    provider: anthropic\n    model: {model}\n"
        "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    message = only_problem(path)
    assert f"{path}:6:12: judge 'j':" in message and fragment in message


def test_pinned_judge_model_is_accepted(write_contract) -> None:
    path = write_contract(
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, diagnostics


def test_missing_judge_prompt_file_is_rejected(write_contract, tmp_path: Path) -> None:
    body = (
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "    prompt: prompts/judge.md\nclaims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    path = write_contract(body)
    assert "prompt file 'prompts/judge.md' does not exist" in only_problem(path)
    (tmp_path / "prompts").mkdir()
    from verifier.contract.judge_template import builtin_template_bytes

    (tmp_path / "prompts" / "judge.md").write_bytes(builtin_template_bytes("binary"))
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, diagnostics


def test_claim_without_a_shape_is_rejected(write_contract) -> None:
    path = write_contract(HEADER + "claims:\n  - id: x\n    field: output\n")
    assert "a claim needs exactly one of `rubric`, `judge` or `compare`" in only_problem(path)


def test_load_contract_raises_with_every_problem() -> None:
    with pytest.raises(ContractError) as info:
        load_contract(FIXTURES / "contracts" / "many-problems.yaml")
    assert len(info.value.diagnostics) >= 13


def test_temperature_on_an_anthropic_judge_is_rejected(write_contract) -> None:
    path = write_contract(
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "    sampling: {max_tokens: 256, temperature: 0}\n"
        "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    message = only_problem(path)
    assert "judge 'j'" in message and "temperature" in message and ":7:" in message


def test_custom_template_without_nonce_is_rejected(write_contract, tmp_path: Path) -> None:
    (tmp_path / "judge.md").write_text(
        "Judge this.\n<!-- dynamic -->\n{{output}}\n{{assertions}}\n", encoding="utf-8"
    )
    path = write_contract(
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        "    prompt: judge.md\nclaims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    message = only_problem(path)
    assert "prompt 'judge.md'" in message and "nonce" in message


def test_deprecated_judge_model_is_a_warning_not_an_error(write_contract) -> None:
    path = write_contract(
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-sonnet-4-5-20250929\n"
        "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None
    warnings = [d for d in diagnostics if d.severity == "warning"]
    assert len(warnings) == 1 and "claude-sonnet-4-5-20250929" in warnings[0].message
    assert str(warnings[0]).startswith(f"{path}:6:12: warning: ")


def test_retirement_warning_counts_days_and_spots_retired_models() -> None:
    import datetime as dt

    from verifier.contract.judge_lint import retirement_warning
    from verifier.llm.providers.retirement import parse_retirement

    table = {
        "m-old": "January 2nd, 2026",
        "m-soon": "March 1st, 2026",
        "m-late": "December 31st, 2027",
    }
    today = dt.date(2026, 2, 1)
    assert parse_retirement("November 30th, 2026") == dt.date(2026, 11, 30)
    assert "retired on 2026-01-02" in str(retirement_warning("m-old", today=today, table=table))
    assert "(in 28 days)" in str(retirement_warning("m-soon", today=today, table=table))
    late = str(retirement_warning("m-late", today=today, table=table))
    assert "deprecated" in late and "in " not in late.split("retires on")[1].split(";")[0]
    assert retirement_warning("m-current", today=today, table=table) is None


def test_an_unknown_judge_provider_is_a_located_problem(write_contract) -> None:
    path = write_contract(
        HEADER
        + "judges:\n  j:\n    provider: bogus\n    model: m\n    sampling: {temperature: 0}\n"
        + "claims:\n  - id: a\n    judge: j\n    instruction: Is it polite?\n"
    )
    found = problems(path)
    assert found == [
        f"{path}:5:15: judge 'j': provider: input should be 'anthropic', 'openai', "
        "'azure-openai', 'replay', 'bedrock', 'vertex' or 'foundry' (got 'bogus')"
    ]


def test_a_list_where_a_predicate_name_belongs_is_a_located_problem(write_contract) -> None:
    path = write_contract(
        HEADER + "llm_fields: [output]\nclaims:\n  - id: a\n    rubric: []\n    field: output\n"
    )
    assert any(p.startswith(f"{path}:6:") for p in problems(path))


def test_a_problem_quoting_a_name_with_a_line_break_stays_on_one_line(write_contract) -> None:
    path = write_contract(
        HEADER + 'judges:\n  "a\\nb": {provider: replay, model: m}\n'
        "claims:\n  - id: x\n    judge: strict\n    instruction: Is it polite?\n"
    )
    (message,) = problems(path)
    assert message == f"{path}:7:12: claim 'x': unknown judge 'strict' (judges: a\\nb)"


def test_ids_and_keys_that_miss_their_pattern_say_what_is_asked_in_words(write_contract) -> None:
    path = write_contract(
        "contract: Bad_Id\nversion: 1\nsut:\n  python: bot:answer\n  output: out put\n"
        "claims:\n  - id: -x\n    rubric: present\n    field: output\n"
    )
    assert problems(path) == [
        f"{path}:1:11: contract: 'Bad_Id' is not a valid contract id (lower-case letters,"
        " digits, '_', '.' and '-', starting with a letter or digit)",
        f"{path}:5:11: sut.output: 'out put' is not a plain key (a letter or '_', then"
        " letters, digits, '_' or '-')",
        f"{path}:7:9: claim '-x': id: '-x' is not a valid claim id (letters, digits, '_',"
        " '.' and '-', starting with a letter or digit)",
    ]


def test_a_problem_of_the_whole_file_is_shown_without_a_position(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    assert problems(missing) == [f"{missing}: cannot read contract: No such file or directory"]


def test_a_very_long_unknown_key_is_quoted_shortened(write_contract) -> None:
    path = write_contract(HEADER + "k" * 300 + ": 1\nclaims: []\n")
    found = [p for p in problems(path) if "unknown key" in p]
    assert found == [f"{path}:3:1: contract: unknown key '{'k' * 38}…"]
