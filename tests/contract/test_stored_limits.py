"""`check` refuses, at its line, a number the stores or a JSON report could not hold:
`run` would otherwise fail after it started, or score every case as nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier

CLAIM = "claims:\n  - id: x\n    rubric: present\n    field: output\n"


def _contract(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "output": "hi"}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("version", ["2147483648", "99999999999999999999"])
def test_a_version_no_store_can_hold_is_refused_at_its_line(tmp_path: Path, version: str) -> None:
    path = _contract(tmp_path, f"contract: demo\nversion: {version}\n{CLAIM}")
    for command in (("check", str(path)), ("run", str(path), "--cases", "cases.jsonl")):
        result = verifier(*command, cwd=tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"{path}:2:10: version: input should be less than or equal to 2147483647" in (
            result.stdout + result.stderr
        )
        assert_no_traceback(result)


def test_the_largest_version_a_store_holds_is_run_and_stored(tmp_path: Path) -> None:
    path = _contract(tmp_path, f"contract: demo\nversion: 2147483647\n{CLAIM}")
    result = verifier("run", str(path), "--cases", "cases.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = verifier("runs", cwd=tmp_path)
    assert "2147483647" in listed.stdout, listed.stdout + listed.stderr


def _weighted(*weights: str) -> str:
    claims = "".join(
        f"  - id: c{i}\n    rubric: present\n    field: output\n    weight: {weight}\n"
        for i, weight in enumerate(weights)
    )
    return f"contract: demo\nversion: 1\nclaims:\n{claims}"


@pytest.mark.parametrize(
    ("weights", "where", "message"),
    [
        ((".inf",), "7:13", "claim 'c0': weight: should be a finite number (got inf)"),
        (("1", "-.inf"), "11:13", "claim 'c1': weight: should be a finite number (got -inf)"),
        (
            ("1e308", "1", "1e308"),
            "15:13",
            "claim 'c2': weight: the claims' weights add up to more than a number holds",
        ),
    ],
)
def test_a_weight_a_score_cannot_be_computed_with_is_refused_at_its_line(
    tmp_path: Path, weights: tuple[str, ...], where: str, message: str
) -> None:
    path = _contract(tmp_path, _weighted(*weights))
    for command in (("check", str(path)), ("run", str(path), "--cases", "cases.jsonl")):
        result = verifier(*command, cwd=tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"{path}:{where}: {message}" in result.stdout + result.stderr
        assert_no_traceback(result)


def test_large_finite_weights_still_score_a_case(tmp_path: Path) -> None:
    path = _contract(tmp_path, _weighted("1e307", "1e307"))
    result = verifier("run", str(path), "--cases", "cases.jsonl", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"average_score":1.0' in result.stdout
