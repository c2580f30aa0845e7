from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests._cli import assert_no_traceback, verifier
from verifier.rubric._json_schema import pointer

Make = Callable[..., Any]
INLINE = {
    "rubric": "json_schema",
    "field": "output",
    "schema": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    },
}
FILE = {"rubric": "json_schema", "field": "output", "schema_file": "schemas/answer.schema.json"}
GOOD = {"answer": "Yes", "sources": ["https://example.com/report"], "confidence": 0.9}


def test_matching_object_passes(make_check: Make) -> None:
    assert make_check(INLINE)({"output": {"name": "Acme", "tags": ["a"]}}).status == "pass"


def test_text_is_parsed_as_json_first(make_check: Make) -> None:
    assert make_check(INLINE)({"output": '{"name": "Acme"}'}).status == "pass"


def test_text_that_is_not_json_fails_with_the_parse_error(make_check: Make) -> None:
    outcome = make_check(INLINE)({"output": "Sure! Here is the JSON: {"})
    assert outcome.status == "fail"
    assert outcome.reason.startswith("output is not valid JSON: Expecting value: line 1 column 1")
    assert "line 1 column 1" in outcome.evidence["error"]


def test_nan_literal_is_not_json(make_check: Make) -> None:
    outcome = make_check({**INLINE, "schema": {}})({"output": "NaN"})
    assert outcome.status == "fail"
    assert "not valid JSON" in outcome.reason


def test_big_integers_in_text_are_still_json(make_check: Make) -> None:
    check = make_check({**INLINE, "schema": {"type": "integer"}})
    assert check({"output": str(2**70)}).status == "pass"


def test_schema_errors_give_pointer_message_and_value(make_check: Make) -> None:
    outcome = make_check(INLINE)({"output": {"name": "Acme", "tags": ["a", 7]}})
    assert outcome.status == "fail"
    assert (
        outcome.reason == 'output breaks the schema (1 error): 7 is not of type "string" at /tags/1'
    )
    assert outcome.evidence["errors"] == [
        {"pointer": "/tags/1", "message": '7 is not of type "string"', "value": 7}
    ]


def test_root_error_is_named_the_top_level(make_check: Make) -> None:
    outcome = make_check(INLINE)({"output": []})
    assert outcome.reason.endswith("at the top level")
    assert outcome.evidence["errors"][0]["pointer"] == ""


def test_errors_are_reported_up_to_a_limit(make_check: Make) -> None:
    check = make_check({**INLINE, "schema": {"type": "array", "items": {"type": "string"}}})
    outcome = check({"output": list(range(9))})
    assert len(outcome.evidence["errors"]) == 5
    assert outcome.evidence["more_errors"] is True
    assert "(5+ errors)" in outcome.reason


def test_long_offending_values_are_truncated(make_check: Make) -> None:
    check = make_check({**INLINE, "schema": {"type": "object"}})
    outcome = check({"output": ["x" * 500]})
    assert len(outcome.evidence["errors"][0]["value"]) <= 80
    assert len(outcome.evidence["errors"][0]["message"]) <= 200


def test_schema_file_is_read_relative_to_the_contract(make_check: Make) -> None:
    check = make_check(FILE)
    assert check({"output": GOOD}).status == "pass"
    outcome = check({"output": {**GOOD, "extra": 1}})
    assert outcome.status == "fail"
    assert "extra" in outcome.reason


def test_formats_are_checked(make_check: Make) -> None:
    check = make_check({**INLINE, "schema": {"type": "string", "format": "date"}})
    assert check({"output": '"2024-02-30"'}).status == "fail"
    assert check({"output": '"2024-02-28"'}).status == "pass"


def test_yaml_schema_file(make_check: Make) -> None:
    check = make_check({**FILE, "schema_file": "schemas/answer.schema.yaml"})
    assert check({"output": {"answer": "x"}}).status == "pass"
    assert check({"output": {"answer": 1}}).status == "fail"


def test_missing_schema_file_is_a_validation_error_with_context(
    make_claim: Make, fixtures_dir: Path
) -> None:
    with pytest.raises(ValidationError, match=r"'schemas/nope\.json' does not exist"):
        make_claim({**FILE, "schema_file": "schemas/nope.json"}, {"base_dir": fixtures_dir})


def test_missing_schema_file_is_caught_when_preparing(make_check: Make, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        make_check(FILE, base_dir=tmp_path)


@pytest.mark.parametrize(
    ("name", "message"),
    [("invalid.schema.json", "invalid JSON Schema"), ("broken.schema.json", "not valid JSON")],
)
def test_bad_schema_files_are_validation_errors(
    make_claim: Make, fixtures_dir: Path, name: str, message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        make_claim({**FILE, "schema_file": f"schemas/{name}"}, {"base_dir": fixtures_dir})


@pytest.mark.parametrize("name", ["deep.json", "deep.yaml"])
def test_schema_file_nested_thousands_deep_is_one_located_problem(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_bytes(b"[" * 3000 + b"\n")
    (tmp_path / "c.yaml").write_text(
        "contract: c\nversion: 1\nclaims:\n  - id: shaped\n    rubric: json_schema\n"
        f"    field: output\n    schema_file: {name}\n",
        encoding="utf-8",
    )
    result = verifier("check", "c.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert_no_traceback(result)
    problem = (
        "nests too deeply to read"
        if name.endswith(".json")
        else "line 1 column 66: document nests deeper than 64 levels"
    )
    assert result.stdout == f"c.yaml:4:5: claim 'shaped': schema_file '{name}' {problem}\n"


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
    f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
    f" *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


def contract_reading(folder: Path, schema_file: str) -> None:
    """Writes ``c.yaml``: one json_schema claim reading ``schema_file``."""
    (folder / "c.yaml").write_text(
        "contract: c\nversion: 1\nclaims:\n  - id: shaped\n    rubric: json_schema\n"
        f"    field: output\n    schema_file: {schema_file}\n",
        encoding="utf-8",
    )


def test_a_schema_file_that_is_a_yaml_alias_bomb_is_refused_before_it_expands(
    tmp_path: Path,
) -> None:
    # About 600 bytes that expand to 10**10 nodes: the contract's node cap applies.
    (tmp_path / "bomb.yaml").write_text(ALIAS_BOMB, encoding="utf-8")
    contract_reading(tmp_path, "bomb.yaml")
    result = verifier("check", "c.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert_no_traceback(result)
    assert "schema_file 'bomb.yaml'" in result.stdout and "alias expansion" in result.stdout


def test_a_schema_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    from verifier._internal.yaml_positions import MAX_BYTES

    (tmp_path / "big.json").write_text('{"description": "' + "x" * MAX_BYTES + '"}')
    contract_reading(tmp_path, "big.json")
    result = verifier("check", "c.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert f"are limited to {MAX_BYTES} bytes" in result.stdout


def test_without_context_the_file_is_left_for_prepare(make_claim: Make) -> None:
    claim = make_claim({**FILE, "schema_file": "schemas/nope.json"})
    assert claim.schema_file == "schemas/nope.json"


def test_invalid_inline_schema_is_a_validation_error(make_claim: Make) -> None:
    with pytest.raises(ValidationError, match="invalid JSON Schema at /type"):
        make_claim({**INLINE, "schema": {"type": "objekt"}})


@pytest.mark.parametrize(
    "spec",
    [
        {"rubric": "json_schema", "field": "output"},
        {**FILE, "schema": {"type": "object"}},
        {**INLINE, "schema_": {}},
    ],
)
def test_exactly_one_schema_source_is_required(make_claim: Make, spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim(spec)


def test_unresolvable_ref_is_an_error_not_a_fail(make_check: Make) -> None:
    check = make_check({**INLINE, "schema": {"$ref": "https://example.invalid/schema.json"}})
    outcome = check({"output": {}})
    assert outcome.status == "error"
    assert "unresolvable $ref" in outcome.reason


def test_missing_field_fails_naming_the_path(make_check: Make) -> None:
    assert make_check(INLINE)({}).reason == "field output is missing"


def test_wildcard_validates_every_value(make_check: Make) -> None:
    check = make_check({**INLINE, "field": "items.*"})
    outcome = check({"items": [{"name": "a"}, '{"name": 3}']})
    assert (outcome.status, outcome.evidence["path"]) == ("fail", "items.1")


def test_pointer_escapes_tilde_and_slash() -> None:
    assert pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(_json)
def test_json_text_and_its_value_validate_alike(make_check: Make, value: Any) -> None:
    check = make_check(
        {**INLINE, "schema": {"type": "object", "additionalProperties": {"type": "integer"}}}
    )
    assert check({"output": value}).status == check({"output": json.dumps(value)}).status


@pytest.fixture
def schema_server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that would serve any schema and records every request."""
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = b'{"type": "object"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()


def test_remote_ref_is_never_fetched(
    make_check: Make, schema_server: tuple[str, list[str]]
) -> None:
    base, requests = schema_server
    check = make_check({**INLINE, "schema": {"$ref": f"{base}/answer.schema.json"}})
    outcome = check({"output": {}})
    assert outcome.status == "error"
    assert f"{base}/answer.schema.json" in outcome.reason
    assert requests == []


def test_remote_ref_in_a_schema_file_is_never_fetched(
    make_check: Make, schema_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    base, requests = schema_server
    (tmp_path / "remote.schema.json").write_text(
        json.dumps({"properties": {"a": {"$ref": f"{base}/a.json"}}}), encoding="utf-8"
    )
    check = make_check({**FILE, "schema_file": "remote.schema.json"}, base_dir=tmp_path)
    assert check({"output": {"a": 1}}).status == "error"
    assert requests == []


def test_unknown_meta_schema_means_2020_12_and_is_not_fetched(
    make_check: Make, schema_server: tuple[str, list[str]]
) -> None:
    base, requests = schema_server
    check = make_check({**INLINE, "schema": {"$schema": f"{base}/meta", "type": "integer"}})
    assert check({"output": 3}).status == "pass"
    assert check({"output": '"3"'}).status == "fail"
    assert requests == []


def test_local_refs_resolve(make_check: Make) -> None:
    schema = {"$defs": {"name": {"type": "string"}}, "properties": {"n": {"$ref": "#/$defs/name"}}}
    check = make_check({**INLINE, "schema": schema})
    assert check({"output": {"n": "x"}}).status == "pass"
    assert check({"output": {"n": 1}}).evidence["errors"][0]["pointer"] == "/n"


def test_older_drafts_are_checked_against_their_own_meta_schema(make_claim: Make) -> None:
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "objekt"}
    with pytest.raises(ValidationError, match="invalid JSON Schema at /type"):
        make_claim({**INLINE, "schema": draft4})


def test_invalid_pattern_in_a_schema_is_a_validation_error(make_claim: Make) -> None:
    with pytest.raises(ValidationError, match="invalid JSON Schema at /properties/a/pattern"):
        make_claim({**INLINE, "schema": {"properties": {"a": {"pattern": "["}}}})


def test_values_without_errors_use_the_fast_path_and_failures_list_every_error(
    make_check: Make,
) -> None:
    check = make_check({**INLINE, "schema": {"required": ["a", "b"]}})
    outcome = check({"output": {}})
    assert [e["message"] for e in outcome.evidence["errors"]] == [
        '"a" is a required property',
        '"b" is a required property',
    ]
    assert outcome.evidence["more_errors"] is False
