"""Judge models must be pinned snapshots of their provider, unless the contract opts out,
and a judge may not ask for thinking (the API refuses it with a forced tool)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import verifier
from verifier.contract.load import check_contract
from verifier.llm.pinning import is_local_endpoint

HEADER = "contract: demo\nversion: 1\n"
CLAIM = "claims:\n  - id: a\n    judge: j\n    instruction: Polite\n"


def _judge(provider: str, model: str, extra: str = "") -> str:
    return HEADER + f"judges:\n  j:\n    provider: {provider}\n    model: {model}\n{extra}" + CLAIM


def _found(path: Path) -> tuple[bool, list[str], list[str]]:
    loaded, diagnostics = check_contract(path)
    errors = [str(d) for d in diagnostics if d.severity == "error"]
    warnings = [str(d) for d in diagnostics if d.severity == "warning"]
    return loaded is not None, errors, warnings


@pytest.mark.parametrize(
    ("provider", "model", "shape"),
    [
        ("anthropic", "claude-sonnet-4-0", "-YYYYMMDD"),
        ("openai", "gpt-4o", "-YYYY-MM-DD"),
        ("openai", "gpt-4o-mini", "-YYYY-MM-DD"),
    ],
)
def test_an_undated_model_id_is_refused(write_contract, provider, model, shape) -> None:
    path = write_contract(_judge(provider, model))
    loaded, errors, _ = _found(path)
    assert not loaded
    assert len(errors) == 1, errors
    assert f"{path}:6:12: judge 'j': model {model!r} is not a pinned snapshot" in errors[0]
    assert f"snapshot ids end in {shape}" in errors[0] and "pinned: false" in errors[0]


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("anthropic", "claude-sonnet-4-20250514"),
        ("anthropic", "claude-opus-4-6"),  # listed by the SDK, with no dated sibling
        ("openai", "gpt-4o-2024-08-06"),
        ("openai", "gpt-4o-mini-2024-07-18"),
    ],
)
def test_a_dated_snapshot_passes(write_contract, provider, model) -> None:
    loaded, errors, warnings = _found(write_contract(_judge(provider, model)))
    assert loaded and not errors and not warnings


def test_pinned_false_turns_the_error_into_a_warning(write_contract) -> None:
    path = write_contract(_judge("openai", "gpt-4o", "    pinned: false\n"))
    loaded, errors, warnings = _found(path)
    assert loaded and not errors
    assert len(warnings) == 1
    assert f"{path}:7:13: warning: judge 'j': model 'gpt-4o' is not a pinned" in warnings[0]
    assert "(accepted: pinned: false)" in warnings[0]


def test_pinned_false_also_accepts_a_moving_alias(write_contract) -> None:
    loaded, errors, warnings = _found(
        write_contract(_judge("anthropic", "claude-sonnet-latest", "    pinned: false\n"))
    )
    assert loaded and not errors and "moving alias" in warnings[0]


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:8000/v1", "http://localhost:11434/v1", "http://10.1.2.3/v1"],
)
def test_a_model_on_a_local_server_needs_no_date(write_contract, base_url) -> None:
    extra = f"    base_url: {base_url}\n"
    loaded, errors, warnings = _found(write_contract(_judge("openai", "qwen2.5-7b", extra)))
    assert loaded and not errors and not warnings


def test_a_public_base_url_is_no_local_server(write_contract) -> None:
    extra = "    base_url: https://api.example.com/v1\n"
    loaded, errors, _ = _found(write_contract(_judge("openai", "gpt-4o", extra)))
    assert not loaded and "not a pinned snapshot" in errors[0]


def test_local_endpoints() -> None:
    assert is_local_endpoint("http://[::1]:8000/v1")
    assert is_local_endpoint("http://192.168.0.7:8000")
    assert is_local_endpoint("http://vllm.localhost/v1")
    assert not is_local_endpoint("https://api.openai.com/v1")
    assert not is_local_endpoint("http://8.8.8.8/v1")
    assert not is_local_endpoint(None) and not is_local_endpoint("not a url")


def test_an_unpinned_prompt_system_is_a_warning(write_contract) -> None:
    text = HEADER + "sut:\n  prompt:\n    provider: openai\n    model: gpt-4o\n"
    text += "    template: 'Answer {{input}}'\n"
    text += "claims:\n  - id: a\n    rubric: present\n    field: output\n"
    loaded, errors, warnings = _found(write_contract(text))
    assert loaded and not errors, errors
    assert any("sut prompt: model 'gpt-4o' is not a pinned snapshot" in w for w in warnings)


def test_an_azure_prompt_system_needs_an_endpoint_and_warns_of_its_deployment(
    write_contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    text = HEADER + "sut:\n  prompt:\n    provider: azure-openai\n    model: writer\n"
    text += "    template: 'Answer {{input}}'\n"
    text += "claims:\n  - id: a\n    rubric: present\n    field: output\n"
    path = write_contract(text)
    loaded, errors, _ = _found(path)
    assert errors == [
        f"{path}:5:15: sut prompt: provider azure-openai needs base_url: the resource "
        "endpoint, https://NAME.openai.azure.com (or set AZURE_OPENAI_ENDPOINT)"
    ]
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://contoso.openai.azure.com")
    loaded, errors, warnings = _found(path)
    assert loaded and not errors, errors
    assert any("model 'writer' is an Azure OpenAI deployment name" in w for w in warnings)


def test_thinking_on_a_judge_is_refused_at_check(write_contract) -> None:
    extra = "    sampling: {max_tokens: 4096, thinking: {type: enabled, budget_tokens: 2048}}\n"
    path = write_contract(_judge("anthropic", "claude-haiku-4-5-20251001", extra))
    loaded, errors, _ = _found(path)
    assert not loaded and len(errors) == 1, errors
    assert f"{path}:7:" in errors[0]
    assert "sampling.thinking: a judge answers through a forced tool call" in errors[0]


def test_thinking_disabled_is_accepted(write_contract) -> None:
    extra = "    sampling: {thinking: {type: disabled}}\n"
    loaded, errors, _ = _found(
        write_contract(_judge("anthropic", "claude-haiku-4-5-20251001", extra))
    )
    assert loaded and not errors


# OpenAI's fixed snapshots of the gpt-4 and gpt-3.5-turbo families, dated -MMDD.
MONTH_AND_DAY_SNAPSHOTS = (
    *("gpt-4-0613", "gpt-4-0314", "gpt-4-1106-preview", "gpt-4-0125-preview", "gpt-4-32k-0613"),
    *("gpt-3.5-turbo-0125", "gpt-3.5-turbo-1106", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-16k-0613"),
)


@pytest.mark.parametrize("model", MONTH_AND_DAY_SNAPSHOTS)
def test_openais_month_and_day_snapshots_pass_check(tmp_path: Path, model: str) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(_judge("openai", model), encoding="utf-8")
    check = verifier("check", str(contract), cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "pinned" not in check.stdout + check.stderr


@pytest.mark.parametrize(
    ("provider", "model", "date", "why"),
    [
        ("openai", "gpt-4o-2024-13-45", "2024-13-45", "there is no month 13"),
        ("openai", "gpt-4o-2023-02-29", "2023-02-29", "February has no day 29"),
        ("openai", "gpt-4-1345", "1345", "there is no month 13"),
        ("openai", "gpt-3.5-turbo-0431", "0431", "April has no day 31"),
        ("anthropic", "claude-x-99999999", "99999999", "there is no month 99"),
        ("anthropic", "claude-haiku-4-5-20250230", "20250230", "February has no day 30"),
    ],
)
def test_a_date_that_is_no_calendar_date_is_refused_by_check(
    tmp_path: Path, provider: str, model: str, date: str, why: str
) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(_judge(provider, model), encoding="utf-8")
    check = verifier("check", str(contract), cwd=tmp_path)
    assert check.returncode == 2, check.stdout + check.stderr
    said = check.stdout + check.stderr
    assert "Traceback" not in said
    line = next(line for line in said.splitlines() if "no calendar date" in line)
    assert line.startswith(f"{contract}:6:12: ")
    assert f"judge 'j': model {model!r} ends in {date!r}, which is no calendar date ({why})" in line
    assert "pinned: false" in line


def test_a_newer_family_in_the_month_and_day_form_is_refused(tmp_path: Path) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(_judge("openai", "gpt-4o-0806"), encoding="utf-8")
    check = verifier("check", str(contract), cwd=tmp_path)
    assert check.returncode == 2
    assert "model 'gpt-4o-0806' is not a pinned snapshot" in check.stdout + check.stderr
    assert "-MMDD for gpt-4 and gpt-3.5-turbo" in check.stdout + check.stderr
