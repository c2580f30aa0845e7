"""The playground in headless Chromium, end to end: open the example contract, break a
regex claim (the problem shown at its line), fix it so a stored case fails, run it (the
verdict beside the output, its span marked), save it, and ``verifier run`` the saved
file from the command line with the same verdicts."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.server._support import TOKEN, running
from verifier.server.play import PLAY_POLICY
from verifier.server.settings import ServerSettings

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
CONTRACT = "examples/account-research.yaml"
PATTERN = r"pattern: '\[source: [A-Za-z ]+\]'"
PATTERN_LINE = 27
CASE = "acct-001"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A contracts folder holding the example contract, and a store with its run."""
    base = tmp_path
    examples = base / "contracts" / "examples"
    examples.mkdir(parents=True)
    for name in ("account-research.yaml", "account-research.recordings.jsonl"):
        shutil.copy(EXAMPLES / name, examples / name)
    done = verifier(
        "run",
        str(examples / "account-research.yaml"),
        "--cases",
        str(EXAMPLES / "account-research.cases.jsonl"),
        "--judges",
        "replay",
        "--store",
        str(base / "gaps.db"),
        cwd=base,
        clear_prefixes=("ANTHROPIC_",),
    )
    assert done.returncode == 1, done.stderr  # two of its cases fail
    return base


@pytest.fixture
def server(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = ServerSettings(
        port=0,
        token=TOKEN,
        store=str(folder / "gaps.db"),
        contracts_dir=folder / "contracts",
        judge_mode="replay",
    )
    with running(settings) as base:
        yield base


@pytest.fixture
def page(chromium: Any, server: str) -> Iterator[Any]:
    """A page that reaches the server with its token (as a proxy in front would add
    it) and nothing else."""
    context = chromium.new_context(
        extra_http_headers={"Authorization": f"Bearer {TOKEN}"},
        viewport={"width": 1400, "height": 1000},
    )
    errors: list[str] = []

    def route(request: Any) -> None:
        if request.request.url.startswith(server + "/"):
            request.continue_()
        else:
            request.abort()

    context.route("**/*", route)
    opened = context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == []


def _edit(page: Any, old: str, new: str) -> None:
    text = page.locator("#contract").input_value()
    assert old in text
    page.locator("#contract").fill(text.replace(old, new, 1))


def test_edit_check_run_save_and_the_command_line_agrees(
    page: Any, server: str, folder: Path
) -> None:
    from playwright.sync_api import expect

    response = page.goto(server + "/play/", wait_until="load")
    assert response.headers["content-security-policy"] == PLAY_POLICY
    page.locator("#pick").select_option(f"file:{CONTRACT}")
    page.locator("#open").click()
    expect(page.locator("#check-summary")).to_have_text("✓ account-research v2, 10 claims")
    expect(page.locator("#name")).to_have_value(CONTRACT)

    # Invalid YAML: the problem is listed at its line, and the gutter marks that line.
    _edit(page, PATTERN, "  pattern: 'x'")
    problem = page.locator("#problems li.error")
    expect(problem).to_have_count(1)
    expect(problem).to_have_attribute("data-line", str(PATTERN_LINE))
    expect(problem).to_contain_text("invalid YAML")
    expect(page.locator(f"#gutter-line-{PATTERN_LINE}.bad")).to_have_count(1)

    # Valid YAML, an invalid claim: RE2's reason, at the pattern's line.
    _edit(page, "  pattern: 'x'", r"pattern: '\[source: (Salesforce'")
    expect(problem).to_contain_text("invalid regex")
    expect(problem).to_have_attribute("data-line", str(PATTERN_LINE))
    expect(page.locator("#check-summary")).to_have_text("1 problem")

    # Fixed: a source the first brief cites is now forbidden.
    _edit(page, r"pattern: '\[source: (Salesforce'", "pattern: 'Salesforce'\n    negate: true")
    expect(page.locator("#check-summary")).to_have_text("✓ account-research v2, 10 claims")
    expect(page.locator("#problems li.error")).to_have_count(0)

    # A stored case of the run in the store.
    page.locator("#run").select_option(index=1)
    page.locator(f"#case-id option[value='{CASE}']").wait_for(state="attached")
    page.locator("#case-id").select_option(CASE)
    expect(page.locator("#output")).to_have_value(json.loads(_case_line(CASE))["output"])
    page.locator("#run-button").click()
    expect(page.locator("#play-verdict")).to_contain_text("FAIL")
    failing = page.locator("tr.verdict[data-claim='cites_sources']")
    expect(failing).to_have_attribute("data-status", "fail")
    expect(failing.locator(".reason")).to_contain_text("forbidden pattern found in output")
    # Beside the verdicts, the output with the deciding span marked.
    expect(page.locator(".play-output [data-path='output'] mark")).to_have_text(["Salesforce"])
    # A judge's verdict comes with its triple (replayed from the recordings).
    expect(page.locator("tr.verdict[data-claim='executive_tone'] .triple")).to_contain_text(
        "example/hand-written"
    )
    shown = {
        str(row.get_attribute("data-claim")): str(row.get_attribute("data-status"))
        for row in page.locator("tr.verdict").all()
    }

    # Saving over the file needs a new version.
    page.locator("#save").click()
    expect(page.locator("#save-status")).to_contain_text("exists at version 2")
    _edit(page, "version: 2", "version: 3")
    page.locator("#save").click()
    expect(page.locator("#save-status")).to_have_text(f"{CONTRACT}: saved over version 2")

    saved = folder / "contracts" / CONTRACT
    assert "negate: true" in saved.read_text() and "version: 3" in saved.read_text()
    cases = folder / "one.cases.jsonl"
    cases.write_text(_case_line(CASE) + "\n")
    done = verifier(
        "run", str(saved), "--cases", str(cases), "--judges", "replay",
        "--store", str(folder / "cli.db"), "--format", "json",
        cwd=folder, clear_prefixes=("ANTHROPIC_",),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    (case,) = json.loads(done.stdout)["cases"]
    assert {r["id"]: r["status"] for r in case["results"]} == shown
    assert shown["cites_sources"] == "fail" and case["pass"] is False


def test_a_pasted_case_and_a_starter(page: Any, server: str) -> None:
    from playwright.sync_api import expect

    page.goto(server + "/play/", wait_until="load")
    page.locator("#pick").select_option("starter:likert")
    page.locator("#open").click()
    expect(page.locator("#name")).to_have_value("likert-review.yaml")
    expect(page.locator("#check-summary")).to_contain_text("likert-review v1")
    page.locator("#pick").select_option(f"file:{CONTRACT}")
    page.locator("#open").click()
    expect(page.locator("#check-summary")).to_contain_text("account-research v2")
    page.locator("#input").fill("Brief me on Acme.")
    page.locator("#output").fill("Acme is gonna grow, lol [source: CRM].")
    page.locator("#output").press("Control+Enter")
    formal = page.locator("tr.verdict[data-claim='formal_tone']")
    expect(formal).to_have_attribute("data-status", "fail")
    expect(page.locator(".play-output [data-path='output'] mark")).to_have_text(["gonna", "lol"])
    # A claim's name leads to its line in the contract.
    formal.locator("a.claim-line").click()
    expect(page.locator("#contract")).to_be_focused()


def _case_line(case_id: str) -> str:
    for line in (EXAMPLES / "account-research.cases.jsonl").read_text().splitlines():
        if json.loads(line)["id"] == case_id:
            return line
    raise AssertionError(case_id)
