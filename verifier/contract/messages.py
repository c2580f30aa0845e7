"""What a contract's validation errors say: each pydantic error in YAML terms.

Pydantic words its errors for Python ("input should be a valid tuple", "instance of
JudgeSpec", field names such as ``schema_``); a contract's author wrote YAML. Every
error type the contract models can raise is worded here as lists, mappings, text and
numbers, and an unknown key is matched only against the keys allowed where it stands.
"""

from __future__ import annotations

import difflib
import functools
from typing import Any

from pydantic import BaseModel

from verifier._internal.yaml_positions import Loc
from verifier.contract.findings import FINDINGS, FindingsClaim
from verifier.contract.models import (
    ID_PATTERN,
    CompareClaim,
    Compliance,
    Contract,
    Critique,
    JudgeClaim,
    JudgeSpec,
    RecordSpec,
    Sampling,
    Scale,
)
from verifier.contract.rubric_claims import CLAIM_ID_PATTERN, RUBRIC_CLAIM_MODELS
from verifier.contract.sut_models import (
    ENV_NAME_PATTERN,
    FUNCTION_PATTERN,
    OUTPUT_KEY_PATTERN,
    ExecSut,
    PromptSut,
    SutSpec,
)
from verifier.rubric._registry import REGISTRY
from verifier.rubric._scales import SCALE_ERROR

SHAPES = ("rubric", "judge", "compare")
_COMMON_KEYS = frozenset({"id", "description", "weight", "after", "rubric"})

_LIST = "should be a list (`[a, b]`, or one `- item` per line)"
_MAPPING = "should be a mapping (`key: value` lines)"
# Pydantic's error types, worded for a YAML file (the ones not here already read so).
_WORDS = {
    "tuple_type": _LIST,
    "list_type": _LIST,
    "set_type": _LIST,
    "frozen_set_type": _LIST,
    "dict_type": _MAPPING,
    "model_type": _MAPPING,
    "model_attributes_type": _MAPPING,
    "string_type": "should be text (a string)",
    "int_type": "should be a whole number",
    "int_parsing": "should be a whole number",
    "int_from_float": "should be a whole number, not a fraction",
    "float_type": "should be a number",
    "float_parsing": "should be a number",
    "finite_number": "should be a finite number",
    "bool_type": "should be true or false",
    "bool_parsing": "should be true or false",
    "string_too_short": "should not be empty",
}

# What each pattern of the contract models asks for, in words.
_PATTERN_WORDS = {
    ID_PATTERN: "a valid contract id (lower-case letters, digits, '_', '.' and '-', "
    "starting with a letter or digit)",
    CLAIM_ID_PATTERN: "a valid claim id (letters, digits, '_', '.' and '-', "
    "starting with a letter or digit)",
    FUNCTION_PATTERN: "MODULE:FUNCTION (a dotted module, a colon, a function: my_bot:answer)",
    OUTPUT_KEY_PATTERN: "a plain key (a letter or '_', then letters, digits, '_' or '-')",
    ENV_NAME_PATTERN: "a variable name (a letter or '_', then letters, digits or '_')",
}


def pattern_mismatch(error: Any) -> str | None:
    """For a pydantic error of a value that misses one of the contract models' patterns,
    what was given and what is asked for, in words (``None`` for other errors)."""
    if error["type"] != "string_pattern_mismatch":
        return None
    wanted = _PATTERN_WORDS.get(str(error.get("ctx", {}).get("pattern")))
    return f"{shown(error.get('input'))} is not {wanted}" if wanted else None


def shown(value: Any) -> str:
    """A value quoted in a message, cut at 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def keys_of(model: type[BaseModel]) -> list[str]:
    """The keys a YAML mapping of ``model`` may carry, as written in YAML."""
    keys = (field.alias or name for name, field in model.model_fields.items())
    return sorted(k for k in keys if not k.startswith("_") and not k.endswith("_"))


@functools.cache
def all_keys() -> list[str]:
    """Every key any mapping of a contract may carry (for suggestions when the mapping's
    model cannot be told); makes every predicate's claim model."""
    models: list[type[BaseModel]] = [
        Contract,
        *RUBRIC_CLAIM_MODELS.values(),
        CompareClaim,
        FindingsClaim,
        JudgeClaim,
        JudgeSpec,
        Sampling,
        Scale,
        SutSpec,
        ExecSut,
        PromptSut,
        RecordSpec,
    ]
    return sorted({key for model in models for key in keys_of(model)})


def _node(data: Any, path: Loc) -> Any:
    node = data
    for step in path:
        node = node[step]
    return node


def _claim_model(claim: Any) -> type[BaseModel] | None:
    if not isinstance(claim, dict):
        return None
    if "rubric" in claim:
        return (
            RUBRIC_CLAIM_MODELS.get(claim["rubric"]) if isinstance(claim["rubric"], str) else None
        )
    if "compare" in claim:
        return FindingsClaim if claim["compare"] == FINDINGS else CompareClaim
    return JudgeClaim if "judge" in claim else None


_VERDICT_KEYS: dict[Any, type[BaseModel]] = {
    "scale": Scale,
    "critique": Critique,
    "compliance": Compliance,
}


def model_at(data: Any, path: Loc) -> type[BaseModel] | None:
    """The model the mapping at ``path`` of the document is validated as (``None``
    when it cannot be told)."""
    if not path:
        return Contract
    parent, last = path[:-1], path[-1]
    node = _node(data, path)
    if parent == ("claims",):
        return _claim_model(node)
    if isinstance(last, int) and parent[-1:] == ("of",):
        rubric = node.get("rubric") if isinstance(node, dict) else None
        entry = REGISTRY.get(rubric) if isinstance(rubric, str) else None
        return entry.spec if entry is not None else None
    if last == "sampling":
        return Sampling
    if last in _VERDICT_KEYS:
        return _VERDICT_KEYS[last]
    if parent == ("judges",):
        return JudgeSpec
    fixed: dict[Loc, type[BaseModel]] = {
        ("sut",): SutSpec,
        ("sut", "exec"): ExecSut,
        ("sut", "prompt"): PromptSut,
        ("record",): RecordSpec,
    }
    return fixed.get(path)


def where(data: Any, path: Loc) -> str:
    """How a message names the place ``path`` of the document: ``claim 'a': field``."""
    if len(path) >= 2 and path[0] == "claims" and isinstance(path[1], int):
        claims = data.get("claims") if isinstance(data, dict) else None
        claim = claims[path[1]] if isinstance(claims, list) and path[1] < len(claims) else None
        name = claim.get("id") if isinstance(claim, dict) else None
        label = f"claim {shown(name)}" if isinstance(name, str) else f"claims[{path[1]}]"
        rest = ".".join(str(p) for p in path[2:])
        return f"{label}{': ' + rest if rest else ''}"
    if len(path) >= 2 and path[0] == "judges":
        rest = ".".join(str(p) for p in path[2:])
        return f"judge {shown(path[1])}{': ' + rest if rest else ''}"
    return ".".join(str(p) for p in path) or "contract"


def _unknown_key(data: Any, path: Loc) -> str:
    parent = path[:-1]
    key = str(path[-1]) if path else "?"
    node = _node(data, parent)
    model = model_at(data, parent)
    shapes = [s for s in SHAPES if isinstance(node, dict) and s in node]
    if key in SHAPES and len(shapes) > 1:
        return (
            f"{where(data, parent)}: a claim has one of rubric, judge, compare — "
            f"this one has {' and '.join(shapes)}"
        )
    options = [k for k in (keys_of(model) if model is not None else all_keys()) if k != key]
    close = difflib.get_close_matches(key, options, n=1)
    if close:
        hint = f" (did you mean {close[0]!r}?)"
    elif isinstance(node, dict) and isinstance(node.get("rubric"), str) and model is not None:
        # No near miss (`max` on `length`): the predicate's own keys say what is meant.
        own = [k for k in options if k not in _COMMON_KEYS]
        hint = f"; {node['rubric']} takes {', '.join(own)}" if own else ""
    else:
        hint = ""
    return f"{where(data, parent)}: unknown key {shown(key)}{hint}"


def _no_shape(data: Any, path: Loc) -> str:
    node = _node(data, path)
    if not isinstance(node, dict):
        return f"{where(data, path)}: a claim {_MAPPING} (got {shown(node)})"
    if isinstance(node, dict):
        for key in node:
            close = difflib.get_close_matches(str(key), SHAPES, n=1, cutoff=0.7)
            if close and key not in SHAPES:
                return f"{where(data, path)}: unknown key {shown(key)} (did you mean {close[0]!r}?)"
    return f"{where(data, path)}: a claim needs exactly one of `rubric`, `judge` or `compare`"


def message(error: Any, data: Any, path: Loc) -> tuple[str, bool]:
    """A readable message for one pydantic error found at ``path`` of the document,
    and whether it points at a key (rather than at a value)."""
    kind = error["type"]
    here = where(data, path)
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return _unknown_key(data, path), True
    if kind == "missing":
        return f"{here}: missing required key {error['loc'][-1]!r}", False
    if kind == "claim_shape":
        return _no_shape(data, path), False
    if kind == "union_tag_invalid":
        tag, expected = ctx.get("tag", "?"), ctx.get("expected_tags", "")
        options = [t.strip().strip("'") for t in str(expected).split(",")]
        close = difflib.get_close_matches(str(tag), options, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shape = path[-1] if path and path[-1] in ("rubric", "compare") else None
        label = where(data, path[:-1]) if shape else here
        what = "comparison" if shape == "compare" else "predicate"
        return (
            f"{label}: unknown {what} {tag!r}{hint}; known {what}s: {', '.join(options)}",
            False,
        )
    if kind == "union_tag_not_found":
        return f"{here}: an item of `of` needs a `rubric` key naming its predicate", False
    if kind == SCALE_ERROR:
        # The message names the key itself.
        return (f"{where(data, path[:-1])}: " if path[:-1] else "") + str(error["msg"]), False
    if kind in ("too_short", "too_long"):
        bound = "at least" if kind == "too_short" else "at most"
        count = ctx.get("min_length" if kind == "too_short" else "max_length", 1)
        return f"{here}: must have {bound} {count} item{'s' if count != 1 else ''}", False
    if (mismatch := pattern_mismatch(error)) is not None:
        return f"{here}: {mismatch}", False
    if kind in ("value_error", "assertion_error"):
        text = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        return f"{here}: {text}", False
    text = _WORDS.get(kind) or _lower(str(error["msg"]))
    if error["loc"][-1:] == ("[key]",):
        # A mapping's key, not its value, is wrong (`anchors: {high: ...}`).
        text = f"each key {text}"
    value = error.get("input")
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = f"{text} (got {shown(value)})"
    return f"{here}: {text}", False


def _lower(text: str) -> str:
    return text[0].lower() + text[1:] if text else text
