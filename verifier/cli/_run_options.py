"""The options of ``verifier run``, declared apart from the command so each module
stays readable; the order here is the order ``verifier run --help`` lists them in.

``run_options`` adds the argument and every option to the command.
"""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._options import (
    ALLOW_OUTSIDE_OPTION,
    ANNOTATIONS_OPTION,
    NEW_RUN_ID,
    NEW_RUN_ID_RULE,
    RUN_ID,
    STORE_OPTION,
    format_option,
    stacked,
)
from verifier.cli._types import FiniteFloatRange
from verifier.cli.gate import GATE_OPTION

run_options = stacked(
    click.argument("contract", type=click.Path(path_type=Path), required=False),
    click.option(
        "--cases",
        "cases_path",
        default=None,
        type=click.Path(path_type=Path),
        help="JSONL file of cases, or a suite document ({test_suite, version, cases} in JSON "
        "or YAML): any readable file (a pipe, <(jq ...)), or - for standard input.  "
        "[default: NAME.cases.jsonl beside the contract NAME.yaml]",
    ),
    STORE_OPTION,
    format_option("console", "json", "junit", "markdown"),
    click.option(
        "--out",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Write the report here, not stdout.",
    ),
    click.option(
        "--threshold",
        type=FiniteFloatRange(0, 1),
        default=None,
        help="Case pass threshold (overrides the contract).",
    ),
    GATE_OPTION,
    click.option(
        "--record-content",
        type=click.Choice(["full", "hashes", "none"]),
        default=None,
        help="What the store keeps of each case: its content, only its hash, or neither "
        "(overrides the contract's record.content; its redact and max_bytes still apply).",
    ),
    click.option(
        "--chunk-size", type=click.IntRange(1, 100_000), default=500, show_default=True, hidden=True
    ),
    click.option(
        "--judges",
        "judge_mode",
        type=click.Choice(["live", "replay", "record", "off"]),
        default=None,
        help="live: cache, then call (the key must be set); replay: recorded verdicts only; "
        "record: call and record; off: skip judged claims, left out of the score. "
        "[default: live when the judges' API key is set, else replay]",
    ),
    click.option(
        "--claims",
        "claim_ids",
        default=None,
        metavar="ID,...",
        help="Check only these claims (comma-separated ids); the run stores rows for them only.",
    ),
    click.option(
        "--recordings",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Recorded judge verdicts (JSONL), read before the cache in any mode.  "
        "[default: NAME.recordings.jsonl beside the contract, in replay and record only]",
    ),
    click.option(
        "--concurrency",
        type=click.IntRange(1, 512),
        default=8,
        show_default=True,
        help="Model calls in flight (judges and a prompt system under test together).",
    ),
    click.option(
        "--rpm",
        type=FiniteFloatRange(min=0, min_open=True),
        default=None,
        help="Judge requests per minute.",
    ),
    click.option(
        "--tpm",
        type=FiniteFloatRange(min=0, min_open=True),
        default=None,
        help="Judge input tokens per minute.",
    ),
    click.option(
        "--timeout",
        type=FiniteFloatRange(min=0, min_open=True),
        default=120.0,
        show_default=True,
        help="Seconds per judge call.",
    ),
    click.option(
        "--batch",
        is_flag=True,
        help="Send the run's judge requests as Message Batches, as many as the API's limits"
        " need (cheaper, slower).",
    ),
    click.option("--batch-poll", type=FiniteFloatRange(min=0), default=10.0, hidden=True),
    click.option(
        "--baseline",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Cases of a baseline run, joined by id, for comparative claims.",
    ),
    click.option(
        "--resume",
        "resume_id",
        type=RUN_ID,
        default=None,
        metavar="RUN_ID",
        help="Finish an interrupted run: stored cases are kept, only the rest are checked "
        "(last, last~N: counted among this contract's runs).",
    ),
    click.option(
        "--shard",
        "shard_text",
        default=None,
        metavar="K/N",
        help="Check only part K of N of the cases (by case id hash) into the run --run-id "
        "names, which N processes write together (PostgreSQL store); the last to finish "
        "ends the run. Judge limits (--rpm, --tpm, --concurrency) are per shard.",
    ),
    click.option(
        "--run-id",
        "run_id_option",
        type=NEW_RUN_ID,
        default=None,
        metavar="RUN_ID",
        help="The id of the new run (instead of a fresh one); with --shard, the id of the "
        f"run every shard writes into: {NEW_RUN_ID_RULE}.",
    ),
    click.option(
        "--finish",
        "finish_id",
        type=RUN_ID,
        default=None,
        metavar="RUN_ID",
        help="End a sharded run once every shard has finished (no CONTRACT) and write its "
        "report, --pr-comment and step summary; fails naming any shard missing.",
    ),
    click.option(
        "--sample",
        type=FiniteFloatRange(0, 1, min_open=True),
        default=None,
        metavar="FRACTION",
        help="Check a reproducible random sample of about FRACTION of the cases "
        "(e.g. 0.05 of production traffic); which cases depends only on --seed and case ids.",
    ),
    click.option(
        "--seed",
        type=click.IntRange(0, 2**63 - 1),
        default=None,
        help="Seed of --sample; the same seed picks the same cases.  [default: a random one, "
        "printed and recorded with the run]",
    ),
    ANNOTATIONS_OPTION,
    click.option(
        "--pr-comment",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Also write a pull-request comment body (Markdown) here.",
    ),
    click.option(
        "--against",
        default=None,
        metavar="BASELINE",
        help="Baseline for --pr-comment and the step summary: a JSON report file "
        "(--format json) or a run id in the store.",
    ),
    click.option(
        "--witness",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        metavar="FILE",
        help="Append the store's head after this run to FILE, one JSON line per run (a file "
        "to commit or keep in CI); `verifier audit --witness FILE` checks every head in it.",
    ),
    click.option(
        "--sut",
        "sut_option",
        default=None,
        metavar="SPEC",
        help="Produce each case's output with this system instead of reading it: "
        "exec:COMMAND, python:MODULE:FUNCTION or a YAML mapping of the contract's `sut:` block "
        "(overrides the contract's).",
    ),
    click.option(
        "--repeat",
        type=click.IntRange(1, 100),
        default=None,
        help="Runs of the system per case; every output goes to `runs` (consistency claims). "
        "[default: the contract's sut.repeat, else 1]",
    ),
    click.option(
        "--variant",
        "variant_options",
        multiple=True,
        metavar="NAME=SPEC",
        help="Give twice: both systems run on every case, each stored as its own run; the "
        "second is compared against the first (pairwise/similarity claims, verifier compare).",
    ),
    ALLOW_OUTSIDE_OPTION,
)
