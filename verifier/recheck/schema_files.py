"""A stored contract whose schema files are gone from beside its stored path.

The loader refuses such a contract whole, but only the claims that validate against a
missing file (and the claims that wait for them) depend on it: the others can still be
re-checked. The contract is loaded again with each missing ``schema_file`` replaced by
an empty inline schema, and the claims that used one are named, so that their rows are
reported as not recheckable instead of being evaluated against the stand-in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from verifier._internal.yaml_positions import YamlProblem, parse_yaml_with_positions
from verifier.contract.load import LoadedContract
from verifier.contract.validation import validate_contract

__all__ = ["without_missing_schemas"]


def without_missing_schemas(
    source: bytes, path: Path, sha256: str
) -> tuple[LoadedContract, dict[str, str]] | None:
    """The contract with stand-ins for its missing schema files, and what they stand for.

    Returns:
        The contract and, by claim id, why each claim that used a missing file cannot
        be re-checked; ``None`` when no file is missing or something else is wrong
        with the contract (then it stays unloadable as the loader said).
    """
    try:
        data, positions = parse_yaml_with_positions(source)
    except YamlProblem:
        return None
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list):
        return None
    missing: dict[str, str] = {}
    for claim in claims:
        names = _swap_missing(claim, path.parent)
        if names and isinstance(claim, dict):
            missing[str(claim.get("id"))] = (
                f"{path}: claim {claim.get('id')!r}: schema_file {names[0]!r} does not exist "
                f"beside the stored contract{_looked_in(path)}"
            )
    if not missing:
        return None
    try:
        contract = validate_contract(data, context={"base_dir": path.parent})
    except ValidationError:
        return None
    return LoadedContract(contract, path, source, sha256, positions), missing


def _looked_in(path: Path) -> str:
    """Where a relative stored path was looked for: it is relative to the folder the run
    was started in, which the store does not know."""
    if path.is_absolute():
        return ""
    return (
        f" (its stored path is relative, so it was looked for from {Path.cwd()}; recheck "
        "from the folder the run was started in)"
    )


def _swap_missing(node: Any, base: Path) -> list[str]:
    """Replaces every missing schema file in a claim (items of all/any/not included)."""
    if not isinstance(node, dict):
        return []
    found: list[str] = []
    name = node.get("schema_file")
    missing = isinstance(name, str) and not (base / name).is_file()
    if node.get("rubric") == "json_schema" and missing:
        del node["schema_file"]
        node["schema"] = {}
        found.append(str(name))
    items = node.get("of")
    for item in items if isinstance(items, list) else ():
        found += _swap_missing(item, base)
    return found
