"""verifier against a lean hand-written loop doing the same work, interleaved.

The lean loop is what a careful engineer would write by hand for the contract of
``bench/rubric_throughput.py`` (same generated cases, same eight checks): read the
JSONL with orjson, run the checks with ``re``, ``json`` and ``jsonschema_rs`` directly,
build each row with the same fields, reasons and evidence as verifier's, seal a sha256
chain over the canonical JSON of every row, store each case's content under its
sha256, ``executemany`` the rows into SQLite (WAL, the same table and indexes as
verifier's store) with a commit per chunk of 500 cases, and write a JSON report of
every case (streamed, as verifier does). It skips what only a framework needs: contract loading, the run and seal
records, resumability, redaction, the audit's extra checks.

Each size runs both (and with ``--ref PATH`` a checkout of another verifier too) in
turn, ``--repeat`` times, each in a fresh process with its start-up included, and
prints the median wall and CPU seconds (user + system) and verifier's speed as a
fraction of the lean loop's (``lean / verifier`` time: 1.0 is parity).

    python bench/lean_loop.py [--repeat 3] [--ref PATH] [N ...]   # default 10,000 and 100,000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson

sys.path.insert(0, str(Path(__file__).parent))
from rubric_throughput import CONTRACT, contenders, run_cli, timed, write_cases

CHUNK = 500
SORTED = orjson.OPT_SORT_KEYS
CITES = re.compile(r"\[source: [A-Za-z ]+\]")
MENTIONS = ["account", "renewal"]
BANNED = ["awesome", "pretty solid", "gonna", "lol"]
INDUSTRIES = ["saas", "fintech", "health", "retail", "manufacturing"]
SUMMARY = jsonschema_rs.validator_for(
    {
        "type": "object",
        "required": ["next_step", "owner"],
        "properties": {
            "next_step": {"type": "string", "minLength": 5},
            "owner": {"type": "string"},
            "arr_usd": {"type": ["number", "null"], "minimum": 0},
        },
    }
)
SCHEMA = """
CREATE TABLE rows (seq INTEGER PRIMARY KEY, row_id TEXT NOT NULL, run_id TEXT NOT NULL,
  case_id TEXT NOT NULL, claim_id TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
  score REAL, recorded_at TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL,
  row_hash TEXT NOT NULL);
CREATE INDEX rows_run_id ON rows (run_id);
CREATE INDEX rows_run_claim ON rows (run_id, claim_id);
CREATE INDEX rows_run_status ON rows (run_id, status);
CREATE INDEX rows_run_case ON rows (run_id, case_id);
CREATE TABLE contents (sha256 TEXT PRIMARY KEY, body TEXT NOT NULL);
"""


def _verdict(ok: bool) -> tuple[str, float]:
    return ("pass", 1.0) if ok else ("fail", 0.0)


def check(case: dict[str, Any]) -> list[tuple[str, str, float | None, str, dict[str, Any]]]:
    """The eight claims of the bench contract: (claim, status, score, reason, evidence)."""
    out: list[tuple[str, str, float | None, str, dict[str, Any]]] = []
    text = case.get("output", "")
    folded = text.casefold()
    fields = case.get("fields", {})
    found = CITES.search(text)
    if found:
        evidence = {
            "path": "output",
            "span": found.group(),
            "start": found.start(),
            "end": found.end(),
        }
        out.append(
            (
                "cites_sources",
                "pass",
                1.0,
                f"pattern found in output at {found.start()}-{found.end()}",
                evidence,
            )
        )
    else:
        out.append(
            ("cites_sources", "fail", 0.0, "pattern not found in output", {"path": "output"})
        )
    hits = [(v, folded.find(v)) for v in MENTIONS]
    present = [{"value": v, "start": at, "end": at + len(v)} for v, at in hits if at >= 0]
    missing = [v for v, at in hits if at < 0]
    status, score = _verdict(bool(present))
    reason = f"output contains {len(present)} of {len(MENTIONS)} values"
    if present:
        reason += f", {present[0]['value']!r} at {present[0]['start']}-{present[0]['end']}"
    out.append(
        (
            "mentions_account",
            status,
            score,
            reason,
            {"path": "output", "found": present, "missing": missing},
        )
    )
    banned = [
        {"value": v, "start": at, "end": at + len(v)} for v in BANNED if (at := folded.find(v)) >= 0
    ]
    absent = [v for v in BANNED if v not in folded]
    status, score = _verdict(not banned)
    reason = (
        f"output contains none of {len(BANNED)} banned values"
        if not banned
        else f"output contains {banned[0]['value']!r}"
    )
    out.append(
        (
            "formal_tone",
            status,
            score,
            reason,
            {"path": "output", "found": banned, "absent": absent},
        )
    )
    industry = fields.get("industry")
    status, score = _verdict(industry in INDUSTRIES)
    verb = "is allowed" if industry in INDUSTRIES else f"is not one of {INDUSTRIES}"
    out.append(
        (
            "industry_known",
            status,
            score,
            f"fields.industry = {industry!r} {verb}",
            {"path": "fields.industry", "value": industry, "allowed": INDUSTRIES},
        )
    )
    health = fields.get("health")
    inside = isinstance(health, (int, float)) and 0 <= health <= 100
    status, score = _verdict(inside)
    where = "lies within" if inside else "lies outside"
    out.append(
        (
            "health_score",
            status,
            score,
            f"fields.health = {health} {where} [0, 100]",
            {"path": "fields.health", "value": health, "min": 0, "max": 100},
        )
    )
    chars, words = len(text), len(text.split())
    status, score = _verdict(chars >= 200 and words <= 150)
    out.append(
        (
            "brief_length",
            status,
            score,
            f"output has {chars} chars, {words} words, within bounds",
            {"path": "output", "chars": chars, "words": words, "min_chars": 200, "max_words": 150},
        )
    )
    try:
        summary = json.loads(fields.get("summary", ""))
        errors = [e.message for e in SUMMARY.iter_errors(summary)]
    except ValueError as exc:
        errors = [str(exc)]
    status, score = _verdict(not errors)
    reason = "fields.summary matches the schema" if not errors else f"fields.summary: {errors[0]}"
    out.append(
        (
            "summary_block",
            status,
            score,
            reason,
            {"path": "fields.summary", **({"errors": errors} if errors else {})},
        )
    )
    source = case.get("input", "").casefold()
    offsets, ungrounded = [], []
    for key, meta in case.get("field_meta", {}).items():
        span = meta.get("source_span")
        at = source.find(span.casefold())
        path = f"field_meta.{key}.source_span"
        if at >= 0:
            offsets.append({"path": path, "within": "input", "start": at, "end": at + len(span)})
        else:
            ungrounded.append({"path": path, "span": span})
    status, score = _verdict(not ungrounded)
    total = len(offsets) + len(ungrounded)
    evidence: dict[str, Any] = {"grounded": len(offsets), "total": total, "offsets": offsets}
    if ungrounded:
        evidence["ungrounded"] = ungrounded
    out.append(
        (
            "spans_grounded",
            status,
            score,
            f"all {total} spans at field_meta.*.source_span are grounded in input"
            if not ungrounded
            else f"{len(ungrounded)} of {total} spans at field_meta.*.source_span are not in input",
            evidence,
        )
    )
    return out


def lean(cases_path: Path, store_path: Path, report_path: Path) -> None:
    """The hand-written loop: checks, chain, SQLite, report."""
    db = sqlite3.connect(store_path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    run_id = "lean-run"
    recorded_at = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    contract_sha = hashlib.sha256(CONTRACT.encode()).hexdigest()
    prev = "0" * 64
    seq = 0
    seen: set[str] = set()
    spool = tempfile.TemporaryFile(buffering=1 << 20)  # noqa: SIM115 (the report's cases, closed below)
    total_cases = passed_cases = 0
    rows: list[tuple[Any, ...]] = []
    contents: list[tuple[str, str]] = []

    def flush() -> None:
        db.execute("BEGIN")
        db.executemany("INSERT OR IGNORE INTO contents VALUES (?, ?)", contents)
        db.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")
        rows.clear()
        contents.clear()

    with cases_path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            case = orjson.loads(raw)
            case_id = str(case["id"])
            if case_id in seen:
                raise SystemExit(f"line {line_no}: duplicate case id {case_id!r}")
            seen.add(case_id)
            content = orjson.dumps({"case": case}, option=SORTED)
            content_sha = hashlib.sha256(content).hexdigest()
            contents.append((content_sha, content.decode()))
            results = []
            passes = 0
            for claim_id, status, score, reason, evidence in check(case):
                seq += 1
                row = {
                    "schema": "verifier.gap-row.v1",
                    "row_id": f"{run_id}:{line_no}:{claim_id}",
                    "run_id": run_id,
                    "seq": seq,
                    "recorded_at": recorded_at,
                    "contract_id": "bench-rubric",
                    "contract_version": 1,
                    "contract_sha256": contract_sha,
                    "case_id": case_id,
                    "content_sha256": content_sha,
                    "claim_id": claim_id,
                    "kind": "rubric",
                    "status": status,
                    "score": score,
                    "reason": reason,
                    "evidence": evidence,
                    "prev_hash": prev,
                }
                body = orjson.dumps(row, option=SORTED)
                row_hash = hashlib.sha256(prev.encode() + body).hexdigest()
                rows.append(
                    (
                        seq,
                        row["row_id"],
                        run_id,
                        case_id,
                        claim_id,
                        "rubric",
                        status,
                        score,
                        recorded_at,
                        body.decode(),
                        prev,
                        row_hash,
                    )
                )
                prev = row_hash
                passes += status == "pass"
                results.append(
                    {
                        "id": claim_id,
                        "status": status,
                        "pass": status == "pass",
                        "score": score,
                        "reasoning": reason,
                        "evidence": evidence,
                    }
                )
            ok = passes == len(results)
            passed_cases += ok
            entry = {
                "id": case_id,
                "pass": ok,
                "score": passes / len(results),
                "passed": passes,
                "failed": len(results) - passes,
                "total": len(results),
                "results": results,
            }
            spool.write((b"," if total_cases else b"") + orjson.dumps(entry))
            total_cases += 1
            if line_no % CHUNK == 0:
                flush()
    flush()
    db.close()
    head = {
        "run_id": run_id,
        "total_cases": total_cases,
        "passed_cases": passed_cases,
        "head": prev,
    }
    spool.seek(0)
    with report_path.open("wb") as out:
        out.write(orjson.dumps(head)[:-1] + b',"cases":[')
        shutil.copyfileobj(spool, out)
        out.write(b"]}\n")
    spool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ref", type=Path, help="a checkout of another verifier to run as well")
    parser.add_argument("--inner", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        lean(*args.inner)
        return
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
    versions = contenders(args.ref)
    workdir = Path(tempfile.mkdtemp(prefix="verifier-lean-"))
    try:
        contract = workdir / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        print(
            f"{'cases':>8} {'who':>9} {'wall s':>7} {'cpu s':>7} {'RSS MB':>7} {'lean/who wall':>14} {'cpu':>6}"
        )
        for n in args.sizes:
            cases = write_cases(workdir / f"cases-{n}.jsonl", n)
            times: dict[str, list[tuple[float, float, int]]] = {"lean": []}
            times.update({name: [] for name in versions})
            for _ in range(args.repeat):
                for name in times:
                    store, report = workdir / f"{name}.db", workdir / f"{name}.json"
                    for stale in workdir.glob(f"{name}.db*"):
                        stale.unlink()
                    if name == "lean":
                        command = [
                            sys.executable,
                            __file__,
                            "--inner",
                            str(cases),
                            str(store),
                            str(report),
                        ]
                        times[name].append(timed(command, env, workdir))
                    else:
                        times[name].append(
                            run_cli(contract, cases, store, report, versions[name], workdir)
                        )
            lean_wall = statistics.median(t[0] for t in times["lean"])
            lean_cpu = statistics.median(t[1] for t in times["lean"])
            for name, runs in times.items():
                wall = statistics.median(t[0] for t in runs)
                cpu = statistics.median(t[1] for t in runs)
                rss = max(t[2] for t in runs) / 1e6
                print(
                    f"{n:>8} {name:>9} {wall:>7.2f} {cpu:>7.2f} {rss:>7.1f} {lean_wall / wall:>14.2f} {lean_cpu / cpu:>6.2f}"
                )
            cases.unlink()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
