"""A stored run's cases read back from its rows, for a resumed run and for CI outputs.

A resumed run reports the cases it had already stored as they were, and checks only
the others; ``verifier run --resume`` (a chunk of lines at a time, :class:`StoredLookup`)
and the CI outputs made from a store (``verifier.ci.from_store``, the whole run in one
stream) rebuild those cases here from the gap rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import Any

from verifier._internal.canonical import loads_exact
from verifier.cases import CaseLine
from verifier.engine.plan import Plan, score_case
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import GapStore, StoreError
from verifier.results import CaseResult, ClaimResult


def stored_cases(
    store: GapStore, run_id: str, plan: Plan, threshold: float
) -> Iterator[CaseResult]:
    """The run's cases whose rows cover every claim, rebuilt from their rows, as stored.

    A case is known by its line (the row id is ``RUN:LINE:CLAIM``), not by its id:
    two lines may report the same id (a case named ``line-3`` beside the unusable
    line 3), and each is a case of its own. Rows are streamed, so memory holds one
    case at a time.
    """
    ids = [p.id for p in plan.order]
    prefix = f"{run_id}:"
    line, case_id = -1, ""
    results: dict[str, ClaimResult] = {}
    for row in store.iter_rows(run_id):
        row_line = _line_of(row.row_id, prefix)
        if row_line != line or row.case_id != case_id:
            if results:
                done = _complete(plan, ids, case_id, line, results, threshold)
                if done is not None:
                    yield done
            line, case_id, results = row_line, row.case_id, {}
        body: dict[str, Any] = loads_exact(row.body)
        results[row.claim_id] = ClaimResult(
            claim_id=row.claim_id,
            kind=body["kind"],
            status=body["status"],
            score=body["score"],
            reason=str(body["reason"]),
            evidence=body["evidence"],
        )
    if results:
        done = _complete(plan, ids, case_id, line, results, threshold)
        if done is not None:
            yield done


def line_of_row(row_id: str, run_id: str) -> int:
    """The case line a row of run ``run_id`` is about (its id is ``RUN:LINE:CLAIM``)."""
    return _line_of(row_id, f"{run_id}:")


def _line_of(row_id: str, prefix: str) -> int:
    line = row_id.removeprefix(prefix).partition(":")[0]
    return int(line) if line.isdigit() else 0


def _complete(
    plan: Plan,
    ids: list[str],
    case_id: str,
    line: int,
    results: dict[str, ClaimResult],
    threshold: float,
) -> CaseResult | None:
    if not all(claim_id in results for claim_id in ids):
        return None
    case_score, ok = score_case(plan, results, threshold)
    ordered = tuple(results[c] for c in ids)
    return CaseResult(case_id, line, ordered, case_score, ok, overall=plan.case_overall(ordered))


class StoredLookup:
    """What a resumed run already stored, looked up a chunk of lines at a time.

    A case is found by its line and id (``verifier.run.resume``'s rule): the rows of the
    chunk's case ids are read through the store's ``(run_id, case_id)`` index and
    those of other lines dropped. Each look-up is one query, read whole, so no read
    stays open while the run writes; its cost follows the chunk, never what the run
    stored, and the chunk may come in any order (a line stored twice, when a case was
    checked again, is the later rows, as ``replay_stored_run`` keeps it).

    Args:
        store: The store (SQLite or PostgreSQL: it answers SQL).
        run_id: The run being resumed.
        plan: Its plan (a case is stored when every claim of it has a row).
        threshold: The run's threshold (a stored case is scored again with it).
        content: Whether a replayed failed case gets its stored content back, for the
            reports that show a failed case (``record: content: full``).
    """

    def __init__(
        self, store: GapStore, run_id: str, plan: Plan, threshold: float, *, content: bool
    ) -> None:
        self._store, self._run_id, self._plan = store, run_id, plan
        self._ids = [p.id for p in plan.order]
        self._threshold = threshold
        self._content = content

    def stored(self, chunk: Sequence[CaseLine]) -> dict[int, CaseResult]:
        """The chunk's stored cases, by line: complete, and under the line's case id."""
        return {line: self._case(line, claims) for line, claims in self._found(chunk).items()}

    def stored_lines(self, chunk: Sequence[CaseLine]) -> set[int]:
        """The lines of the chunk's stored cases (their rows' bodies are not read)."""
        return set(self._found(chunk, bodies=False))

    def _found(
        self, chunk: Sequence[CaseLine], *, bodies: bool = True
    ) -> dict[int, dict[str, tuple[str, str]]]:
        """The rows of each line of ``chunk`` stored whole, by claim: case id and body."""
        wanted = {line.line: line.case_id for line in chunk}
        rows: dict[int, dict[str, tuple[str, str]]] = {}
        prefix = f"{self._run_id}:"
        for row_id, case_id, claim_id, body in self._rows(sorted(set(wanted.values())), bodies):
            line = _line_of(row_id, prefix)
            if wanted.get(line) == case_id:
                rows.setdefault(line, {})[claim_id] = (case_id, body)  # later rows win
        return {
            line: claims
            for line, claims in rows.items()
            if all(claim_id in claims for claim_id in self._ids)
        }

    def _rows(self, case_ids: list[str], bodies: bool) -> list[tuple[Any, ...]]:
        """The rows of ``case_ids`` in seq order: ``row_id, case_id, claim_id, body``."""
        rows: list[tuple[Any, ...]] = []
        body = "body" if bodies else "''"
        for start in range(0, len(case_ids), _IDS_PER_QUERY):
            part = case_ids[start : start + _IDS_PER_QUERY]
            # Sorted here: with ORDER BY seq, SQLite reads the run's rows in seq order
            # through its run_id index, every row of the run, rather than the cases'.
            rows += select(
                self._store,
                f"SELECT seq, row_id, case_id, claim_id, {body} FROM rows"
                f" WHERE run_id = ? AND case_id IN ({', '.join('?' * len(part))})",
                (self._run_id, *part),
            )
        rows.sort(key=itemgetter(0))
        return [row[1:] for row in rows]

    def _case(self, line: int, claims: dict[str, tuple[str, str]]) -> CaseResult:
        results: dict[str, ClaimResult] = {}
        content_sha = None
        for claim_id in self._ids:
            case_id, text = claims[claim_id]
            body: dict[str, Any] = loads_exact(text)
            content_sha = body.get("content_sha256")
            results[claim_id] = ClaimResult(
                claim_id=claim_id,
                kind=body["kind"],
                status=body["status"],
                score=body["score"],
                reason=str(body["reason"]),
                evidence=body["evidence"],
            )
        case = _complete(self._plan, self._ids, case_id, line, results, self._threshold)
        assert case is not None  # every claim is there
        if self._content and not case.passed and isinstance(content_sha, str):
            case = replace(case, content=self._stored_content(content_sha))
        return case

    def _stored_content(self, sha256: str) -> Mapping[str, Any] | None:
        text = self._store.content(sha256)
        kept = loads_exact(text).get("case") if text else None
        return kept if isinstance(kept, Mapping) else None


_IDS_PER_QUERY = 500
"""Case ids one look-up names at most (SQLite allows 32,766 parameters)."""


def select(store: GapStore, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Runs one read query written with ``?`` placeholders on a SQLite or PostgreSQL store.

    Raises:
        StoreError: The store answers no SQL, or the query failed.
    """
    run = getattr(store, "select", None)
    if run is None:
        raise StoreError(f"gap store {store.location}: resuming a run needs SQLite or PostgreSQL")
    rows: list[tuple[Any, ...]] = run(
        query if isinstance(store, SqliteStore) else query.replace("?", "%s"), params
    )
    return rows


def last_stored_line(store: GapStore, run_id: str) -> int:
    """The line of the run's last row (0: none), read through the ``run_id`` index."""
    found = select(
        store, "SELECT row_id FROM rows WHERE run_id = ? ORDER BY seq DESC LIMIT 1", (run_id,)
    )
    return _line_of(str(found[0][0]), f"{run_id}:") if found else 0
