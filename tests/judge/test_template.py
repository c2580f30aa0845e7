from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from tests.judge.conftest import JUDGE_FIXTURES
from verifier.contract.judge_template import (
    BUILTIN_TEMPLATES,
    DYNAMIC_MARKER,
    TemplateError,
    builtin_template_bytes,
    fill,
    load_template,
    parse_template,
    validate_template,
)
from verifier.contract.models import JudgeSpec
from verifier.judge.tools import verdict_tool
from verifier.llm.triple import prompt_sha_of
from verifier.llm.types import VerdictKind

TEMPLATES = JUDGE_FIXTURES / "templates"
SPEC = JudgeSpec(provider="anthropic", model="claude-haiku-4-5-20251001")
KINDS: tuple[VerdictKind, ...] = ("binary", "scale", "pairwise")


@pytest.mark.parametrize("kind", KINDS)
def test_builtin_templates_ship_as_package_resources(kind: VerdictKind) -> None:
    resource = resources.files("verifier.judge") / "templates" / BUILTIN_TEMPLATES[kind]
    assert resource.is_file()
    assert validate_template(resource.read_text(encoding="utf-8"), kind) == []


@pytest.mark.parametrize("kind", KINDS)
def test_builtin_template_is_chosen_by_kind_and_hashed_as_bytes(kind: VerdictKind) -> None:
    template = load_template(SPEC, Path("."), kind)
    assert template.source == f"builtin:{BUILTIN_TEMPLATES[kind]}"
    assert template.sha == prompt_sha_of(builtin_template_bytes(kind))
    assert "{{" not in template.static
    assert DYNAMIC_MARKER not in template.static + template.dynamic


def test_pairwise_template_labels_responses_neutrally() -> None:
    text = builtin_template_bytes("pairwise").decode().lower()
    assert "response 1" in text and "response 2" in text
    assert "baseline" not in text and "candidate" not in text


def test_contract_template_is_read_relative_to_the_contract() -> None:
    spec = SPEC.model_copy(update={"prompt": "templates/custom-assertions.md"})
    template = load_template(spec, JUDGE_FIXTURES, "binary")
    assert template.source == "templates/custom-assertions.md"
    assert template.sha == prompt_sha_of((TEMPLATES / "custom-assertions.md").read_bytes())
    assert template.static.startswith("You judge answers written by a support assistant.")
    assert template.dynamic.startswith("Nonce: {{nonce}}")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("no-marker.md", "no '<!-- dynamic -->' lines"),
        ("unknown-placeholder.md", "unknown placeholder '{{ouput}}'"),
        ("placeholder-in-static.md", "placeholder '{{input}}' in the static part"),
        ("nonce-after-data.md", "'{{nonce}}' must come before the first data placeholder"),
    ],
)
def test_broken_contract_template_is_a_template_error(name: str, expected: str) -> None:
    spec = SPEC.model_copy(update={"prompt": f"templates/{name}"})
    with pytest.raises(TemplateError) as raised:
        load_template(spec, JUDGE_FIXTURES, "binary")
    assert raised.value.source == f"templates/{name}"
    assert any(expected in problem for problem in raised.value.problems), raised.value.problems
    assert expected in str(raised.value)


def test_unreadable_template_is_a_template_error(tmp_path: Path) -> None:
    spec = SPEC.model_copy(update={"prompt": "absent.md"})
    with pytest.raises(TemplateError, match="cannot read"):
        load_template(spec, tmp_path, "binary")


def test_template_that_is_not_utf8_is_a_template_error(tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes("Jüdge\n<!-- dynamic -->\n".encode("latin-1"))
    spec = SPEC.model_copy(update={"prompt": "latin1.md"})
    with pytest.raises(TemplateError, match="not UTF-8"):
        load_template(spec, tmp_path, "binary")


def test_every_problem_is_reported_not_just_the_first() -> None:
    text = "Judge {{output}}.\n<!-- dynamic -->\n{{outptu}}\n"
    problems = validate_template(text)
    assert len(problems) == 4, problems
    assert any("unknown placeholder '{{outptu}}'" in p for p in problems)
    assert any("static part" in p for p in problems)
    assert any("{{assertions}}" in p for p in problems)
    assert any("{{nonce}}" in p for p in problems)


def test_placeholder_written_over_a_line_break_is_named_on_one_line() -> None:
    data = b"Judge.\n<!-- dynamic -->\n{{nonce}} {{\rassertions}} {{output}}\n"
    with pytest.raises(TemplateError) as raised:
        parse_template(data, source="t.md", kind="binary")
    assert str(raised.value) == (
        "judge template t.md: unknown placeholder '{{\\rassertions}}'; placeholders are "
        "written {{name}} with a name among input, output, output_1, output_2, reference, assertions, "
        "scale, nonce, or {{case.PATH}} for a field of the case; the dynamic part lacks "
        "'{{assertions}}' (the claims to judge)"
    )


def test_marker_twice_is_a_problem() -> None:
    text = "Judge.\n<!-- dynamic -->\n{{nonce}} {{assertions}}\n<!-- dynamic -->\n{{output}}\n"
    assert validate_template(text) == [
        "2 '<!-- dynamic -->' lines; exactly one must separate the static instructions "
        "from the dynamic part"
    ]


def test_empty_static_part_is_a_problem() -> None:
    assert validate_template("\n<!-- dynamic -->\n{{nonce}} {{output}} {{assertions}}") == [
        "the static part before '<!-- dynamic -->' is empty"
    ]


def test_placeholders_must_fit_the_kind() -> None:
    binary_only = builtin_template_bytes("binary").decode()
    assert validate_template(binary_only, "pairwise") == [
        "a pairwise judge needs '{{output_1}}' in the dynamic part",
        "a pairwise judge needs '{{output_2}}' in the dynamic part",
        "'{{output}}' has no value for a pairwise judge",
    ]
    assert validate_template(binary_only, "scale") == [
        "a scale judge needs '{{scale}}' in the dynamic part"
    ]
    assert validate_template(binary_only) == []


def test_fill_replaces_in_one_pass() -> None:
    filled = fill("{{output}} / {{assertions}}", {"output": "{{assertions}}", "assertions": "A"})
    assert filled == "{{assertions}} / A"


@pytest.mark.parametrize("kind", KINDS)
def test_builtin_template_names_the_tool_it_must_answer_through(kind: VerdictKind) -> None:
    assert f"`{verdict_tool(kind).name}`" in load_template(SPEC, Path("."), kind).static
