"""Schemathesis against the API's own OpenAPI document, over real HTTP.

Requests are generated from the document (valid and invalid bodies, odd ids); every
answer must be no 5xx, use a documented status and content type, and match the
documented schema. The judge replays, so no call is made and no key is needed.

The document is taken from the application object (``schemathesis.pytest.from_fixture``
does not work with pytest 9), and a test checks the server serves that same document.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import EXAMPLES
from tests.server._support import MODEL, running
from verifier.judge.config import judge_from_options
from verifier.server import ServerSettings, create_app

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def fuzz_settings(base: Path) -> ServerSettings:
    return ServerSettings(
        port=0,
        store=str(base / "gaps.db"),
        contracts_dir=base / "contracts",
        judge=judge_from_options("anthropic", MODEL),
        judge_mode="replay",
        max_runs=64,
    )


DOCUMENT = create_app(fuzz_settings(Path("."))).openapi()
schema = schemathesis.openapi.from_dict(DOCUMENT)


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("fuzz")
    (base / "contracts").mkdir()
    for name in ("account-research.yaml", "account-research.recordings.jsonl"):
        shutil.copy(EXAMPLES / name, base / "contracts" / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("ANTHROPIC_API_KEY", raising=False)
        with running(fuzz_settings(base)) as url:
            yield url


def test_the_server_serves_the_document_fuzzed(live_url: str) -> None:
    assert httpx.get(f"{live_url}/openapi.json").json() == DOCUMENT


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_api_conforms_to_its_openapi_document(case: Any, live_url: str) -> None:
    case.call_and_validate(base_url=live_url, checks=CHECKS)
