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
TEMPLATES: Final = ("starter", "likert")
"""What ``verifier init --template`` writes: the starter project (rubric, judge and
comparative claims), or a five-dimension Likert rubric with an overall score."""
DEFAULT_NAMES: Final = {"starter": DEFAULT_NAME, "likert": "likert-review"}
_NAME: Final = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_TOKEN: Final = "@NAME@"

# Package data file -> where it goes (NAME is the contract's name), what it is; the
# contract first, its cases second.
_FILES: Final = {
    "starter": (
        ("contract.yaml", "NAME.yaml", "the contract: rubric, judge and comparative claims"),
        ("cases.jsonl", "NAME.cases.jsonl", "four cases: questions and the answers given"),
        ("judge.md", "judges/strict.md", "the judge template of the judge `strict`"),
        ("judges-readme.md", "judges/README.md", "how a judge template is written"),
    ),
    "likert": (
        ("likert.yaml", "NAME.yaml", "the contract: five Likert dimensions and their overall"),
        ("likert.cases.jsonl", "NAME.cases.jsonl", "three cases: code reviews to score"),
    ),
}
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
        template: Which starter it is (one of ``TEMPLATES``).
    """

    directory: Path
    name: str
    files: tuple[tuple[Path, str], ...]
    template: str = "starter"

    @property
    def contract(self) -> Path:
        return self.files[0][0]

    @property
    def cases(self) -> Path:
        return self.files[1][0]

    @property
    def recordings(self) -> Path:
        return self.files[-1][0]


def plan_scaffold(directory: Path, name: str | None = None, template: str = "starter") -> Scaffold:
    """The files a starter project named ``name`` (default: the template's) in
    ``directory`` consists of.

    Raises:
        ScaffoldError: ``name`` cannot be a contract id, or there is no such template.
    """
    if template not in TEMPLATES:
        raise ScaffoldError(f"--template {template!r}: choose one of {', '.join(TEMPLATES)}")
    name = DEFAULT_NAMES[template] if name is None else name
    if not _NAME.fullmatch(name):
        raise ScaffoldError(
            f"--name {name!r}: a contract name is lowercase letters, digits, '_', '.' "
            "and '-', starting with a letter or digit"
        )
    files = [
        (directory / target.replace("NAME", name), what) for _, target, what in _FILES[template]
    ]
    files.append((directory / RECORDINGS.replace("NAME", name), "the judges' recorded verdicts"))
    return Scaffold(directory, name, tuple(files), template)


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
    for (source, _, _), (path, _) in zip(_FILES[scaffold.template], scaffold.files, strict=False):
        text = resources.files("verifier.scaffold").joinpath("data", source).read_text("utf-8")
        _write(path, text.replace(_TOKEN, scaffold.name))
    try:
        scaffold.recordings.unlink(missing_ok=True)
    except OSError as exc:
        raise ScaffoldError(f"{scaffold.recordings}: cannot replace: {exc.strerror}") from None
    asyncio.run(
        record_verdicts(
            scaffold.contract, scaffold.cases, scaffold.recordings, template=scaffold.template
        )
    )


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()  # --force replaces the link, never writes through it
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ScaffoldError(f"{path}: cannot write: {exc.strerror or exc}") from None
