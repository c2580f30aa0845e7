"""``verifier report --trend``: a judge succession is marked on the run plots of the
claims its judge judges, named above the contract's table, and in the alerts whose
window spans it; without a succession, the same change of model is marked nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._successions import NEW_MODEL, OLD_MODEL, plant_switch, record, succession
from tests.viewer._diff_support import elements
from verifier.gaps.sqlite.store import SqliteStore

LABEL = f"judge grader: {OLD_MODEL} -&gt; {NEW_MODEL}, agreement 0.950"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Six runs; the ``grader`` judge of ``tone`` serves another model from run 5."""
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_switch(store, switch_at=5)
    return path


def page(store_path: Path) -> str:
    out = store_path.parent / "trend.html"
    result = cli("report", "--trend", "--store", str(store_path), "--html", str(out))
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def plot(html: str, claim: str) -> str:
    start = html.index(f'<svg class="chart trend-plot" data-claim="demo/{claim}" data-axis="run"')
    return html[start : html.index("</svg>", start)]


def test_without_a_succession_nothing_is_marked(store_path: Path) -> None:
    html = page(store_path)
    assert elements(html, "succession-marker") == []
    assert elements(html, "succession-mark") == []
    assert "spans judge succession" not in html
    # The change of model is still the audit's judge drift.
    assert f"served model {OLD_MODEL} -&gt; {NEW_MODEL}" in html
    assert 'id="succession-list"' not in html


def test_a_succession_is_marked_where_its_judge_first_judged(store_path: Path) -> None:
    record(str(store_path), succession())
    html = page(store_path)
    (marker,) = elements(html, "succession-marker")
    assert marker["data-run"] == "r5"
    # Not drift: the change is listed as the succession it is.
    assert "No judge changed its triple but by a recorded succession." in html
    listed = html.split('id="succession-list"')[1].split("</ul>")[0]
    assert "at run <code>r5</code>: succession s1 of judge grader" in listed
    tone, cites = plot(html, "tone"), plot(html, "cites")
    assert '<g class="succession-marker" data-run="r5"><title>succession s1 of judge grader' in tone
    # Halfway between runs 4 and 5 of six slots: 6 + 228 * 3.5 / 5.
    assert '<line class="succession" x1="165.6" x2="165.6"' in tone
    assert "succession" not in cites  # a rubric claim: no judge of it changed
    (named,) = elements(html, "succession-mark")
    assert named["data-run"] == "r5"
    assert named["title"] is not None and named["title"].startswith("succession s1 of judge")
    assert f"{LABEL} (claims tone)</li>" in html
    alerts = {li["data-claim"]: li for li in elements(html, "alert") if li.get("data-run")}
    assert set(alerts) == {"demo/tone", "demo/cites"}
    assert (
        f"spans judge succession s1 of grader ({OLD_MODEL} -&gt; {NEW_MODEL}, "
        "agreement 0.950, shift -0.020)</li>"
    ) in html
    # Tone's alert, in the list and on the ring around its point; cites' says nothing.
    assert "spans judge succession" in tone
    assert html.count("spans judge succession") == 2
