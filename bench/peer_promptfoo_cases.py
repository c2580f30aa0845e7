"""The cases and checks of `peer_promptfoo.py`, written for both tools, and their verdicts.

Each generated case is a JSON record an extraction model might write (company, industry,
health, owner and a prose brief), kept as the text of the case's `output`. Seven checks
exist in both tools with the same meaning (ASCII text, so case folding and word
splitting agree): a JSON Schema, a regex, contains any (ignoring case), contains none
(ignoring case), contains all, a word count and a regex that must not match. The
generator plants each check's failure in a few cases on its own, so it knows every
verdict before either tool runs; both tools' verdicts are compared with that plan and
with each other.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import rubric_throughput
import yaml

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["company", "industry", "health", "owner", "brief"],
    "properties": {
        "company": {"type": "string"},
        "industry": {"enum": ["saas", "fintech", "health", "retail", "manufacturing"]},
        "health": {"type": "integer", "minimum": 0, "maximum": 100},
        "owner": {"type": "string", "minLength": 2},
        "brief": {"type": "string"},
    },
}
ON_TOPIC = ["account", "renewal"]
BANNED = ["awesome", "gonna", "lol", "pretty solid"]
FACTS = ["SSO", "seats"]
MIN_WORDS, MAX_WORDS = 30, 120

# (claim id, verifier claim, promptfoo assertion), in the order of promptfoo's
# componentResults.
CHECKS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "valid_record",
        {"rubric": "json_schema", "field": "output", "schema": SCHEMA},
        {"type": "is-json", "value": SCHEMA},
    ),
    (
        "cites_source",
        {"rubric": "regex", "field": "output", "pattern": r"\[source: [A-Za-z ]+\]"},
        {"type": "regex", "value": r"\[source: [A-Za-z ]+\]"},
    ),
    (
        "on_topic",
        {
            "rubric": "contains",
            "field": "output",
            "values": ON_TOPIC,
            "mode": "any",
            "ignore_case": True,
        },
        {"type": "icontains-any", "value": ON_TOPIC},
    ),
    (
        "formal_tone",
        {"rubric": "not_contains", "field": "output", "values": BANNED, "ignore_case": True},
        {"type": "not-icontains-any", "value": BANNED},
    ),
    (
        "names_facts",
        {"rubric": "contains", "field": "output", "values": FACTS},
        {"type": "contains-all", "value": FACTS},
    ),
    (
        "word_budget",
        {"rubric": "length", "field": "output", "min_words": MIN_WORDS, "max_words": MAX_WORDS},
        {"type": "word-count", "value": {"min": MIN_WORDS, "max": MAX_WORDS}},
    ),
    (
        "no_placeholders",
        {"rubric": "regex", "field": "output", "pattern": r"\b(TODO|TBD)\b", "negate": True},
        {"type": "not-regex", "value": r"\b(TODO|TBD)\b"},
    ),
]
CLAIMS = [claim_id for claim_id, _, _ in CHECKS]

INDUSTRIES = SCHEMA["properties"]["industry"]["enum"]
SOURCES = ["Salesforce", "Chorus", "Product Analytics", "Gong", "Zendesk"]
FAIL_RATE = 0.07

# A planted failure is the only way a case fails a check, so no filler word may hold
# what a check looks for.
_SOUGHT = [*ON_TOPIC, *BANNED, "sso", "seats", "todo", "tbd", "source"]
FILLER = [
    word
    for word in [*rubric_throughput.WORDS, "team", "migration", "forecast", "risk"]
    if not any(sought in word.lower() for sought in _SOUGHT)
]

Verdicts = dict[tuple[str, str], bool]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(words)).capitalize() + "."


def make_case(rng: random.Random, i: int) -> tuple[dict[str, Any], dict[str, bool]]:
    """One case and the verdict each check must give it.

    Args:
        rng: The generator's random source (seeded, so the cases repeat).
        i: The case's number, which names it.

    Returns:
        The case (`id`, `input`, `output` as JSON text) and its planned verdicts by claim id.
    """
    fails = {claim_id: rng.random() < FAIL_RATE for claim_id in CLAIMS}
    # A few very short and very long briefs, so the word budget fails both ways; the
    # verdict itself is counted from the finished text below.
    size = rng.choices(["short", "normal", "long"], [FAIL_RATE, 1 - 2 * FAIL_RATE, FAIL_RATE])[0]
    sentences, words = {"short": (1, (1, 2)), "normal": (rng.randint(3, 7), (5, 9))}.get(
        size, (rng.randint(15, 20), (8, 12))
    )
    parts = [_sentence(rng, rng.randint(*words)) for _ in range(sentences)]
    if not fails["cites_source"]:
        parts[0] = parts[0][:-1] + f" [source: {rng.choice(SOURCES)}]."
    if not fails["on_topic"]:
        parts.append(rng.choice(["The Account", "Its renewal", "RENEWAL of the account"]) + ".")
    if fails["formal_tone"]:
        parts.append(f"This is {rng.choice(['Awesome', 'gonna slip', 'LOL', 'Pretty Solid'])}.")
    facts = "It bought 240 seats and asked about SSO."
    if fails["names_facts"]:
        facts = rng.choice(["It bought 240 seats and asked about sso.", "It asked about SSO."])
    parts.append(facts)
    if fails["no_placeholders"]:
        parts.append(rng.choice(["Owner TODO.", "Next step: TBD."]))
    record: dict[str, Any] = {
        "company": f"Company {i}",
        "industry": rng.choice(INDUSTRIES),
        "health": rng.randint(0, 100),
        "owner": "AE",
        "brief": " ".join(parts),
    }
    broken = rng.choice(["owner", "health", "industry", "text"]) if fails["valid_record"] else ""
    if broken == "owner":
        del record["owner"]
    elif broken == "health":
        record["health"] = rng.choice([-3, 101, 140])
    elif broken == "industry":
        record["industry"] = "logistics"
    output = json.dumps(record)
    if broken == "text":
        output = output[:-1]  # a record cut short is not JSON
    fails["word_budget"] = not MIN_WORDS <= len(output.split()) <= MAX_WORDS
    case = {"id": f"case-{i}", "input": f"Brief on Company {i}.", "output": output}
    return case, {claim_id: not failed for claim_id, failed in fails.items()}


def make_cases(n: int) -> tuple[list[dict[str, Any]], Verdicts]:
    """``n`` cases (the same ones for the same ``n``) and their planned verdicts."""
    rng = random.Random(n)
    cases: list[dict[str, Any]] = []
    plan: Verdicts = {}
    for i in range(n):
        case, verdicts = make_case(rng, i)
        cases.append(case)
        plan.update({(case["id"], claim_id): ok for claim_id, ok in verdicts.items()})
    return cases, plan


def write_verifier_files(folder: Path, cases: Sequence[Mapping[str, Any]]) -> tuple[Path, Path]:
    """Writes the contract and the JSONL cases for `verifier run`; returns their paths."""
    contract = {
        "contract": "peer-promptfoo",
        "version": 1,
        "llm_fields": ["output"],
        "claims": [{"id": claim_id, **claim} for claim_id, claim, _ in CHECKS],
    }
    contract_path = folder / "contract.yaml"
    contract_path.write_text(yaml.safe_dump(contract, sort_keys=False), encoding="utf-8")
    cases_path = folder / "cases.jsonl"
    with cases_path.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(case) + "\n" for case in cases)
    return contract_path, cases_path


def write_promptfoo_files(folder: Path, cases: Sequence[Mapping[str, Any]]) -> Path:
    """Writes promptfooconfig.yaml and its tests.jsonl (the echo provider returns the
    prompt `{{output}}`, so each test's `output` var is the model output); returns the config.
    """
    config = {
        "description": "peer-promptfoo",
        "prompts": ["{{output}}"],
        "providers": ["echo"],
        "defaultTest": {"assert": [assertion for _, _, assertion in CHECKS]},
        "tests": "file://tests.jsonl",
    }
    config_path = folder / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    with (folder / "tests.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(promptfoo_test_line(case) for case in cases)
    return config_path


def promptfoo_test_line(case: Mapping[str, Any]) -> str:
    """The line of tests.jsonl that gives promptfoo ``case``: its id and its output."""
    return json.dumps({"description": case["id"], "vars": {"output": case["output"]}}) + "\n"


def verifier_verdicts(python: str, store: Path) -> Verdicts:
    """Every (case, claim) verdict of the one run in ``store``, read through `verifier export`."""
    exported = subprocess.run(
        [python, "-m", "verifier", "export", "--store", str(store)],
        capture_output=True,
        text=True,
        check=False,
    )
    if exported.returncode != 0:
        raise SystemExit(f"verifier export failed ({exported.returncode}): {exported.stderr}")
    return export_verdicts(exported.stdout)


def export_verdicts(export: str) -> Verdicts:
    """The (case, claim) verdicts in the JSONL of `verifier export`; anything but pass or
    fail stops the bench."""
    verdicts: Verdicts = {}
    for line in export.splitlines():
        row = json.loads(line)
        if row.get("schema") != "verifier.gap-row.v1":
            continue  # the export's header and the cases' contents
        status = row["status"]
        if status not in ("pass", "fail"):
            raise SystemExit(f"verifier gave {status} for {row['case_id']} / {row['claim_id']}")
        verdicts[(row["case_id"], row["claim_id"])] = status == "pass"
    return verdicts


def promptfoo_verdicts(out_json: Path) -> Verdicts:
    """Every (case, check) verdict in promptfoo's `-o out.json`, checks named by claim id."""
    document = json.loads(out_json.read_text(encoding="utf-8"))
    verdicts: Verdicts = {}
    for result in document["results"]["results"]:
        case_id = result["testCase"]["description"]
        components = (result.get("gradingResult") or {}).get("componentResults") or []
        if len(components) != len(CHECKS):
            raise SystemExit(f"promptfoo graded {case_id} with {len(components)} checks: {result}")
        for (claim_id, _, assertion), component in zip(CHECKS, components, strict=True):
            if component["assertion"]["type"] != assertion["type"]:
                raise SystemExit(f"promptfoo's checks of {case_id} are out of order: {components}")
            verdicts[(case_id, claim_id)] = component["pass"] is True
    return verdicts


def differences(name: str, got: Verdicts, plan: Verdicts, limit: int = 10) -> list[str]:
    """Where ``got`` (the verdicts ``name`` gave) differs from ``plan``, one line each."""
    lines: list[str] = []
    for key in sorted(plan.keys() | got.keys()):
        want, have = plan.get(key), got.get(key)
        if want != have:
            lines.append(f"{name}: {key[0]} / {key[1]}: expected {want}, got {have}")
    if len(lines) > limit:
        lines = [*lines[:limit], f"{name}: ... {len(lines) - limit} more"]
    return lines
