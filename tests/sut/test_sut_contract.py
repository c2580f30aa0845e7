"""The ``sut:`` block of a contract: validated and linted with FILE:LINE:COL errors."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from verifier.contract.load import check_contract
from verifier.contract.sut_models import SutSpec
from verifier.errors import SutError
from verifier.sut.setup import parse_sut_option

HEAD = "contract: c\nversion: 1\n"
CLAIMS = "claims:\n  - {id: x, rubric: regex, field: output, pattern: x}\n"


def problems(write_contract, sut: str) -> list[str]:  # type: ignore[no-untyped-def]
    path = write_contract(HEAD + sut + CLAIMS)
    loaded, diagnostics = check_contract(path)
    errors = [d for d in diagnostics if d.severity == "error"]
    assert (loaded is None) == bool(errors)
    return [f"{d.line}:{d.col}: {d.message}" for d in diagnostics]


@pytest.mark.parametrize(
    ("sut", "expected"),
    [
        (
            "sut:\n  exec: {command: [bot]}\n  python: bot:answer\n",
            "4:3: sut: needs exactly one of `exec`, `python` or `prompt` (got exec, python)",
        ),
        (
            "sut:\n  input: question\n",
            "4:3: sut: needs exactly one of `exec`, `python` or `prompt` (got none)",
        ),
        ("sut:\n  python: no-colon\n", "4:11: sut.python: 'no-colon' is not MODULE:FUNCTION"),
        ("sut:\n  python: m:f\n  output: runs\n", "the runner writes that key itself"),
        (
            "sut:\n  python: m:f\n  input: a..b\n",
            "5:10: sut.input: invalid field path 'a..b': segment '' must be",
        ),
        ("sut:\n  python: m:f\n  input: ''\n", "5:10: sut.input: a field path must be"),
        ("sut:\n  python: m:f\n  input: q.*\n", "5:10: sut.input: 'q.*' must name one field"),
        (
            "sut:\n  python: m:f\n  timeout: 0\n",
            "5:12: sut.timeout: input should be greater than 0",
        ),
        ("sut:\n  exec: {command: ''}\n", "4:19: sut.exec.command: must have at least 1 item"),
        (
            "sut:\n  exec: {command: [ls], cwd: nowhere}\n",
            "sut exec: cwd 'nowhere' is not a directory",
        ),
        (
            "sut:\n  exec: {command: [ls], pass_env: [PATH, BAD-NAME]}\n",
            "4:42: sut.exec.pass_env.1: 'BAD-NAME' is not a variable name",
        ),
        (
            "sut:\n  python: m:f\n  formatt: json\n",
            "5:3: sut: unknown key 'formatt' (did you mean 'format'?)",
        ),
        (
            "sut:\n  prompt: {provider: anthropic, model: claude-haiku-4-5-20251001}\n",
            "sut.prompt: needs exactly one of `template` or `template_file`",
        ),
        (
            "sut:\n  prompt: {provider: anthropic, model: claude-3-5-haiku-latest, template: '{{input}}'}\n",
            "is a moving alias",
        ),
        (
            "sut:\n  prompt:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
            "    template: 'Hi {{name}}'\n",
            "unknown placeholder '{{name}}'",
        ),
        (
            "sut:\n  prompt:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
            "    template_file: missing.md\n",
            "template file 'missing.md' does not exist",
        ),
        (
            "sut:\n  prompt:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
            "    template: '{{input}}'\n    sampling: {temperature: 0}\n",
            "the anthropic API does not accept temperature",
        ),
    ],
)
def test_bad_sut_blocks_are_reported_with_their_position(
    write_contract, sut: str, expected: str
) -> None:  # type: ignore[no-untyped-def]
    found = problems(write_contract, sut)
    assert any(expected in p for p in found), found


def test_a_good_sut_block_loads(write_contract) -> None:  # type: ignore[no-untyped-def]
    sut = "sut:\n  exec: {command: 'sh -c \"cat\"', env: {A: b}}\n  format: json\n"
    loaded, diagnostics = check_contract(write_contract(HEAD + sut + CLAIMS))
    assert loaded is not None and not diagnostics
    spec = loaded.contract.sut
    assert spec is not None and spec.exec is not None
    assert spec.exec.command == ("sh", "-c", "cat") and spec.format == "json"


def test_command_line_spec_keeps_the_contracts_input_and_format() -> None:
    declared = SutSpec.model_validate({"python": "m:f", "input": "question", "format": "json"})
    spec = parse_sut_option("exec:./bot --fast", base=declared)
    assert spec.exec is not None and spec.exec.command == ("./bot", "--fast")
    assert spec.python is None and spec.input == "question" and spec.format == "json"
    mapped = parse_sut_option("{python: m:g, format: text}", base=declared)
    assert mapped.python == "m:g" and mapped.format == "text" and mapped.input == "question"
    with pytest.raises(SutError, match="names no system"):
        parse_sut_option("{format: json}", base=declared)


def test_allow_empty_is_kept_from_the_contract_and_refused_for_a_prompt() -> None:
    declared = SutSpec.model_validate({"python": "m:f", "allow_empty": True})
    assert parse_sut_option("exec:./bot", base=declared).allow_empty is True
    with pytest.raises(SutError, match="allow_empty applies to `exec` and `python`"):
        parse_sut_option(
            "{prompt: {provider: replay, model: m, template: '{{input}}'}}", base=declared
        )


def test_a_sut_option_is_read_with_the_contracts_yaml_limits() -> None:
    # An alias bomb in flow style: ten levels of ten aliases each.
    bomb = (
        "{a: &a [x, x, x, x, x, x, x, x, x, x], "
        + ", ".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]"
            for i in range(9)
        )
        + "}"
    )
    with pytest.raises(SutError, match="alias expansion"):
        parse_sut_option(bomb, base=None)
    # YAML 1.2 integers, as in contracts: 010 is ten, not eight.
    spec = parse_sut_option("{python: m:f, timeout: 010}", base=None)
    assert spec.timeout == 10


def test_the_committed_schema_describes_the_sut_block() -> None:
    text = (ROOT / "contracts" / "contract.schema.json").read_text(encoding="utf-8")
    assert '"SutSpec"' in text and '"ExecSut"' in text and '"PromptSut"' in text
