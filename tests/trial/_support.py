"""A small judged contract, a store of its verdicts, and a candidate that flips known ones.

The judge ``strict`` (the test brain: an output with ``guess`` fails, any other
passes) decides two binary claims; the judge ``scorer`` (the same brain: 2 for an
output with ``guess``, else 5) one claim on a scale of 1 to 5 passing at 4. The
candidate model answers as the brain does except where a case's output says
``flip-CLAIM`` (it turns that claim's verdict round) or ``tone-N`` (it scores N). So
every stored and every re-asked verdict is known from the cases alone
(``expected_pairs``, ``expected_scores``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from tests.judge.behaviours import Behaviour
from tests.judge.judge_brain import _output_block, _user_text, brain

OLD_MODEL = "claude-haiku-4-5-20251001"
NEW_MODEL = "claude-sonnet-4-5-20250929"
KEY = "sk-ant-api03-trial-test-key-0123456789"
BINARY = ("careful", "factual")

CONTRACT = """\
contract: trialled
version: 1
llm_fields: [output]
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 256}
  scorer:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 256}
claims:
  - id: factual
    judge: strict
    instruction: The output states facts, not guesses
  - id: careful
    judge: strict
    instruction: The output says what it does not know
  - id: tone
    judge: scorer
    instruction: Formal tone
    scale: {min: 1, max: 5, pass_at: 4}
"""

BINARY_CONTRACT = CONTRACT.split("  - id: tone")[0].replace(
    "  scorer:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
    "    sampling: {max_tokens: 256}\n",
    "",
)
"""The contract without its scale claim and its judge: every verdict of its one judge
can be trialled."""

OUTPUTS = {
    "c01": "All is known.",
    "c02": "All is known. tone-4",
    "c03": "All is known. flip-factual",
    "c04": "All is known. flip-factual flip-careful",
    "c05": "All is known. tone-3",
    "c06": "All is known.",
    "c07": "I guess so.",
    "c08": "I guess so. tone-4",
    "c09": "I guess so. flip-factual",
    "c10": "I guess so. tone-1",
    "c11": "I guess so. flip-careful",
    "c12": "All is known. flip-careful",
}


def write_contract(folder: Path, text: str = CONTRACT) -> tuple[Path, Path]:
    """The contract (``text``) and its cases, written in ``folder``."""
    contract = folder / "trialled.yaml"
    contract.write_text(text, encoding="utf-8")
    cases = folder / "trialled.cases.jsonl"
    lines = [json.dumps({"id": k, "input": "Brief.", "output": v}) for k, v in OUTPUTS.items()]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return contract, cases


def expected_pairs() -> dict[tuple[str, str], tuple[bool, bool]]:
    """(case, claim) to (stored pass?, candidate pass?), from the rule above."""
    pairs = {}
    for case_id, output in OUTPUTS.items():
        for claim in BINARY:
            old = "guess" not in output
            pairs[(case_id, claim)] = (old, old != (f"flip-{claim}" in output))
    return pairs


def expected_scores() -> dict[str, tuple[int, int]]:
    """Case to (stored tone score, candidate tone score), from the rule above."""
    scores = {}
    for case_id, output in OUTPUTS.items():
        old = 2 if "guess" in output else 5
        told = re.search(r"tone-(\d)", output)
        scores[case_id] = (old, int(told.group(1)) if told else old)
    return scores


def per_model(request: dict[str, Any]) -> Behaviour:
    """The brain for the judge's model; the flipping candidate for ``NEW_MODEL``."""
    said = brain(request)
    if request.get("model") != NEW_MODEL or not said.tool_input or "results" not in said.tool_input:
        return said
    output = _output_block(_user_text(request))
    answer = json.loads(json.dumps(said.tool_input))
    for result in answer["results"]:
        told = re.search(rf"{result['id']}-(\d)", output)
        if "score" in result and told:
            result["score"] = int(told.group(1))
            result["reasoning"] = f"the candidate scored {result['id']} {told.group(1)}"
        if "pass" in result and f"flip-{result['id']}" in output:
            result["pass"] = not result["pass"]
            result["reasoning"] = f"the candidate turned {result['id']} round"
            for criterion in result.get("criteria", []):
                criterion["met"] = not criterion["met"]
    return dataclasses.replace(said, tool_input=answer)
