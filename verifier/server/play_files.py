"""The playground's files: the contracts of the served folder, the starters, and saving.

The folder is the server's contracts directory (``verifier serve --contracts``); its
contracts are found as ``verifier check DIR`` finds them. A starter is one of the
contracts ``verifier init`` writes. Saving writes a new file into the folder: the text
goes to a temporary file beside the target, then takes its name in one step, so a
reader sees the old file or the new one, never half of one. A new name is taken with
``os.link``, which fails when the name exists (no check-then-write race); an existing
contract is replaced (``os.replace``) only by a contract whose ``version`` is greater
than its own (ADR 0081).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from verifier._internal.contract_files import SUFFIXES, is_contract, yaml_files_under
from verifier._internal.yaml_positions import MAX_BYTES, YamlProblem, parse_yaml_with_positions
from verifier.errors import VerifierError

__all__ = [
    "STARTERS",
    "SaveRefused",
    "Saved",
    "folder_contracts",
    "read_contract",
    "save_contract",
    "starter_text",
]

STARTERS: Final = {
    # name shown: (package data file of `verifier init`, the contract id it gets)
    "starter": ("contract.yaml", "support-answers"),
    "likert": ("likert.yaml", "likert-review"),
}
"""The starters, as ``verifier init --template`` names them."""

_NAME_TOKEN: Final = "@NAME@"


class SaveRefused(VerifierError):
    """The contract is not saved; the message says why in one line.

    Attributes:
        status: The HTTP status that says it (400, 404, 409).
    """

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class Saved:
    """A contract written into the folder.

    Attributes:
        name: Its path in the folder.
        replaced: The version of the contract it took the place of (``None``: a new file).
    """

    name: str
    replaced: int | None


def folder_contracts(root: Path) -> list[str]:
    """The contracts under ``root``, as paths relative to it, sorted."""
    return [
        path.relative_to(root).as_posix()
        for path in yaml_files_under(root, [])
        if is_contract(path)
    ]


def starter_text(name: str) -> str | None:
    """The contract of starter ``name`` as ``verifier init`` writes it (``None``: no
    such starter)."""
    found = STARTERS.get(name)
    if found is None:
        return None
    source, contract_id = found
    data = resources.files("verifier.scaffold").joinpath("data", source)
    return data.read_text("utf-8").replace(_NAME_TOKEN, contract_id)


def place(root: Path, name: str) -> Path:
    """Where ``name`` is in the folder ``root``.

    Raises:
        SaveRefused: ``name`` is not a YAML file's path inside ``root``.
    """
    if not name or not name.endswith(SUFFIXES) or "\\" in name or "\0" in name:
        raise SaveRefused(400, f"{name!r}: give a path in the folder ending in .yaml or .yml")
    parts = Path(name).parts
    if Path(name).is_absolute() or any(p in ("..", ".") or p.startswith(".") for p in parts):
        raise SaveRefused(400, f"{name!r}: not a path inside the contracts folder")
    path = root / name
    if not path.parent.resolve().is_relative_to(root.resolve()):
        raise SaveRefused(400, f"{name!r}: not a path inside the contracts folder")
    return path


def read_contract(root: Path, name: str) -> str:
    """The text of contract ``name`` of the folder ``root``.

    Raises:
        SaveRefused: No such contract (404), or it cannot be read.
    """
    path = place(root, name)
    if not path.is_file() or not path.resolve().is_relative_to(root.resolve()):
        raise SaveRefused(404, f"{name}: no such contract in the folder")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise SaveRefused(400, f"{name}: larger than {MAX_BYTES} bytes")
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SaveRefused(404, f"{name}: cannot read: {_why(exc)}") from None


def save_contract(root: Path, name: str, text: str, version: int) -> Saved:
    """Writes ``text`` (a checked contract of version ``version``) as ``name`` in ``root``.

    Raises:
        SaveRefused: ``name`` is not in the folder, its folder does not exist, or a
            file of that name exists that this contract may not replace.
    """
    path = place(root, name)
    if not path.parent.is_dir():
        raise SaveRefused(404, f"{name}: the folder {Path(name).parent} does not exist")
    replaced = _replaceable(path, name, version)
    source = text.encode("utf-8")
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".play-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(source)
            stream.flush()
            os.fsync(stream.fileno())
        if replaced is None:
            os.link(temporary, path)  # fails if the name was taken meanwhile
        else:
            os.replace(temporary, path)
    except FileExistsError:
        raise SaveRefused(409, f"{name} exists already; save under another name") from None
    except OSError as exc:
        raise SaveRefused(409, f"{name}: cannot write: {_why(exc)}") from None
    finally:
        Path(temporary).unlink(missing_ok=True)
    return Saved(name, replaced)


def _replaceable(path: Path, name: str, version: int) -> int | None:
    """The version of the contract at ``path`` that version ``version`` may replace
    (``None``: there is no file).

    Raises:
        SaveRefused: A file is there that this contract may not replace.
    """
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise SaveRefused(409, f"{name} exists and is not a plain file; save under another name")
    if not path.exists():
        return None
    existing = _version_of(path)
    if existing is None:
        raise SaveRefused(
            409, f"{name} exists and holds no contract version; save under another name"
        )
    if version <= existing:
        raise SaveRefused(
            409,
            f"{name} exists at version {existing}: raise `version:` above {existing} to "
            "replace it, or save under another name",
        )
    return existing


def _version_of(path: Path) -> int | None:
    try:
        data, _ = parse_yaml_with_positions(path.read_bytes())
    except (OSError, YamlProblem):
        return None
    version: Any = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def _why(exc: OSError | UnicodeDecodeError) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or "not UTF-8 text"
