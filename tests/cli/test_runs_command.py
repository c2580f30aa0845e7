"""`verifier runs` lists a store's runs newest first, and every command that takes a run
takes `last` and `last~N` too, counted back in the store it reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._support import begin, draft, finish
from verifier._internal.canonical import sha256_hex
from verifier.gaps.store import open_store

EXTRACTION = EXAMPLES / "data-extraction.yaml"
RESEARCH = EXAMPLES / "account-research.yaml"


def _run(tmp_path: Path, store: str, contract: Path, cases: str, *more: str) -> str:
    result = verifier(
        "run", str(contract), "--cases", str(EXAMPLES / cases), "--store", store, *more,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    with open_store(store) as gap_store:
        last = gap_store.last_run()
    assert last is not None
    return last.run_id


@pytest.fixture
def three_runs(tmp_path: Path) -> tuple[str, list[str]]:
    """A store of three runs, oldest first: extraction, research, extraction again."""
    store = str(tmp_path / "gaps.db")
    ids = [
        _run(tmp_path, store, EXTRACTION, "data-extraction.cases.jsonl"),
        _run(tmp_path, store, RESEARCH, "account-research.cases.jsonl"),
        _run(tmp_path, store, EXTRACTION, "data-extraction.candidate.cases.jsonl"),
    ]
    return store, ids


def test_runs_lists_newest_first_with_what_each_run_did(
    tmp_path: Path, three_runs: tuple[str, list[str]]
) -> None:
    store, ids = three_runs
    result = verifier("runs", "--store", store, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.splitlines()
    assert header.split() == ["RUN", "CONTRACT", "STARTED", "STATUS", "CASES", "PASSED", "JUDGE", "CALLS"]  # fmt: skip
    assert [line.split()[0] for line in lines] == ids[::-1]
    assert lines[0].split()[1:3] == ["org-extraction", "v1"]
    assert lines[0].split()[4:] == ["finished", "7", "4", "-"]  # no judges: no calls
    assert lines[1].split()[1:3] == ["account-research", "v2"]
    assert lines[1].split()[4:] == ["finished", "5", "3", "0"]  # replayed, no call made

    listed = json.loads(verifier("runs", "--store", store, "--format", "json", cwd=tmp_path).stdout)
    assert [run["run_id"] for run in listed] == ids[::-1]
    assert listed[2] == {
        "run_id": ids[0],
        "contract": {
            "id": "org-extraction",
            "version": 1,
            "sha256": sha256_hex(EXTRACTION.read_bytes()),
        },
        "started_at": listed[2]["started_at"],
        "finished_at": listed[2]["finished_at"],
        "status": "finished",
        "cases": 7,
        "passed": 2,
        "judge_calls": None,
    }

    only = verifier("runs", "--store", store, "--contract", "org-extraction", "--last", "1",
                    "--format", "json", cwd=tmp_path)  # fmt: skip
    assert [run["run_id"] for run in json.loads(only.stdout)] == [ids[2]]


def test_runs_tells_in_flight_from_interrupted(tmp_path: Path) -> None:
    store = str(tmp_path / "gaps.db")
    source = EXTRACTION.read_text(encoding="utf-8")
    begun = {
        "contract_id": "org-extraction",
        "contract_version": 1,
        "contract_sha256": sha256_hex(source),
        "contract_path": str(EXTRACTION),
        "contract_source": source,
        "options": {},
    }
    with open_store(store) as gap_store:
        gap_store.begin_run("stopped", started_at="2026-11-25T10:00:00.000000Z", **begun)
        gap_store.begin_run("killed", started_at="2026-11-25T11:00:00.000000Z", **begun)
        gap_store.finish_run(
            "stopped", status="interrupted", finished_at="2026-11-25T10:01:00Z", summary={}
        )
    # "killed" was left running when its store closed, as a killed process leaves it.
    with open_store(store) as writer:
        writer.begin_run("going", started_at="2026-11-25T12:00:00.000000Z", **begun)
        listed = verifier("runs", "--store", store, "--format", "json", cwd=tmp_path)
        text = verifier("runs", "--store", store, cwd=tmp_path)
    statuses = {run["run_id"]: run["status"] for run in json.loads(listed.stdout)}
    assert statuses == {"going": "in flight", "killed": "interrupted", "stopped": "interrupted"}
    assert text.stdout.splitlines()[1].split() == [
        "going", "org-extraction", "v1", "2026-11-25T12:00:00Z", "in", "flight", "-", "-", "-"
    ]  # fmt: skip


def test_runs_of_an_empty_store_say_so(tmp_path: Path) -> None:
    store = tmp_path / "gaps.db"
    open_store(str(store)).close()
    result = verifier("runs", "--store", str(store), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, f"no runs stored in {store}\n")
    result = verifier("runs", "--store", str(store), "--format", "json", cwd=tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])
    result = verifier("runs", "--store", str(store), "--contract", "x", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, f"no runs of contract x stored in {store}\n")


def test_runs_of_an_unknown_store_is_one_line(tmp_path: Path) -> None:
    result = verifier("runs", "--store", str(tmp_path / "nope.db"), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nope.db'}: no store found (run `verifier run` first or pass --store)"
    ]
    assert not (tmp_path / "nope.db").exists()


def test_every_command_taking_a_run_takes_last_and_last_n(
    tmp_path: Path, three_runs: tuple[str, list[str]]
) -> None:
    store, (first, research, latest) = three_runs
    s = ("--store", store)

    def ok(*args: str, codes: tuple[int, ...] = (0,)) -> str:
        result = verifier(*args, *s, cwd=tmp_path)
        assert result.returncode in codes, (args, result.stderr)
        return result.stdout if "--format" in args else result.stdout + result.stderr

    compared = json.loads(ok("compare", "last~2", "last", "--format", "json", codes=(0, 1)))
    assert (compared["baseline"]["run_id"], compared["candidate"]["run_id"]) == (first, latest)
    shown = json.loads(ok("show", "last~1", "acct-001", "--format", "json"))
    assert shown["run_id"] == research
    assert f"report of run {research}" in ok("report", "last~1", "--html", "r.html")
    assert f"report of run {latest}" in ok("report", "last", "--html", "r.html")
    assert json.loads(ok("audit", "--run", "last~2", "--format", "json"))["run_id"] == first
    recheck = ok("audit", "--recheck", "--run", "last", "--format", "json")
    assert json.loads(recheck)["run_id"] == latest
    exported = ok("export", "--run", "last~1")
    assert "exported 50 rows of 1 run(s)" in exported
    assert json.loads(exported.splitlines()[0])["run_id"] == research  # the export's scope
    calibrated = ok("calibrate", "--labels", str(EXAMPLES / "account-research.labels.jsonl"),
                    "--run", "last~1", "--format", "json")  # fmt: skip
    assert json.loads(calibrated)["run_id"] == research
    assert "of 1 run(s)" in ok("purge", "--content", "--run", "last")


@pytest.mark.parametrize(
    "args",
    [
        ("show", "last~5", "case"),
        ("compare", "last~5", "last"),
        ("report", "last~5", "--html", "r.html"),
        ("audit", "--run", "last~5"),
        ("audit", "--recheck", "--run", "last~5"),
        ("export", "--run", "last~5"),
        ("purge", "--content", "--run", "last~5"),
        ("calibrate", "--labels", "labels.jsonl", "--run", "last~5"),
    ],
)
def test_a_reference_past_the_oldest_run_is_one_line(
    tmp_path: Path, three_runs: tuple[str, list[str]], args: tuple[str, ...]
) -> None:
    store, _ = three_runs
    (tmp_path / "labels.jsonl").write_text("", encoding="utf-8")
    result = verifier(*args, "--store", store, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: last~5: only 3 runs stored in {store}"]


def test_a_malformed_reference_is_a_usage_error(tmp_path: Path) -> None:
    result = verifier("show", "last~x", "case", cwd=tmp_path)
    assert result.returncode == 2
    assert "'last~x' is not a run: write a run id, last, or last~N" in result.stderr
    assert "Traceback" not in result.stderr


def test_resume_last_counts_the_runs_of_the_contract_resumed(tmp_path: Path) -> None:
    store = str(tmp_path / "gaps.db")
    source = EXTRACTION.read_text(encoding="utf-8")
    with open_store(store) as gap_store:
        gap_store.begin_run(
            "stopped",
            contract_id="org-extraction",
            contract_version=1,
            contract_sha256=sha256_hex(source),
            contract_path=str(EXTRACTION),
            contract_source=source,
            started_at="2026-11-25T10:00:00.000000Z",
            options={"cases": str(EXAMPLES / "data-extraction.cases.jsonl")},
        )
        gap_store.finish_run(
            "stopped", status="interrupted", finished_at="2026-11-25T10:01:00Z", summary={}
        )
    # The store's last run is of another contract; the extraction's last is "stopped".
    _run(tmp_path, store, RESEARCH, "account-research.cases.jsonl")
    resumed = verifier(
        "run", str(EXTRACTION), "--cases", str(EXAMPLES / "data-extraction.cases.jsonl"),
        "--store", store, "--resume", "last", "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert resumed.returncode == 1, resumed.stderr  # the example has failing cases
    assert json.loads(resumed.stdout)["run_id"] == "stopped"
    with open_store(store) as gap_store:
        record = gap_store.run("stopped")
        assert record is not None and record.status == "finished"
        assert len(gap_store.runs()) == 2


def test_no_run_named_like_a_reference_can_be_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A store written before ids were checked: its begin_run let any id through.
    old = str(tmp_path / "old.db")
    with monkeypatch.context() as patched:
        patched.setattr("verifier.gaps.sql.check_run_id", lambda run_id: None)
        with open_store(old) as gap_store:
            begin(gap_store, "last~1")
            gap_store.append([draft(1, "last~1")])
            finish(gap_store, "last~1")
    export = verifier("export", "--store", old, "--out", "old.jsonl", cwd=tmp_path)
    assert export.returncode == 0, export.stderr
    result = verifier("import", "old.jsonl", "--store", "new.db", cwd=tmp_path)
    assert result.returncode == 1  # as every refused export
    assert result.stderr.strip().splitlines() == [
        "error: old.jsonl:7: refused, nothing imported: run id 'last~1' is reserved (last, last~N)"
    ]
