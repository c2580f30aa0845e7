"""The judge fixture contract, its cases and recorded judge replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifier.contract.load import load_contract
from verifier.contract.models import Contract
from verifier.llm.types import ModelReply, Usage

JUDGE_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "judge"
CONTRACT_PATH = JUDGE_FIXTURES / "contract.yaml"


def fixture_contract() -> Contract:
    return load_contract(CONTRACT_PATH).contract


def fixture_cases() -> dict[str, dict[str, Any]]:
    lines = (JUDGE_FIXTURES / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    return {case["id"]: case for case in map(json.loads, lines)}


def load_reply(name: str) -> ModelReply:
    """A recorded reply from ``replies/NAME.json``, as a provider would return it."""
    data = json.loads((JUDGE_FIXTURES / "replies" / f"{name}.json").read_text(encoding="utf-8"))
    return ModelReply(
        served_model=data.get("served_model"),
        stop_reason=data.get("stop_reason"),
        tool_input=data.get("tool_input"),
        text=data.get("text", ""),
        usage=Usage(**data.get("usage", {})),
        response_id=data.get("response_id"),
        raw=data,
    )


@pytest.fixture(scope="session")
def contract() -> Contract:
    return fixture_contract()


@pytest.fixture(scope="session")
def cases() -> dict[str, dict[str, Any]]:
    return fixture_cases()
