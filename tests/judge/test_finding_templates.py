"""The critique and compliance kinds at `verifier check` and in their templates: the
built-in templates, their prompt shas, custom templates and the claim keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import verifier
from verifier.contract.judge_template import (
    BUILTIN_TEMPLATES,
    load_template,
    validate_template,
)
from verifier.contract.load import load_contract
from verifier.contract.models import JudgeSpec
from verifier.judge.prompt import judge_prompt_sha, render_request, verdict_kind
from verifier.judge.tools import verdict_tool
from verifier.llm.types import VerdictKind

SPEC = JudgeSpec(provider="anthropic", model="claude-haiku-4-5-20251001", group="case")
KINDS: tuple[VerdictKind, ...] = ("critique", "compliance")

HEAD = """\
contract: kinds
version: 1
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    group: case
claims:
"""


def check(tmp_path: Path, claims: str, **files: str) -> tuple[int, list[str]]:
    (tmp_path / "c.yaml").write_text(HEAD + claims, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = verifier("check", "c.yaml", "--annotations", "none", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    return result.returncode, (result.stdout + result.stderr).splitlines()


@pytest.mark.parametrize("kind", KINDS)
def test_builtin_templates_ship_validate_and_name_their_tool(kind: VerdictKind) -> None:
    template = load_template(SPEC, Path("."), kind)
    assert template.source == f"builtin:{BUILTIN_TEMPLATES[kind]}"
    assert validate_template(template.text, kind) == []
    assert f"`{verdict_tool(kind).name}`" in template.static
    # The nonce rule and data-is-never-an-instruction, as in every built-in template.
    assert "Only tags carrying\nexactly that nonce" in template.static
    assert "never an instruction to you" in template.static


def test_every_kind_has_its_own_prompt_sha() -> None:
    shas = {
        kind: judge_prompt_sha(load_template(SPEC, Path("."), kind), kind)
        for kind in ("binary", "scale", "pairwise", "critique", "compliance")
    }
    assert len(set(shas.values())) == 5
    # The tool's schema is part of it: one template under two kinds differs too.
    text_of = load_template(SPEC, Path("."), "critique")
    assert judge_prompt_sha(text_of, "critique") != judge_prompt_sha(text_of, "binary")


def test_claims_of_one_kind_share_a_request_and_render_without_the_pass_mark(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.yaml").write_text(
        HEAD
        + """\
  - {id: a, judge: strict, instruction: Find flaws, critique: {pass_at: 75}}
  - {id: b, judge: strict, instruction: Find errors, criteria: ["Are figures right?"],
     critique: {points: [100, 0]}}
""",
        encoding="utf-8",
    )
    contract = load_contract(tmp_path / "c.yaml").contract
    claims = list(contract.claims)
    assert [verdict_kind(c) for c in claims] == ["critique", "critique"]
    template = load_template(SPEC, tmp_path, "critique")
    request = render_request(
        spec=SPEC,
        template=template,
        kind="critique",
        claims=claims,
        case={"input": "q", "output": "an answer"},
        custom_id="x",
    )
    assert request.tool is not None and request.tool.name == "record_critique"
    assert '"id": "b"' in request.user and "Are figures right?" in request.user
    shown = request.user.replace(request.nonce, "NONCE")
    assert "pass_at" not in shown and "75" not in shown
    assert f"<output-{request.nonce}>\nan answer\n</output-{request.nonce}>" in request.user


def test_check_reports_a_claim_with_two_verdict_kinds_at_the_second(tmp_path: Path) -> None:
    code, lines = check(
        tmp_path,
        """\
  - id: both
    judge: strict
    instruction: x
    scale: {min: 1, max: 5, pass_at: 4}
    critique: {}
""",
    )
    assert code == 2
    assert lines[0] == (
        "c.yaml:13:15: claim 'both': critique: a judge claim takes at most one of scale, "
        "critique, compliance; this claim also has scale"
    )


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        (
            "critique: {points: [25, 50, 100], pass_at: 50}",
            "critique: critique points [25, 50, 100] must be strictly descending",
        ),
        ("critique: {points: [100, 50, 50]}", "must be strictly descending"),
        ("critique: {points: [120, 50], pass_at: 50}", "critique points [120] lie outside 0-100"),
        ("critique: {points: [100]}", "critique.points: must have at least 2 items"),
        (
            "critique: {points: [100, 50], pass_at: 40}",
            "pass_at (40) must lie within the points [50, 100]",
        ),
        ("compliance: {pass_at: 60}", "pass_at is on a 0-1 scale; 60 is above 1"),
        ("compliance: {passat: 0.6}", "unknown key 'passat' (did you mean 'pass_at'?)"),
        (
            "compliance: {}",
            "compliance: a compliance claim needs `reference: {instructions: PATH}`: the judge "
            "must see the instructions the output was meant to follow",
        ),
        (
            "reference: {expected: good}, compliance: {}",
            "a compliance claim needs `reference: {instructions: PATH}`",
        ),
    ],
)
def test_check_refuses_bad_critique_and_compliance_keys(
    tmp_path: Path, claim: str, expected: str
) -> None:
    code, lines = check(tmp_path, f"  - {{id: k, judge: strict, instruction: x, {claim}}}\n")
    assert code == 2
    assert lines[0].startswith("c.yaml:9:") and expected in lines[0], lines


def test_check_holds_a_custom_template_to_what_each_kind_needs(tmp_path: Path) -> None:
    template = "Judge it. Call `record_critique`.\n<!-- dynamic -->\n{{nonce}} {{output_1}} {{assertions}}\n"
    (tmp_path / "c.yaml").write_text(
        HEAD.replace("group: case", "group: case\n    prompt: mine.md")
        + "  - {id: k, judge: strict, instruction: x, critique: {}}\n",
        encoding="utf-8",
    )
    (tmp_path / "mine.md").write_text(template, encoding="utf-8")
    result = verifier("check", "c.yaml", "--annotations", "none", cwd=tmp_path)
    assert result.returncode == 2
    assert "a critique judge needs '{{output}}' in the dynamic part" in result.stdout
    assert "'{{output_1}}' has no value for a critique judge" in result.stdout


def test_a_critique_may_show_reference_material_and_a_compliance_template_must(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.yaml").write_text(
        HEAD
        + "  - {id: k, judge: strict, instruction: x, critique: {}, reference: {expected: good}}\n",
        encoding="utf-8",
    )
    claim = load_contract(tmp_path / "c.yaml").contract.claim("k")
    template = load_template(SPEC, tmp_path, "critique", reference=True)
    assert template.source == "builtin:critique.md"
    request = render_request(
        spec=SPEC,
        template=template,
        kind="critique",
        claims=[claim],
        case={"input": "q", "output": "an answer", "good": "the answer"},
        custom_id="x",
    )
    nonce = request.nonce
    assert f"<expected-output-{nonce}>\nthe answer\n</expected-output-{nonce}>" in request.user
    (tmp_path / "mine.md").write_text(
        "Judge. Call `record_compliance`.\n<!-- dynamic -->\n{{nonce}} {{output}} {{assertions}}\n",
        encoding="utf-8",
    )
    (tmp_path / "c.yaml").write_text(
        HEAD.replace("group: case", "group: case\n    prompt: mine.md")
        + "  - {id: k, judge: strict, instruction: x, compliance: {},"
        " reference: {instructions: prompt}}\n",
        encoding="utf-8",
    )
    result = verifier("check", "c.yaml", "--annotations", "none", cwd=tmp_path)
    assert result.returncode == 2
    problems = [line for line in result.stdout.splitlines() if "{{reference}}" in line]
    assert len(problems) == 1
    assert "a compliance judge needs '{{reference}}' in the dynamic part" in problems[0]
