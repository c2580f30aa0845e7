"""The record policy applied to every result of a case before it becomes a row.

The runner passes each case's results through ``RowPolicy.for_case`` before it seals
them and before its reports show them. A contract's ``redact`` paths are scrubbed
(``verifier.gaps.redact``); under ``content: hashes`` or ``none`` no text of the case
is kept at all (``verifier.gaps.withhold``). Both may apply: redaction first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verifier.gaps.content import RecordPolicy
from verifier.gaps.redact import Redactor
from verifier.gaps.withhold import Withholder
from verifier.results import ClaimResult

__all__ = ["ResultScrub", "RowPolicy"]

ResultScrub = Callable[[ClaimResult], ClaimResult]
"""What a row may keep of one result of one case."""


class RowPolicy:
    """What a run's record policy leaves of each result.

    Args:
        policy: The run's record policy.
        rubric_paths: Gives, for each rubric claim id, the field paths it reads.
        contract: Gives the contract as a mapping (``model_dump()``): its own text is
            no case text, so a withholding run may keep it.

    Both are asked only when the policy needs them (redaction, a withholding
    ``content``): dumping a contract builds pydantic's serialisers, a fixed cost of a
    few tenths of a second that a plain ``full`` run would pay for nothing.
    """

    def __init__(
        self,
        policy: RecordPolicy,
        rubric_paths: Callable[[], Mapping[str, Sequence[str]]],
        contract: Callable[[], Any],
    ) -> None:
        self._redactor = Redactor(policy, rubric_paths()) if policy.redact else None
        self._withholder = (
            Withholder(policy.content, contract()) if policy.content != "full" else None
        )

    @property
    def active(self) -> bool:
        """Whether any result is rewritten (``False`` for a plain ``full`` policy)."""
        return self._redactor is not None or self._withholder is not None

    def for_case(self, case: Mapping[str, Any]) -> ResultScrub | None:
        """The rewrite of one case's results, or ``None`` when they are stored as they are."""
        redact = self._redactor.for_case(case) if self._redactor is not None else None
        withhold = self._withholder.for_case(case) if self._withholder is not None else None
        if redact is None:
            return withhold.result if withhold is not None else None
        if withhold is None:
            return redact.result
        first, then = redact.result, withhold.result
        return lambda result: then(first(result))
