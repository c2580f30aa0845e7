"""Loading a contract: YAML with positions, model validation, lint, all problems at once."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from verifier.canonical import sha256_hex
from verifier.contract.lint import lint_document
from verifier.contract.models import CLAIM_ID_PATTERN, ID_PATTERN, Contract
from verifier.contract.sut_models import ENV_NAME_PATTERN, FUNCTION_PATTERN, OUTPUT_KEY_PATTERN
from verifier.errors import ContractError, Diagnostic
from verifier.files import FileScope
from verifier.yaml_positions import (
    MAX_BYTES,
    Loc,
    Positions,
    YamlProblem,
    parse_yaml_with_positions,
)


@dataclass(frozen=True)
class LoadedContract:
    """A valid contract with what was read to make it.

    Attributes:
        contract: The validated model.
        path: The file as the user named it.
        source: The file's bytes (stored beside gap rows so a check can be re-run).
        sha256: SHA-256 of ``source``.
        positions: Line and column of every node, for annotations.
        warnings: Problems that do not reject the contract.
        scope: Where the files it names may lie (default: its folder's tree).
    """

    contract: Contract
    path: Path
    source: bytes
    sha256: str
    positions: Positions
    warnings: tuple[Diagnostic, ...] = ()
    scope: FileScope | None = None

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def files(self) -> FileScope:
        """Where the files the contract names are resolved from and may lie."""
        return self.scope if self.scope is not None else FileScope.of(self.base_dir)

    def claim_line(self, claim_id: str) -> int:
        """Line of a claim in the contract file (1 when unknown)."""
        for index, claim in enumerate(self.contract.claims):
            if claim.id == claim_id:
                return self.positions.of(("claims", index))[0]
        return 1


def _field_names() -> list[str]:
    from verifier.contract.models import (
        RUBRIC_CLAIM_MODELS,
        CompareClaim,
        JudgeClaim,
        JudgeSpec,
        Sampling,
        Scale,
    )
    from verifier.contract.sut_models import ExecSut, PromptSut, SutSpec

    names: set[str] = set(Contract.model_fields)
    models: list[type[BaseModel]] = [
        *RUBRIC_CLAIM_MODELS.values(),
        CompareClaim,
        JudgeClaim,
        JudgeSpec,
        Sampling,
        Scale,
        SutSpec,
        ExecSut,
        PromptSut,
    ]
    for model in models:
        names.update(model.model_fields)
    return sorted(names)


def _resolve(data: Any, loc: tuple[Any, ...]) -> tuple[Loc, bool]:
    """Maps a pydantic error location onto the document, skipping union tags.

    Returns the deepest document path reached and whether the whole location was
    found (a missing key stops at its parent mapping).
    """
    node: Any = data
    path: list[Any] = []
    steps = list(loc)
    for i, step in enumerate(steps):
        more = i + 1 < len(steps)
        if isinstance(node, dict) and step in node:
            child = node[step]
            # A union tag can coincide with a key (`rubric`): do not descend into a
            # scalar while steps remain.
            if more and not isinstance(child, (dict, list)):
                continue
            node, path = child, [*path, step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node, path = node[step], [*path, step]
        else:
            continue
    return tuple(path), len(path) == len([s for s in steps if not _is_tag(s)])


def _is_tag(step: Any) -> bool:
    return isinstance(step, str) and ("[" in step or step in _TAGS)


_TAGS = {"rubric", "judge", "compare"}


def _where(data: Any, path: Loc) -> str:
    if len(path) >= 2 and path[0] == "claims" and isinstance(path[1], int):
        claims = data.get("claims") if isinstance(data, dict) else None
        claim = claims[path[1]] if isinstance(claims, list) and path[1] < len(claims) else None
        name = claim.get("id") if isinstance(claim, dict) else None
        label = f"claim {_shown(name)}" if isinstance(name, str) else f"claims[{path[1]}]"
        rest = ".".join(str(p) for p in path[2:])
        return f"{label}{': ' + rest if rest else ''}"
    if len(path) >= 2 and path[0] == "judges":
        rest = ".".join(str(p) for p in path[2:])
        return f"judge {_shown(path[1])}{': ' + rest if rest else ''}"
    return ".".join(str(p) for p in path) or "contract"


def _message(error: Any, data: Any, path: Loc, names: list[str]) -> tuple[str, bool]:
    """A readable message for one pydantic error, and whether it points at a key."""
    kind = error["type"]
    where = _where(data, path)
    if kind == "extra_forbidden":
        key = str(path[-1]) if path else "?"
        close = difflib.get_close_matches(key, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"{_where(data, path[:-1])}: unknown key {_shown(key)}{hint}", True
    if kind == "missing":
        key = error["loc"][-1]
        return f"{where}: missing required key {key!r}", False
    if kind == "union_tag_invalid":
        ctx = error.get("ctx", {})
        tag, expected = ctx.get("tag", "?"), ctx.get("expected_tags", "")
        options = [t.strip().strip("'") for t in str(expected).split(",")]
        close = difflib.get_close_matches(str(tag), options, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        label = _where(data, path[:-1]) if path and path[-1] == "rubric" else where
        return (
            f"{label}: unknown predicate {tag!r}{hint}; known predicates: {', '.join(options)}",
            False,
        )
    if kind == "claim_shape":
        return f"{where}: {error['msg']}", False
    if kind == "too_short":
        least = error.get("ctx", {}).get("min_length", 1)
        return f"{where}: must have at least {least} item{'s' if least != 1 else ''}", False
    if (mismatch := pattern_mismatch(error)) is not None:
        return f"{where}: {mismatch}", False
    # "or instance of JudgeSpec" names a Python class, which no YAML file can hold.
    msg = "Input should be a valid dictionary" if kind == "model_type" else str(error["msg"])
    if kind == "value_error":
        return f"{where}: {msg.removeprefix('Value error, ')}", False
    msg = msg.removeprefix("Assertion failed, ")
    msg = msg[0].lower() + msg[1:] if msg else msg
    value = error.get("input")
    if isinstance(value, (str, int, float, bool)) or value is None:
        msg = f"{msg} (got {_shown(value)})"
    return f"{where}: {msg}", False


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def pattern_mismatch(error: Any) -> str | None:
    """For a pydantic error of a value that misses one of the contract models' patterns,
    what was given and what is asked for, in words (``None`` for other errors)."""
    if error["type"] != "string_pattern_mismatch":
        return None
    wanted = _PATTERN_WORDS.get(str(error.get("ctx", {}).get("pattern")))
    return f"{_shown(error.get('input'))} is not {wanted}" if wanted else None


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


def validation_diagnostics(
    file: str, data: Any, positions: Positions, exc: ValidationError
) -> list[Diagnostic]:
    """Turns a pydantic ValidationError into positioned diagnostics."""
    names = _field_names()
    out: list[Diagnostic] = []
    errors = exc.errors()
    for error in errors:
        loc = error["loc"]
        # A too-short list whose items failed is only a symptom of those items.
        if error["type"] == "too_short" and any(
            len(other["loc"]) > len(loc) and other["loc"][: len(loc)] == loc for other in errors
        ):
            continue
        path, _ = _resolve(data, loc)
        message, at_key = _message(error, data, path, names)
        line, col = positions.of(path, key=at_key)
        out.append(Diagnostic(file, line, col, message))
    return out


def check_contract(
    path: Path, *, allow: tuple[Path, ...] = ()
) -> tuple[LoadedContract | None, list[Diagnostic]]:
    """Loads and lints a contract, returning it (when valid) and every problem found.

    ``allow`` names directories outside the contract's folder whose files it may name.
    """
    file = str(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise YamlProblem(
                1, 1, f"file is larger than {MAX_BYTES} bytes, the limit for contracts"
            )
        source = path.read_bytes()
    except YamlProblem as problem:
        return None, [Diagnostic(file, problem.line, problem.col, problem.message)]
    except OSError as exc:
        return None, [Diagnostic(file, 0, 0, f"cannot read contract: {exc.strerror or exc}")]
    return check_contract_source(source, path, allow=allow)


def check_contract_source(
    source: bytes,
    path: Path,
    *,
    name: str | None = None,
    tree: Path | None = None,
    allow: tuple[Path, ...] = (),
) -> tuple[LoadedContract | None, list[Diagnostic]]:
    """Loads and lints a contract's text as if read from ``path``.

    Args:
        source: The contract's bytes.
        path: Where it stands: relative files (prompts, schemas) are found beside it.
        name: How diagnostics name the file (default: ``path``).
        tree: The directory the files it names must lie in (default: its folder).
        allow: Further directories those files may lie in.
    """
    file = str(path) if name is None else name
    scope = FileScope.of(path.parent, tree=tree, allow=allow)
    try:
        data, positions = parse_yaml_with_positions(source)
    except YamlProblem as problem:
        return None, [Diagnostic(file, problem.line, problem.col, problem.message)]
    if not isinstance(data, dict):
        return None, [Diagnostic(file, 1, 1, "a contract must be a YAML mapping")]
    diagnostics = lint_document(file, scope, data, positions)
    contract: Contract | None = None
    try:
        contract = Contract.model_validate(data, context={"base_dir": scope})
    except ValidationError as exc:
        diagnostics.extend(validation_diagnostics(file, data, positions, exc))
    errors = [d for d in diagnostics if d.severity == "error"]
    unique = sorted(set(diagnostics))
    if errors or contract is None:
        return None, unique
    warnings = tuple(d for d in unique if d.severity == "warning")
    loaded = LoadedContract(contract, path, source, sha256_hex(source), positions, warnings, scope)
    return loaded, unique


def load_contract(path: Path, *, allow: tuple[Path, ...] = ()) -> LoadedContract:
    """Loads a valid contract or raises ``ContractError`` listing every problem."""
    loaded, diagnostics = check_contract(path, allow=allow)
    if loaded is None:
        raise ContractError([d for d in diagnostics if d.severity == "error"])
    return loaded
