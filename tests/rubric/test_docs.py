"""The committed predicate reference matches the registry."""

from __future__ import annotations

from tests.conftest import ROOT
from verifier.rubric._registry import REGISTRY
from verifier.rubric.docs import render_reference


def test_committed_predicate_reference_is_current() -> None:
    committed = (ROOT / "docs" / "predicates.md").read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/predicates.md is stale: run `python -m verifier.rubric.docs`"
    )


def test_every_predicate_has_a_section() -> None:
    text = render_reference()
    for name in REGISTRY:
        assert f"## `{name}`" in text
