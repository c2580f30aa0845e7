"""Loading a contract: YAML with positions, model validation, lint, all problems at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from verifier._internal.canonical import sha256_hex
from verifier._internal.yaml_positions import (
    MAX_BYTES,
    Loc,
    Positions,
    YamlProblem,
    parse_yaml_with_positions,
)
from verifier.contract.lint import lint_document
from verifier.contract.messages import message as error_message
from verifier.contract.messages import pattern_mismatch as pattern_mismatch
from verifier.contract.models import Claim, Contract
from verifier.contract.validation import validate_contract
from verifier.errors import ContractError, Diagnostic
from verifier.files import FileScope


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
        left_out: The file's claims a choice of claims (``--claims``) left out of
            ``contract``, in file order; empty when it holds them all.
    """

    contract: Contract
    path: Path
    source: bytes
    sha256: str
    positions: Positions
    warnings: tuple[Diagnostic, ...] = ()
    scope: FileScope | None = None
    left_out: tuple[Claim, ...] = ()

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


def validation_diagnostics(
    file: str, data: Any, positions: Positions, exc: ValidationError
) -> list[Diagnostic]:
    """Turns a pydantic ValidationError into positioned diagnostics."""
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
        message, at_key = error_message(error, data, path)
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
        contract = validate_contract(data, context={"base_dir": scope})
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
