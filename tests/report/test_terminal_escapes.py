"""Escape sequences in case text reach the terminal escaped, never raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES
from verifier._internal.terminal import printable, printable_line

CONTRACT = EXAMPLES / "data-extraction.yaml"
# Clear the screen, an OSC 8 hyperlink ended by BEL, rich markup, CR and backspace.
EVIL_ID = "evil\x1b[2J\x1b]8;;http://x.example\x07[bold]id[/bold]\r\x08"
SHOWN_ID = "evil\\x1b[2J\\x1b]8;;http://x.example\\x07[bold]id[/bold]\\r\\x08"
RAW = ("\x1b", "\x07", "\x08", "\r", "\x9b")


def _assert_no_raw_controls(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text)


@pytest.fixture
def evil_run(tmp_path: Path) -> tuple[Path, str]:
    """A stored run of one failing case whose id, output and reason carry escapes."""
    case = json.loads((EXAMPLES / "data-extraction.cases.jsonl").read_text().splitlines()[1])
    case["id"] = EVIL_ID
    case["fields"]["industry"] = "\x1b[31mrobotics\x9b2J"  # quoted by the claim's reason
    case["output"] = "\x1b]0;pwned\x07\x1b[31mred\u202eevil"
    cases = tmp_path / "evil.jsonl"
    cases.write_text(json.dumps(case) + "\n", encoding="utf-8")
    return cases, str(tmp_path / "gaps.db")


def _stored(tmp_path: Path, evil_run: tuple[Path, str]) -> tuple[str, str]:
    """Runs the evil case; returns the run id and the store."""
    cases, store = evil_run
    ran = verifier("run", str(CONTRACT), "--cases", str(cases), "--store", store, cwd=tmp_path)
    return ran.stderr.split("run ", 1)[1].split(":", 1)[0], store


def test_the_console_report_and_annotations_escape_case_text(
    tmp_path: Path, evil_run: tuple[Path, str]
) -> None:
    cases, store = evil_run
    result = verifier(
        "run", str(CONTRACT), "--cases", str(cases), "--store", store,
        "--annotations", "github", cwd=tmp_path,
    )  # fmt: skip

    assert result.returncode == 1, result.stderr
    _assert_no_raw_controls(result.stdout)
    _assert_no_raw_controls(result.stderr)
    assert "evil\\x1b[2J" in result.stdout  # the table cuts the id; its start shows
    assert "'\\x1b[31mrobotics\\x9b2J'" in result.stdout
    annotations = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert annotations and all(SHOWN_ID in line for line in annotations)


def test_show_escapes_the_case_id_output_reason_and_evidence(
    tmp_path: Path, evil_run: tuple[Path, str]
) -> None:
    run_id, store = _stored(tmp_path, evil_run)

    result = verifier("show", run_id, EVIL_ID, "--store", store, cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    _assert_no_raw_controls(result.stdout)
    assert f"case {SHOWN_ID} of run" in result.stdout
    assert "\\x1b]0;pwned\\x07\\x1b[31mred\\u202eevil" in result.stdout
    assert "[bold]id[/bold]" in result.stdout  # markup prints as written


def test_an_error_line_quoting_a_case_id_is_escaped(
    tmp_path: Path, evil_run: tuple[Path, str]
) -> None:
    run_id, store = _stored(tmp_path, evil_run)

    result = verifier("show", run_id, "nope\x1b[2J\x07", "--store", store, cwd=tmp_path)

    assert result.returncode == 2
    assert_no_traceback(result)
    _assert_no_raw_controls(result.stderr)
    assert "nope\\x1b[2J\\x07" in result.stderr


def test_printable_escapes_controls_visibly_and_keeps_line_breaks() -> None:
    text = "a\x1b[1mb\x9b\x07\x08\r\x7f\u2028\u202e\u2066\x00\tc\nd"
    assert printable(text) == ("a\\x1b[1mb\\x9b\\x07\\x08\\r\\x7f\\u2028\\u202e\\u2066\\x00\tc\nd")
    assert printable_line("x\ty\nz") == "x\\ty\\nz"
    assert printable("plain text, ünïcode ✔ [bold]") == "plain text, ünïcode ✔ [bold]"
