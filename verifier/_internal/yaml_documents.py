"""Reading a YAML settings file into a pydantic model, each problem at its line.

A settings file (the prompt evaluator's, say) is small and hand-written; it is loaded
with the contract loader (YAML 1.2 scalars, no tags, no duplicate keys) and every
problem names the file, the line and the column where it stands: an unknown key with
the closest key allowed there, a wrong value with what it should be.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from verifier._internal.json_documents import DocumentError, allowed_keys, where
from verifier._internal.json_words import json_kind
from verifier._internal.yaml_positions import Positions, YamlProblem, parse_yaml_with_positions

__all__ = ["read_yaml_document"]

M = TypeVar("M", bound=BaseModel)

# Pydantic's words for a wrong value, as a YAML file's author reads them.
_WORDS = {
    "model_type": "should be a mapping (`key: value` lines)",
    "dict_type": "should be a mapping (`key: value` lines)",
    "list_type": "should be a list",
    "string_type": "should be text (a string)",
    "int_type": "should be a whole number",
    "float_type": "should be a number",
    "bool_type": "should be true or false",
}


def read_yaml_document(path: Path, model: type[M], what: str) -> M:
    """Reads and validates the YAML mapping in ``path`` as ``model``.

    Args:
        path: The file.
        model: What the file must hold.
        what: What it is called in errors (``a prompt-eval settings file``).

    Raises:
        DocumentError: Every problem found, each as ``FILE:LINE:COL: problem``.
    """
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError([f"{file}: cannot read {what}: {exc.strerror or exc}"]) from None
    try:
        data, positions = parse_yaml_with_positions(raw)
    except YamlProblem as problem:
        raise DocumentError([f"{file}:{problem.line}:{problem.col}: {problem.message}"]) from None
    if not isinstance(data, dict):
        raise DocumentError(
            [f"{file}:1:1: {what} is a mapping (`key: value` lines), not {json_kind(data)}"]
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [_located(file, model, positions, error) for error in exc.errors()]
        raise DocumentError(list(dict.fromkeys(problems))) from None


def _located(
    file: str, model: type[BaseModel], positions: Positions, error: Mapping[str, Any]
) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden" and loc:
        line, col = positions.of(loc, key=True)
        close = difflib.get_close_matches(str(loc[-1]), allowed_keys(model, loc[:-1]), n=1)
        hint = f" (did you mean {where((*loc[:-1], close[0]))!r}?)" if close else ""
        return f"{file}:{line}:{col}: unknown key {where(loc)!r}{hint}"
    if kind == "missing" and loc:
        line, col = positions.of(loc[:-1])
        return f"{file}:{line}:{col}: missing {where(loc)!r}"
    line, col = positions.of(loc)
    message = _WORDS.get(kind) or str(error["msg"]).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    at = f"{where(loc)}: " if loc else ""
    return f"{file}:{line}:{col}: {at}{message}"
