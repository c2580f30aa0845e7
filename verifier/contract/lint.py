"""Lint rules that span more than one node: ids, gates, judges, LLM-written fields.

They run on the raw loaded document (not only on a validated contract), so a contract
with a type error in one claim still gets every cross-claim problem reported in the
same pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verifier._internal.file_lookup import is_file
from verifier._internal.yaml_positions import Loc, Positions
from verifier.contract.findings import FINDINGS
from verifier.contract.judge_lint import lint_judges
from verifier.contract.record_lint import lint_record
from verifier.contract.sut_lint import lint_sut
from verifier.errors import Diagnostic
from verifier.fieldpath import paths_overlap
from verifier.files import FileRefused, FileScope, scope_of

EQUALITY_PREDICATES = frozenset({"equals", "sha256"})


class _Linter:
    def __init__(
        self, file: str, files: FileScope, data: dict[str, Any], positions: Positions
    ) -> None:
        self.file = file
        self.files = files
        self.data = data
        self.positions = positions
        self.found: list[Diagnostic] = []

    def report(self, loc: Loc, message: str, *, key: bool = False, severity: str = "error") -> None:
        line, col = self.positions.of(loc, key=key)
        self.found.append(Diagnostic(self.file, line, col, message, severity))  # type: ignore[arg-type]

    def claims(self) -> Iterator[tuple[int, dict[str, Any]]]:
        claims = self.data.get("claims")
        if isinstance(claims, list):
            for index, claim in enumerate(claims):
                if isinstance(claim, dict):
                    yield index, claim

    def run(self) -> list[Diagnostic]:
        self.duplicate_ids()
        self.gates()
        self.judge_references()
        self.judges()
        lint_judges(self.data, self.files, self.report)
        lint_sut(self.data, self.files, self.report)
        lint_record(self.data, self.report)
        self.llm_equality()
        self.weight_total()
        return self.found

    def duplicate_ids(self) -> None:
        seen: dict[str, int] = {}
        for index, claim in self.claims():
            claim_id = claim.get("id")
            if not isinstance(claim_id, str):
                continue
            if claim_id in seen:
                first = self.positions.of(("claims", seen[claim_id], "id"))[0]
                self.report(
                    ("claims", index, "id"),
                    f"duplicate claim id {claim_id!r} (first used on line {first})",
                )
            else:
                seen[claim_id] = index

    def gates(self) -> None:
        shapes: dict[str, str] = {}
        graph: dict[str, list[str]] = {}
        for _, claim in self.claims():
            claim_id = claim.get("id")
            if isinstance(claim_id, str):
                shapes[claim_id] = _phase(claim)
        for index, claim in self.claims():
            after = claim.get("after", [])
            after = [after] if isinstance(after, str) else after
            if not isinstance(after, list):
                continue
            claim_id = claim.get("id")
            for j, gate in enumerate(after):
                loc: Loc = (
                    ("claims", index, "after", j)
                    if isinstance(claim.get("after"), list)
                    else ("claims", index, "after")
                )
                if not isinstance(gate, str):
                    continue
                if gate not in shapes:
                    self.report(loc, f"claim {claim_id!r}: `after` names unknown claim {gate!r}")
                elif gate == claim_id:
                    self.report(loc, f"claim {claim_id!r}: `after` names the claim itself")
                elif _phase(claim) == "rubric" and shapes[gate] != "rubric":
                    self.report(
                        loc,
                        f"claim {claim_id!r}: a rubric claim cannot wait for judge claim {gate!r} "
                        "(rubric claims are checked first; gate the judge claim instead)",
                    )
                if isinstance(claim_id, str):
                    graph.setdefault(claim_id, []).append(gate)
        self.cycles(graph)

    def cycles(self, graph: dict[str, list[str]]) -> None:
        state: dict[str, int] = {}
        reported: set[frozenset[str]] = set()

        def visit(node: str, trail: list[str]) -> None:
            state[node] = 1
            trail.append(node)
            for nxt in graph.get(node, []):
                if nxt == node:
                    continue  # reported as "names the claim itself"
                if state.get(nxt) == 1:
                    cycle = trail[trail.index(nxt) :]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        index = self.claim_index(cycle[0])
                        self.report(
                            ("claims", index, "after") if index is not None else ("claims",),
                            "`after` gates form a cycle: " + " -> ".join([*cycle, nxt]),
                        )
                elif nxt not in state:
                    visit(nxt, trail)
            trail.pop()
            state[node] = 2

        for node in list(graph):
            if node not in state:
                visit(node, [])

    def claim_index(self, claim_id: str) -> int | None:
        for index, claim in self.claims():
            if claim.get("id") == claim_id:
                return index
        return None

    def weight_total(self) -> None:
        # A case's score divides by the sum of its weights: finite weights whose sum is
        # not (two of 1e308) would make every score NaN, which no report can show.
        total = 0.0
        for index, claim in self.claims():
            weight = claim.get("weight")
            # Weights the model refuses (not numbers, not finite, not above 0) are its.
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                continue
            if not 0 < weight < math.inf:
                continue
            try:
                total += weight
            except OverflowError:  # an int too large for a float
                continue
            if math.isinf(total):
                self.report(
                    ("claims", index, "weight"),
                    f"claim {claim.get('id')!r}: weight: the claims' weights add up to more "
                    "than a number holds (a case's score divides by their sum); use smaller "
                    "weights",
                )
                return

    def judge_references(self) -> None:
        judges = self.data.get("judges")
        names = set(judges) if isinstance(judges, dict) else set()
        for index, claim in self.claims():
            name = claim.get("judge")
            if isinstance(name, str) and name not in names:
                known = ", ".join(sorted(names)) or "none declared"
                self.report(
                    ("claims", index, "judge"),
                    f"claim {claim.get('id')!r}: unknown judge {name!r} (judges: {known})",
                )

    def judges(self) -> None:
        judges = self.data.get("judges")
        if not isinstance(judges, dict):
            return
        for name, spec in judges.items():
            if not isinstance(spec, dict):
                continue
            prompt = spec.get("prompt")
            if not isinstance(prompt, str):
                continue
            try:
                found = is_file(self.files.resolve(prompt, f"prompt {prompt!r}").path)
            except FileRefused as refused:
                self.report(("judges", name, "prompt"), f"judge {name!r}: {refused}")
                continue
            if not found:
                self.report(
                    ("judges", name, "prompt"),
                    f"judge {name!r}: prompt file {prompt!r} does not exist "
                    "(relative to the contract)",
                )

    def llm_equality(self) -> None:
        llm_fields = self.data.get("llm_fields")
        if not isinstance(llm_fields, list):
            return
        llm = [f for f in llm_fields if isinstance(f, str)]
        for index, claim in self.claims():
            self.equality_in(claim, ("claims", index), claim.get("id"), claim.get("field"), llm)

    def equality_in(
        self, spec: dict[str, Any], loc: Loc, claim_id: Any, inherited: Any, llm: list[str]
    ) -> None:
        rubric = spec.get("rubric")
        path = spec.get("field", inherited)
        if isinstance(path, str):
            values = spec.get("values")
            single_enum = rubric == "enum" and isinstance(values, list) and len(values) == 1
            if (isinstance(rubric, str) and rubric in EQUALITY_PREDICATES) or single_enum:
                hit = next((f for f in llm if paths_overlap(path, f)), None)
                if hit is not None:
                    what = "an enum of one value" if single_enum else f"`{rubric}`"
                    self.report(
                        (*loc, "rubric"),
                        f"claim {claim_id!r}: {what} on LLM-written field {path!r} "
                        "is string equality; "
                        "an LLM may phrase a correct answer many ways, so use a rubric "
                        "(regex, enum of the accepted values, similar, citation) or a judge",
                    )
            disguised = _equality_in_disguise(spec)
            if disguised is not None and any(paths_overlap(path, f) for f in llm):
                key, what = disguised
                self.report(
                    (*loc, key),
                    f"claim {claim_id!r}: {what} on LLM-written field {path!r}: string "
                    "equality in disguise; use `contains` for the words it must hold, "
                    "`similar` below 100, or a judge",
                )
        items = spec.get("of")
        if isinstance(items, list):
            for j, item in enumerate(items):
                if isinstance(item, dict):
                    self.equality_in(item, (*loc, "of", j), claim_id, path, llm)


# An anchored pattern whose body has no metacharacter (escaped punctuation and
# \n, \t, \r are literal too) matches exactly one text.
_LITERAL_BODY = re.compile(r"(?:[^\\.^$*+?()\[\]{}|]|\\[^A-Za-z0-9]|\\[ntr])+")
_ANCHORED = re.compile(r"(?:\^|\\A)(?P<body>.*)(?:\$|\\z)", re.DOTALL)


def _equality_in_disguise(spec: dict[str, Any]) -> tuple[str, str] | None:
    """The key and a description of a `regex` or `similar` that passes one exact text
    only: an anchored literal pattern (``^Acme Inc$``), or a similarity of 100."""
    rubric = spec.get("rubric")
    if rubric == "regex":
        pattern, flags = spec.get("pattern"), spec.get("flags", "")
        # With `m`, ^ and $ match at every line: one line equals the text, not the field.
        if not isinstance(pattern, str) or not isinstance(flags, str) or "m" in flags:
            return None
        anchored = _ANCHORED.fullmatch(pattern)
        if anchored is None or not _LITERAL_BODY.fullmatch(anchored["body"]):
            return None
        return "pattern", f"regex {pattern!r} (an anchored literal) matches one exact text"
    if rubric == "similar":
        ratio = spec.get("min_ratio")
        if isinstance(ratio, int | float) and not isinstance(ratio, bool) and ratio >= 100:
            return "min_ratio", f"`similar` at min_ratio {ratio:g} passes identical text only"
    return None


def _phase(claim: dict[str, Any]) -> str:
    """Which phase checks a claim: ``rubric`` (in-process, first; findings claims too),
    ``judge`` (after: judges and comparisons) or ``?``."""
    if "rubric" in claim or claim.get("compare") == FINDINGS:
        return "rubric"
    return "judge" if "judge" in claim or "compare" in claim else "?"


def lint_document(
    file: str, base_dir: Path | FileScope, data: Any, positions: Positions
) -> list[Diagnostic]:
    """Runs the cross-node lint rules over a loaded document.

    ``base_dir`` is the document's folder (the files it names must lie in its tree) or
    the scope those files are confined to.
    """
    if not isinstance(data, dict):
        return []
    return _Linter(file, scope_of(base_dir), data, positions).run()
