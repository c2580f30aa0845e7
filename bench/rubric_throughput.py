"""Rubric throughput end to end: the CLI over N generated cases with SQLite persistence.

Prints cases/s, claim evaluations/s and the peak RSS of the `verifier run` process
for N = 1,000, 10,000 and 100,000 (pass other sizes as arguments). The CPU seconds
of the process (user + system) are printed too: on a busy machine they vary much
less than the wall time. Each case has a
300-800 character output and the contract has 8 rubric claims: regex, contains,
not_contains, enum, range, length, json_schema and citation.

    python bench/rubric_throughput.py [N ...]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONTRACT = """\
contract: bench-rubric
version: 1
llm_fields: [output, fields]
claims:
  - id: cites_sources
    rubric: regex
    field: output
    pattern: '\\[source: [A-Za-z ]+\\]'
  - id: mentions_account
    rubric: contains
    field: output
    values: [account, renewal]
    mode: any
    ignore_case: true
  - id: formal_tone
    rubric: not_contains
    field: output
    values: [awesome, pretty solid, gonna, lol]
    ignore_case: true
  - id: industry_known
    rubric: enum
    field: fields.industry
    values: [saas, fintech, health, retail, manufacturing]
  - id: health_score
    rubric: range
    field: fields.health
    min: 0
    max: 100
  - id: brief_length
    rubric: length
    field: output
    min_chars: 200
    max_words: 150
  - id: summary_block
    rubric: json_schema
    field: fields.summary
    schema:
      type: object
      required: [next_step, owner]
      properties:
        next_step: {type: string, minLength: 5}
        owner: {type: string}
        arr_usd: {type: [number, "null"], minimum: 0}
  - id: spans_grounded
    rubric: citation
    spans: field_meta.*.source_span
    within: input
    ignore_case: true
"""

WORDS = [
    "account",
    "renewal",
    "usage",
    "expansion",
    "quarter",
    "budget",
    "champion",
    "security",
    "review",
    "pipeline",
    "contract",
    "seats",
    "adoption",
    "onboarding",
    "integration",
    "roadmap",
    "pricing",
    "procurement",
    "legal",
]
SOURCES = ["Salesforce", "Chorus", "Product Analytics", "Gong", "Zendesk"]
INDUSTRIES = ["saas", "fintech", "health", "retail", "manufacturing", "logistics"]


def make_case(rng: random.Random, i: int) -> dict[str, object]:
    target = rng.randint(300, 800)
    parts: list[str] = []
    size = 0
    while size < target:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize()
        if rng.random() < 0.6:
            sentence += f" [source: {rng.choice(SOURCES)}]"
        parts.append(sentence + ".")
        size += len(sentence) + 2
    output = " ".join(parts)[:target]
    company = f"Company {i}"
    source_text = (
        f"{company} renewed 240 seats. The champion asked about SSO. Usage grew 18 percent."
    )
    return {
        "id": f"case-{i}",
        "input": f"Brief on {company}. Notes: {source_text}",
        "output": output,
        "fields": {
            "industry": rng.choice(INDUSTRIES),
            "health": rng.randint(-5, 100),
            "summary": json.dumps(
                {"next_step": "Confirm the renewal owner", "owner": "AE", "arr_usd": 1000 * i}
            ),
        },
        "field_meta": {
            "seats": {"source": "llm", "source_span": "renewed 240 seats"},
            "ask": {
                "source": "llm",
                "source_span": "asked about SSO" if rng.random() < 0.95 else "asked about SAML",
            },
        },
    }


def write_cases(path: Path, n: int) -> Path:
    """Writes ``n`` generated cases (the same ones for the same ``n``) as JSONL."""
    rng = random.Random(n)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps(make_case(rng, i)) + "\n")
    return path


def timed(
    command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float, int, int]:
    """Runs ``command``: its wall and CPU seconds (user + system), peak RSS bytes and
    exit code (one other than 0 or 1 stops the bench)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        stderr = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{' '.join(command[2:4])} failed ({code}): {stderr}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, code


def contenders(ref: Path | None) -> dict[str, dict[str, str]]:
    """The environment that runs this checkout's verifier, and ``ref``'s when given
    (``--ref``: a checkout of another version, to compare in the same run)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
    found = {"verifier": {**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}}
    if ref is not None:
        found["ref"] = {**env, "PYTHONPATH": str(ref.resolve())}
    return found


def run_cli(
    contract: Path,
    cases: Path,
    store: Path,
    report: Path,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[float, float, int, int]:
    """``verifier run`` with a JSON report: as ``timed``. ``cwd``: better outside any
    checkout, as ``python -m`` puts it first on the path (``env`` picks the code)."""
    command = [
        sys.executable,
        "-m",
        "verifier",
        "run",
        str(contract),
        "--cases",
        str(cases),
        "--store",
        str(store),
        "--format",
        "json",
        "--out",
        str(report),
    ]
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
    return timed(command, env, cwd)


def main(sizes: list[int]) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="verifier-bench-"))
    try:
        contract = workdir / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        claims = 8
        print(
            f"{'cases':>8} {'seconds':>8} {'cases/s':>9} {'claims/s':>10} {'peak RSS MB':>12}"
            f" {'cpu s':>7}"
        )
        for n in sizes:
            cases = write_cases(workdir / f"cases-{n}.jsonl", n)
            store = workdir / f"gaps-{n}.db"
            elapsed, cpu, rss, _ = run_cli(contract, cases, store, workdir / f"report-{n}.json")
            print(
                f"{n:>8} {elapsed:>8.2f} {n / elapsed:>9.0f} {n * claims / elapsed:>10.0f} {rss / 1e6:>12.1f}"
                f" {cpu:>7.2f}"
            )
            store.unlink()
            cases.unlink()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verifier", "--help"], capture_output=True, check=True)
    print(
        f"verifier --help: {time.perf_counter() - started:.3f} s (python -m, including interpreter start)"
    )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000, 100_000])
