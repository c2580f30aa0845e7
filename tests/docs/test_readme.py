"""The README is a front page whose links lead somewhere; the pages it sends readers to hold up."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT
from verifier.contract.judge_template import validate_template

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
# The pages written for readers (the reference is generated, the decisions are records).
USER_PAGES = [
    ROOT / "README.md",
    DOCS / "index.md",
    DOCS / "getting-started.md",
    DOCS / "glossary.md",
    *sorted((DOCS / "guides").glob("*.md")),
    *sorted((DOCS / "explanation").glob("*.md")),
]


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation dropped, spaces as hyphens.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _outside_code(text: str) -> str:
    return re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)


def test_every_link_to_a_section_names_a_heading() -> None:
    headings = {_slug(h) for h in re.findall(r"^#{2,4} (.+)$", _outside_code(README), flags=re.M)}
    assert set(re.findall(r"\]\(#([^)]+)\)", README)) - headings == set()


def test_every_link_to_a_file_leads_to_one() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _outside_code(README))
    local = [target for target in targets if not re.match(r"[a-z]+:", target)]
    assert "docs/getting-started.md" in local
    assert [target for target in local if not (ROOT / target).exists()] == []


def test_the_readme_is_a_front_page_that_keeps_what_ci_runs() -> None:
    assert len(README.splitlines()) <= 250
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # The install, the example run and the test command CI runs are the README's own.
    for command in (
        "pip install -e '.[dev]'",
        "verifier run contracts/examples/account-research.yaml --cases "
        "contracts/examples/account-research.cases.jsonl",
        "python -m pytest -n auto",
    ):
        assert command in README, command
        assert command.split()[-1] in ci


def test_the_judge_template_example_is_a_valid_pass_fail_template() -> None:
    guide = (DOCS / "guides" / "judges.md").read_text(encoding="utf-8")
    start = guide.index("A complete example, `judges/support.md`")
    example = re.search(r"```markdown\n(.*?)```", guide[start:], flags=re.S)
    assert example is not None
    assert validate_template(example.group(1), "binary") == []


def _words_of_the_projects_history(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"\bPRD\b|\bissue \d+|\bissues? #\d+|seed's", text)
    # An ADR named in a user page is a link to it (or to the index of decisions).
    found += [
        m.group(0)
        for m in re.finditer(r"ADR \d{4}(?!\]\()", _outside_code(text))
        if not text[: m.start()].endswith("[")
    ]
    return found


def test_no_user_page_speaks_of_the_projects_history() -> None:
    found = {
        page.relative_to(ROOT).as_posix(): words
        for page in USER_PAGES
        if (words := _words_of_the_projects_history(page))
    }
    assert found == {}
