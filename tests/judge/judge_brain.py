"""A deterministic stand-in for a judge model, answering the test server's calls.

It reads the claims from the rendered request and answers through the forced tool in
the shape the real tools ask for. Its rule is simple and visible: an output that
contains the word ``guess`` fails every assertion (and scores 2 on a scale); any
other output passes (and scores 5). A critique finds one weakness per ``guess`` in the
output; a compliance judge follows one section poorly per ``guess`` and gives an
overall compliance of 1 less 0.25 for each (at least 0). Tests can therefore predict
every verdict.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.judge.behaviours import Behaviour, tool_use

_ASSERTIONS = re.compile(r"The assertions to evaluate:\s*(\[.*\])\s*$", re.S)
_SCALE_IDS = re.compile(r"^(\S+): an integer from (\d+) to (\d+)$", re.M)


def _user_text(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def _output_block(text: str) -> str:
    match = re.search(r"<output-([0-9a-f]+)>(.*?)</output-\1>", text, re.S)
    return match.group(2) if match else ""


def _claim_ids(text: str) -> list[str]:
    # The claims are the request's last block, as indented JSON.
    start = text.rfind("\n[\n  {")
    return [c["id"] for c in json.loads(text[start:])] if start >= 0 else []


def _critique(text: str, guesses: int) -> dict[str, Any]:
    weaknesses = [
        {"weakness": f"guess {n + 1}: a figure is guessed", "suggestion": "say it is unknown"}
        for n in range(guesses)
    ]
    results = [
        {"id": claim_id, "weaknesses": weaknesses, "assessment": "reviewed by rule"}
        for claim_id in _claim_ids(text)
    ]
    return {"results": results}


def _compliance(text: str, guesses: int) -> dict[str, Any]:
    well = [{"section": "format", "evidence": "by rule", "score": 1.0}]
    poorly = [
        {"section": f"no guessing {n + 1}", "evidence": "guess", "reason": "guesses", "score": 0}
        for n in range(guesses)
    ]
    overall = max(0.0, 1 - 0.25 * guesses)
    results = [
        {
            "id": claim_id,
            "well_followed": well,
            "poorly_followed": poorly,
            "overall_compliance": overall,
        }
        for claim_id in _claim_ids(text)
    ]
    return {"results": results}


def brain(request: dict[str, Any]) -> Behaviour:
    """Answers one Messages API request as the rule above says."""
    tool = request["tool_choice"]["name"]
    text = _user_text(request)
    guesses = _output_block(text).lower().count("guess")
    failing = guesses > 0
    if tool == "record_critique":
        return tool_use(_critique(text, guesses))
    if tool == "record_compliance":
        return tool_use(_compliance(text, guesses))
    if tool == "record_scores":
        results = [
            {
                "id": claim_id,
                "score": int(low) if failing else int(high),
                "reasoning": "scored by rule",
            }
            for claim_id, low, high in _SCALE_IDS.findall(text)
        ]
        # The rule gives 2 to failing outputs, inside any scale that has it.
        for entry, (_, low, high) in zip(results, _SCALE_IDS.findall(text), strict=True):
            entry["score"] = max(int(low), min(int(high), 2)) if failing else int(high)
        return tool_use({"results": results}, usage={"input_tokens": 400, "output_tokens": 40})
    if tool == "record_preference":
        return tool_use({"winner": "1", "reasoning": "the first is better by rule"})
    match = _ASSERTIONS.search(text)
    assertions = json.loads(match.group(1)) if match else []
    results = []
    for assertion in assertions:
        criteria = [
            {"criterion": c, "met": not failing, "reasoning": "by rule"}
            for c in assertion.get("criteria", [])
        ]
        results.append(
            {
                "id": assertion["id"],
                "criteria": criteria,
                "pass": not failing,
                "reasoning": "The output guesses."
                if failing
                else "The output meets the assertion.",
            }
        )
    return tool_use({"results": results}, usage={"input_tokens": 500, "output_tokens": 60})
