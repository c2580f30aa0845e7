"""A contract is validated with only the claim shapes it uses, and nothing else changes.

``validate_contract`` builds a ``Contract`` whose rubric claims may take only the
predicates the document names. Whatever the document, it must give what
``Contract.model_validate`` gives: an equal ``Contract``, or the same errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests._fuzz_files import edit_json
from tests.conftest import EXAMPLES, ROOT
from verifier.contract.models import Contract
from verifier.contract.validation import validate_contract
from verifier.rubric._registry import REGISTRY

SOURCES = {
    path.name: yaml.safe_load(path.read_text(encoding="utf-8"))
    for path in sorted(EXAMPLES.glob("*.yaml"))
}
CONTEXT = {"base_dir": EXAMPLES}


def _outcome(validate: Any, document: Any) -> Any:
    try:
        return validate(document, context=CONTEXT)
    except ValidationError as exc:
        return exc.errors(include_url=False, include_context=False)


def assert_same(document: Any) -> Any:
    """Validates ``document`` both ways and asserts the outcomes are equal."""
    lazy = _outcome(validate_contract, document)
    whole = _outcome(Contract.model_validate, document)
    assert lazy == whole
    if isinstance(lazy, Contract):
        assert type(lazy) is Contract
        assert lazy.model_fields_set == whole.model_fields_set
        assert lazy.model_dump() == whole.model_dump()
    return lazy


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_example_validates_to_the_same_contract(name: str) -> None:
    assert isinstance(assert_same(SOURCES[name]), Contract)


def _document(*claims: Any) -> dict[str, Any]:
    return {
        "contract": "shapes",
        "version": 1,
        "judges": {"j": {"provider": "anthropic", "model": "claude-haiku-4-5-20251001"}},
        "claims": list(claims),
    }


def _claim(name: str, **changes: Any) -> dict[str, Any]:
    return {"id": f"c-{name}", **REGISTRY[name].example, **changes}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_predicate_alone_and_broken_gives_the_same_outcome(name: str) -> None:
    assert isinstance(assert_same(_document(_claim(name))), Contract)
    broken = [
        _claim(name, surprise=1),
        {k: v for k, v in _claim(name).items() if k != "id"},
        {**_claim(name), **{key: [] for key in REGISTRY[name].example if key != "rubric"}},
        _claim(name, weight=-1, when="output[", after=3),
    ]
    for claim in broken:
        errors = assert_same(_document(claim, {"id": "j1", "judge": "j", "instruction": "ok"}))
        assert isinstance(errors, list) and errors


@pytest.mark.parametrize(
    "claims",
    [
        [{"id": "a", "rubric": "regexx", "field": "output", "pattern": "x"}],
        [{"id": "a", "rubric": 3}],
        [{"id": "a", "rubric": None, "judge": "j"}],
        ["regex"],
        [{"id": "a"}],
        [{"id": "a", "judge": "j"}, {"id": "b", "compare": "pairwise"}],
        [{"id": "a", "rubric": "not", "of": [{"rubric": "nope"}]}],
        [{"id": "a", "rubric": "any", "field": "output", "of": [{"rubric": "regex"}]}],
        [],
    ],
    ids=repr,
)
def test_claims_that_find_no_shape_give_the_same_errors(claims: list[Any]) -> None:
    assert assert_same(_document(*claims)) != []


def test_a_document_that_is_not_a_contract_gives_the_same_errors() -> None:
    for document in (None, [], "contract", {"contract": "x"}, {"claims": "all"}):
        assert isinstance(assert_same(document), list)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(SOURCES)),
    changes=st.lists(
        st.tuples(
            st.integers(min_value=0),
            st.sampled_from(["replace", "delete", "add"]),
            st.one_of(
                st.none(),
                st.integers(-3, 3),
                st.text(max_size=6),
                st.sampled_from(sorted(REGISTRY)),
                st.builds(lambda name: {"rubric": name}, st.sampled_from(sorted(REGISTRY))),
                st.lists(st.sampled_from(["output", "x"]), max_size=2),
            ),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_any_mutation_of_an_example_gives_the_same_outcome(
    name: str, changes: list[tuple[int, str, Any]]
) -> None:
    outcome = assert_same(edit_json(SOURCES[name], changes))
    event("a contract" if isinstance(outcome, Contract) else "errors")


# Checks a contract, then writes the names of the rubric predicates whose claim models
# are in a validator pydantic built, and whether it built the whole ``Contract``'s.
_PROBE = """\
import json, sys
from verifier.cli import main
from verifier.contract import models, rubric_claims
try:
    main(sys.argv[2:])
except SystemExit:
    pass
claim_models = {model: name for name, model in rubric_claims.RUBRIC_CLAIM_MODELS.items()}
found = set()
def walk(node):
    if isinstance(node, dict):
        if node.get("type") == "model" and node.get("cls") in claim_models:
            found.add(claim_models[node["cls"]])
        for value in node.values():
            walk(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            walk(value)
shaped = [m for m in models.Contract.__subclasses__() if m.__pydantic_complete__]
for model in shaped:
    walk(model.__pydantic_core_schema__)
report = {"built": sorted(found), "whole": models.Contract.__pydantic_complete__}
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(report, out)
"""


def _built_by_check(tmp_path: Path, *claims: dict[str, Any]) -> set[str]:
    """The predicates whose claim models ``verifier check`` built a validator for."""
    contract = tmp_path / "c.yaml"
    contract.write_text(yaml.safe_dump(_document(*claims)), encoding="utf-8")
    listing = tmp_path / "built.json"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(listing), "check", str(contract)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and ": ok:" in result.stdout, result.stdout + result.stderr
    report = json.loads(listing.read_text(encoding="utf-8"))
    assert report["whole"] is False
    return set(report["built"])


@pytest.mark.e2e
def test_check_builds_only_the_claim_shapes_the_contract_uses(tmp_path: Path) -> None:
    assert _built_by_check(tmp_path, _claim("regex"), _claim("range")) == {"regex", "range"}


@pytest.mark.e2e
def test_a_judge_contract_builds_no_rubric_claim_model(tmp_path: Path) -> None:
    assert _built_by_check(
        tmp_path, {"id": "polite", "judge": "j", "instruction": "Be polite"}
    ) == (set())
