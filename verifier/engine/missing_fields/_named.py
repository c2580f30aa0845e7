"""The field paths a contract names, each with what names it.

A claim's ``when``, the paths a rubric predicate reads, a judge claim's ``field`` and
reference paths, a comparison's ``outputs``, the ``{{case.PATH}}`` placeholders of a
judge's template, the ``redact`` paths of the ``record:`` block, the ``parse_json``
paths and the system under test's ``when``: a typo in any of them resolves in no case,
and without a word the claim checks nothing there (or the field it was to redact is
stored, or the system runs on no case).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verifier.contract.models import CompareClaim, JudgeClaim
from verifier.engine.plan import Plan

__all__ = ["NamedPath", "named_paths"]

# Keys of a rubric spec (or a findings claim) that name a field it reads.
_RUBRIC_KEYS = ("field", "spans", "within", "reference_field", "expected")


@dataclass(frozen=True, slots=True)
class NamedPath:
    """A field path a contract names.

    Attributes:
        owner: What names it: a claim, a judge (a placeholder of its template), the
            contract's ``record:`` block, the contract itself (``parse_json``) or its
            system under test.
        name: The claim id or the judge name (empty for the others).
        key: The key that holds the path (``when``, ``field``, ``within``,
            ``reference.expected``, ``outputs``, ``{{case.PATH}}``, ``redact``,
            ``parse_json``).
        path: The path as written.
    """

    owner: Literal["claim", "judge", "record", "contract", "system"]
    name: str
    key: str
    path: str

    @property
    def who(self) -> str:
        """``claim cites``, ``judge strict``, ``record``..., as a warning opens."""
        return f"{self.owner} {self.name}" if self.name else self.owner

    @property
    def gates(self) -> bool:
        """Whether the path decides which cases something applies to (a ``when``)."""
        return self.key == "when"

    def shown(self, path: str) -> str:
        """``path`` as the contract writes it where this one is written."""
        return "{{case." + path + "}}" if self.key == TEMPLATE_KEY else path


TEMPLATE_KEY = "{{case.PATH}}"


def named_paths(
    plan: Plan,
    *,
    template_paths: Mapping[str, Sequence[str]] | None = None,
    redact: Sequence[str] = (),
    parse_json: Sequence[str] = (),
    sut_when: str | None = None,
) -> tuple[NamedPath, ...]:
    """Every path the claims of ``plan`` name, then their judges' templates', then the
    contract's own, each once.

    Args:
        plan: The run's plan (the claims it checks).
        template_paths: For each judge, the paths its templates show (``{{case.PATH}}``).
        redact: The paths the run's record policy redacts.
        parse_json: The paths whose JSON text the run parses.
        sut_when: The ``when`` of the system under test the run starts, if any.
    """
    found: dict[NamedPath, None] = {}
    judges: dict[str, None] = {}
    for planned in plan.order:
        claim = planned.claim
        for key, path in _claim_paths(claim, planned.kind):
            found[NamedPath("claim", planned.id, key, path)] = None
        if isinstance(claim, JudgeClaim | CompareClaim) and claim.judge:
            judges[claim.judge] = None
    for judge in judges:
        for path in (template_paths or {}).get(judge, ()):
            found[NamedPath("judge", judge, TEMPLATE_KEY, path)] = None
    for path in redact:
        found[NamedPath("record", "", "redact", path)] = None
    for path in parse_json:
        found[NamedPath("contract", "", "parse_json", path)] = None
    if sut_when is not None:
        found[NamedPath("system", "", "when", sut_when)] = None
    return tuple(found)


def _claim_paths(claim: Any, kind: str) -> Iterator[tuple[str, str]]:
    if claim.when is not None:
        yield "when", claim.when
    if kind == "rubric":
        yield from _rubric_paths(claim.model_dump())
    elif isinstance(claim, JudgeClaim):
        yield "field", claim.field
        if claim.reference is not None:
            for role, path in claim.reference.paths().items():
                yield f"reference.{role}", path
    elif isinstance(claim, CompareClaim):
        # Without ``outputs``, where a comparison's outputs come from depends on the
        # run (its ``runs``, a joined baseline): only paths it always reads are named.
        for path in claim.outputs or ():
            yield "outputs", path


def _rubric_paths(spec: Any, inherited: str | None = None) -> Iterator[tuple[str, str]]:
    """The paths a rubric spec reads, combinators' items included, except where their
    absence can be the point: under ``not`` (``not: present``) and in the items of
    ``any`` (alternatives, some of which a case may never have)."""
    if not isinstance(spec, Mapping) or spec.get("rubric") == "not":
        return
    field = spec.get("field") or inherited
    for key in _RUBRIC_KEYS:
        path = field if key == "field" else spec.get(key)
        if isinstance(path, str):
            yield key, path
    items = spec.get("of")
    if spec.get("rubric") == "any" or not isinstance(items, list | tuple):
        return
    for item in items:
        yield from _rubric_paths(item, field if isinstance(field, str) else None)
