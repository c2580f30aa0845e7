"""``verifier run`` is a translation of its options into one ``run_contract`` call:
every option maps to a parameter of it (or to a concern of the command's output,
named here with why), and every parameter is reachable from an option (or is set by
the command itself, named here with why)."""

from __future__ import annotations

import inspect

from verifier import run_contract
from verifier.cli.run import run as run_command

TO_PARAMETER = {
    "contract": "contract",
    "cases_path": "cases",
    "store": "store",
    "threshold": "threshold",
    "gate_path": "gate",
    "record_content": "record",
    "chunk_size": "chunk_size",
    "judge_mode": "judges",
    "claim_ids": "claims",
    "recordings": "judges",
    "concurrency": "judges",
    "rpm": "judges",
    "tpm": "judges",
    "timeout": "judges",
    "batch": "batch",
    "batch_poll": "batch",
    "baseline": "baseline",
    "resume_id": "resume",
    "shard_text": "shard",
    "run_id_option": "run_id",
    "sample": "sample",
    "seed": "sample",
    "sut_option": "sut",
    "repeat": "repeat",
    "variant_options": "variants",
    "allow_outside": "allow_outside",
}

OUTPUT_CONCERNS = {
    "fmt": "the report's format: the report writer the command passes as a sink",
    "out": "where the report is written: a file the command commits when the run ends",
    "annotations": "GitHub annotations: a sink the command adds",
    "pr_comment": "a pull-request comment body: a sink the command adds",
    "against": "what the comment and step summary compare with: read by those sinks",
    "witness": "a file the store's head is appended to once the run's outputs are written",
    "finish_id": "ends a sharded run: the library's finish_sharded_run, not a run",
}

SET_BY_THE_COMMAND = {
    "sinks": "the report writer and CI sinks that --format, --annotations, --pr-comment make",
    "progress": "the command always shows a progress bar on a terminal",
    "keep_cases": "the command streams cases to its sinks and keeps none in memory",
    "options_record": "what the command records of its invocation (the cases' name, format)",
    "note": "the command says judge notes on stderr",
    "use_declared_sut": "the command always runs the contract's own system unless --sut",
}


def options() -> set[str]:
    return {param.name for param in run_command.params if param.name is not None}


def parameters() -> set[str]:
    return set(inspect.signature(run_contract).parameters)


def test_every_option_of_run_maps_to_a_parameter_or_an_output_concern() -> None:
    assert options() == set(TO_PARAMETER) | set(OUTPUT_CONCERNS)
    assert not set(TO_PARAMETER) & set(OUTPUT_CONCERNS)
    assert set(TO_PARAMETER.values()) <= parameters()


def test_every_parameter_of_run_contract_is_reachable_from_an_option() -> None:
    reached = set(TO_PARAMETER.values())
    unreached = parameters() - reached
    named = {name for name, why in SET_BY_THE_COMMAND.items() if why}
    assert unreached == named, unreached ^ named
