"""``verifier init``: a starter project that checks clean and runs offline, no key."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path

from tests._cli import verifier
from verifier.contract.judge_template import PLACEHOLDERS
from verifier.gaps.store import open_store

NAME = "support-answers"
NO_KEYS = ("ANTHROPIC_", "OPENAI_")
STARTER = (
    f"{NAME}.yaml",
    f"{NAME}.cases.jsonl",
    "judges/strict.md",
    "judges/README.md",
    f"{NAME}.recordings.jsonl",
)


def test_init_then_check_then_run_offline_passes_with_every_row_stored(tmp_path: Path) -> None:
    made = verifier("init", "evals", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    for name in STARTER:
        assert (tmp_path / "evals" / name).is_file(), name
    # The three next commands, runnable as printed.
    shown = made.stdout.splitlines()
    nexts = shown[shown.index("next:") + 1 :]
    assert nexts == [
        "  verifier check evals",
        f"  verifier run evals/{NAME}.yaml --cases evals/{NAME}.cases.jsonl",
        "  verifier report --html report.html",
    ]

    checked = verifier(*shlex.split(nexts[0])[1:], cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"evals/{NAME}.yaml: ok: {NAME} v1, 6 claims" in checked.stdout
    assert "error" not in checked.stdout + checked.stderr

    ran = verifier(
        *shlex.split(nexts[1])[1:], "--format", "json", cwd=tmp_path, clear_prefixes=NO_KEYS
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    assert (report["total_cases"], report["passed_cases"]) == (4, 4)

    with open_store(str(tmp_path / ".verifier" / "gaps.db")) as store:
        rows = list(store.iter_rows(report["run_id"]))
    assert len(rows) == 4 * 6
    assert {row.status for row in rows} == {"pass"}
    assert Counter(row.kind for row in rows) == {"rubric": 16, "judge": 4, "comparative": 4}
    judged = [json.loads(row.body) for row in rows if row.kind != "rubric"]
    # Replayed from the recordings init wrote: marked as hand-written, never a model's.
    assert {row["evidence"]["judge"]["model_id"] for row in judged} == {"example/hand-written"}

    page = verifier(*shlex.split(nexts[2])[1:], cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    assert (tmp_path / "report.html").is_file()


def test_init_writes_into_the_current_directory_under_another_name(tmp_path: Path) -> None:
    made = verifier("init", "--name", "faq", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "faq.yaml").read_text(encoding="utf-8").count("contract: faq ") == 1
    ran = verifier(
        "run", "faq.yaml", "--cases", "faq.cases.jsonl", cwd=tmp_path, clear_prefixes=NO_KEYS
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "judges").mkdir()
    (tmp_path / "judges" / "strict.md").write_text("mine", encoding="utf-8")
    (tmp_path / f"{NAME}.yaml").write_text("mine", encoding="utf-8")
    refused = verifier("init", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stdout == ""
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in refused.stderr
    assert f"{NAME}.yaml" in lines[0] and "judges/strict.md" in lines[0]
    assert "--force" in lines[0]
    assert (tmp_path / f"{NAME}.yaml").read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / f"{NAME}.cases.jsonl").exists()

    forced = verifier("init", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / f"{NAME}.yaml").read_text(encoding="utf-8") != "mine"
    again = verifier(
        "run",
        f"{NAME}.yaml",
        "--cases",
        f"{NAME}.cases.jsonl",
        cwd=tmp_path,
        clear_prefixes=NO_KEYS,
    )
    assert again.returncode == 0, again.stdout + again.stderr


def test_init_refuses_a_name_that_cannot_be_a_contract_id(tmp_path: Path) -> None:
    refused = verifier("init", "--name", "My Evals", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--name 'My Evals'" in refused.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_starter_template_explains_every_placeholder(tmp_path: Path) -> None:
    assert verifier("init", cwd=tmp_path).returncode == 0
    explained = (tmp_path / "judges" / "README.md").read_text(encoding="utf-8")
    for name in PLACEHOLDERS:
        assert f"`{{{{{name}}}}}`" in explained, name
    assert "<!-- dynamic -->" in explained
