"""``/view/diff?a=RUN&b=RUN``: the paired statistics of ``verifier compare`` and the cases that
flipped, side by side and paged, over real runs; in Chromium too."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import verifier
from tests.compare.test_compare_lineage import SWITCH, judged_runs
from tests.compare.test_compare_runs import outcomes
from tests.conftest import FIXTURES
from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from tests.viewer._diff_support import CONTRACT, elements, problem, run, tab, viewer, write_cases
from verifier.gaps.successions import SuccessionStore
from verifier.viewer import diff

RUNS = FIXTURES / "compare_runs"
HOSTILE_CASE = "<img src=x onerror=\"window.__injected='case'\">"
HOSTILE_OUTPUT = "<script>window.__injected='output'</script> no citation here"


def _answers(regressed: range, long: range) -> list[dict[str, Any]]:
    cases = []
    for n in range(30):
        cited = "" if n in regressed else " [source: docs]"
        words = " and more words" * 5 if n in long else ""
        cases.append(
            {"id": f"c{n:02d}", "input": f"question {n}", "output": f"answer {n}{words}{cited}"}
        )
    return cases


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One store: the compare fixture's two runs, and two runs of ``CONTRACT`` where 24
    cases lose their citation, 3 become short enough, and one hostile case regresses."""
    where = tmp_path_factory.mktemp("diff")
    baseline = run(where, RUNS / "contract.yaml", RUNS / "baseline.jsonl")
    candidate = run(where, RUNS / "contract.yaml", RUNS / "candidate.jsonl")
    contract = where / "answers.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    before = _answers(regressed=range(0), long=range(25, 28))
    after = _answers(regressed=range(24), long=range(0))
    before.append({"id": HOSTILE_CASE, "input": "q", "output": "fine [source: docs]"})
    after.append({"id": HOSTILE_CASE, "input": "q", "output": HOSTILE_OUTPUT})
    a = run(where, contract, write_cases(where / "before.jsonl", before))
    b = run(where, contract, write_cases(where / "after.jsonl", after))
    return {
        "where": where,
        "path": where / "gaps.db",
        "fixture": (baseline, candidate),
        "answers": (a, b),
    }


@pytest.fixture(scope="module")
def url(store: dict[str, Any]) -> Iterator[str]:
    with viewer(store["path"]) as base:
        yield base


def compare_json(where: Path, a: str, b: str, *, store: str = "gaps.db") -> dict[str, Any]:
    """What ``verifier compare A B --format json`` prints."""
    result = verifier("compare", a, b, "--store", store, "--format", "json", cwd=where)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _get_now(url: str, **params: Any) -> httpx.Response:
    """The diff page as it answers at once, its statistics computed or not."""
    return httpx.get(f"{url}/view/diff", params=params, timeout=30)


def _get(url: str, **params: Any) -> httpx.Response:
    """The diff page once its statistics are computed (or have failed): asked again while
    it says they are being computed, for up to two minutes."""
    deadline = time.monotonic() + 120
    while True:
        page = _get_now(url, **params)
        if 'id="summary-pending"' not in page.text or time.monotonic() > deadline:
            return page
        time.sleep(0.05)


def test_the_stats_on_the_page_are_verifier_compare_s(store: dict[str, Any], url: str) -> None:
    baseline, candidate = store["fixture"]
    report = compare_json(store["where"], baseline, candidate)
    page = _get(url, a=baseline, b=candidate)
    assert page.status_code == 200
    rows = {r["data-claim"]: r for r in elements(page.text, "claim-delta")}
    expected = [*report["claims"], report["overall"]]
    assert list(rows) == [c["claim"] for c in expected]
    for claim in expected:
        row = rows[claim["claim"]]
        assert int(row["data-pairs"] or "") == claim["pairs"]
        assert float(row["data-baseline-rate"] or "") == claim["baseline"]["pass_rate"]
        assert float(row["data-candidate-rate"] or "") == claim["candidate"]["pass_rate"]
        assert float(row["data-difference"] or "") == claim["difference"]
        assert [float(row["data-ci-low"] or ""), float(row["data-ci-high"] or "")] == claim["ci95"]
        assert float(row["data-p-value"] or "") == claim["p_value"]
        adjusted = row["data-p-adjusted"]
        assert (None if adjusted == "None" else float(adjusted or "")) == claim["p_adjusted"]
        assert row["data-verdict"] == claim["verdict"]
        needed = row["data-cases-needed"]
        assert (None if needed == "None" else int(needed or "")) == claim["cases_needed"]
    assert f'data-verdict="{report["verdict"]}"' in page.text
    # The flips of each claim are its discordant pairs, in both directions.
    flips = [r for r in elements(page.text, "flip")]
    cites = next(c for c in report["claims"] if c["claim"] == "cites_source")
    assert (
        len(flips)
        == cites["discordant"]["baseline_only"] + cites["discordant"]["candidate_only"]
        == 14
    )
    assert {f["data-direction"] for f in flips} == {"regressed"}


def test_flips_filter_by_claim_and_direction_and_page(
    store: dict[str, Any], url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store["answers"]
    first = _get(url, a=a, b=b)
    flips = elements(first.text, "flip")
    assert len(flips) == diff.FLIPS_PER_PAGE == 20
    assert 'id="next-page"' in first.text and 'id="prev-page"' not in first.text
    assert "flips 1-20 of 28 (page 1 of 2)" in first.text
    second = _get(url, a=a, b=b, page=2)
    rest = elements(second.text, "flip")
    # 25 regressions of cites (24 plus the hostile case), then 3 fixes of short.
    assert [(f["data-claim"], f["data-direction"]) for f in flips + rest] == [
        *[("cites", "regressed")] * 25,
        *[("short", "fixed")] * 3,
    ]
    fixed = _get(url, a=a, b=b, claim="short", dir="fixed")
    assert [f["data-case"] for f in elements(fixed.text, "flip")] == ["c25", "c26", "c27"]
    assert not elements(_get(url, a=a, b=b, claim="short", dir="regressed").text, "flip")
    # A page past the last shows the last.
    assert "page 2 of 2" in _get(url, a=a, b=b, page=9).text
    monkeypatch.setattr(diff, "FLIPS_PER_PAGE", 5)
    assert "flips 6-10 of 28 (page 2 of 6)" in _get(url, a=a, b=b, page=2).text


def test_each_flip_shows_both_outputs_and_reasons(store: dict[str, Any], url: str) -> None:
    a, b = store["answers"]
    page = _get(url, a=a, b=b, claim="cites", dir="regressed").text
    row = page[page.index('data-case="c03"') :]
    row = row[: row.index("</tr>")]
    side_a, side_b = row.split('class="side side-b"')
    assert "answer 3 [source: docs]" in side_a.replace("<mark>", "").replace("</mark>", "")
    assert "status-pass" in side_a and "status-fail" in side_b
    assert "answer 3</pre>" in side_b or "answer 3\n</pre>" in side_b or ">answer 3<" in side_b
    assert '<div class="reason">' in side_a and '<div class="reason">' in side_b


def test_hostile_content_is_text(store: dict[str, Any], url: str) -> None:
    a, b = store["answers"]
    # The hostile case id sorts first ("<" before "c").
    page = _get(url, a=a, b=b, claim="cites", dir="regressed").text
    assert elements(page, "flip")[0]["data-case"] == HOSTILE_CASE
    assert "&lt;script&gt;window.__injected=&#39;output&#39;&lt;/script&gt;" in page
    assert HOSTILE_CASE not in page and "<script>window" not in page
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/view/static/viewer.js" defer>']


def test_unknown_runs_and_bad_parameters_are_refused_in_one_line(
    store: dict[str, Any], url: str
) -> None:
    a, _ = store["answers"]
    unknown = _get(url, a=a, b="nope")
    assert unknown.status_code == 404
    assert problem(unknown.text) == f"candidate run 'nope' is not in {store['path']}"
    other = _get(url, a=a, b=store["fixture"][0])
    assert other.status_code == 404
    assert problem(other.text).endswith("only runs of one contract can be compared")
    assert _get(url, a=a, b=a, dir="sideways").status_code == 422
    assert _get(url, a=a).status_code == 422
    last = _get(url, a="last~1", b="last")
    assert last.status_code == 200 and f'id="run-a">{a}<' in last.text


@pytest.mark.e2e
def test_the_diff_in_chromium(
    store: dict[str, Any], url: str, chromium: Any, tmp_path: Path
) -> None:
    a, b = store["answers"]
    with tab(chromium, url) as seen:
        page = seen.page
        page.goto(f"{url}/view/diff?a={a}&b={b}", wait_until="load")
        # Until the statistics are computed the page reloads itself; then they are on it.
        page.locator("#diff-verdict").wait_for(timeout=120_000)
        assert page.locator("#diff-verdict").get_attribute("data-verdict") == "worse"
        page.screenshot(path=str(tmp_path / "diff.png"), full_page=True)
        page.locator("tr.claim-delta[data-claim='short'] a.flip-link").nth(1).click()
        page.wait_for_load_state("load")
        assert page.locator("tr.flip").count() == 3
        assert page.locator("#flip-selected").inner_text() == "3"
        page.locator("#all-flips").click()
        page.wait_for_load_state("load")
        hostile = page.locator("tr.flip").filter(has_text="no citation here")
        assert hostile.locator("td.case code").first.inner_text() == HOSTILE_CASE
        assert page.evaluate("window.__injected") is None
        page.locator("#next-page").click()
        page.wait_for_load_state("load")
        assert page.locator("tr.flip").count() == 8
        assert page.locator("#prev-page").count() == 1
        page.screenshot(path=str(tmp_path / "diff-page-2.png"), full_page=True)
    assert all(r.startswith(url) for r in seen.requests)
    assert not seen.errors


def test_the_diff_and_the_trends_on_postgresql(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    postgres = request.getfixturevalue("postgres_url")
    baseline = run(tmp_path, RUNS / "contract.yaml", RUNS / "baseline.jsonl", store=postgres)
    candidate = run(tmp_path, RUNS / "contract.yaml", RUNS / "candidate.jsonl", store=postgres)
    report = compare_json(tmp_path, baseline, candidate, store=postgres)
    with viewer(postgres) as base:
        page = _get(base, a=baseline, b=candidate, claim="cites_source", dir="regressed")
        trends = httpx.get(f"{base}/view/trends", params={"contract": "support-answers"})
    rows = {r["data-claim"]: r for r in elements(page.text, "claim-delta")}
    for claim in report["claims"]:
        assert float(rows[claim["claim"]]["data-p-value"] or "") == claim["p_value"]
    assert len(elements(page.text, "flip")) == 14
    latest = {r["data-claim"]: r["data-latest"] for r in elements(trends.text, "claim-trend")}
    assert set(latest) == {c["claim"] for c in report["claims"]}


def test_the_diff_page_names_the_succession(tmp_path: Path) -> None:
    target = str(tmp_path / "gaps.db")
    judged_runs(target, outcomes("tone", "pf"))
    with viewer(Path(target)) as base:
        before = _get(base, a="a", b="b")
        with SuccessionStore(target) as successions:
            successions.save(SWITCH)
        after = _get(base, a="a", b="b")
    assert before.status_code == after.status_code == 200
    assert "warning: claim tone was judged under different judges" in before.text
    assert "differ by a succession" not in before.text
    line = (
        "warning: claim tone was judged by judge strict with claude-sonnet-4-5-20250929 in "
        "run a and with claude-opus-4-5-20251101 in run b: the judges differ by a succession "
        "the store records (succession s1 of judge strict: claude-sonnet-4-5-20250929 -&gt; "
        "claude-opus-4-5-20251101 (trial t1, pass: agreement 0.950"
    )
    assert line in after.text
