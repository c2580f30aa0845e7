"""The README's links within itself lead somewhere, and its template example is valid."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from verifier.contract.judge_template import validate_template

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation dropped, spaces as hyphens.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _headings() -> set[str]:
    outside_code = re.sub(r"^```.*?^```", "", README, flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{2,4} (.+)$", outside_code, flags=re.M)}


def test_every_link_to_a_section_names_a_heading() -> None:
    links = set(re.findall(r"\]\(#([^)]+)\)", README))
    assert links - _headings() == set()
    assert {"your-first-contract", "judge-templates", "judge-providers-and-keys"} <= links


def test_the_judge_template_example_is_a_valid_pass_fail_template() -> None:
    start = README.index("A complete example, `judges/support.md`")
    example = re.search(r"```markdown\n(.*?)```", README[start:], flags=re.S)
    assert example is not None
    assert validate_template(example.group(1), "binary") == []
