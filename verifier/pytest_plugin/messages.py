"""Texts the pytest plugin shows: item names and why a case failed."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from verifier.cases import CaseLine
    from verifier.contract.load import LoadedContract
    from verifier.results import CaseResult, ClaimResult

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_EVIDENCE_CHARS = 160


def safe_name(text: str) -> str:
    """``text`` with every character that could break a node id, a ``-k`` expression
    or a terminal (``::``, brackets, spaces, non-ASCII) made ``_``."""
    return _UNSAFE.sub("_", text)


def item_name(contract_id: str, case_id: str) -> str:
    """``CONTRACT_ID[CASE_ID]``, both made safe."""
    return f"{safe_name(contract_id)}[{safe_name(case_id)}]"


def shown_path(path: Path, start: Path) -> str:
    """``path`` relative to ``start`` when it lies below it, else as it is."""
    try:
        return str(path.relative_to(start))
    except ValueError:
        return os.fspath(path)


def brief_evidence(evidence: dict[str, Any]) -> str:
    """Evidence on one line: a judge row's triple, else compact JSON, cut short."""
    judge = evidence.get("judge")
    if isinstance(judge, dict):
        model = judge.get("model_id") or "?"
        prompt = str(judge.get("prompt_sha") or "?")[:12]
        sampling = str(judge.get("sampling_sha") or "?")[:12]
        source = " (from cache)" if evidence.get("cache") else ""
        return f"judge {model}, prompt {prompt}, sampling {sampling}{source}"
    text = orjson.dumps(evidence, default=str).decode("utf-8")
    return text if len(text) <= _EVIDENCE_CHARS else text[: _EVIDENCE_CHARS - 1] + "…"


def failure_message(
    *,
    loaded: LoadedContract,
    contract_shown: str,
    cases_shown: str,
    line: CaseLine,
    result: CaseResult,
    threshold: float,
    stored: str | None,
) -> str:
    """Why a case failed: its score, then each claim that failed or errored (with the
    claim's line in the contract, the reason and the evidence), then the skipped ones,
    then ``stored`` (where the gap rows are)."""
    where = f"{cases_shown}:{line.line}"
    if line.error is not None:
        return (
            f"case {line.case_id} ({where}) is unusable: {line.error}; "
            f"all {len(result.results)} claims are errors"
        )
    errors = result.count("error")
    why = (
        f"{errors} claim{'s' if errors != 1 else ''} could not be checked"
        if errors
        else f"score {result.score:.3f} is below the threshold {threshold:g}"
    )
    passed = result.count("pass")
    applied = result.applicable
    if not applied:
        why = "no claim applies to it (every claim's `when` path is missing)"
    lines = [f"case {line.case_id} ({where}) failed: {why} ({passed} of {applied} claims passed)"]
    for claim in result.results:
        if claim.status in ("fail", "error"):
            lines += _claim_lines(claim, f"{contract_shown}:{loaded.claim_line(claim.claim_id)}")
    skipped = [c for c in result.results if c.status == "skipped"]
    for claim in skipped:
        lines.append(f"  SKIPPED {claim.claim_id}: {claim.reason}")
    if stored is not None:
        lines.append(stored)
    return "\n".join(lines)


def _claim_lines(claim: ClaimResult, at: str) -> list[str]:
    out = [f"  {claim.status.upper():<7} {claim.claim_id} ({at}): {claim.reason}"]
    if claim.evidence:
        out.append(f"          evidence: {brief_evidence(claim.evidence)}")
    return out
