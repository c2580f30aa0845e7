"""`verifier judges`: the judge triples of a store, as a table or as JSON."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import day, plant_run
from tests.analyses._judged_store import RETIRING, judged_store
from verifier.gaps.store import open_store
from verifier.llm.providers._sdk_tables import retirement_dates
from verifier.llm.providers.retirement import parse_retirement

KEYS = [
    "judge",
    "contract",
    "model",
    "asked_model",
    "prompt_sha",
    "sampling_sha",
    "claims",
    "verdicts",
    "first_used",
    "last_used",
    "calibration",
    "resample_agreement",
    "retires_on",
    "days_left",
    "successor",
]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged_store(tmp_path_factory.mktemp("judges-cli"))


def listed(store: Path, *args: str) -> list[dict[str, object]]:
    result = cli("judges", "--store", str(store), "--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert isinstance(found, list)
    return found


def test_json_lists_each_triple_with_the_stable_keys(judged: Path) -> None:
    found = listed(judged)
    assert [list(entry) for entry in found] == [KEYS] * 4
    assert [(e["contract"], e["judge"], e["claims"]) for e in found] == [
        ("account-research", "strict", ["executive_tone"]),
        ("account-research", "strict", ["gaps_acknowledged"]),
        ("support-replies", "strict", ["formal_tone"]),
        ("support-replies", "strict", ["no_guessing"]),
    ]
    tone = found[0]
    assert tone["model"] == "example/hand-written"
    assert tone["asked_model"] == "claude-haiku-4-5-20251001"
    assert tone["verdicts"] == {"pass": 6, "fail": 4, "error": 0, "scored": 10}
    assert len(str(tone["prompt_sha"])) == 64 and len(str(tone["sampling_sha"])) == 64
    assert tone["calibration"] is None and tone["retires_on"] is None
    assert all(e["successor"] is None and e["resample_agreement"] is None for e in found)
    assert found[3]["calibration"] == {"kappa": pytest.approx(0.75, abs=0.01), "labels": 24}


def test_a_judge_pinned_to_a_retiring_model_lists_its_date_and_days_left(judged: Path) -> None:
    retires = parse_retirement(retirement_dates()[RETIRING])
    assert retires is not None
    today = dt.datetime.now(dt.UTC).date()
    pinned = [e for e in listed(judged) if e["model"] == RETIRING]
    assert len(pinned) == 2
    assert all(e["retires_on"] == retires.isoformat() for e in pinned)
    # Counted from today as the command ran (the test may straddle midnight).
    assert all(
        e["days_left"] in {(retires - today).days, (retires - today).days - 1} for e in pinned
    )


def test_the_table_shows_short_hashes_calibrations_and_retirement(judged: Path) -> None:
    result = cli("judges", "--store", str(judged))
    assert result.exit_code == 0, result.stderr
    header, *lines = result.stdout.splitlines()
    assert header.split()[:5] == ["JUDGE", "MODEL", "PROMPT", "SAMPLING", "CLAIMS"]
    assert "SUCCESSOR" not in header
    assert len(lines) == 4
    entries = listed(judged)
    for line, entry in zip(lines, entries, strict=True):
        assert line.startswith(f"{entry['contract']}/{entry['judge']} ")
        assert f" {str(entry['prompt_sha'])[:12]} " in line
        assert str(entry["prompt_sha"]) not in line
    assert "example/hand-written (asked claude-haiku-4-5-20251001)" in lines[0]
    assert "kappa 0.75 (24 labels)" in lines[3]
    assert f"{entries[3]['retires_on']} (" in lines[3]
    assert lines[0].rstrip().endswith("-")


def test_contract_limits_the_list(judged: Path) -> None:
    found = listed(judged, "--contract", "account-research")
    assert {e["contract"] for e in found} == {"account-research"} and len(found) == 2
    result = cli("judges", "--store", str(judged), "--contract", "nope")
    assert result.exit_code == 0
    assert result.stdout.startswith("no judge verdicts of contract nope stored in ")
    assert len(result.stdout.splitlines()) == 1


def test_a_store_without_judge_verdicts_says_so_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "gaps.db"
    with open_store(str(store)) as opened:
        plant_run(opened, "r1", started_at=day(1), passes={"cites": (3, 4)})
    result = cli("judges", "--store", str(store))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"no judge verdicts stored in {store}\n"
    assert listed(store) == []


def test_a_missing_store_is_a_one_line_error(tmp_path: Path) -> None:
    result = cli("judges", "--store", str(tmp_path / "missing.db"))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'missing.db'}: no store found (run `verifier run` first or pass --store)"
    ]
