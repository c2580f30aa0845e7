"""The diff page's flips come a page at a time, read only as far as the page, each next page
resuming after the last flip shown; its statistics are computed in the background, once
per pair of runs, and the page says so until they are on it (or why they never will be)."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.compare.test_compare_runs import add_run
from tests.viewer._diff_support import elements, viewer
from verifier.compare.analysis import compare_runs
from verifier.compare.merge import Outcome
from verifier.compare.report import as_json
from verifier.compare.runs import pair_runs
from verifier.gaps.records import StoredRow
from verifier.gaps.sqlite.store import SqliteStore
from verifier.viewer import _summaries, diff
from verifier.viewer._flips import Flip, FlipCursor, as_flip, flip_page

CLAIMS = ("x", "y", "z")
CASES = 300


def _statuses(rng: random.Random) -> dict[tuple[str, str], str]:
    choices = rng.choices(("pass", "fail", "error", "skipped"), (60, 30, 5, 5), k=CASES * 3)
    return {
        (f"case-{n}", claim): choices[n * 3 + c]
        for n in range(CASES)
        for c, claim in enumerate(CLAIMS)
    }


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs ``a`` and ``b`` of 300 cases x 3 claims (``b`` written in reverse order),
    where some cases flip on two or three claims; run ``c`` shares no case with them."""
    where = tmp_path_factory.mktemp("paging") / "gaps.db"
    rng = random.Random(35)
    base = _statuses(rng)
    cand = dict(base)
    for key in rng.sample(sorted(base), 150):
        cand[key] = {"pass": "fail", "fail": "pass"}.get(base[key], "pass")
    for n in (4, 5, 6, 7):  # cases that flip on every claim
        for claim in CLAIMS:
            base[f"case-{n}", claim], cand[f"case-{n}", claim] = "pass", "fail"
    with SqliteStore(where) as store:
        add_run(store, "a", base)
        add_run(store, "b", dict(reversed(cand.items())))
        add_run(store, "c", {(f"other-{k[0]}", k[1]): v for k, v in base.items()})
    return where


def _every_flip(
    store: SqliteStore, claim: str | None = None, direction: str | None = None
) -> list[Flip]:
    """Every flip the comparison's own walk of both runs finds, in the order it meets them."""
    found: list[Flip] = []

    def note(case_id: str, claim_id: str, base: Outcome, cand: Outcome) -> None:
        flip = as_flip(case_id, claim_id, base, cand)
        if (
            flip is not None
            and claim in (None, flip.claim_id)
            and direction in (None, flip.direction)
        ):
            found.append(flip)

    pair_runs(store, "a", "b", on_pair=note)
    return found


def _shown(page: str) -> list[tuple[str | None, str | None, str | None]]:
    return [(f["data-case"], f["data-claim"], f["data-direction"]) for f in elements(page, "flip")]


def _keys(flips: list[Flip]) -> list[tuple[str | None, str | None, str | None]]:
    return [(f.case_id, f.claim_id, f.direction) for f in flips]


def _ready(base: str, **params: Any) -> httpx.Response:
    """The page once it no longer says its statistics are being computed (two minutes
    at most)."""
    deadline = time.monotonic() + 120
    while True:
        page = httpx.get(f"{base}/view/diff", params=params, timeout=30)
        if 'id="summary-pending"' not in page.text or time.monotonic() > deadline:
            return page
        time.sleep(0.05)


class _CountingStore(SqliteStore):
    """A real SQLite store that counts the rows its case-ordered reads hand out."""

    handed = 0

    def iter_rows_by_case(
        self, run_id: str, *, page: int = 2_000, start: str | None = None
    ) -> Iterator[StoredRow]:
        for row in super().iter_rows_by_case(run_id, page=page, start=start):
            self.handed += 1
            yield row


def test_the_first_page_is_the_full_computation_s_first_page(path: Path) -> None:
    with _CountingStore(path) as store:
        for claim, direction in ((None, None), ("x", None), (None, "fixed"), ("y", "regressed")):
            every = _every_flip(store, claim, direction)
            assert len(every) > 7
            store.handed = 0
            page = flip_page(store, "a", "b", size=7, claim=claim, direction=direction)
            assert page.flips == tuple(every[:7]) and page.number == 1
            assert page.after == FlipCursor(every[6].case_id, every[6].claim_id)
            if claim is None and direction is None:
                # Read as far as the page: a few cases of each run, not the runs.
                assert store.handed < 2 * CASES * len(CLAIMS) / 10
        first = _every_flip(store)[: diff.FLIPS_PER_PAGE]
    with viewer(path) as base:
        page = httpx.get(f"{base}/view/diff", params={"a": "a", "b": "b"}, timeout=30)
    assert page.status_code == 200
    assert _shown(page.text) == _keys(first)


def test_each_next_page_resumes_after_the_last_flip_shown(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diff, "FLIPS_PER_PAGE", 5)
    with SqliteStore(path) as store:
        every = _every_flip(store, direction="regressed")
    seen: list[tuple[str | None, str | None, str | None]] = []
    cursors: list[dict[str, list[str]]] = []
    with viewer(path) as base:
        page = _ready(base, a="a", b="b", dir="regressed")
        while True:
            assert page.status_code == 200
            shown = _shown(page.text)
            assert len(shown) == 5 or 'id="next-page"' not in page.text
            number = len(cursors) + 1
            assert (
                f"flips {5 * number - 4}-{5 * number - 5 + len(shown)} of {len(every)}" in page.text
            )
            seen += shown
            link = re.search(r'id="next-page" href="([^"]+)#flips"', page.text)
            if link is None:
                break
            query = parse_qs(urlsplit(link.group(1).replace("&amp;", "&")).query)
            cursors.append(query)
            page = _ready(base, **{k: v[0] for k, v in query.items()})
    assert seen == _keys(every)
    # Each link names the last flip shown, never how many to skip.
    for query, n in zip(cursors, range(1, len(cursors) + 1), strict=True):
        assert set(query) == {"a", "b", "dir", "after", "after_claim", "page"}
        assert (query["after"][0], query["after_claim"][0]) == seen[5 * n - 1][:2]
        assert query["page"] == [str(n + 1)]
    # A page ends inside a case whose flips the next page goes on with.
    assert any(seen[5 * n - 1][0] == seen[5 * n][0] for n in range(1, len(cursors) + 1))


def test_a_cursor_inside_a_case_goes_on_with_its_next_claim(path: Path) -> None:
    with SqliteStore(path) as store:
        every = _every_flip(store)
        at = next(n for n, f in enumerate(every) if f.case_id == "case-5")
        page = flip_page(store, "a", "b", size=4, after=FlipCursor("case-5", every[at].claim_id))
    assert page.flips == tuple(every[at + 1 : at + 5])


def test_the_statistics_come_once_computed_by_one_task(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    calls: list[tuple[str, str]] = []
    summarise = _summaries.summarise

    def held(store: Any, baseline_id: str, candidate_id: str, **kwargs: Any) -> Any:
        calls.append((baseline_id, candidate_id))
        assert gate.wait(120)
        return summarise(store, baseline_id, candidate_id, **kwargs)

    monkeypatch.setattr(_summaries, "summarise", held)
    with SqliteStore(path) as store:
        first = _keys(_every_flip(store)[: diff.FLIPS_PER_PAGE])
        expected = as_json(compare_runs(store, "a", "b"))
        total = len(_every_flip(store))
    with viewer(path) as base:
        waiting = [httpx.get(f"{base}/view/diff?a=a&b=b", timeout=30) for _ in range(3)]
        for page in waiting:
            assert page.status_code == 200
            assert 'id="summary-pending"' in page.text and 'id="diff-verdict"' not in page.text
            assert '<meta http-equiv="refresh" content="3">' in page.text
            assert 'id="summary-refresh" href="?a=a&amp;b=b"' in page.text
            assert _shown(page.text) == first
            assert "flips 1-20 (page 1)" in page.text
        gate.set()
        ready = _ready(base, a="a", b="b")
    assert calls == [("a", "b")]
    assert 'id="summary-pending"' not in ready.text and "http-equiv" not in ready.text
    assert f'data-verdict="{expected["verdict"]}"' in ready.text
    rows = {r["data-claim"]: r for r in elements(ready.text, "claim-delta")}
    for claim in expected["claims"]:
        assert int(rows[claim["claim"]]["data-pairs"] or "") == claim["pairs"]
        assert float(rows[claim["claim"]]["data-p-value"] or "") == claim["p_value"]
    assert f"{total} flip(s) in all" in ready.text
    assert f"flips 1-20 of {total} (page 1 of {-(-total // 20)})" in ready.text
    assert _shown(ready.text) == first


def test_a_summary_that_fails_says_why_on_the_page(path: Path) -> None:
    with viewer(path) as base:
        page = _ready(base, a="a", b="c")
    assert page.status_code == 200
    assert 'id="no-flips"' in page.text and "http-equiv" not in page.text
    found = re.search(r'<p class="alert" id="summary-error">(.*?)</p>', page.text)
    assert found is not None
    assert found.group(1).endswith(
        "runs a and c have no case id in common: a comparison needs both runs over the same cases"
    )


def test_an_unexpected_failure_of_the_summary_is_shown_too(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk went away\nand more")

    monkeypatch.setattr(_summaries, "summarise", broken)
    with viewer(path) as base:
        page = _ready(base, a="a", b="b")
    assert page.status_code == 200 and _shown(page.text)
    assert "could not be computed: RuntimeError: the disk went away</p>" in page.text
