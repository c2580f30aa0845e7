"""The decision records in ``adr/``: what each says of itself, its line in the index
(``adr/README.md``) and the site's copy of that index (``docs/adr.md``).

A record opens with ``# ADR NNNN: Title``, then ``- Status: STATE`` and ``- Date:``.
The status is ``accepted`` (or ``proposed``, ``deprecated``, ``superseded by [ADR
NNNN](...)``) followed by ``; ``-separated relations, each a verb and linked records:
``accepted; revised by [ADR 0030](0030-....md) (what it revises)``. Every relation has
its reverse in the record it names (``revises`` in one, ``revised by`` in the other).

``python -m tests._adr`` rewrites each index line from its record (title and
relations) and regenerates ``docs/adr.md``; a new record is indexed by writing
``- [ADR NNNN](NNNN-slug.md)`` under its area of ``adr/README.md`` and running it.
"""

from __future__ import annotations

import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADR_DIR = ROOT / "adr"
INDEX = ADR_DIR / "README.md"
SITE_PAGE = ROOT / "docs" / "adr.md"
# The site links into the repository: the records live outside docs/.
REPOSITORY = "https://github.com/OWNER/verifier/blob/main/"

REVERSE = {
    "supersedes": "superseded by",
    "amends": "amended by",
    "revises": "revised by",
    "extends": "extended by",
}
REVERSE.update({later: earlier for earlier, later in list(REVERSE.items())})
STATES = ("accepted", "proposed", "deprecated")

_HEADING = re.compile(r"# ADR (\d{4}): (\S.*)")
_VERB = re.compile(r"(" + "|".join(sorted(REVERSE, key=len, reverse=True)) + r")\b(.*)")
_LINK = re.compile(r"\[ADR (\d{4})\]\(((\d{4})-[a-z0-9-]+\.md)\)")
_MENTION = re.compile(r"\bADR (\d{4})\b")
FIX = "run `python -m tests._adr` after fixing the record"
INDEX_LINE = re.compile(r"- \[ADR (\d{4})\]\(([^)]*)\)")


@dataclass(frozen=True)
class Record:
    """One decision record as its file states it.

    Attributes:
        number: The four digits its file name starts with.
        name: The file name.
        title: The heading's title, or None when the heading is not ``# ADR NNNN: Title``.
        state: The status's first clause (``accepted``, ``superseded by ...``), or None.
        relations: Each ``(verb, number)`` its status names, in order.
        problems: What breaks the form, one sentence each.
    """

    number: str
    name: str
    title: str | None
    state: str | None
    relations: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]


def _relation(clause: str, folder: Path, problems: list[str]) -> list[tuple[str, str]]:
    match = _VERB.match(clause)
    if match is None:
        problems.append(f"status clause {clause!r} is no relation ({', '.join(REVERSE)})")
        return []
    verb, rest = match.groups()
    links = _LINK.findall(rest)
    for number, target, target_number in links:
        if number != target_number or not (folder / target).is_file():
            problems.append(f"status link [ADR {number}]({target}) leads to no such record")
    if not links or len(_MENTION.findall(rest)) != len(links):
        problems.append(f"status clause {clause!r}: every ADR it names must be a link")
    return [(verb, number) for number, _, _ in links]


def read_record(path: Path) -> Record:
    """Reads a record's heading and status line, noting what breaks their form."""
    number = path.name[:4]
    lines = path.read_text(encoding="utf-8").splitlines()
    problems: list[str] = []
    heading = _HEADING.fullmatch(lines[0]) if lines else None
    title = heading.group(2) if heading and heading.group(1) == number else None
    if title is None:
        problems.append(f"the heading is not '# ADR {number}: Title'")
    header = [line for line in lines[1:] if line.startswith("- ")][:4]
    status = next(
        (line[len("- Status: ") :] for line in header if line.startswith("- Status: ")), None
    )
    if not any(re.fullmatch(r"- Date: \d{4}-\d{2}-\d{2}", line) for line in header):
        problems.append("no '- Date: YYYY-MM-DD' line under the heading")
    if status is None:
        problems.append("no '- Status:' line under the heading")
        return Record(number, path.name, title, None, (), tuple(problems))
    first, *others = status.split("; ")
    relations: list[tuple[str, str]] = []
    if first.startswith("superseded by"):
        relations += _relation(first, path.parent, problems)
    elif first not in STATES:
        problems.append(
            f"status {first!r} is none of {', '.join(STATES)}, 'superseded by [ADR NNNN](...)'"
            " (relations follow it: 'accepted; amends [ADR NNNN](NNNN-slug.md) (what)')"
        )
    for clause in others:
        relations += _relation(clause, path.parent, problems)
    return Record(number, path.name, title, first, tuple(relations), tuple(problems))


def records(folder: Path = ADR_DIR) -> dict[str, Record]:
    """Every record of a folder, by number, in number order."""
    paths = sorted(folder.glob("[0-9][0-9][0-9][0-9]-*.md"))
    return {path.name[:4]: read_record(path) for path in paths}


def unanswered_relations(by_number: dict[str, Record]) -> list[str]:
    """Each relation whose record does not state it back, as a sentence."""
    return [
        f"adr/{record.name} says '{verb} ADR {number}', "
        f"but adr/{by_number[number].name} does not say '{REVERSE[verb]} ADR {record.number}'"
        for record in by_number.values()
        for verb, number in record.relations
        if number in by_number and (REVERSE[verb], record.number) not in by_number[number].relations
    ]


def index_problems(index_text: str, by_number: dict[str, Record]) -> list[str]:
    """What the index gets wrong: records missing or listed twice, lines under no area,
    lines whose title or relations differ from their record."""
    seen: dict[str, int] = {}
    wrong: list[str] = []
    area = None
    for n, line in enumerate(index_text.splitlines(), 1):
        area = line if line.startswith("## ") else area
        match = INDEX_LINE.match(line)
        if not match:
            continue
        number = match.group(1)
        seen[number] = seen.get(number, 0) + 1
        if number not in by_number:
            wrong.append(f"adr/README.md:{n}: no record adr/{match.group(2)}")
        elif area is None:
            wrong.append(f"adr/README.md:{n}: ADR {number} is listed under no area")
        elif line != (expected := index_line(by_number[number], by_number)):
            wrong.append(f"adr/README.md:{n}: should read {expected!r} ({FIX})")
    wrong += [
        f"ADR {number} is listed {count} times" for number, count in seen.items() if count > 1
    ]
    wrong += [
        f"adr/{record.name} is missing from adr/README.md: add '- [ADR {number}]({record.name})' "
        f"under its area, then run `python -m tests._adr`"
        for number, record in by_number.items()
        if number not in seen
    ]
    return wrong


def index_line(record: Record, by_number: dict[str, Record]) -> str:
    """The index's line for a record: its link, its title and how it stands."""
    # "accepted" goes without saying; "superseded by" is among the relations.
    notes = [record.state] if record.state in ("proposed", "deprecated") else []
    notes += [
        f"{verb} [ADR {number}]({by_number[number].name})"
        for verb, number in record.relations
        if number in by_number
    ]
    line = f"- [ADR {record.number}]({record.name}): {record.title}"
    return f"{line} ({'; '.join(notes)})" if notes else line


def rewrite_index(text: str, by_number: dict[str, Record]) -> str:
    """The index with every record's line rewritten from its record."""
    lines = []
    for line in text.splitlines():
        match = INDEX_LINE.match(line)
        if match and match.group(1) in by_number:
            line = index_line(by_number[match.group(1)], by_number)
        lines.append(line)
    return "\n".join(lines) + "\n"


def site_page(index_text: str) -> str:
    """``docs/adr.md``: the index, its relative links made links into the repository."""

    def absolute(match: re.Match[str]) -> str:
        target = match.group(1)
        if re.match(r"[a-z]+:|#", target):
            return match.group(0)
        return f"]({REPOSITORY}{posixpath.normpath(posixpath.join('adr', target))})"

    lines, fenced = [], False
    for line in index_text.splitlines():
        fenced ^= line.startswith("```")
        lines.append(line if fenced else re.sub(r"\]\(([^)\s]+)\)", absolute, line))
    body = "\n".join(lines) + "\n"
    note = "<!-- Generated from adr/README.md by `python -m tests._adr`; do not edit. -->\n\n"
    return note + body


def main() -> int:
    """Rewrites the index lines and the site's page; prints what it wrote."""
    by_number = records()
    index = rewrite_index(INDEX.read_text(encoding="utf-8"), by_number)
    INDEX.write_text(index, encoding="utf-8")
    SITE_PAGE.write_text(site_page(index), encoding="utf-8")
    print(f"wrote {INDEX.relative_to(ROOT)} and {SITE_PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
