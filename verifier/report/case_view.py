"""``verifier show RUN CASE``: one case of a stored run, and every result it got.

The case is shown from its stored content (see ``verifier.gaps.content``): input,
output and every other field, with what a record policy withheld said, and the spans
that decided the results that did not pass marked. Then each result: status, score
(a scale judge's also on its scale), reason and evidence. As text for a terminal, or
as one JSON object.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import orjson

from verifier._internal.terminal import printable, printable_line
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord, open_store
from verifier.report._case_content import CaseContent, ContentReader, field_views, pretty_json
from verifier.report._claim_notes import claim_notes, scale_verdict
from verifier.report._spans import Span, deciding_spans

__all__ = ["SHOW_FORMATS", "CaseNotFound", "ShownCase", "ShownResult", "read_case", "show_case"]

SHOW_FORMATS = ("console", "json")
ShowFormat = Literal["console", "json"]
FIELD_CHARS = 20_000
"""Characters of one field printed on the console; the JSON carries the content whole."""


class CaseNotFound(VerifierError):
    """The run, or the case in it, is not in the store."""


@dataclass(frozen=True, slots=True)
class ShownResult:
    """One result of the case, with what its contract says of the claim."""

    claim_id: str
    kind: str
    status: str
    score: float | None
    scale: str | None
    description: str | None
    reason: str
    evidence: Any
    spans: tuple[Span, ...]


@dataclass(slots=True)
class ShownCase:
    """A case of a run: its content and its results, in the order they were stored."""

    record: RunRecord
    case_id: str
    content_sha256: str | None = None
    content: CaseContent = field(default_factory=lambda: CaseContent(None))
    results: list[ShownResult] = field(default_factory=list)


def read_case(store: GapStore, run_id: str, case_id: str) -> ShownCase:
    """Reads one case of a run from ``store``.

    Raises:
        CaseNotFound: The run is not in the store, or has no rows for the case.
        StoreError: The store cannot be read.
    """
    record = store.run(run_id)
    if record is None:
        raise CaseNotFound(f"run {run_id} is not in {store.location}")
    notes = claim_notes(store, record)
    shown = ShownCase(record, case_id)
    for row in store.iter_rows(run_id):
        if row.case_id != case_id:
            continue
        body = orjson.loads(row.body)
        if not shown.results:
            sha = body.get("content_sha256")
            shown.content_sha256 = sha if isinstance(sha, str) else None
            shown.content = ContentReader(store).read(shown.content_sha256)
        evidence = body.get("evidence", {})
        note = notes.get(row.claim_id)
        shown.results.append(
            ShownResult(
                row.claim_id,
                row.kind,
                row.status,
                row.score,
                scale_verdict(evidence, row.score, note) if row.kind == "judge" else None,
                note.description if note else None,
                str(body.get("reason", "")),
                evidence,
                tuple(deciding_spans(evidence)),
            )
        )
    if not shown.results:
        raise CaseNotFound(f"case {case_id!r} is not in run {run_id} ({store.location})")
    return shown


def show_case(target: str, run_id: str, case_id: str, fmt: ShowFormat, out: IO[str]) -> None:
    """Opens the store at ``target`` and writes one case of a run to ``out``.

    Raises:
        CaseNotFound: The run or the case is not there.
        StoreError: The store cannot be opened or read.
    """
    with open_store(target) as store:
        shown = read_case(store, run_id, case_id)
    if fmt == "json":
        out.write(orjson.dumps(as_json(shown), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        write_console(shown, out)


def as_json(shown: ShownCase) -> dict[str, Any]:
    """The case as one JSON object: run, content envelope (or why none) and results."""
    record, content = shown.record, shown.content
    envelope: dict[str, Any] | None = None
    if content.case is not None:
        envelope = {"case": content.case, "withheld": content.withheld}
    return {
        "run_id": record.run_id,
        "case_id": shown.case_id,
        "contract": {
            "id": record.contract_id,
            "version": record.contract_version,
            "sha256": record.contract_sha256,
        },
        "content_sha256": shown.content_sha256,
        "content": envelope,
        "content_note": content.note,
        "results": [
            {
                "claim_id": r.claim_id,
                "kind": r.kind,
                "status": r.status,
                "pass": r.status == "pass",
                "score": r.score,
                "scale": r.scale,
                "description": r.description,
                "reason": r.reason,
                "evidence": r.evidence,
                "spans": [
                    {"field": s.field, "start": s.start, "end": s.end, "label": s.label}
                    for s in r.spans
                ],
            }
            for r in shown.results
        ],
    }


_STATUS_STYLES = {"pass": "green", "fail": "bold red", "error": "magenta", "skipped": "dim"}


def write_console(shown: ShownCase, out: IO[str]) -> None:
    """Prints the case for a terminal: its fields, spans marked, then every result."""
    from rich.console import Console
    from rich.rule import Rule
    from rich.text import Text

    # Text objects only, never markup strings: a "[red]" an LLM wrote prints as written.
    console = Console(file=out, highlight=False, soft_wrap=True)
    record = shown.record
    console.print(
        Text.assemble(
            ("case ", "bold"),
            (printable_line(shown.case_id), "bold"),
            printable_line(
                f" of run {record.run_id} · {record.contract_id} v{record.contract_version}"
            ),
        )
    )
    content = shown.content
    if content.case is None:
        console.print(Text(f"content: {content.note}", style="italic"))
    else:
        console.print(Text(f"content sha256 {shown.content_sha256}", style="dim"))
        failing = [s for r in shown.results if r.status != "pass" for s in r.spans]
        for view in field_views(content, failing, FIELD_CHARS, _field_order(content.case)):
            title = printable_line(f"{view.path} ({view.chars} characters)")
            if view.labels:
                title += " · marked: " + ", ".join(view.labels)
            console.print(Rule(Text(title), align="left", style="dim"))
            if view.withheld:
                console.print(Text(printable(f"withheld: {view.withheld}"), style="yellow"))
            text = Text()
            for kind, piece in view.segments:
                style = {"mark": "black on yellow", "gap": "dim italic"}.get(kind, "")
                text.append(printable(piece), style=style)
            console.print(text)
    console.print(Rule(Text(f"results ({len(shown.results)})"), align="left", style="dim"))
    for result in shown.results:
        score = "—" if result.score is None else f"{result.score:.3g}"
        if result.scale:
            score += f" ({result.scale})"
        line = Text.assemble(
            (result.status.upper(), _STATUS_STYLES.get(result.status, "")),
            " ",
            (printable_line(result.claim_id), "bold"),
            f" [{result.kind}] score {score}",
        )
        if result.description:
            line.append(printable(f" · {result.description}"), style="dim")
        console.print(line)
        console.print(Text(printable(f"  {result.reason}")))
        evidence = pretty_json(result.evidence).replace("\n", "\n  ")
        console.print(Text(printable(f"  evidence: {evidence}"), style="dim"))


def _field_order(case: dict[str, Any]) -> Iterable[str]:
    # The id is in the heading already.
    first = [k for k in ("input", "output") if k in case]
    return [*first, *(k for k in case if k not in first and k != "id")]
