"""The decision records keep one form, the index lists every one of them, and a record
that changes another is named back by it (the form: ``tests/_adr.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._adr import (
    FIX,
    INDEX,
    SITE_PAGE,
    index_problems,
    read_record,
    records,
    site_page,
    unanswered_relations,
)


def _write(folder: Path, name: str, status: str | None, title: str = "A decision") -> None:
    status_line = "" if status is None else f"- Status: {status}\n"
    text = f"# ADR {name[:4]}: {title}\n\n{status_line}- Date: 2026-11-25\n\n## Context\n"
    (folder / name).write_text(text, encoding="utf-8")


def test_every_record_has_the_heading_form_a_date_and_a_status_line() -> None:
    problems = [
        f"adr/{record.name}: {problem}"
        for record in records().values()
        for problem in record.problems
    ]
    assert problems == []


def test_every_relation_a_record_states_is_stated_back_by_the_record_it_names() -> None:
    assert unanswered_relations(records()) == []


def test_every_record_is_indexed_once_under_an_area_with_its_title_and_relations() -> None:
    assert index_problems(INDEX.read_text(encoding="utf-8"), records()) == []


def test_the_site_page_is_the_index_with_links_into_the_repository() -> None:
    page = SITE_PAGE.read_text(encoding="utf-8")
    assert page == site_page(INDEX.read_text(encoding="utf-8")), f"docs/adr.md is stale: {FIX}"
    listed = [line for line in page.splitlines() if line.startswith("- [ADR ")]
    assert len(listed) == len(records())
    assert all(line.count("](https://github.com/") == line.count("](") for line in listed)


@pytest.mark.parametrize(
    ("status", "problem"),
    [
        (None, "no '- Status:' line under the heading"),
        ("acepted", "status 'acepted' is none of accepted, proposed, deprecated"),
        ("accepted; amended by ADR 0002", "every ADR it names must be a link"),
        ("accepted; amended by [ADR 0009](0009-gone.md)", "leads to no such record"),
        ("accepted; changed a lot", "is no relation"),
    ],
)
def test_a_status_line_out_of_form_is_named(
    tmp_path: Path, status: str | None, problem: str
) -> None:
    _write(tmp_path, "0001-a-decision.md", status)
    _write(tmp_path, "0002-another.md", "accepted")
    record = read_record(tmp_path / "0001-a-decision.md")
    assert any(problem in found for found in record.problems), record.problems


def test_a_heading_in_another_form_is_named(tmp_path: Path) -> None:
    path = tmp_path / "0021-a-decision.md"
    path.write_text("# 0021. A decision\n\n- Status: accepted\n- Date: 2026-11-25\n", "utf-8")
    assert read_record(path).problems == ("the heading is not '# ADR 0021: Title'",)


def test_a_relation_stated_one_way_only_is_named(tmp_path: Path) -> None:
    _write(tmp_path, "0005-triple.md", "accepted")
    _write(tmp_path, "0032-prompt-sha.md", "accepted; revises [ADR 0005](0005-triple.md) (a part)")
    assert unanswered_relations(records(tmp_path)) == [
        "adr/0032-prompt-sha.md says 'revises ADR 0005', "
        "but adr/0005-triple.md does not say 'revised by ADR 0032'"
    ]
    _write(tmp_path, "0005-triple.md", "accepted; revised by [ADR 0032](0032-prompt-sha.md)")
    assert unanswered_relations(records(tmp_path)) == []


def test_a_superseded_record_names_its_successor_as_its_state(tmp_path: Path) -> None:
    _write(tmp_path, "0001-old.md", "superseded by [ADR 0002](0002-new.md)")
    _write(tmp_path, "0002-new.md", "accepted; supersedes [ADR 0001](0001-old.md)")
    by_number = records(tmp_path)
    assert by_number["0001"].problems == ()
    assert by_number["0001"].relations == (("superseded by", "0002"),)
    assert unanswered_relations(by_number) == []


def test_an_index_missing_a_record_or_out_of_date_is_named(tmp_path: Path) -> None:
    _write(tmp_path, "0001-a.md", "accepted", title="First")
    _write(tmp_path, "0002-b.md", "accepted", title="Second")
    by_number = records(tmp_path)
    index = "# Index\n\n## Area\n\n- [ADR 0001](0001-a.md): Frist\n"
    assert index_problems(index, by_number) == [
        f"adr/README.md:5: should read '- [ADR 0001](0001-a.md): First' ({FIX})",
        "adr/0002-b.md is missing from adr/README.md: add '- [ADR 0002](0002-b.md)' "
        "under its area, then run `python -m tests._adr`",
    ]
