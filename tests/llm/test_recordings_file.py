"""A recordings file is appended to: an entry never joins a last line left without
its newline (a file edited by hand), and line numbers stay right."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.conftest import EXAMPLES
from verifier.llm.cache import Recordings

SHIPPED = EXAMPLES / "account-research.recordings.jsonl"


def test_an_entry_is_appended_on_a_line_of_its_own(tmp_path: Path) -> None:
    first, second, *_ = SHIPPED.read_bytes().splitlines()
    path = tmp_path / "r.jsonl"
    path.write_bytes(first + b"\n" + second)  # no newline at the end
    recordings = Recordings(path)
    assert len(recordings) == 2
    entry = recordings.get(json.loads(first)["key"])
    assert entry is not None
    recordings.put(dataclasses.replace(entry, key="another-key"))
    recordings.put(dataclasses.replace(entry, key="a-third-key"))
    lines = path.read_bytes().splitlines()
    assert lines[:2] == [first, second] and len(lines) == 4
    again = Recordings(path)
    assert len(again) == 4
    assert again.source("another-key") == f"{path} line 3"
    assert recordings.source("a-third-key") == f"{path} line 4"
