"""A deterministic stand-in for the target and judge models of a prompt evaluation.

Its rules, visible so tests can predict every figure:

- the target (a request without a tool) answers ``def reverse(s):\\n    return s[::-1]``
  to an input mentioning "reverse", and ``I guess: <input>`` to any other;
- standard checks pass, except ``completeness``, which fails; all four fail on an
  output that guesses;
- reverse checks (``differs_from_bad_output``...) pass (the fault is avoided) unless
  the output guesses and the bad output does too, when all four fail;
- structural checks: only ``has_role`` passes (``STRUCTURE`` holds the verdicts), and
  every one passes for a prompt containing "Format:";
- the critique finds the two ``WEAKNESSES`` (none for a prompt containing "Format:");
- compliance: the role followed well (0.9), nothing followed poorly, overall 0.9.
"""

from __future__ import annotations

import re
from typing import Any, Final

from tests.judge.behaviours import Behaviour, text_only, tool_use

REVERSE_ANSWER: Final = "def reverse(s):\n    return s[::-1]"
STRUCTURE: Final = {
    "has_role": True,
    "has_task": False,
    "has_format": False,
    "has_constraints": False,
    "has_examples": False,
}
WEAKNESSES: Final = [
    {
        "weakness": "Extremely vague, lacks detail about language or context",
        "suggestion": "Name the languages, the audience and the help expected",
    },
    {
        "weakness": "No error handling or edge case guidance",
        "suggestion": "Define error handling",
    },
]
ASSESSMENT: Final = (
    "This prompt is so generic it's practically useless for consistent coding assistance."
)
_BLOCK = re.compile(r"<([a-z0-9._-]+)-([0-9a-f]{16})>\n.*?\n</\1-\2>", re.S)


def _user(request: dict[str, Any]) -> str:
    # A chat completion's messages may open with the system prompt; the user's is last.
    content = request["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def _tool(request: dict[str, Any]) -> str:
    """The forced tool's name, as the Messages API or chat completions name it."""
    choice = request["tool_choice"]
    return str(choice["function"]["name"] if "function" in choice else choice["name"])


def _block(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}-([0-9a-f]+)>\n(.*?)\n</{tag}-\1>", text, re.S)
    return match.group(2) if match else ""


def _ids(text: str) -> list[str]:
    """The claim ids asked about: those in the text outside every fenced data block."""
    return re.findall(r'"id": "([^"]+)"', _BLOCK.sub("", text))


def brain(request: dict[str, Any]) -> Behaviour:
    """Answers one Messages API or chat completions request as the rules above say."""
    text = _user(request)
    if "tool_choice" not in request:
        answer = REVERSE_ANSWER if "reverse" in text.lower() else f"I guess: {text}"
        return text_only(answer)
    tool = _tool(request)
    output = _block(text, "output")
    formatted = "Format:" in output
    ids = _ids(text)
    if tool == "record_critique":
        found = [] if formatted else WEAKNESSES
        results = [{"id": i, "weaknesses": found, "assessment": ASSESSMENT} for i in ids]
        return tool_use({"results": results})
    if tool == "record_compliance":
        well = [
            {"section": "Role definition", "evidence": "Acted as a coding assistant", "score": 0.9}
        ]
        results = [
            {"id": i, "well_followed": well, "poorly_followed": [], "overall_compliance": 0.9}
            for i in ids
        ]
        return tool_use({"results": results})
    guesses = "guess" in output.lower()
    bad_guesses = "guess" in _block(text, "bad-output").lower()
    results = []
    for claim_id in ids:
        if claim_id in STRUCTURE:
            ok = formatted or STRUCTURE[claim_id]
        elif claim_id in ("semantic_match", "format_match", "correctness"):
            ok = not guesses
        elif claim_id == "completeness":
            ok = False
        else:  # a reverse check: passes when the fault is avoided
            ok = not (guesses and bad_guesses)
        results.append({"id": claim_id, "criteria": [], "pass": ok, "reasoning": "by rule"})
    return tool_use({"results": results})
