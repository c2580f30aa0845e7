"""The contract a run request names: a file under the server's contracts directory, or
inline YAML.

Both go through the loader and lint that ``verifier check`` uses. An inline contract is
written by whoever can reach the API, so before it is loaded it is held to more: its
judges may not set ``base_url`` (the server's API key would be sent to that address),
and the files it names (``prompt``, ``schema_file``) must lie inside the contracts
directory, so a request cannot make the server read, or send a judge, any other file.
A contract under the directory was put there by the operator and is trusted as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from verifier._internal.file_lookup import is_file
from verifier._internal.yaml_positions import (
    MAX_BYTES,
    Loc,
    Positions,
    YamlProblem,
    parse_yaml_with_positions,
)
from verifier.contract.load import LoadedContract, check_contract_source
from verifier.errors import Diagnostic, VerifierError

INLINE_NAME: Final = "inline.yaml"
"""How diagnostics name an inline contract (never a path of the server)."""

_FILE_KEYS: Final = frozenset({"prompt", "schema_file"})


class ContractRejected(VerifierError):
    """A contract a run cannot use, with every problem as ``FILE:LINE:COL: message``."""

    def __init__(self, diagnostics: list[str]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(diagnostics))


@dataclass(frozen=True)
class ResolvedContract:
    """A loaded contract and the recorded verdicts beside its file, if any."""

    loaded: LoadedContract
    recordings: Path | None


def is_inline(reference: str) -> bool:
    """Whether a run's ``contract`` is YAML text rather than a path: a path is one line,
    and a contract on one line is a flow mapping (``{contract: ...}``)."""
    return "\n" in reference or reference.lstrip().startswith("{")


def resolve_contract(reference: str, contracts_dir: Path | None) -> ResolvedContract:
    """Loads the contract a run request names.

    Args:
        reference: A path relative to ``contracts_dir``, or inline YAML.
        contracts_dir: The server's contracts directory (``None``: inline only).

    Raises:
        ContractRejected: The contract cannot be found, read or used.
    """
    if is_inline(reference):
        return ResolvedContract(_load_inline(reference, contracts_dir), None)
    if contracts_dir is None:
        raise ContractRejected(
            [f"{reference}: this server has no contracts directory; send the contract inline"]
        )
    root = contracts_dir.resolve()
    path = _inside(root, reference)
    if path is None or not is_file(path):
        raise ContractRejected([f"{reference}: no such contract in the contracts directory"])
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ContractRejected([f"{reference}:1:1: larger than {MAX_BYTES} bytes"])
        source = path.read_bytes()
    except OSError as exc:
        raise ContractRejected([f"{reference}: cannot read: {exc.strerror or exc}"]) from None
    loaded = _stored(source, path, reference, tree=root)
    sibling = path.with_name(f"{path.stem}.recordings.jsonl")
    return ResolvedContract(loaded, sibling if is_file(sibling) else None)


def _load_inline(text: str, contracts_dir: Path | None) -> LoadedContract:
    loaded, diagnostics = check_inline(text, contracts_dir)
    if loaded is None:
        raise ContractRejected([str(d) for d in diagnostics if d.severity == "error"])
    return loaded


def check_inline(
    text: str, contracts_dir: Path | None, *, name: str = INLINE_NAME
) -> tuple[LoadedContract | None, list[Diagnostic]]:
    """Checks contract text a request carries, as ``verifier check`` checks a file, and
    holds it to the rules of an inline contract (no judge ``base_url``, no file outside
    the contracts directory, no ``sut:``).

    Args:
        text: The contract's YAML.
        contracts_dir: The server's contracts directory (``None``: it may name no file).
        name: Where in that directory the text stands (its relative files are found
            beside it) and how its problems name it.

    Returns:
        The contract when it has no error, and every problem found, warnings included.
    """
    source = text.encode("utf-8", "surrogatepass")
    try:
        data, positions = parse_yaml_with_positions(source)
    except YamlProblem as problem:
        return None, [Diagnostic(name, problem.line, problem.col, problem.message)]
    root = contracts_dir.resolve() if contracts_dir is not None else None
    # Relative files are found beside it in the contracts directory, as for a file
    # stored there.
    path = (root if root is not None else Path.cwd()) / name
    if "\0" in name or (root is not None and _inside(root, name) is None):
        return None, [Diagnostic(name, 0, 0, "not a place inside the contracts directory")]
    refused = sorted(_refusals(data, positions, root, path.parent, name))
    if refused:
        return None, refused
    return _checked(source, path, name, tree=root)


def _checked(
    source: bytes, path: Path, name: str, *, tree: Path | None = None
) -> tuple[LoadedContract | None, list[Diagnostic]]:
    # A stored contract may name any file of the contracts directory (its tree).
    loaded, diagnostics = check_contract_source(source, path, name=name, tree=tree)
    if loaded is None or loaded.contract.sut is None:
        return loaded, diagnostics
    # Running a command or importing a module named by a request is not this API's
    # business; it checks the outputs the cases carry.
    line, col = loaded.positions.of(("sut",), key=True)
    message = (
        "sut: the HTTP API checks the outputs sent with the cases and never runs a "
        "system under test; run this contract with `verifier run`"
    )
    return None, sorted({*diagnostics, Diagnostic(name, line, col, message)})


def _stored(source: bytes, path: Path, name: str, *, tree: Path) -> LoadedContract:
    loaded, diagnostics = _checked(source, path, name, tree=tree)
    if loaded is None:
        raise ContractRejected([str(d) for d in diagnostics if d.severity == "error"])
    return loaded


def _refusals(
    data: Any, positions: Positions, root: Path | None, folder: Path, name: str
) -> Iterator[Diagnostic]:
    judges = data.get("judges") if isinstance(data, dict) else None
    if isinstance(judges, dict):
        for judge, block in judges.items():
            if isinstance(block, dict) and "base_url" in block:
                line, col = positions.of(("judges", judge, "base_url"), key=True)
                yield Diagnostic(
                    name,
                    line,
                    col,
                    f"judge {judge!r}: base_url is not accepted in an inline contract (the "
                    "server's API key would go there); store the contract on the server",
                )
    for loc, key, value in _file_references(data, ()):
        if root is not None and _inside(root, str(folder / value)) is not None:
            continue
        line, col = positions.of((*loc, key))
        where = "outside the contracts directory" if root else "on a server without one"
        yield Diagnostic(
            name,
            line,
            col,
            f"{key} {value!r}: an inline contract cannot name a file {where}",
        )


def _file_references(node: Any, loc: Loc) -> Iterator[tuple[Loc, str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _FILE_KEYS and isinstance(value, str):
                yield loc, key, value
            else:
                yield from _file_references(value, (*loc, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _file_references(item, (*loc, index))


def _inside(root: Path, name: str) -> Path | None:
    """``root / name`` with links followed, or ``None`` when that leaves ``root``."""
    try:
        path = (root / name).resolve()
    except (OSError, ValueError):  # a NUL byte, a link loop
        return None
    return path if path.is_relative_to(root) else None
