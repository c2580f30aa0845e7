"""An export edited and sealed again before its import is refused: by its seals when
only the rows were hashed again, by the source's published head when the seals were
rewritten too. The source store is a SQLite file or a PostgreSQL schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._cli import verifier
from tests.gaps._backends import Backend, head_hash
from tests.gaps._support import begin, draft, finish
from verifier._internal.canonical import canonical_json
from verifier.gaps.chain import GENESIS, row_hash_of
from verifier.gaps.seals import seal_hash_of


def exported(backend: Backend, tmp_path: Path) -> Path:
    with backend.open() as store:
        for run_id in ("r1", "r2"):
            begin(store, run_id)
            drafts = [draft(n, run_id) for n in range(1, 13)]
            store.append(drafts[:5])
            store.append(drafts[5:])
            finish(store, run_id)
    out = tmp_path / "export.jsonl"
    result = verifier("export", "--store", backend.target, "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return out


def forge(path: Path, seq: int, *, reseal: bool) -> None:
    """Flips row ``seq`` to a pass and hashes every later row again (run and end lines
    to match); with ``reseal`` the seal lines too, as a forger who knows the scheme."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    hashes: dict[int, str] = {0: GENESIS}
    last_of: dict[str, str] = {}
    prev = GENESIS
    for line in lines:
        if line["schema"] != "verifier.gap-row.v1":
            continue
        if line["seq"] == seq:
            line["status"], line["score"] = "pass", 1.0
        line.pop("row_hash")
        line["prev_hash"] = prev
        prev = line["row_hash"] = row_hash_of(prev, canonical_json(line))
        hashes[line["seq"]] = last_of[line["run_id"]] = prev
    runs = {}
    for line in lines:
        if line["schema"] == "verifier.gap-export.run.v1":
            line["last_hash"] = line["summary"]["chain"]["last_hash"] = last_of[line["run_id"]]
            runs[line["run_id"]] = line
        elif line["schema"] == "verifier.gap-export.end.v1":
            line["last_hash"] = prev
    if reseal:
        prev_seal = GENESIS
        for line in lines:
            if line["schema"] != "verifier.gap-export.seal.v1":
                continue
            body = json.loads(line["body"])
            body["rows"]["hash"] = hashes[body["rows"]["seq"]]
            if line["kind"] == "end":
                body["run"]["summary"] = runs[line["subject"]]["summary"]
            body["prev_hash"] = line["prev_hash"] = prev_seal
            line["body"] = canonical_json(body).decode("utf-8")
            prev_seal = line["seal_hash"] = seal_hash_of(prev_seal, line["body"])
        lines[-1]["head"] = prev_seal
    text = "".join(_line(line) for line in lines)
    path.write_text(text, encoding="utf-8")


def _line(line: dict[str, Any]) -> str:
    if line["schema"] == "verifier.gap-row.v1":
        row_hash = line.pop("row_hash")
        return canonical_json(line).decode("utf-8")[:-1] + f',"row_hash":"{row_hash}"}}\n'
    return json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n"


def test_an_export_with_rows_hashed_again_is_refused_by_its_seals(
    store_backend: Backend, tmp_path: Path
) -> None:
    export = exported(store_backend, tmp_path)
    forge(export, 5, reseal=False)
    result = verifier("import", str(export), "--store", str(tmp_path / "t.db"), cwd=tmp_path)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "refused, nothing imported: seal 2 records row 5 with another hash" in result.stderr


def test_an_export_sealed_again_is_refused_against_the_published_head(
    store_backend: Backend, tmp_path: Path
) -> None:
    export = exported(store_backend, tmp_path)
    published = head_hash(store_backend)
    untouched = tmp_path / "untouched.jsonl"
    untouched.write_bytes(export.read_bytes())
    forge(export, 5, reseal=True)
    target = str(tmp_path / "t.db")
    # Only the head tells a consistent forgery from the real export.
    check = ("--store", target, "--expect-head", published)
    refused = verifier("import", str(export), *check, cwd=tmp_path)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"the export does not hold the published head {published}" in refused.stderr
    accepted = verifier("import", str(untouched), *check, cwd=tmp_path)
    assert accepted.returncode == 0, accepted.stderr
    assert (
        verifier("import", str(export), "--store", str(tmp_path / "u.db"), cwd=tmp_path).returncode
        == 0
    )


def _header(path: Path, **changes: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header.update(changes)
    lines[0] = json.dumps(header) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def test_an_export_whose_header_scope_was_changed_is_refused(
    store_backend: Backend, tmp_path: Path
) -> None:
    export = exported(store_backend, tmp_path)
    run_export = tmp_path / "r2.jsonl"
    made = verifier("export", "--run", "r2", "--store", store_backend.target, "--out", str(run_export),
                    cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    edits = {
        "a run export names its run, but its header's run_id is not one": (
            export,
            {"scope": "run"},
        ),
        "row 13 of run 'r2' in the export of run 'r1'": (export, {"scope": "run", "run_id": "r1"}),
        "a store export names no run, but its header names 'r2'": (run_export, {"scope": "store"}),
    }
    for number, (message, (source, changes)) in enumerate(edits.items()):
        edited = tmp_path / f"edited-{number}.jsonl"
        edited.write_bytes(source.read_bytes())
        _header(edited, **changes)
        target = tmp_path / f"t{number}.db"
        result = verifier("import", str(edited), "--store", str(target), cwd=tmp_path)
        assert result.returncode == 1, (changes, result.stdout + result.stderr)
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert "nothing imported" in result.stderr
    # Unedited, both import.
    for number, source in enumerate((export, run_export)):
        target = str(tmp_path / f"ok{number}.db")
        assert verifier("import", str(source), "--store", target, cwd=tmp_path).returncode == 0
