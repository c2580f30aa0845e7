"""Judges on Bedrock, Vertex AI and Foundry: `verifier run` through the anthropic SDK's
own platform clients, against the local Messages API stand-in (its Bedrock ``invoke``,
Vertex ``rawPredict`` and Foundry routes), with fake credentials that must never
reach a row, a report or the output."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import ROOT
from tests.judge.judge_brain import brain
from tests.judge.messages_server import GRANTED_TOKEN, OAUTH_TOKEN_PATH, MessagesServer
from verifier.gaps.sqlite.store import SqliteStore

AWS_SECRET = "aws-secret-canary-0123456789abcdefABCDEF"
BEDROCK_TOKEN = "bedrock-bearer-canary-0123456789"
GOOGLE_TOKEN = "ya29.google-token-canary-0123456789"
FOUNDRY_KEY = "foundry-key-canary-0123456789"
SECRETS = (AWS_SECRET, BEDROCK_TOKEN, GOOGLE_TOKEN, FOUNDRY_KEY)

# Nothing of this machine's own cloud set-up may answer: no config files, no metadata
# servers, no Google SDK configuration.
CLEARED = ("AWS_", "ANTHROPIC_", "GOOGLE_", "CLOUD_ML_", "CLOUDSDK_", "AZURE_", "CI")

CASES = [
    {"id": "c1", "input": "Say hello.", "output": "Hello, how can I help?"},
    {"id": "c2", "input": "Say goodbye.", "output": "Goodbye, I guess."},
]


def _isolated(tmp_path: Path) -> dict[str, str]:
    return {
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "CLOUDSDK_CONFIG": str(tmp_path / "no-gcloud"),
        "NO_GCE_CHECK": "True",
    }


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=brain) as running:
        yield running


def _contract(tmp_path: Path, judge: str) -> Path:
    path = tmp_path / "platform.yaml"
    path.write_text(
        "contract: platform\nversion: 1\njudges:\n  polite:\n"
        + "".join(f"    {line}\n" for line in judge.strip().splitlines())
        + "claims:\n  - id: polite\n    judge: polite\n    instruction: Is the output polite?\n",
        encoding="utf-8",
    )
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(case) + "\n" for case in CASES), encoding="utf-8"
    )
    return path


def _run(
    tmp_path: Path, contract: Path, env: dict[str, str], *extra: str, own_process: bool = False
) -> subprocess.CompletedProcess[str]:
    return verifier(
        "run",
        str(contract),
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--store",
        str(tmp_path / "gaps.db"),
        "--format",
        "json",
        "--out",
        str(tmp_path / "report.json"),
        *extra,
        cwd=tmp_path,
        env={**_isolated(tmp_path), **env},
        clear_prefixes=CLEARED,
        own_process=own_process,
    )


def _refusal(result: subprocess.CompletedProcess[str], server: MessagesServer) -> list[str]:
    """The lines of a run stopped before any call (exit 2), warnings left out."""
    assert result.returncode == 2, result.stderr
    assert_no_traceback(result)
    assert server.model_calls() == []
    return [line for line in result.stderr.splitlines() if "warning:" not in line]


def _rows(tmp_path: Path) -> list[dict]:
    with SqliteStore(tmp_path / "gaps.db") as store:
        return [json.loads(row.body) for row in store.iter_rows()]


def _assert_no_secret(tmp_path: Path, result: subprocess.CompletedProcess[str]) -> None:
    seen = [result.stdout, result.stderr]
    seen += [p.read_bytes().decode("utf-8", "replace") for p in tmp_path.iterdir() if p.is_file()]
    for secret in SECRETS:
        assert not any(secret in text for text in seen), f"{secret} leaked"


def _judged(tmp_path: Path, result: subprocess.CompletedProcess[str], model: str) -> list[dict]:
    assert result.returncode == 1, result.stderr  # the judge fails the case that guesses
    assert_no_traceback(result)
    rows = [r for r in _rows(tmp_path) if r["claim_id"] == "polite"]
    assert {r["case_id"]: r["status"] for r in rows} == {"c1": "pass", "c2": "fail"}
    for row in rows:
        assert row["evidence"]["judge"]["model_id"] == model
        assert row["evidence"]["provider"] in ("bedrock", "vertex", "foundry")
        assert "served_mismatch" not in row["evidence"]
    _assert_no_secret(tmp_path, result)
    return rows


BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def _bedrock_judge(server: MessagesServer) -> str:
    return f"""
provider: bedrock
model: {BEDROCK_MODEL}
region: us-east-1
base_url: {server.base_url}
"""


def test_a_bedrock_judge_signs_its_calls_and_its_rows_name_the_bedrock_id(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _bedrock_judge(server))
    env = {"AWS_ACCESS_KEY_ID": "AKIATESTKEY0000", "AWS_SECRET_ACCESS_KEY": AWS_SECRET}

    result = _run(tmp_path, contract, env)

    _judged(tmp_path, result, BEDROCK_MODEL)
    calls = server.model_calls()
    assert {call.path for call in calls} == {f"/model/{BEDROCK_MODEL}/invoke"}
    for call in calls:
        assert call.headers["authorization"].startswith(
            "AWS4-HMAC-SHA256 Credential=AKIATESTKEY0000/"
        )
        assert "/us-east-1/bedrock/aws4_request" in call.headers["authorization"]
        assert "model" not in call.body and "anthropic_version" in call.body
        assert call.body["tool_choice"]["type"] == "tool"


def test_a_bedrock_judge_sends_a_bearer_token_when_one_is_set(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _bedrock_judge(server))

    result = _run(tmp_path, contract, {"AWS_BEARER_TOKEN_BEDROCK": BEDROCK_TOKEN})

    _judged(tmp_path, result, BEDROCK_MODEL)
    assert {c.headers["authorization"] for c in server.model_calls()} == {f"Bearer {BEDROCK_TOKEN}"}


VERTEX_MODEL = "claude-sonnet-4-5@20250929"


def _vertex_judge(server: MessagesServer) -> str:
    return f"""
provider: vertex
model: {VERTEX_MODEL}
region: us-east5
project: acme-evals
base_url: {server.base_url}
"""


def test_a_vertex_judge_calls_raw_predict_and_its_rows_name_the_vertex_id(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _vertex_judge(server))

    result = _run(tmp_path, contract, {"GOOGLE_OAUTH_ACCESS_TOKEN": GOOGLE_TOKEN})

    _judged(tmp_path, result, VERTEX_MODEL)
    calls = server.model_calls()
    path = (
        "/projects/acme-evals/locations/us-east5/publishers/anthropic/models/"
        f"{VERTEX_MODEL}:rawPredict"
    )
    assert {call.path for call in calls} == {path}
    assert {c.headers["authorization"] for c in calls} == {f"Bearer {GOOGLE_TOKEN}"}
    assert all("model" not in c.body and "anthropic_version" in c.body for c in calls)


def _service_account(folder: Path, token_uri: str) -> tuple[Path, str]:
    """A service account key file whose tokens come from ``token_uri``, and its key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "acme-evals",
        "private_key_id": "0123456789abcdef",
        "private_key": pem,
        "client_email": "judge@acme-evals.iam.gserviceaccount.com",
        "client_id": "1234567890",
        "token_uri": token_uri,
    }
    folder.mkdir()
    path = folder / "service-account.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    return path, pem.splitlines()[1]


def test_a_vertex_judge_uses_application_default_credentials(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _vertex_judge(server))
    account, key_line = _service_account(tmp_path / "gcloud", server.base_url + OAUTH_TOKEN_PATH)

    result = _run(tmp_path, contract, {"GOOGLE_APPLICATION_CREDENTIALS": str(account)})

    _judged(tmp_path, result, VERTEX_MODEL)
    # The SDK refreshes the credentials before its first calls (each may, concurrently).
    assert OAUTH_TOKEN_PATH in {r.path for r in server.requests}
    calls = server.model_calls()
    assert calls and {c.headers["authorization"] for c in calls} == {f"Bearer {GRANTED_TOKEN}"}
    for text in (
        result.stdout,
        result.stderr,
        (tmp_path / "gaps.db").read_bytes().decode("latin-1"),
    ):
        assert GRANTED_TOKEN not in text and key_line not in text


def test_a_foundry_judge_sends_its_key_and_its_rows_name_the_deployment(
    tmp_path: Path, server: MessagesServer
) -> None:
    model = "claude-haiku-4-5-20251001"
    judge = f"provider: foundry\nmodel: {model}\nbase_url: {server.base_url}/anthropic/"
    contract = _contract(tmp_path, judge)

    result = _run(tmp_path, contract, {"ANTHROPIC_FOUNDRY_API_KEY": FOUNDRY_KEY})

    _judged(tmp_path, result, model)
    calls = server.model_calls()
    assert {call.path for call in calls} == {"/anthropic/v1/messages"}
    assert {c.headers["api-key"] for c in calls} == {FOUNDRY_KEY}
    assert all(c.body["model"] == model for c in calls)


def test_a_bedrock_judge_without_aws_credentials_stops_the_run_in_one_line(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _bedrock_judge(server))

    result = _run(tmp_path, contract, {})

    assert _refusal(result, server) == [
        "error: bedrock: no AWS credentials found: set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK"
    ]


def test_a_vertex_judge_without_google_credentials_stops_the_run_in_one_line(
    tmp_path: Path, server: MessagesServer
) -> None:
    contract = _contract(tmp_path, _vertex_judge(server))

    result = _run(tmp_path, contract, {})

    assert _refusal(result, server) == [
        "error: vertex: no Google credentials found: run `gcloud auth application-default "
        "login`, or set GOOGLE_APPLICATION_CREDENTIALS, or GOOGLE_OAUTH_ACCESS_TOKEN"
    ]


def test_batch_refuses_a_platform_judge_in_one_line(tmp_path: Path, server: MessagesServer) -> None:
    contract = _contract(tmp_path, _bedrock_judge(server))

    result = _run(tmp_path, contract, {"AWS_BEARER_TOKEN_BEDROCK": BEDROCK_TOKEN}, "--batch")

    assert _refusal(result, server) == [
        "error: judge 'polite': --batch needs Message Batches, which the bedrock provider "
        "does not offer; run it without --batch"
    ]
    _assert_no_secret(tmp_path, result)


def test_one_contract_with_a_judge_on_each_platform_runs_them_all(
    tmp_path: Path, server: MessagesServer
) -> None:
    judges = {
        "on_bedrock": _bedrock_judge(server),
        "on_vertex": _vertex_judge(server),
        "on_foundry": f"provider: foundry\nmodel: claude-haiku-4-5-20251001\n"
        f"base_url: {server.base_url}/anthropic/",
    }
    contract = tmp_path / "platforms.yaml"
    contract.write_text(
        "contract: platforms\nversion: 1\njudges:\n"
        + "".join(
            f"  {name}:\n" + "".join(f"    {line}\n" for line in spec.strip().splitlines())
            for name, spec in judges.items()
        )
        + "claims:\n"
        + "".join(
            f"  - id: polite_{name}\n    judge: {name}\n    instruction: Is the output polite?\n"
            for name in judges
        ),
        encoding="utf-8",
    )
    _contract(tmp_path, _bedrock_judge(server))  # the cases
    env = {
        "AWS_BEARER_TOKEN_BEDROCK": BEDROCK_TOKEN,
        "GOOGLE_OAUTH_ACCESS_TOKEN": GOOGLE_TOKEN,
        "ANTHROPIC_FOUNDRY_API_KEY": FOUNDRY_KEY,
    }

    result = _run(tmp_path, contract, env)

    assert result.returncode == 1, result.stderr
    assert_no_traceback(result)
    served = {
        (r["claim_id"], r["case_id"]): r["evidence"]["judge"]["model_id"] for r in _rows(tmp_path)
    }
    assert served == {
        (f"polite_{name}", case["id"]): model
        for name, model in (
            ("on_bedrock", BEDROCK_MODEL),
            ("on_vertex", VERTEX_MODEL),
            ("on_foundry", "claude-haiku-4-5-20251001"),
        )
        for case in CASES
    }
    assert len(server.model_calls()) == 3 * len(CASES)
    _assert_no_secret(tmp_path, result)


HIDE_PACKAGES = """
import importlib.abc
import sys


class _Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"boto3", "botocore"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Hidden())
"""


@pytest.mark.e2e
def test_a_bedrock_judge_without_boto3_names_the_extra_to_install(
    tmp_path: Path, server: MessagesServer
) -> None:
    hidden = tmp_path / "hide"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text(HIDE_PACKAGES, encoding="utf-8")
    contract = _contract(tmp_path, _bedrock_judge(server))
    env = {
        "AWS_ACCESS_KEY_ID": "AKIATESTKEY0000",
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "PYTHONPATH": f"{hidden}:{ROOT}",
    }

    result = _run(tmp_path, contract, env, own_process=True)

    assert _refusal(result, server) == [
        "error: bedrock: signing calls with AWS credentials needs boto3: "
        "pip install 'verifier-llm[bedrock]'"
    ]
    _assert_no_secret(tmp_path, result)
