"""Sharded runs on a real PostgreSQL store: N ``verifier run --shard K/N`` processes
write one run, which ends when every shard has and then reads exactly as the same run
made by one process (ADR 0043)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests._cli import CLEARED
from tests._cli import verifier as run_verifier
from tests.engine.test_interrupt import RUBRIC
from verifier.gaps.shards import Shard, shard_of

CONTRACT = RUBRIC  # two rubric claims, over fields.total and fields.name


def write_inputs(tmp_path: Path, n_cases: int) -> tuple[Path, Path]:
    """The contract and ``n_cases`` cases: some fail, one line is unusable."""
    contract = tmp_path / "sharded.yaml"
    contract.write_text(CONTRACT)
    cases = tmp_path / "cases.jsonl"
    lines = []
    for i in range(n_cases):
        if i == 7:
            lines.append('{"id": "broken", "fields": ')  # reported as line-8, an error
            continue
        name = "abc" if i % 5 else "Not-Lower"
        lines.append(
            json.dumps({"id": f"case-{i:05d}", "fields": {"total": i % 130, "name": name}})
        )
    cases.write_text("\n".join(lines) + "\n")
    return contract, cases


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_verifier(*args, cwd=tmp_path, clear_prefixes=("VERIFIER_", "GITHUB_"))


def shard_process(
    tmp_path: Path, contract: Path, cases: Path, url: str, *args: str
) -> subprocess.Popen[str]:
    """``verifier run`` in a process of its own (shards run side by side)."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED and not k.startswith("GITHUB_")}
    command = [sys.executable, "-m", "verifier", "run", str(contract), "--cases", str(cases)]
    return subprocess.Popen(
        [*command, "--store", url, "--format", "json", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def sql(url: str, query: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query, params)  # type: ignore[arg-type]
        return cursor.fetchall() if cursor.description else []


def results_of(url: str, run_id: str) -> list[tuple[Any, ...]]:
    """Every row of a run as (case, claim, status, score), sorted; duplicates kept."""
    return sorted(
        sql(
            url,
            "SELECT case_id, claim_id, status, score FROM rows WHERE run_id = %s",
            (run_id,),
        )
    )


def stored_summary(url: str, run_id: str) -> dict[str, Any]:
    ((status, summary),) = sql(url, "SELECT status, summary FROM runs WHERE run_id = %s", (run_id,))
    totals = json.loads(summary)
    totals.pop("chain")
    return {"status": status, **totals}


def without_run(report: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without what names its run: its id and the store head."""
    kept = {k: v for k, v in report.items() if k not in ("run_id", "head")}
    # The report of a finished sharded run is rebuilt from the rows, which keep the
    # case contents apart (verifier show prints them).
    kept["cases"] = [{k: v for k, v in case.items() if k != "content"} for case in report["cases"]]
    return kept


def test_a_case_belongs_to_one_shard_whatever_the_machine() -> None:
    ids = [f"case-{i}" for i in range(2000)]
    parts = [[i for i in ids if Shard(k, 4).holds(i)] for k in range(1, 5)]
    assert sorted(i for part in parts for i in part) == sorted(ids)  # disjoint and complete
    assert all(350 < len(part) < 650 for part in parts)  # and about even
    # Fixed by the id's SHA-256 alone: a rerun on any machine picks the same part.
    assert [shard_of(i, 4) for i in ("a", "d", "case-2")] == [3, 2, 4]
    assert Shard.parse(" 2/4 ") == Shard(2, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "1/2000"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


@pytest.mark.e2e
def test_four_shards_in_parallel_make_the_run_one_process_makes(
    tmp_path: Path, postgres_url: str
) -> None:
    contract, cases = write_inputs(tmp_path, 600)
    whole = cli(tmp_path, "run", str(contract), "--cases", str(cases), "--store", postgres_url,
                "--format", "json", "--out", "whole.json")  # fmt: skip
    assert whole.returncode == 1, whole.stderr  # some cases fail
    ((whole_id,),) = sql(postgres_url, "SELECT run_id FROM runs")

    shards = [
        shard_process(tmp_path, contract, cases, postgres_url, "--shard", f"{k}/4", "--run-id", "R")
        for k in range(1, 5)
    ]
    outcomes = [shard.communicate(timeout=120) for shard in shards]
    assert [shard.returncode for shard in shards] == [1, 1, 1, 1], outcomes
    parts = [json.loads(out) for out, _ in outcomes]
    assert sum(part["total_cases"] for part in parts) == 600
    # The last shard to finish ended the run: its summary covers every shard's rows.
    assert any("run R finished (every shard has): " in err for _, err in outcomes)

    finish = cli(tmp_path, "run", "--finish", "R", "--store", postgres_url, "--format", "json",
                 "--out", "sharded.json", "--pr-comment", "comment.md")  # fmt: skip
    assert finish.returncode == 1, finish.stderr  # the run ended already: reported again
    assert "run R: " in finish.stderr and "cases passed" in finish.stderr

    assert results_of(postgres_url, "R") == results_of(postgres_url, whole_id)
    assert len(results_of(postgres_url, "R")) == 1200
    sharded_summary, whole_summary = (
        stored_summary(postgres_url, "R"),
        stored_summary(postgres_url, whole_id),
    )
    assert sharded_summary == whole_summary and sharded_summary["status"] == "finished"
    whole_report = json.loads((tmp_path / "whole.json").read_text())
    sharded_report = json.loads((tmp_path / "sharded.json").read_text())
    assert without_run(sharded_report) == without_run(whole_report)
    assert "many" in (tmp_path / "comment.md").read_text()

    # Compared with the unsharded run, the sharded one is the same run again.
    against_itself = cli(tmp_path, "compare", whole_id, whole_id, "--store", postgres_url,
                         "--format", "json")  # fmt: skip
    against_sharded = cli(tmp_path, "compare", whole_id, "R", "--store", postgres_url,
                          "--format", "json")  # fmt: skip
    assert against_sharded.returncode == against_itself.returncode == 0, against_sharded.stderr
    same, itself = (
        json.loads(against_sharded.stdout.replace('"R"', f'"{whole_id}"')),
        json.loads(against_itself.stdout),
    )
    assert itself.pop("warnings") == [f"run {whole_id} is compared with itself"]
    assert same.pop("warnings") == [] and same == itself

    audit = cli(tmp_path, "audit", "--store", postgres_url)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    listed = json.loads(cli(tmp_path, "runs", "--store", postgres_url, "--format", "json").stdout)
    sharded_entry = next(entry for entry in listed if entry["run_id"] == "R")
    assert sharded_entry["status"] == "finished" and sharded_entry["cases"] == 600


@pytest.mark.e2e
def test_a_shard_killed_mid_way_resumes_without_a_duplicate_row(
    tmp_path: Path, postgres_url: str
) -> None:
    n_cases = 20_000
    contract, cases = write_inputs(tmp_path, n_cases)
    killed = shard_process(tmp_path, contract, cases, postgres_url,
                           "--shard", "1/2", "--run-id", "R", "--chunk-size", "20")  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stored = sql(postgres_url, "SELECT count(*) FROM information_schema.tables"
                     " WHERE table_schema = current_schema() AND table_name = 'rows'")  # fmt: skip
        if stored == [(1,)] and sql(postgres_url, "SELECT count(*) FROM rows")[0][0] >= 400:
            break
        time.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.communicate(timeout=30)
    before = sql(postgres_url, "SELECT count(*) FROM rows")[0][0]
    ids = [f"case-{i:05d}" if i != 7 else "line-8" for i in range(n_cases)]
    mine = sum(1 for case_id in ids if shard_of(case_id, 2) == 1)
    assert 0 < before < 2 * mine  # killed mid-way ...
    assert sql(postgres_url, "SELECT status FROM run_shards WHERE shard = 1") == [("running",)]

    # Started again without --resume, the shard is refused: it would redo its part.
    again = cli(tmp_path, "run", str(contract), "--cases", str(cases), "--store", postgres_url,
                "--shard", "1/2", "--run-id", "R")  # fmt: skip
    assert again.returncode == 2 and "--resume R --shard 1/2" in again.stderr
    other = shard_process(
        tmp_path, contract, cases, postgres_url, "--shard", "2/2", "--run-id", "R"
    )
    resumed = cli(tmp_path, "run", str(contract), "--cases", str(cases), "--store", postgres_url,
                  "--resume", "R", "--shard", "1/2", "--format", "json")  # fmt: skip
    assert resumed.returncode == 1, resumed.stderr
    assert json.loads(resumed.stdout)["total_cases"] == mine  # stored cases reported too
    other.communicate(timeout=120)
    assert other.returncode == 1

    finish = cli(tmp_path, "run", "--finish", "R", "--store", postgres_url)
    assert finish.returncode == 1 and f"/{n_cases} cases passed" in finish.stderr
    assert sql(postgres_url, "SELECT row_id FROM rows GROUP BY row_id HAVING count(*) > 1") == []
    assert sql(postgres_url, "SELECT count(*) FROM rows") == [(2 * n_cases,)]
    assert stored_summary(postgres_url, "R")["total_cases"] == n_cases
    assert cli(tmp_path, "audit", "--store", postgres_url).returncode == 0


def test_a_missing_shard_leaves_the_run_unfinished_and_never_passed(
    tmp_path: Path, postgres_url: str
) -> None:
    contract, cases = write_inputs(tmp_path, 40)
    cases.write_text(
        "".join(
            json.dumps({"id": f"ok-{i}", "fields": {"total": 1, "name": "fine"}}) + "\n"
            for i in range(40)
        )
    )
    for k in (1, 2):
        done = cli(tmp_path, "run", str(contract), "--cases", str(cases), "--store", postgres_url,
                   "--shard", f"{k}/3", "--run-id", "R")  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "run R waits: " in done.stderr

    finish = cli(tmp_path, "run", "--finish", "R", "--store", postgres_url)
    assert finish.returncode == 1
    assert finish.stderr.startswith("error: run R is incomplete: shard 3/3 never began")
    assert "--shard K/3 --run-id R" in finish.stderr and "\n" not in finish.stderr.strip()
    assert sql(postgres_url, "SELECT status FROM runs WHERE run_id = 'R'") == [("running",)]

    listed = json.loads(cli(tmp_path, "runs", "--store", postgres_url, "--format", "json").stdout)
    assert [(e["status"], e["cases"], e["passed"]) for e in listed] == [("interrupted", None, None)]
    report = cli(tmp_path, "report", "R", "--html", "r.html", "--store", postgres_url)
    assert report.returncode == 0, report.stderr
    assert "PASS" not in (tmp_path / "r.html").read_text()
    audit = cli(tmp_path, "audit", "--store", postgres_url)
    assert audit.returncode == 0 and "passed" not in audit.stdout

    last = cli(tmp_path, "run", str(contract), "--cases", str(cases), "--store", postgres_url,
               "--shard", "3/3", "--run-id", "R")  # fmt: skip
    assert last.returncode == 0 and "run R finished (every shard has): 40/40" in last.stderr
    assert stored_summary(postgres_url, "R")["passed_cases"] == 40


def test_shard_options_that_cannot_work_are_refused_in_one_line(
    tmp_path: Path, postgres_url: str
) -> None:
    contract, cases = write_inputs(tmp_path, 20)
    run = ("run", str(contract), "--cases", str(cases))
    refusals = {
        ("--shard", "1/2", "--run-id", "R", "--store", str(tmp_path / "gaps.db")):
            "--shard needs a PostgreSQL store",
        ("--shard", "1/2", "--store", postgres_url): "give --run-id RUN",
        ("--shard", "3/2", "--run-id", "R", "--store", postgres_url): "--shard '3/2'",
        ("--run-id", "R", "--resume", "R", "--store", postgres_url):
            "--resume names the run already",
        ("--shard", "1/2", "--run-id", "R", "--sample", "0.5", "--store", postgres_url):
            "--sample cannot be combined with --shard",
    }  # fmt: skip
    for args, message in refusals.items():
        refused = cli(tmp_path, *run, *args)
        assert refused.returncode == 2 and message in refused.stderr, (args, refused.stderr)
        assert refused.stderr.count("\n") == 1, refused.stderr
    assert not (tmp_path / "gaps.db").exists()

    assert cli(
        tmp_path, *run, "--store", postgres_url, "--shard", "1/2", "--run-id", "R"
    ).returncode
    for args, message in {
        ("--shard", "1/3", "--run-id", "R"): "run R has 2 shards; it cannot take shard 1/3",
        ("--resume", "R"): "run R is written by 2 shards: resume one with --resume R --shard K/2",
    }.items():
        refused = cli(tmp_path, *run, "--store", postgres_url, *args)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
    unsharded = cli(tmp_path, *run, "--store", postgres_url)
    ((other,),) = sql(postgres_url, "SELECT run_id FROM runs WHERE run_id <> 'R'")
    assert unsharded.returncode == 1
    not_sharded = cli(tmp_path, "run", "--finish", other, "--store", postgres_url)
    assert not_sharded.returncode == 2 and "is not a sharded run" in not_sharded.stderr
    no_contract = cli(tmp_path, "run", "--store", postgres_url)
    assert no_contract.returncode == 2 and "give CONTRACT" in no_contract.stderr


def test_run_id_names_an_unsharded_run_once(tmp_path: Path, postgres_url: str) -> None:
    # A run to compare a sharded one against can be named the same way.
    contract, cases = write_inputs(tmp_path, 10)
    run = ("run", str(contract), "--cases", str(cases), "--store", postgres_url)
    named = cli(tmp_path, *run, "--run-id", "whole")
    assert named.returncode == 1 and "run whole: 7/10 cases passed" in named.stderr
    rows = sql(postgres_url, "SELECT count(*) FROM rows WHERE run_id = 'whole'")
    again = cli(tmp_path, *run, "--run-id", "whole")
    assert again.returncode == 2 and "run whole has already finished" in again.stderr
    assert again.stderr.count("\n") == 1, again.stderr
    assert sql(postgres_url, "SELECT count(*) FROM rows WHERE run_id = 'whole'") == rows


KILLED_AFTER_ITS_END = (
    "import os, sys\n"
    "import verifier.ci.sharded_runs as ends\n"
    "# Dies as a SIGKILL would, once the shard has recorded its end, before the run's.\n"
    "ends.unfinished_shards = lambda *args: os._exit(137)\n"
    "from verifier.cli import main\n"
    "sys.argv[0] = 'verifier'\n"
    "main()\n"
)


@pytest.mark.e2e
def test_the_last_shard_killed_after_its_own_end_ends_the_run_when_resumed(
    tmp_path: Path, postgres_url: str
) -> None:
    contract, cases = write_inputs(tmp_path, 40)
    run = ("run", str(contract), "--cases", str(cases), "--store", postgres_url)
    first = cli(tmp_path, *run, "--shard", "1/2", "--run-id", "R")
    assert first.returncode == 1 and "run R waits: shard 2/2 never began" in first.stderr
    env = {k: v for k, v in os.environ.items() if k not in CLEARED and not k.startswith("GITHUB_")}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_ITS_END, *run, "--shard", "2/2", "--run-id", "R"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert killed.returncode == 137, killed.stderr
    assert sql(postgres_url, "SELECT status FROM run_shards ORDER BY shard") == [
        ("finished",),
        ("finished",),
    ]
    assert sql(postgres_url, "SELECT status FROM runs WHERE run_id = 'R'") == [("running",)]

    # Started again as a new shard, it says how the run ends.
    again = cli(tmp_path, *run, "--shard", "2/2", "--run-id", "R")
    assert again.returncode == 2 and "verifier run --finish R" in again.stderr, again.stderr
    assert again.stderr.count("\n") == 1, again.stderr
    # Resumed, as a CI re-run of the lost job does, it ends the run.
    resumed = cli(tmp_path, *run, "--resume", "R", "--shard", "2/2")
    assert resumed.returncode == 1, resumed.stderr  # its part has failing cases
    assert "shard 2/2 of run R had already finished" in resumed.stderr
    assert "run R finished (every shard has): " in resumed.stderr
    assert stored_summary(postgres_url, "R")["total_cases"] == 40
    assert sql(postgres_url, "SELECT status FROM runs WHERE run_id = 'R'") == [("finished",)]
    assert cli(tmp_path, "audit", "--store", postgres_url).returncode == 0
