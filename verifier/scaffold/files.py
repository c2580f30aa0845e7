"""Which files ``verifier init`` writes, and writing them."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from verifier.errors import VerifierError
from verifier.scaffold.verdicts import record_verdicts

DEFAULT_NAME: Final = "support-answers"
_NAME: Final = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_TOKEN: Final = "@NAME@"

# Package data file -> where it goes (NAME is the contract's name), what it is.
_FILES: Final = (
    ("contract.yaml", "NAME.yaml", "the contract: rubric, judge and comparative claims"),
    ("cases.jsonl", "NAME.cases.jsonl", "four cases: questions and the answers given"),
    ("judge.md", "judges/strict.md", "the judge template of the judge `strict`"),
    ("judges-readme.md", "judges/README.md", "how a judge template is written"),
)
RECORDINGS: Final = "NAME.recordings.jsonl"


class ScaffoldError(VerifierError):
    """The starter files cannot be written (a bad name, files in the way)."""


@dataclass(frozen=True)
class Scaffold:
    """The files of one starter project.

    Attributes:
        directory: Where they go.
        name: The contract's id and the stem of its files.
        files: Each file's path and what it is, the recordings last.
    """

    directory: Path
    name: str
    files: tuple[tuple[Path, str], ...]

    @property
    def contract(self) -> Path:
        return self.files[0][0]

    @property
    def cases(self) -> Path:
        return self.files[1][0]

    @property
    def recordings(self) -> Path:
        return self.files[-1][0]


def plan_scaffold(directory: Path, name: str = DEFAULT_NAME) -> Scaffold:
    """The files a starter project named ``name`` in ``directory`` consists of.

    Raises:
        ScaffoldError: ``name`` cannot be a contract id.
    """
    if not _NAME.fullmatch(name):
        raise ScaffoldError(
            f"--name {name!r}: a contract name is lowercase letters, digits, '_', '.' "
            "and '-', starting with a letter or digit"
        )
    files = [(directory / target.replace("NAME", name), what) for _, target, what in _FILES]
    files.append((directory / RECORDINGS.replace("NAME", name), "the judges' recorded verdicts"))
    return Scaffold(directory, name, tuple(files))


def write_scaffold(scaffold: Scaffold, *, force: bool = False) -> None:
    """Writes every file of ``scaffold``, then records its judges' verdicts.

    Args:
        scaffold: The files (``plan_scaffold``).
        force: Overwrite files that exist; otherwise nothing is written when one does.

    Raises:
        ScaffoldError: A file exists (without ``force``) or cannot be written.
    """
    existing = [path for path, _ in scaffold.files if path.exists() or path.is_symlink()]
    if existing and not force:
        raise ScaffoldError(
            f"{', '.join(map(str, existing))} exist{'s' if len(existing) == 1 else ''} "
            "already; nothing was written (--force overwrites)"
        )
    for (source, _, _), (path, _) in zip(_FILES, scaffold.files, strict=False):
        text = resources.files("verifier.scaffold").joinpath("data", source).read_text("utf-8")
        _write(path, text.replace(_TOKEN, scaffold.name))
    try:
        scaffold.recordings.unlink(missing_ok=True)
    except OSError as exc:
        raise ScaffoldError(f"{scaffold.recordings}: cannot replace: {exc.strerror}") from None
    asyncio.run(record_verdicts(scaffold.contract, scaffold.cases, scaffold.recordings))


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()  # --force replaces the link, never writes through it
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ScaffoldError(f"{path}: cannot write: {exc.strerror or exc}") from None
