"""A redacted field leaves no trace in the store: not in contents, not in any row's
reason or evidence, not in the judge cache, not in an export or the run's report."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier, verifier_process
from tests.conftest import FIXTURES
from tests.gaps.test_record_policy import CASE_LIST, contract_with, run
from tests.judge.behaviours import Behaviour
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.gaps.redact import QUOTE_CHARS
from verifier.gaps.store import open_store

WINDOW = QUOTE_CHARS + 4


def leaks(data: bytes, texts: list[str], allowed: str) -> list[str]:
    """Every window of the texts found in ``data``, bar those ``allowed`` holds anyway:
    the contract's source, which the store keeps, quotes a few banned phrases, and a
    field that is not redacted may repeat words of the output."""
    found = []
    for text in texts:
        if text.encode() in data:
            found.append(text)
        for i in range(len(text) - WINDOW + 1):
            window = text[i : i + WINDOW]
            if window not in allowed and window.encode() in data:
                found.append(window)
    return found


def store_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))


def test_a_redacted_output_appears_nowhere_in_the_store_the_export_or_the_report(
    tmp_path: Path,
) -> None:
    db = tmp_path / "gaps.db"
    contract = contract_with(tmp_path, "  redact: [output]\n")
    report = tmp_path / "report.json"
    run_id = run(tmp_path, contract, str(db), "--format", "json", "--out", str(report))
    export = tmp_path / "export.jsonl"
    exported = verifier("export", "--store", str(db), "--out", str(export), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    outputs = [c["output"] for c in CASE_LIST]
    others = [json.dumps({k: v for k, v in c.items() if k != "output"}) for c in CASE_LIST]
    allowed = "\n".join([contract.read_text(encoding="utf-8"), *others])
    for data in (store_bytes(db), export.read_bytes(), report.read_bytes()):
        assert leaks(data, outputs, allowed) == []
    # Every row is still there and sound, and each judge row keeps its whole triple.
    audit = verifier("audit", "--store", str(db), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout
    with open_store(str(db)) as store:
        rows = [json.loads(r.body) for r in store.iter_rows(run_id)]
    judged = [r for r in rows if r["kind"] == "judge" and r["status"] != "skipped"]
    assert judged and all(
        set(r["evidence"]["judge"]) == {"model_id", "prompt_sha", "sampling_sha"}
        and re.fullmatch("[0-9a-f]{64}", r["evidence"]["judge"]["prompt_sha"])
        for r in judged
    )
    # A rubric claim on the output keeps its verdict; its evidence names what was withheld.
    cited = [r for r in rows if r["claim_id"] == "cites_sources"]
    assert len(cited) == len(CASE_LIST)
    assert all(r["evidence"] == {"redacted": ["output"]} for r in cited)
    assert {r["status"] for r in cited} == {"pass", "fail"}


def test_a_short_redacted_value_is_scrubbed_from_reasons_and_evidence(tmp_path: Path) -> None:
    db = tmp_path / "gaps.db"
    run_id = run(tmp_path, contract_with(tmp_path, "  redact: [fields.industry]\n"), str(db))
    with open_store(str(db)) as store:
        bodies = [(json.loads(r.body), r.body) for r in store.iter_rows(run_id)]
    industries = {c["id"]: c["fields"]["industry"] for c in CASE_LIST}
    for row, body in bodies:
        assert f"'{industries[row['case_id']]}'" not in body
        if row["claim_id"] == "industry_known":
            assert row["evidence"] == {"redacted": ["fields.industry"]}
            assert "[redacted]" in row["reason"]


def quoting_judge(request: dict[str, Any]) -> Behaviour:
    """The rule judge of the judge tests, whose every reasoning quotes the output."""
    answer = brain(request)
    content = request["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    found = re.search(r"<output-([0-9a-f]+)>(.*?)</output-\1>", text, re.S)
    quote = found.group(2).strip() if found else ""

    def quoted(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: f'{v} It says: "{quote}"' if k == "reasoning" else quoted(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [quoted(v) for v in value]
        return value

    return replace(answer, tool_input=quoted(answer.tool_input))


@pytest.mark.e2e
@pytest.mark.parametrize("batch", [(), ("--batch", "--batch-poll", "0.05")], ids=["calls", "batch"])
def test_a_live_judge_quoting_a_redacted_output_leaves_no_trace_in_the_store(
    tmp_path: Path, batch: tuple[str, ...]
) -> None:
    source = (FIXTURES / "judge_run" / "briefs.yaml").read_text(encoding="utf-8")
    contract = tmp_path / "briefs.yaml"
    contract.write_text(source + "record:\n  redact: [output]\n", encoding="utf-8")
    cases = FIXTURES / "judge_run" / "briefs.cases.jsonl"
    outputs = [json.loads(line)["output"] for line in cases.read_text().splitlines()]
    db = tmp_path / "gaps.db"
    with MessagesServer(default=quoting_judge, batch_polls=1) as server:
        env = {
            "ANTHROPIC_API_KEY": "sk-ant-api03-redaction-test-key",
            "ANTHROPIC_BASE_URL": server.base_url,
        }
        result = verifier_process(
            "run", str(contract), "--cases", str(cases), "--store", str(db),
            "--judges", "live", "--format", "json", *batch,
            cwd=tmp_path, env=env, clear_prefixes=("ANTHROPIC_", "CI"), timeout=120,
        )  # fmt: skip
        asked = [json.dumps(r.body, ensure_ascii=False) for r in server.requests if r.body]
    assert result.returncode in (0, 1), result.stderr
    # The judge did see (and quote) the outputs: redaction is about what is kept.
    assert all(any(o in a for a in asked) for o in outputs)
    assert leaks(store_bytes(db), outputs, source) == []
    assert leaks(result.stdout.encode(), outputs, source) == []
    with open_store(str(db)) as store:
        rows = [json.loads(r.body) for r in store.iter_rows()]
    # Every judge verdict arrived, through the batch too, though none was cached.
    assert {r["status"] for r in rows if r["kind"] == "judge"} <= {"pass", "fail", "skipped"}
    assert any('It says: "[redacted]"' in r["reason"] for r in rows)
