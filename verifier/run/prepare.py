"""What a run checks before it opens its store for writing: the contract, the cases,
the systems under test and the options that only make sense together.

:func:`prepare_run` raises on the first problem, so a refused run writes nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier._internal.case_mapping import CaseMapping
from verifier._internal.otlp_spans import SPANS_OPTION, SpanCount
from verifier._internal.suite_document import SuiteDocument
from verifier.cases import (
    MAPPING_OPTION,
    SUITE_OPTION,
    CaseLine,
    case_lines,
    check_cases_file,
    read_cases,
    suite_record,
)
from verifier.contract.load import LoadedContract, load_contract
from verifier.errors import CasesError
from verifier.gaps.content import RecordPolicy
from verifier.gaps.target import new_store_target
from verifier.run.assembly import Judges, Sut, check_run
from verifier.run.baseline import BaselineMatches, read_baseline, reads_baseline
from verifier.run.options import Batch, Resume, RunOptionError, Sample, ShardPart, Variants
from verifier.run.shards import check_shard
from verifier.run.variants import system_of

if TYPE_CHECKING:
    from verifier.compare.gate_file import Gate

__all__ = ["CasesGiven", "PreparedRun", "contract_of", "lines_of", "prepare_run"]

CasesGiven = str | os.PathLike[str] | Iterable[Mapping[str, Any] | CaseLine]
"""A JSONL file of cases (or a suite document), or the cases themselves."""


@dataclass(frozen=True)
class PreparedRun:
    """A run whose inputs passed every check made before the store is written.

    Attributes:
        loaded: The contract, narrowed to the chosen claims.
        target: The store.
        cases_path: The cases file (``None``: cases given in memory, in ``cases``).
        cases: The cases given in memory (a list when they are read more than once).
        claims: The ids of the chosen claims (``None``: every claim).
        sut: The one system under test, if any.
        variants: The two variants, if any.
        record: What the store keeps of each case.
        cases_record: What the run records of its cases file (sha256, identity, and
            a suite document's name and version under ``suite``).
        gate: The gate that decides on the run, checked against its sealed lock.
        baseline: The baseline cases by id.
        matches: Counts the cases the baseline matches (``None``: no claim reads it).
        run_id: The id asked for (a shard's is its run's; ``None``: a fresh one).
        resume: The run to resume, if any.
        sample: The sample to check, if any.
        shard: The part of a sharded run, if any.
        batch: How judge requests go as Message Batches, if they do.
        mapping: How each case is read from a production log line (the contract's
            ``cases:``, its cutoff fixed when the run was prepared), if it is.
    """

    loaded: LoadedContract
    target: str
    cases_path: Path | None
    cases: Iterable[Mapping[str, Any] | CaseLine]
    claims: list[str] | None
    sut: Sut | None
    variants: Variants | None
    record: RecordPolicy
    cases_record: dict[str, Any]
    gate: Gate | None
    baseline: dict[str, dict[str, Any]] | None
    matches: BaselineMatches | None
    run_id: str | None
    resume: Resume | None
    sample: Sample | None
    shard: ShardPart | None
    batch: Batch | None
    mapping: CaseMapping | None = None

    def read(self) -> Iterator[CaseLine]:
        """The cases from the first (a file is read again each time)."""
        if self.cases_path is not None:
            return read_cases(self.cases_path, mapping=self.mapping)
        return case_lines(iter(self.cases), self.mapping)


def contract_of(
    contract: LoadedContract | str | os.PathLike[str], allow_outside: Sequence[Path] = ()
) -> LoadedContract:
    """A loaded contract, loading it when given a path.

    Raises:
        ContractError: The file is not a usable contract (every problem, located).
    """
    if isinstance(contract, LoadedContract):
        return contract
    return load_contract(Path(contract), allow=tuple(allow_outside))


_NO_CASE: Any = object()


def lines_of(cases: CasesGiven) -> Iterator[CaseLine]:
    """Cases as the runner reads them: a JSONL file's lines, or objects given in memory
    (plain dicts checked as a file's lines are: an object with a usable, unique ``id``).

    Raises:
        CasesError: No case at all: the file is refused as ``verifier run`` refuses it
            (:func:`~verifier.cases.check_cases_file`), and an empty list or iterator
            likewise, so no run of 0 cases is stored.
    """
    if isinstance(cases, str | os.PathLike):
        check_cases_file(Path(cases))
        return read_cases(Path(cases))
    return case_lines(_not_empty(cases))


def _not_empty(cases: Iterable[Any]) -> Iterator[Any]:
    """``cases``, refused when there is none; an iterator is peeked at, never held whole."""
    given = iter(cases)
    first = next(given, _NO_CASE)
    if first is _NO_CASE:
        raise CasesError("no cases: the cases given are empty")
    return itertools.chain((first,), given)


def prepare_run(
    loaded: LoadedContract,
    cases: CasesGiven,
    *,
    store: str | os.PathLike[str] | None,
    judges: Judges,
    claims: Sequence[str] | None,
    sut: Sut | None,
    variants: Variants | None,
    use_declared_sut: bool,
    repeat: int | None,
    record: RecordPolicy | None,
    run_id: str | None,
    resume: Resume | None,
    sample: Sample | None,
    shard: ShardPart | None,
    batch: Batch | None,
    gate: str | os.PathLike[str] | None,
    baseline: str | os.PathLike[str] | None,
) -> PreparedRun:
    """Checks a run's inputs and options, in the order ``verifier run`` does.

    Raises:
        VerifierError: The first problem found (see :func:`verifier.run_contract`).
    """
    if shard is not None and shard.run_id:
        run_id = shard.run_id  # every shard writes into the run its part names
    target = new_store_target(store)
    check_shard(
        shard,
        run_id=run_id,
        resuming=resume is not None,
        sampled=sample is not None,
        variants=variants is not None,
        gated=gate is not None,
        target=target,
    )
    one, two = system_of(loaded, sut, variants, repeat=repeat, use_declared_sut=use_declared_sut)
    systems: list[Sut | None] = [two.baseline, two.candidate] if two else [one]
    for system in systems:
        chosen = check_run(loaded, judges, sut=system, claims=claims)
    _check_together(judges, one, two, batch=batch, baseline=baseline, resume=resume)
    if batch is not None:
        from verifier.judge.batch import check_batchable
        from verifier.judge.setup import judges_used

        check_batchable(chosen.contract, judges_used(chosen))
    cases_path = Path(cases) if isinstance(cases, str | os.PathLike) else None
    given: Iterable[Any] = ()
    suite = None
    spans = None
    if cases_path is not None:
        spec = chosen.contract.cases
        checked = check_cases_file(cases_path, format=spec.format if spec else "jsonl")
        suite = checked if isinstance(checked, SuiteDocument) else None
        spans = checked if isinstance(checked, SpanCount) else None
    else:  # read again by a batch's pre-pass or a resume's new work first
        given = _not_empty(cases)  # type: ignore[arg-type]
        given = list(given) if batch is not None or resume is not None else given
    recorded, checked_gate = _gate_of(
        gate, chosen, cases_path, target, resume=resume, claims=claims, variants=two
    )
    if suite is not None and resume is None:
        recorded = {**recorded, SUITE_OPTION: suite_record(suite)}
    spec = chosen.contract.cases
    mapping = spec.mapping(dt.datetime.now(dt.UTC)) if spec is not None else None
    if mapping is not None and resume is None:
        recorded = {**recorded, MAPPING_OPTION: mapping.record()}
    if spans is not None and resume is None:
        recorded = {**recorded, SPANS_OPTION: {"gen_ai": spans.gen_ai, "skipped": spans.skipped}}
    index = read_baseline(Path(baseline)) if baseline is not None else None
    matches = BaselineMatches() if baseline is not None and reads_baseline(chosen) else None
    return PreparedRun(
        loaded=chosen,
        target=target,
        cases_path=cases_path,
        cases=given,
        claims=[str(c.id) for c in chosen.contract.claims] if claims is not None else None,
        sut=one,
        variants=two,
        record=record or loaded.contract.record.policy(),
        cases_record=recorded,
        gate=checked_gate,
        baseline=index,
        matches=matches,
        run_id=run_id,
        resume=resume,
        sample=sample,
        shard=shard,
        batch=batch,
        mapping=mapping,
    )


def _check_together(
    judges: Judges,
    sut: Sut | None,
    variants: Variants | None,
    *,
    batch: Batch | None,
    baseline: object,
    resume: Resume | None,
) -> None:
    """Refuses options that exclude each other."""
    if batch is not None and judges.mode == "off":
        raise RunOptionError(
            "--batch sends judge requests; it cannot be combined with --judges off"
        )
    if sut is None and variants is None:
        return
    what = "--variant" if variants is not None else "a system under test"
    conflicts = (
        ("--batch", batch is not None),
        ("--baseline", baseline is not None and variants is not None),
        ("--resume", resume is not None and variants is not None),
    )
    for flag, given in conflicts:
        if given:
            raise RunOptionError(f"{flag} cannot be combined with {what}")


def _gate_of(
    gate: str | os.PathLike[str] | None,
    loaded: LoadedContract,
    cases_path: Path | None,
    target: str,
    *,
    resume: Resume | None,
    claims: Sequence[str] | None,
    variants: Variants | None,
) -> tuple[dict[str, Any], Gate | None]:
    """What the run records of its cases file, and its gate, checked. A resumed run
    without a gate keeps what it recorded when it started, so nothing is read: its
    new work starts at once (ADR 0068)."""
    if (resume is not None and gate is None) or (cases_path is None and gate is None):
        return {}, None
    if cases_path is None:
        raise RunOptionError("a gate holds a run of a cases file: give the cases as a file")
    from verifier.run.gate import cases_record, check_gate

    recorded = cases_record(loaded, cases_path)
    if gate is None:
        return recorded, None
    chosen = [str(c.id) for c in loaded.contract.claims] if claims is not None else None
    return recorded, check_gate(
        Path(gate),
        loaded,
        recorded,
        target=target,
        claims=chosen,
        variants=variants is not None,
    )
