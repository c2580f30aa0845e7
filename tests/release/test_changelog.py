"""CHANGELOG.md keeps the form of Keep a Changelog, agrees with the package version,
names only commands and files that exist, and is what the site's changelog page shows."""

from __future__ import annotations

import re

import click
from packaging.version import Version

import verifier
from tests.conftest import ROOT
from verifier.cli import main as cli

CHANGELOG = ROOT / "CHANGELOG.md"
TEXT = CHANGELOG.read_text(encoding="utf-8")
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
VERSION_HEADING = re.compile(r"## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})")


def _sections() -> list[tuple[str, list[str]]]:
    """Each `## ` section: its heading and its lines."""
    sections: list[tuple[str, list[str]]] = []
    for line in TEXT.splitlines():
        if line.startswith("## "):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    return sections


def _versions() -> list[tuple[str, list[str]]]:
    return [(heading, lines) for heading, lines in _sections() if heading.startswith("## [")]


def test_unreleased_comes_first_then_versions_newest_first_each_dated() -> None:
    headings = [heading for heading, _ in _versions()]
    assert headings[0] == "## [Unreleased]"
    released = [VERSION_HEADING.fullmatch(heading) for heading in headings[1:]]
    assert all(released), headings
    numbers = [Version(match.group(1)) for match in released if match]
    dates = [match.group(2) for match in released if match]
    assert numbers == sorted(numbers, reverse=True)
    assert dates == sorted(dates, reverse=True)


def test_changes_are_grouped_under_the_six_kinds_and_no_group_is_empty() -> None:
    for heading, lines in _versions():
        groups = [line for line in lines if line.startswith("#")]
        assert all(group[len("### ") :] in KINDS for group in groups), (heading, groups)
        text = "\n".join(lines)
        for group in groups:
            body = text.split(group + "\n", 1)[1].split("\n###", 1)[0]
            assert "\n- " in "\n" + body, f"{heading}: {group} lists nothing"


def test_the_package_version_is_released_here_or_is_the_unreleased_one() -> None:
    versions = _versions()
    released = [Version(m.group(1)) for h, _ in versions if (m := VERSION_HEADING.fullmatch(h))]
    current = Version(verifier.__version__)
    if released and released[0] == current:
        return
    assert all(current > version for version in released)
    unreleased = "\n".join(versions[0][1])
    assert f"published as {verifier.__version__}" in unreleased
    assert "\n- " in unreleased


def test_every_version_heading_has_its_link() -> None:
    for heading, _ in _versions():
        name = heading[len("## [") :].split("]", 1)[0]
        assert re.search(rf"^\[{re.escape(name)}\]: https://\S+$", TEXT, re.M), name


def test_links_are_absolute_or_on_the_page_since_the_site_includes_the_file() -> None:
    relative = [
        target
        for target in re.findall(r"\]\(([^)]+)\)", TEXT)
        if not re.match(r"https://|#", target)
    ]
    assert relative == []


def test_every_command_and_file_it_names_exists() -> None:
    spans = re.findall(r"`([^`]+)`", TEXT.replace("\n  ", " "))
    commands = {span.split()[1] for span in spans if span.startswith("verifier ")}
    known = set(cli.list_commands(click.Context(cli))) | {"--version"}
    assert commands <= known, commands - known
    paths = [span for span in spans if re.fullmatch(r"\.?[\w-]+(/[\w.-]+)+/?", span)]
    assert paths, "the changelog names files"
    assert [path for path in paths if not (ROOT / path).exists()] == []


def test_the_version_policy_names_what_a_breaking_change_breaks() -> None:
    policy = dict(_sections())["## Version policy"]
    text = " ".join(policy)
    for promise in (
        "contract format",
        "gap-row schema",
        "Exit codes",
        "public Python names",
    ):
        assert promise in text


def test_the_site_page_includes_the_changelog_itself() -> None:
    # pymdownx.snippets (base_path: the repository root) replaces this line by the file.
    page = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert page == '--8<-- "CHANGELOG.md"\n'
