"""The committed predicate reference matches the registry."""

from __future__ import annotations

from tests.conftest import ROOT
from verifier.rubric._registry import REGISTRY
from verifier.rubric.docs import render_reference


def test_committed_predicate_reference_is_current() -> None:
    committed = (ROOT / "docs" / "reference" / "predicates.md").read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/reference/predicates.md is stale: run `python -m verifier.rubric.docs`"
    )


def test_every_predicate_has_a_section() -> None:
    text = render_reference()
    for name in REGISTRY:
        assert f"## `{name}`" in text


def test_every_key_of_every_predicate_is_in_its_table_with_its_default() -> None:
    text = render_reference()
    for name in ("all", "any", "not"):
        section = text.split(f"## `{name}`", 1)[1].split("\n## ", 1)[0]
        assert "| `of` | list of predicate | required |" in section
        assert "| `field` | string | None |" in section
        assert "```yaml" in section
    similar = text.split("## `similar`", 1)[1].split("\n## ", 1)[0]
    assert "| `min_ratio` | number, 0-100 | 90.0 |" in similar


def test_the_page_says_which_scale_similarity_keys_use() -> None:
    text = render_reference()
    assert "**Scales.**" in text and "0-100 scale" in text and "did you mean 80?" in text
