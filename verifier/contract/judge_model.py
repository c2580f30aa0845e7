"""Changing a judge's ``model:`` in a contract file, and nothing else in it.

A contract is a hand-written file: its comments, key order, quoting and line endings
are its author's. So the model is not changed by loading the YAML and dumping it
again, which would lose all of that, but by replacing the characters of the one
scalar where the YAML parser found it (``judges: NAME: model:``), in its own quoting.
A model given through an anchor, an alias or a tag, or as a block scalar, is refused: the
same characters would change another value too, or could not be replaced alone.
The file is written whole or not at all, and must then load with the judge's new
model; if it does not, the file is put back as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from verifier._internal.atomic import write_whole
from verifier.contract.load import load_contract
from verifier.errors import ContractError, VerifierError

__all__ = [
    "JudgeModelEdit",
    "JudgeModelError",
    "plan_judge_model",
    "restore_judge_model",
    "write_judge_model",
]


class JudgeModelError(VerifierError):
    """A contract file whose judge's model cannot be changed in place."""


@dataclass(frozen=True, slots=True)
class JudgeModelEdit:
    """The change of one judge's model in a contract file, not yet written.

    Attributes:
        path: The contract file.
        judge: The judge's name.
        old_model: The model the file names now.
        model: The model it will name.
        line: The line of the scalar (1-based).
        before: The file's text now.
        after: The file's text with the one scalar replaced.
    """

    path: Path
    judge: str
    old_model: str
    model: str
    line: int
    before: str
    after: str


def plan_judge_model(path: Path, judge: str, model: str) -> JudgeModelEdit:
    """The text of ``path`` with judge ``judge``'s ``model:`` scalar set to ``model``.

    Raises:
        JudgeModelError: The file cannot be read or parsed, names no such judge or
            model, or gives the model in a way that cannot be replaced alone.
    """
    try:
        text = path.read_bytes().decode("utf-8")
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise JudgeModelError(f"{path}: cannot read it as YAML: {_first_line(exc)}") from None
    key, value = _model_node(path, root, judge)
    between = text[key.end_mark.index : value.start_mark.index]
    # A node's span starts at its anchor or tag: either would be lost with the scalar.
    marked = text[value.start_mark.index : value.start_mark.index + 1] in ("&", "!")
    if value.start_mark.index < key.end_mark.index or between.strip() != ":" or marked:
        raise JudgeModelError(
            f"{path}:{key.start_mark.line + 1}: judge {judge}'s model is given through an "
            "anchor, alias or tag: change it by hand"
        )
    if not isinstance(value, ScalarNode) or value.style not in (None, "'", '"'):
        raise JudgeModelError(
            f"{path}:{value.start_mark.line + 1}: judge {judge}'s model is not a one-line "
            "scalar: change it by hand"
        )
    start, end = value.start_mark.index, value.end_mark.index
    after = text[:start] + _scalar(model, value.style) + text[end:]
    return JudgeModelEdit(path, judge, value.value, model, value.start_mark.line + 1, text, after)


def write_judge_model(edit: JudgeModelEdit) -> None:
    """Writes the changed file whole, then checks it loads with the judge's new model;
    if it does not, puts the file back as it was.

    Raises:
        JudgeModelError: The written contract does not load, or names another model.
        OutputError: The file could not be written (it keeps what it had).
    """
    write_whole(edit.path, lambda out: out.write(edit.after), "the contract")
    try:
        loaded = load_contract(edit.path)
        spec = loaded.contract.judges.get(edit.judge)
        if spec is None or spec.model != edit.model:
            found = "no such judge" if spec is None else f"model {spec.model}"
            raise JudgeModelError(f"{edit.path}: after the change judge {edit.judge} has {found}")
    except (ContractError, JudgeModelError) as exc:
        restore_judge_model(edit)
        raise JudgeModelError(
            f"{edit.path}: left as it was: with model {edit.model} it does not load: "
            f"{_first_line(exc)}"
        ) from None


def restore_judge_model(edit: JudgeModelEdit) -> None:
    """Puts the file back as it was before ``edit``.

    Raises:
        OutputError: The file could not be written.
    """
    write_whole(edit.path, lambda out: out.write(edit.before), "the contract")


def _model_node(path: Path, root: Node | None, judge: str) -> tuple[ScalarNode, Node]:
    """The ``model`` key and value of judge ``judge`` in the document ``root``."""
    judges = _value(root, "judges")
    spec = _value(judges, judge)
    if spec is None:
        raise JudgeModelError(f"{path}: the contract has no judge {judge!r}")
    found = _entry(spec, "model")
    if found is None:
        raise JudgeModelError(f"{path}: judge {judge} names no model")
    return found


def _entry(node: Node | None, name: str) -> tuple[ScalarNode, Node] | None:
    if not isinstance(node, MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == name:
            return key, value
    return None


def _value(node: Node | None, name: str) -> Node | None:
    found = _entry(node, name)
    return found[1] if found is not None else None


def _scalar(model: str, style: str | None) -> str:
    """``model`` written in the quoting the old scalar had (plain only when it reads
    back as the same string)."""
    if style == "'":
        return "'" + model.replace("'", "''") + "'"
    if style is None and _plain_reads_back(model):
        return model
    return json.dumps(model, ensure_ascii=False)


def _plain_reads_back(model: str) -> bool:
    try:
        return yaml.safe_load(f"k: {model}\n") == {"k": model} and "#" not in model
    except yaml.YAMLError:
        return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
