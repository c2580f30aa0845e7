"""`verifier check` of judges on Bedrock, Vertex AI and Foundry: each platform's pinned
form, what a judge lacks to reach its platform, and the extra a missing package needs."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from verifier.contract.load import check_contract
from verifier.llm.providers._platform import PlatformUnavailable, require
from verifier.llm.providers.retirement import retirement_date

PLATFORM_VARIABLES = (
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "CLOUD_ML_REGION",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "ANTHROPIC_FOUNDRY_RESOURCE",
    "ANTHROPIC_FOUNDRY_BASE_URL",
)


@pytest.fixture(autouse=True)
def _no_platform_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PLATFORM_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _problems(tmp_path: Path, judge: str) -> list[tuple[str, str]]:
    path = tmp_path / "c.yaml"
    path.write_text(
        "contract: demo\nversion: 1\njudges:\n  j:\n"
        + "".join(f"    {line}\n" for line in judge.strip().splitlines())
        + "claims:\n  - id: a\n    judge: j\n    instruction: Is it polite?\n",
        encoding="utf-8",
    )
    _, found = check_contract(path)
    return [(d.severity, d.message) for d in found]


def _errors(tmp_path: Path, judge: str) -> list[str]:
    return [message for severity, message in _problems(tmp_path, judge) if severity == "error"]


BEDROCK = "provider: bedrock\nregion: us-east-1\nmodel: "
VERTEX = "provider: vertex\nregion: us-east5\nproject: acme\nmodel: "


@pytest.mark.parametrize(
    "model",
    [
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "apac.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ],
)
def test_bedrock_accepts_its_dated_ids_and_inference_profiles(tmp_path: Path, model: str) -> None:
    assert _errors(tmp_path, BEDROCK + model) == []


def test_bedrock_refuses_an_undated_id_naming_the_dated_one(tmp_path: Path) -> None:
    [error] = _errors(tmp_path, BEDROCK + "anthropic.claude-haiku-4-5")
    assert "'anthropic.claude-haiku-4-5' is an alias that moves with new snapshots" in error
    assert "pin the snapshot 'anthropic.claude-haiku-4-5-20251001-v1:0'" in error


def test_bedrock_refuses_an_anthropic_id_and_a_date_that_is_none(tmp_path: Path) -> None:
    [bare] = _errors(tmp_path, BEDROCK + "claude-haiku-4-5-20251001")
    assert "bedrock snapshot ids end in -YYYYMMDD-vN:M" in bare
    [no_date] = _errors(tmp_path, BEDROCK + "anthropic.claude-haiku-4-5-20251399-v1:0")
    assert "no calendar date (there is no month 13)" in no_date


def test_vertex_accepts_its_dated_form_and_refuses_the_undated_one(tmp_path: Path) -> None:
    assert _errors(tmp_path, VERTEX + "claude-haiku-4-5@20251001") == []
    [error] = _errors(tmp_path, VERTEX + "claude-haiku-4-5")
    assert "pin the snapshot 'claude-haiku-4-5@20251001'" in error
    [dated_anthropic] = _errors(tmp_path, VERTEX + "claude-haiku-4-5-20251001")
    assert "vertex snapshot ids end in @YYYYMMDD" in dated_anthropic


def test_foundry_pins_a_deployment_named_by_its_dated_model(tmp_path: Path) -> None:
    judge = "provider: foundry\nbase_url: https://acme.services.ai.azure.com/anthropic/\nmodel: "
    assert _errors(tmp_path, judge + "claude-haiku-4-5-20251001") == []
    [error] = _errors(tmp_path, judge + "claude-haiku-4-5")
    assert "pin the snapshot 'claude-haiku-4-5-20251001'" in error


def test_pinned_false_turns_the_refusal_into_a_warning(tmp_path: Path) -> None:
    found = _problems(tmp_path, VERTEX + "claude-haiku-4-5\npinned: false")
    assert [s for s, m in found if "claude-haiku-4-5" in m] == ["warning"]


def test_a_retiring_model_is_warned_of_under_its_platform_id(tmp_path: Path) -> None:
    # The SDK's table lists claude-sonnet-4-5-20250929 (retiring November 30th, 2026).
    for judge in (
        BEDROCK + "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        VERTEX + "claude-sonnet-4-5@20250929",
    ):
        warnings = [m for s, m in _problems(tmp_path, judge) if s == "warning"]
        assert len(warnings) == 1 and "2026-11-30" in warnings[0]


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-4-5-20250929",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ],
)
def test_a_stored_platform_id_retires_with_its_anthropic_model(model: str) -> None:
    assert retirement_date(model) == dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    ("judge", "missing"),
    [
        (
            "provider: bedrock\nmodel: anthropic.claude-haiku-4-5-20251001-v1:0",
            "provider bedrock needs a region: set `region:` on the judge (us-east-1), or AWS_REGION",
        ),
        (
            "provider: vertex\nproject: acme\nmodel: claude-haiku-4-5@20251001",
            "provider vertex needs a region: set `region:` on the judge",
        ),
        (
            "provider: vertex\nregion: global\nmodel: claude-haiku-4-5@20251001",
            "provider vertex needs a project: set `project:` on the judge",
        ),
        (
            "provider: foundry\nmodel: claude-haiku-4-5-20251001",
            "provider foundry needs a base_url: set `base_url:` on the judge",
        ),
    ],
)
def test_check_names_the_setting_a_platform_judge_lacks(
    tmp_path: Path, judge: str, missing: str
) -> None:
    [error] = _errors(tmp_path, judge)
    assert error.startswith(f"judge 'j': {missing}")


def test_the_platform_variable_supplies_a_missing_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert (
        _errors(tmp_path, "provider: bedrock\nmodel: anthropic.claude-haiku-4-5-20251001-v1:0")
        == []
    )


def test_a_region_on_a_provider_that_takes_none_is_refused(tmp_path: Path) -> None:
    [error] = _errors(tmp_path, "provider: anthropic\nregion: us\nmodel: claude-haiku-4-5-20251001")
    assert error == "judge 'j': provider anthropic takes no `region:`; remove it"


def test_a_missing_package_names_the_extra_to_install() -> None:
    with pytest.raises(PlatformUnavailable) as raised:
        require("no_such_module_xyz", "bedrock", package="boto3", why="signing calls")
    assert (
        str(raised.value)
        == "bedrock: signing calls needs boto3: pip install 'verifier-llm[bedrock]'"
    )


@pytest.mark.parametrize(
    "judge",
    [
        BEDROCK + "anthropic.claude-haiku-4-5-20251001-v1:0",
        VERTEX + "claude-haiku-4-5@20251001",
        "provider: foundry\nbase_url: https://acme.services.ai.azure.com/anthropic/\n"
        "model: claude-haiku-4-5-20251001",
    ],
)
def test_a_platform_judge_refuses_the_sampling_the_messages_api_lacks(
    tmp_path: Path, judge: str
) -> None:
    [error] = _errors(tmp_path, judge + "\nsampling: {max_tokens: 256, temperature: 0}")
    provider = judge.split("\n", 1)[0].removeprefix("provider: ")
    assert error == (
        f"judge 'j': sampling.temperature: a {provider} judge is called through the Messages "
        "API, which takes no temperature; remove it (judge determinism comes from a pinned "
        "model, caching and samples)"
    )
