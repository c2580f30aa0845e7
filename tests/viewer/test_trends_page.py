"""``/view/trends?contract=ID``: pass rates per claim from the runs' tallies, the audit's alerts
without reading a row, and the full audit of ``verifier audit`` behind a link."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import verifier
from tests.gaps._support import tamper
from tests.viewer._diff_support import CONTRACT, elements, run, tab, viewer, write_cases
from verifier._internal.canonical import sha256_hex
from verifier.gaps.sqlite.store import SqliteStore

CITED = [9, 9, 9, 9, 9, 5]
"""Cases of ten that cite a source, run by run: the last run falls out of its history."""
HOSTILE_CLAIM = "<script>window.__injected='claim'</script>"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    where = tmp_path_factory.mktemp("trends")
    contract = where / "answers.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    ids = []
    for n, cited in enumerate(CITED):
        cases = [
            {"id": f"c{i}", "output": f"answer {i}" + (" [source: docs]" if i < cited else "")}
            for i in range(10)
        ]
        ids.append(run(where, contract, write_cases(where / f"run{n}.jsonl", cases)))
    other = where / "other.yaml"
    other.write_text(CONTRACT.replace("answers", "other"), encoding="utf-8")
    run(where, other, where / "run0.jsonl")
    return {"where": where, "path": where / "gaps.db", "runs": ids}


@pytest.fixture(scope="module")
def url(store: dict[str, Any]) -> Iterator[str]:
    with viewer(store["path"]) as base:
        yield base


def _get(url: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{url}/view/trends", params=params, timeout=60)


def _audit(store: dict[str, Any]) -> dict[str, Any]:
    result = verifier("audit", "--store", "gaps.db", "--format", "json", cwd=store["where"])
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_quick_view_has_the_audits_rates_and_alerts(store: dict[str, Any], url: str) -> None:
    audit = _audit(store)
    page = _get(url, contract="answers")
    assert page.status_code == 200
    alerts = [a for a in audit["alerts"] if a["contract_id"] == "answers"]
    assert [(a["claim_id"], a["run_id"]) for a in alerts] == [("cites", store["runs"][-1])]
    shown = elements(page.text, "alert")
    assert [(li["data-claim"], li["data-run"]) for li in shown if li.get("data-run")] == [
        ("cites", store["runs"][-1])
    ]
    latest = {
        t["claim_id"]: t["runs"][-1]["pass_rate"]
        for t in audit["trends"]["claims"]
        if t["contract_id"] == "answers"
    }
    rows = {
        r["data-claim"]: float(r["data-latest"] or "") for r in elements(page.text, "claim-trend")
    }
    assert rows == pytest.approx(latest) and rows == {"cites": 0.5, "short": 1.0}
    # The run-by-run plot of cites has a point per run, the alert ringed.
    assert page.text.count('class="alert-marker"') == 1
    assert "Run the full audit (reads every row)" in page.text
    assert 'id="integrity-verdict"' not in page.text


def test_the_full_audit_is_verifier_audit_s_and_the_quick_view_reads_no_row(
    store: dict[str, Any], tmp_path: Path
) -> None:
    copy = tmp_path / "gaps.db"
    shutil.copy(store["path"], copy)
    with viewer(copy) as base:
        full = _get(base, contract="answers", audit="full")
        assert full.status_code == 200
        verdict = elements(full.text, "ok")
        assert any(v.get("data-ok") == "true" for v in verdict)
        assert 'id="no-drift"' in full.text
        tamper(
            copy, ("UPDATE rows SET body = REPLACE(body, '\"pass\"', '\"fail\"') WHERE seq = 1", ())
        )
        broken = _get(base, contract="answers", audit="full")
        quick = _get(base, contract="answers")
    assert 'id="integrity-verdict" data-ok="false"' in broken.text
    assert "FAILED: " in broken.text
    # The quick view did not read the rows: it shows the same figures as before.
    assert 'data-claim="cites" data-latest="0.5"' in quick.text
    assert "FAILED" not in quick.text


def test_no_contract_lists_them_and_an_unknown_one_says_so(url: str) -> None:
    listing = _get(url).text
    assert [a["href"] for a in elements(listing, "contract-link")] == [
        "/view/trends?contract=answers",
        "/view/trends?contract=other",
    ]
    assert 'id="unknown-contract"' in _get(url, contract="nope").text
    assert _get(url, contract="answers", window=2).status_code == 422


def test_hostile_claim_ids_are_text(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as opened:
        for n in range(2):
            opened.begin_run(
                f"r{n}",
                contract_id="answers",
                contract_version=1,
                contract_sha256=sha256_hex("contract: answers\n"),
                contract_path="c.yaml",
                contract_source="contract: answers\n",
                started_at=f"2026-11-2{n}T10:00:00Z",
                options={},
            )
            tally = {"passed": 1, "failed": n, "errors": 0, "skipped": 0}
            opened.finish_run(
                f"r{n}",
                status="finished",
                finished_at=f"2026-11-2{n}T10:00:00Z",
                summary={"assertion_breakdown": {HOSTILE_CLAIM: tally}},
            )
    with viewer(path) as base:
        page = _get(base, contract="answers").text
    assert HOSTILE_CLAIM not in page
    assert "&lt;script&gt;window.__injected=&#39;claim&#39;&lt;/script&gt;" in page


@pytest.mark.e2e
def test_the_trends_in_chromium(url: str, chromium: Any, tmp_path: Path) -> None:
    with tab(chromium, url) as seen:
        page = seen.page
        page.goto(f"{url}/view/trends", wait_until="load")
        page.locator("a.contract-link", has_text="answers").click()
        page.wait_for_load_state("load")
        assert page.locator("#alert-list li").count() == 1
        page.screenshot(path=str(tmp_path / "trends.png"), full_page=True)
        page.locator("#full-audit").click()
        page.wait_for_load_state("load")
        assert page.locator("#integrity-verdict").inner_text() == "ok: no integrity problems"
        page.screenshot(path=str(tmp_path / "audit.png"), full_page=True)
    assert all(r.startswith(url) for r in seen.requests)
    assert not seen.errors


def test_the_window_may_be_a_span_of_time(url: str, store: dict[str, Any]) -> None:
    # Every run started within the last hour: four weeks hold them all, as 5 runs do.
    page = _get(url, contract="answers", window="4w")
    assert page.status_code == 200
    shown = elements(page.text, "alert")
    assert [li["data-run"] for li in shown if li.get("data-run")] == [store["runs"][-1]]
    assert "runs started within 4 weeks before it" in page.text
    assert "window=4w&amp;audit=full" in page.text
    full = _get(url, contract="answers", window="4w", audit="full")
    assert full.status_code == 200 and "window=4w" in full.text
    bad = _get(url, contract="answers", window="4 weeks")
    assert bad.status_code == 422
    assert "is neither a count of runs (5) nor a span" in bad.text
