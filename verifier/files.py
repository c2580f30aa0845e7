"""Where the files a contract names may lie: its own folder's tree, unless allowed.

A contract names files verifier reads (a ``schema_file``, a judge's ``prompt``, a
prompt system's ``template_file``) and a command's ``cwd``. A contract can come from
someone else (a pull request, a shared repository), and what verifier reads ends up in
``check`` output, CI annotations and prompts sent to a model, so every such name is
resolved here, in one place: relative to the contract's folder, links followed, and
refused when it lands outside that folder's tree, unless the user allowed the
directory it lands in (``--allow-outside DIR``). A problem found in an allowed file
outside the tree never quotes the file: only its position is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ALLOW_OPTION = "--allow-outside"
"""The command-line option that lets a contract name files in another directory."""

WITHHELD = "(not quoted: the file is outside the contract's folder)"
"""What a message says instead of a detail quoting a file outside the tree."""


class FileRefused(ValueError):
    """A name that resolves outside every directory its contract may read from, or
    that no file can have."""


@dataclass(frozen=True)
class NamedFile:
    """A file a contract named, resolved.

    Attributes:
        path: The file, links followed.
        name: The name as the contract wrote it.
        outside: Whether it lies outside the contract's own tree (in an allowed
            directory): details of its content are then never quoted.
    """

    path: Path
    name: str
    outside: bool

    def quote(self, detail: str) -> str:
        """``detail`` (which may quote the file) for a message, or, for a file outside
        the contract's tree, words that say a problem was found without quoting it."""
        return f"a problem {WITHHELD}" if self.outside else detail


@dataclass(frozen=True)
class FileScope:
    """How the names a contract gives to files are resolved and confined.

    Attributes:
        base_dir: Relative names are resolved from here (the contract's folder).
        tree: The directory everything must lie under (``None``: anywhere, for paths
            a user typed on the command line).
        allowed: Further directories the user allowed.
    """

    base_dir: Path
    tree: Path | None
    allowed: tuple[Path, ...] = ()

    @classmethod
    def of(
        cls, base_dir: Path, *, tree: Path | None = None, allow: Iterable[Path] = ()
    ) -> FileScope:
        """The scope of a contract in ``base_dir``: its tree is ``tree`` (default
        ``base_dir``), and ``allow`` adds directories."""
        root = _real(tree if tree is not None else base_dir)
        return cls(base_dir, root, tuple(_real(p) for p in allow))

    @classmethod
    def anywhere(cls, base_dir: Path) -> FileScope:
        """Names resolved from ``base_dir`` and not confined (typed by the user)."""
        return cls(base_dir, None)

    def resolve(self, name: str, what: str) -> NamedFile:
        """``name`` resolved from ``base_dir`` with links followed.

        Args:
            name: The name as the contract gives it (relative, or absolute).
            what: How messages name it (``schema_file 'x.json'``).

        Raises:
            FileRefused: It lands outside the tree and every allowed directory, or
                holds a NUL byte.
        """
        if "\0" in name:
            raise FileRefused(f"{what} is not a usable file name")
        path = _real(self.base_dir / name)
        if self.tree is None or path.is_relative_to(self.tree):
            return NamedFile(path, name, outside=False)
        if any(path.is_relative_to(root) for root in self.allowed):
            return NamedFile(path, name, outside=True)
        raise FileRefused(
            f"{what} leads outside the contract's folder (links followed); files a contract "
            f"names must lie in its folder or below (pass {ALLOW_OPTION} DIR to allow one)"
        )


def scope_of(where: Path | FileScope) -> FileScope:
    """A scope as given, or the scope of a contract in the directory ``where``."""
    return where if isinstance(where, FileScope) else FileScope.of(where)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a link loop
        return path.absolute()
