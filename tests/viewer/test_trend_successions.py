"""``/view/trends``: the full audit marks a judge succession on the run plots of the
claims its judge judges and names it in the alerts across it; the quick view, which
reads no row, says how many successions the store records; without one, neither does."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.analyses._successions import NEW_MODEL, OLD_MODEL, plant_switch, record, succession
from tests.viewer._diff_support import elements, viewer
from verifier.gaps.sqlite.store import SqliteStore


def pages(path: Path) -> tuple[str, str]:
    """The quick view and the full audit of contract ``demo``."""
    with viewer(path) as base:
        quick, full = (
            httpx.get(f"{base}/view/trends", params=params, timeout=60)
            for params in ({"contract": "demo"}, {"contract": "demo", "audit": "full"})
        )
    assert quick.status_code == full.status_code == 200
    return quick.text, full.text


def test_the_viewer_marks_a_succession_only_when_one_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_switch(store, switch_at=5)
    quick, full = pages(path)
    assert elements(full, "succession-marker") == elements(full, "succession-mark") == []
    assert "spans judge succession" not in full
    assert 'id="successions-note"' not in quick
    assert 'id="succession-list"' not in full

    record(str(path), succession())
    quick, full = pages(path)
    assert [m["data-run"] for m in elements(full, "succession-marker")] == ["r5"]
    listed = full.split('id="succession-list"')[1].split("</ul>")[0]
    assert "at run <code>r5</code>: succession s1 of judge grader" in listed
    (named,) = elements(full, "succession-mark")
    assert named["title"] is not None and named["title"].startswith("succession s1 of judge grader")
    label = f"judge grader: {OLD_MODEL} -&gt; {NEW_MODEL}, agreement 0.950 (claims tone)</li>"
    assert label in full
    tone_alert = [li for li in elements(full, "alert") if li.get("data-claim") == "tone"]
    assert [li["data-run"] for li in tone_alert] == ["r6"]
    assert (
        f"spans judge succession s1 of grader ({OLD_MODEL} -&gt; {NEW_MODEL}, agreement 0.950, "
        "shift -0.020)</li>"
    ) in full
    assert "This store records 1 judge succession(s)." in quick
